import { readCloneQuery, validateCloneRequest } from '../clone/request';
import {
  checkPublishBucket,
  checkPublishDestination,
  cloneUrl,
  publishKey,
  s3Path
} from '../publish/destination';
import { readPublishTarget } from '../publish/publish';
import { DEFAULT_SETTINGS } from '../settings/parse';
import { sharedCases } from './fakes/cases';

describe('publishKey', () => {
  it.each([
    ['', 'q3.ipynb', 'q3.ipynb'],
    ['', '/q3.ipynb', 'q3.ipynb'],
    ['', '//q3.ipynb', '/q3.ipynb'],
    ['notebooks/', 'q3.ipynb', 'notebooks/q3.ipynb'],
    ['notebooks/', 'work/q3.ipynb', 'notebooks/work/q3.ipynb'],
    ['notebooks/', '/work/q3.ipynb', 'notebooks/work/q3.ipynb'],
    ['a/b/', 'c d/é.ipynb', 'a/b/c d/é.ipynb'],
    // A prefix without a trailing slash is used as it is.
    ['team-', 'q3.ipynb', 'team-q3.ipynb'],
    ['notebooks', 'q3.ipynb', 'notebooksq3.ipynb']
  ])('prefix %j and path %j give %j', (prefix, path, key) => {
    expect(publishKey(prefix, path)).toBe(key);
  });
});

describe('s3Path', () => {
  it('writes s3://bucket/key without encoding', () => {
    expect(s3Path('published', 'notebooks/a b/é.ipynb')).toBe(
      's3://published/notebooks/a b/é.ipynb'
    );
  });
});

describe('cloneUrl', () => {
  const request = { s3_bucket: 'published', s3_key: 'notebooks/q3.ipynb' };
  const query = 's3_bucket=published&s3_key=notebooks%2Fq3.ipynb';

  it("is the site's JupyterLab with the clone parameter for a JupyterLite site, which has no landing page", () => {
    expect(
      cloneUrl('https://example.github.io', '/lite/', request, 'lite')
    ).toBe(
      `https://example.github.io/lite/lab/index.html?bookshelf-clone&${query}`
    );
    expect(cloneUrl('http://127.0.0.1:8000', '/', request, 'lite')).toBe(
      `http://127.0.0.1:8000/lab/index.html?bookshelf-clone&${query}`
    );
  });

  it.each([
    [
      'https://hub.example.org',
      '/',
      `https://hub.example.org/bookshelf/clone?${query}`
    ],
    [
      'https://hub.example.org/',
      '/',
      `https://hub.example.org/bookshelf/clone?${query}`
    ],
    [
      'http://127.0.0.1:8888',
      '',
      `http://127.0.0.1:8888/bookshelf/clone?${query}`
    ],
    [
      'https://hub.example.org',
      '/user/ana/',
      `https://hub.example.org/user/ana/bookshelf/clone?${query}`
    ],
    [
      'https://hub.example.org',
      '/user/ana',
      `https://hub.example.org/user/ana/bookshelf/clone?${query}`
    ],
    [
      'https://hub.example.org/',
      'user/ana/',
      `https://hub.example.org/user/ana/bookshelf/clone?${query}`
    ],
    [
      'https://hub.example.org',
      '/user/ana%40x/',
      `https://hub.example.org/user/ana%40x/bookshelf/clone?${query}`
    ]
  ])('origin %j and base URL %j give %s', (origin, baseUrl, url) => {
    expect(cloneUrl(origin, baseUrl, request)).toBe(url);
  });

  it('adds the version id when there is one', () => {
    expect(
      cloneUrl('https://hub.example.org', '/', {
        ...request,
        s3_version_id: '3HL4kqtJ+lcp/Xro='
      })
    ).toBe(
      `https://hub.example.org/bookshelf/clone?${query}&s3_version_id=3HL4kqtJ%2Blcp%2FXro%3D`
    );
  });

  it('gives a link whose query names the same object and is valid', () => {
    const published = {
      s3_bucket: 'published',
      s3_key: 'notebooks/a b/ü & c+d?.ipynb',
      s3_version_id: 'v+1/2='
    };
    const url = new URL(cloneUrl('https://hub.example.org', '/', published));
    expect(url.pathname).toBe('/bookshelf/clone');
    const read = readCloneQuery(url.search);
    expect(read).toEqual(published);
    expect(validateCloneRequest(read)).toEqual([]);
  });
});

