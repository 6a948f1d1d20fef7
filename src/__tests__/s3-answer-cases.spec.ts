import { s3AnswerCode } from '../s3/diagnosis';
import { sharedCases } from './fakes/cases';

/**
 * What S3's answers mean reads alike in both languages
 * (jupyterlab_bookshelf/tests/test_s3_answer_cases.py runs the same cases on
 * the server's s3_answer_code).
 */
const cases = sharedCases<{
  case: string;
  name: string;
  status: number | null;
  key: string | null;
  version_id?: string;
  expected: string | null;
}>('s3_answer_cases.json');

describe('the shared S3 answer cases', () => {
  it('has the cases', () => {
    expect(cases.length).toBeGreaterThan(30);
  });

  it.each(cases.map(c => [c.case, c]))('%s', (_, sample) => {
    expect(
      s3AnswerCode(sample.name, sample.status ?? undefined, {
        key: sample.key ?? undefined,
        versionId: sample.version_id
      }) ?? null
    ).toBe(sample.expected);
  });
});
