import { etagMd5 } from '../s3/integrity';
import { sharedCases } from './fakes/cases';

/**
 * Which ETags are an MD5 reads alike in both languages
 * (jupyterlab_bookshelf/tests/test_etag_cases.py runs the same cases on the
 * server's etag_md5).
 */
const cases = sharedCases<{
  case: string;
  etag: string | null;
  encryption?: string;
  sse_customer?: string;
  expected: string | null;
}>('etag_cases.json');

describe('the shared ETag cases', () => {
  it('has the cases', () => {
    expect(cases.length).toBeGreaterThan(10);
  });

  it.each(cases.map(c => [c.case, c]))('%s', (_, sample) => {
    expect(
      etagMd5({
        etag: sample.etag ?? undefined,
        serverSideEncryption: sample.encryption,
        sseCustomerAlgorithm: sample.sse_customer
      })
    ).toBe(sample.expected);
  });
});