describe('checkPublishDestination', () => {
  it.each([
    'q3.ipynb',
    'notebooks/work/q3.ipynb',
    'notebooks/a b/é ü.ipynb',
    // 1024 bytes, the most a key may have.
    'folder/'.repeat(144) + 'abcdefghij.ipynb'
  ])('accepts %j', key => {
    expect(checkPublishDestination('published', key)).toBeNull();
  });

  it.each([
    [
      'a right-to-left override',
      'notebooks/evil\u202ebnpi.txt.ipynb',
      'bidirectional'
    ],
    ['a left-to-right mark', 'notebooks/a\u200e.ipynb', 'bidirectional'],
    ['a first-strong isolate', 'a\u2068b.ipynb', 'bidirectional'],
    ['a NUL', 'notebooks/a\u0000.ipynb', 'control characters'],
    ['a bell', 'a\u0007.ipynb', 'control characters'],
    ['a newline', 'a\nb.ipynb', 'control characters'],
    ['a C1 control', 'a\u0085.ipynb', 'control characters'],
    ['a text file', 'notebooks/q3.txt', "must end in '.ipynb'"],
    ['an upper-case extension', 'notebooks/q3.IPYNB', "must end in '.ipynb'"],
    ['no extension', 'notebooks/q3', "must end in '.ipynb'"],
    ['a folder', 'notebooks/q3.ipynb/', "ends with '/'"],
    ['1025 bytes', 'x'.repeat(1019) + '.ipynb', '1 to 1024 bytes'],
    [
      '1026 bytes of multi-byte text',
      'é'.repeat(510) + '.ipynb',
      '1 to 1024 bytes'
    ],
    ['a .. segment', 'notebooks/../admin/q3.ipynb', "'..' segment"],
    ['a . segment', 'notebooks/./q3.ipynb', "'.' segment"],
    ['a hidden name', 'notebooks/.q3.ipynb', 'starts with a dot'],
    [
      'a name over 255 bytes',
      'notebooks/' + 'n'.repeat(250) + '.ipynb',
      '255 bytes'
    ],
    ['nothing', '', 'empty']
  ])('refuses %s', (_, key, rule) => {
    const problem = checkPublishDestination('published', key);
    expect(problem).toContain(rule);
    // The message never carries the character it refuses.
    expect(problem).not.toMatch(
      // eslint-disable-next-line no-control-regex -- the point is to find them
      /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/
    );
  });

  it('refuses an invalid bucket name, pointing at the settings', () => {
    const problem = checkPublishDestination('Published_Notebooks', 'q3.ipynb');
    expect(problem).toContain('bucket');
    expect(problem).toContain("'Publish bucket'");
    expect(checkPublishBucket('published')).toBeNull();
    expect(checkPublishBucket('')).toContain('No publish bucket is set');
  });
});

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

const resolutions = sharedCases<{
  name: string;
  path: unknown;
  destination?: unknown;
  publish_bucket: string;
  publish_prefix: string;
  outcome: { bucket: string; key: string } | { code: string; message: string };
}>('publish_destination_cases.json', 'resolve');

describe('the shared publish request cases', () => {
  it('has them, wrongly typed paths included', () => {
    expect(resolutions.length).toBeGreaterThan(15);
  });

  it.each(resolutions.map(c => [c.name, c]))('%s', async (_, c) => {
    const store = { headObject: async () => null } as any;
    const settings = {
      ...DEFAULT_SETTINGS,
      publishBucket: c.publish_bucket,
      publishPrefix: c.publish_prefix
    };
    const outcome = await readPublishTarget(
      { store },
      c.path as string,
      settings,
      c.destination as string | undefined
    ).then(
      ({ bucket, key }) => ({ bucket, key }),
      error => ({ code: error.code, message: error.message })
    );
    expect(outcome).toEqual(c.outcome);
  });
});
