import { parseSettings } from '../settings/parse';
import { sharedCases } from './fakes/cases';

/**
 * The settings that say where S3 is read alike in both languages
 * (jupyterlab_bookshelf/tests/test_settings_cases.py runs the same cases on
 * the server's S3Settings.from_settings).
 */
const cases = sharedCases<{
  case: string;
  settings: unknown;
  expected: { [name: string]: unknown };
}>('settings_cases.json');

describe('the shared settings cases', () => {
  it('has the cases', () => {
    expect(cases.length).toBeGreaterThan(20);
  });

  it.each(cases.map(c => [c.case, c]))('%s', (_, sample) => {
    const settings = parseSettings(sample.settings);
    expect({
      endpoint_url: settings.endpointUrl,
      // What the S3 client uses (src/s3/client.ts).
      region: settings.region || 'us-east-1',
      force_path_style: settings.forcePathStyle,
      publish_bucket: settings.publishBucket,
      publish_prefix: settings.publishPrefix,
      overwrite_policy: settings.overwritePolicy,
      allowed_buckets: settings.allowedBuckets,
      max_object_size_mb: settings.maxObjectSizeMB
    }).toEqual(sample.expected);
  });
});
