import {
  checkPublishBucket,
  checkPublishDestination,
  cloneUrl,
  publishKey,
  s3Path
} from '../publish/destination';
import { sharedCases } from './fakes/cases';

/**
 * Publish destinations on the cases the server extension is tested on too
 * (jupyterlab_bookshelf/tests/test_publish_destination_cases.py).
 */
const [server] = sharedCases<{ origin: string; base_url: string }>(
  'publish_destination_cases.json',
  'servers'
);
const cases = sharedCases<{
  name: string;
  bucket: string;
  prefix: string;
  path: string;
  version_id?: string;
  key: string;
  problem: string | null;
  s3_path?: string;
  clone_url?: string;
}>('publish_destination_cases.json');
const buckets = sharedCases<{
  name: string;
  bucket: string;
  problem: string | null;
}>('publish_destination_cases.json', 'buckets');

describe('the shared publish destination cases', () => {
  it('has them', () => {
    expect(cases.length).toBeGreaterThan(20);
    expect(cases.filter(c => c.problem === null).length).toBeGreaterThan(5);
  });

  it.each(cases.map(c => [c.name, c]))('%s', (_, c) => {
    const key = publishKey(c.prefix, c.path);
    expect(key).toBe(c.key);
    expect(checkPublishDestination(c.bucket, key)).toBe(c.problem);
    if (c.problem === null) {
      expect(s3Path(c.bucket, key)).toBe(c.s3_path);
      expect(
        cloneUrl(server.origin, server.base_url, {
          s3_bucket: c.bucket,
          s3_key: key,
          s3_version_id: c.version_id
        })
      ).toBe(c.clone_url);
    }
  });

  it.each(buckets.map(c => [c.name, c]))(
    'publish bucket: %s',
    (_, { bucket, problem }) => {
      expect(checkPublishBucket(bucket)).toBe(problem);
    }
  );
});
