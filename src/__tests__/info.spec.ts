import { ServerConnection } from '@jupyterlab/services';

import { BookshelfModel } from '../service/model';
import type { ICorsRule } from '../s3/cors';
import { CredentialsProvider, ICredentials } from '../s3/credentials';
import { features, parseSettings } from '../settings/checks';
import type { IBookshelfInfo, IInfoCheck } from '../tokens';
import { FakeObjectStore } from './fakes/store';

/** An error's detail, whatever its code. */
const detailOf = (error: { detail: unknown }) =>
  error.detail as { [key: string]: unknown };

const ORIGIN = 'http://127.0.0.1:8888';
const SECRET = 'info-SECRET-2b7d9f0e';
const TOKEN = 'info-TOKEN-71c3a5d4';

const GOOD_RULES: ICorsRule[] = [
  {
    allowedOrigins: [ORIGIN],
    allowedMethods: ['GET', 'PUT', 'HEAD'],
    allowedHeaders: ['*'],
    exposeHeaders: ['ETag', 'x-amz-version-id', 'x-amz-server-side-encryption']
  }
];

const DEMO = {
  endpointUrl: 'http://127.0.0.1:9000',
  forcePathStyle: true,
  credentials: {
    mode: 'settings',
    accessKeyId: 'AKIDINFO',
    secretAccessKey: SECRET,
    sessionToken: TOKEN
  },
  publishBucket: 'published',
  allowedBuckets: ['examples']
};

function sdkError(name: string, status: number): Error {
  const error = new Error(name);
  error.name = name;
  (error as any).$metadata = { httpStatusCode: status };
  return error;
}

interface ISetup {
  settings?: object;
  shim?:
    | 'answers'
    | 'missing'
    | { release: string; settings_files_problems?: string[] };
  /** Whether anything answers at the S3 endpoint (the no-cors probe). */
  reachable?: boolean;
  store?: (store: FakeObjectStore) => void;
  failure?: (method: string, bucket: string) => unknown;
  /** The store ignores If-None-Match and If-Match, as s3rver does. */
  ignoreConditions?: boolean;
  prompt?: () => Promise<ICredentials | null>;
  credentialsFetch?: (url: string) => Promise<Response>;
  /** The page is a JupyterLite site. */
  jupyterLite?: boolean;
}

function setUp(setup: ISetup = {}) {
  const requests: string[] = [];
  const store = new FakeObjectStore({
    failure: setup.failure,
    ignoreConditions: setup.ignoreConditions
  });
  store.addBucket('published', 'Enabled');
  store.setCors('published', GOOD_RULES);
  store.addBucket('examples');
  store.setCors('examples', GOOD_RULES);
  setup.store?.(store);
  const shim = setup.shim ?? 'answers';
  const serverSettings = ServerConnection.makeSettings({
    baseUrl: `${ORIGIN}/`,
    fetch: (async (request: Request) => {
      requests.push(`server ${new URL(request.url).pathname}`);
      if (shim === 'missing') {
        return new Response('Not found', { status: 404 });
      }
      const answer = shim === 'answers' ? { release: '0.1.0' } : shim;
      return new Response(JSON.stringify({ ...answer, features: {} }), {
        status: 200
      });
    }) as any
  });
  const credentials = new CredentialsProvider({
    prompt: setup.prompt,
    fetch: setup.credentialsFetch
  });
  const model = new BookshelfModel({
    contents: {} as any,
    serverSettings,
    credentials,
    version: '0.1.0',
    origin: ORIGIN,
    jupyterLite: setup.jupyterLite,
    createObjectStore: async config => {
      // The store asks for credentials on each call, as the SDK's does.
      await config.credentials();
      requests.push('store');
      return store;
    },
    fetch: (async (url: string, init?: RequestInit) => {
      requests.push(`probe ${url} ${init?.mode}`);
      if (setup.reachable === false) {
        throw new TypeError('Failed to fetch');
      }
      // A cors request to a bucket gets through only when its CORS rules
      // allow this page; these tests' buckets do not.
      if (init?.mode === 'cors') {
        throw new TypeError('Failed to fetch');
      }
      return new Response(null, { status: 200 });
    }) as any
  });
  model.updateSettings(parseSettings(setup.settings ?? DEMO));
  return { model, store, requests, credentials };
}

async function checks(
  setup: ISetup = {},
  options: { askCredentials?: boolean } = {}
): Promise<{ [id: string]: IInfoCheck } & { info: IBookshelfInfo }> {
  const { model } = setUp(setup);
  const info = await model.info({ live: true, ...options });
  const text = JSON.stringify(info);
  // Whatever the configuration: no secret in the info.
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(TOKEN);
  const byId: any = { info };
  for (const check of info.checks!) {
    byId[check.id] = check;
    expect(check.ok).toBe(check.state === 'pass');
    expect(check.label).toBeTruthy();
    expect(check.message).toBeTruthy();
    if (check.state === 'fail') {
      expect(check.fix).toBeTruthy();
    }
  }
  return byId;
}

function states(result: { info: IBookshelfInfo }): { [id: string]: string } {
  return Object.fromEntries(result.info.checks!.map(c => [c.id, c.state]));
}

describe('IBookshelf.info', () => {
  it('without live checks, reports release and features without a request', async () => {
    const { model, requests } = setUp();
    const info = await model.info();
    expect(info).toEqual({
      release: '0.1.0',
      features: features(parseSettings(DEMO))
    });
    expect(info.checks).toBeUndefined();
    expect(requests).toEqual([]);
  });

  it('passes every check on a working configuration, in order', async () => {
    const result = await checks();
    expect(result.info.checks!.map(c => c.id)).toEqual([
      'shim',
      'settings',
      'credentials',
      'service',
      'cors',
      'publish-bucket',
      'versioning',
      'conditional-writes',
      'clone-bucket:examples'
    ]);
    expect(Object.values(states(result))).toEqual(Array(9).fill('pass'));
    expect(result.cors.message).toContain(
      'allow GET, HEAD and PUT from this page (http://127.0.0.1:8888)'
    );
    // Says what was checked, and what was not.
    expect(result['publish-bucket'].message).toContain(
      's3://published exists and answered a HEAD request'
    );
    expect(result['publish-bucket'].message).toContain(
      'Its CORS rules allow uploads (PUT)'
    );
    expect(result['publish-bucket'].message).toContain('Nothing was written');
    expect(result.service.message).toContain('http://127.0.0.1:9000');
    expect(result.info.features).toEqual(features(parseSettings(DEMO)));
  });

  it('writes nothing that stays: the one upload is the probe a conforming store refuses', async () => {
    const { model, store } = setUp();
    await model.info({ live: true });
    expect(store.puts).toEqual([
      expect.objectContaining({
        bucket: 'published',
        key: expect.stringMatching(
          /^\.bookshelf-conditional-write-check-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
        ),
        ifMatch: expect.stringMatching(
          /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/
        )
      })
    ]);
    const probe = store.puts[0].key;
    const calls = [...store.calls].sort();
    expect(await store.headObject('published', probe)).toBeNull();
    // The bucket links clone from is only looked at.
    expect(calls).toEqual([
      'getBucketCors examples',
      'getBucketCors published',
      'getBucketPolicy examples',
      'getBucketPolicy published',
      'getBucketVersioning published',
      'headBucket examples',
      'headBucket published',
      `putObject published/${probe}`
    ]);
  });

  describe('conditional writes', () => {
    it('pass where the service refuses the probe', async () => {
      const result = await checks();
      expect(result['conditional-writes'].state).toBe('pass');
      expect(result['conditional-writes'].message).toContain(
        'with an If-Match condition that no object can meet was refused'
      );
    });

    it('fail where the service ignores them, with the fix; the probe leaves nothing', async () => {
      const { model, store } = setUp({ ignoreConditions: true });
      const info = await model.info({ live: true });
      const check = info.checks!.find(c => c.id === 'conditional-writes')!;
      expect(check.state).toBe('fail');
      expect(check.message).toContain('so the S3 service ignores If-Match');
      expect(check.message).toContain('so it ignores If-None-Match');
      expect(check.message).toContain('The check deleted what it wrote.');
      expect(check.fix).toContain("Set overwritePolicy to 'always'");
      expect(await store.headObject('published', store.puts[0].key)).toBeNull();
      // Remembered for the session: a second run does not probe again.
      await model.info({ live: true });
      expect(store.puts).toHaveLength(2);
    });

    it("are not probed under 'always'", async () => {
      const { model, store } = setUp({
        settings: { ...DEMO, overwritePolicy: 'always' }
      });
      const info = await model.info({ live: true });
      const check = info.checks!.find(c => c.id === 'conditional-writes')!;
      expect(check.state).toBe('skip');
      expect(store.puts).toEqual([]);
    });

    it("report the probe's own failure as it is", async () => {
      const result = await checks({
        failure: method =>
          method === 'putObject' ? sdkError('AccessDenied', 403) : undefined
      });
      const check = result['conditional-writes'];
      expect(check.state).toBe('fail');
      expect(check.message).toContain('Could not be checked');
      expect(check.message).toContain('was denied');
      expect(check.message).not.toContain('ignores');
    });
  });

  describe('the server extension', () => {
    it('fails with the fix when it does not answer', async () => {
      const result = await checks({ shim: 'missing' });
      expect(result.shim.state).toBe('fail');
      // The page's own settings are still checked.
      expect(result.settings.state).toBe('pass');
      expect(result.shim.fix).toContain('jupyter server extension enable');
    });

    it('is not asked for in JupyterLite, which has no server, and the settings keys are said to be public there', async () => {
      const result = await checks({ shim: 'missing', jupyterLite: true });
      expect(result.shim.state).toBe('skip');
      expect(result.shim.message).toContain('JupyterLite site');
      expect(result.shim.fix).toBe('');
      expect(result.settings.state).toBe('pass');
      expect(result.credentials.message).toContain(
        "in the site's files, which anyone who can open the site can read"
      );
      const onServer = await checks({ shim: 'missing' });
      expect(onServer.credentials.message).toContain(
        'stored in plain text on the Jupyter server'
      );
    });

    it('fails when its version differs from the page', async () => {
      const result = await checks({ shim: { release: '0.0.9' } });
      expect(result.shim.state).toBe('fail');
      expect(result.shim.message).toContain('version 0.0.9');
      expect(result.shim.fix).toContain('Reinstall');
    });
  });

  describe('the settings', () => {
    it('never echo an endpoint that may carry a password', async () => {
      const result = await checks({
        settings: {
          ...DEMO,
          endpointUrl: `http://bob:${SECRET}@127.0.0.1:9000`
        }
      });
      expect(result.settings.state).toBe('fail');
      expect(result.settings.message).toContain('user name or password');
      expect(JSON.stringify(result.info)).not.toContain('bob');
      expect(result.cors.message).toContain('see Settings');
    });

    it('skip the service check when the endpoint is not a URL', async () => {
      const result = await checks({
        settings: { ...DEMO, endpointUrl: 'ftp://s3' }
      });
      expect(states(result)).toMatchObject({
        settings: 'fail',
        service: 'skip',
        cors: 'skip'
      });
    });
  });

  describe('the credentials', () => {
    it('in session mode, do not open a dialog by themselves', async () => {
      let asked = 0;
      const result = await checks({
        settings: { ...DEMO, credentials: { mode: 'session' } },
        prompt: async () => {
          asked++;
          return null;
        }
      });
      expect(asked).toBe(0);
      expect(result.credentials.state).toBe('skip');
      expect(result.credentials.action).toBe('enter-credentials');
      expect(states(result)).toMatchObject({
        cors: 'skip',
        'publish-bucket': 'skip',
        versioning: 'skip'
      });
    });

    it('in session mode, ask when the person asks for it', async () => {
      let asked = 0;
      const result = await checks(
        {
          settings: { ...DEMO, credentials: { mode: 'session' } },
          prompt: async () => {
            asked++;
            return { accessKeyId: 'AKIDS', secretAccessKey: SECRET };
          }
        },
        { askCredentials: true }
      );
      expect(asked).toBe(1);
      expect(result.credentials.state).toBe('pass');
      expect(result.credentials.message).toContain("this tab's memory only");
      expect(result['publish-bucket'].state).toBe('pass');
    });

    it('in endpoint mode, say when they expire', async () => {
      const result = await checks({
        settings: {
          ...DEMO,
          credentials: { mode: 'endpoint', endpoint: '/creds?k=x' }
        },
        credentialsFetch: async () =>
          new Response(
            JSON.stringify({
              AccessKeyId: 'ASIAINFO',
              SecretAccessKey: SECRET,
              SessionToken: TOKEN,
              Expiration: '2036-01-01T00:00:00Z'
            })
          )
      });
      expect(result.credentials.state).toBe('pass');
      expect(result.credentials.message).toContain('/creds;');
      expect(result.credentials.message).toContain('2036-01-01T00:00:00.000Z');
      expect(result.credentials.message).not.toContain('k=x');
    });

    it('in endpoint mode, fail naming the URL when it fails', async () => {
      const result = await checks({
        settings: {
          ...DEMO,
          credentials: { mode: 'endpoint', endpoint: '/creds' }
        },
        credentialsFetch: async () =>
          new Response(`<p>${SECRET}</p>`, { status: 500 })
      });
      expect(result.credentials.state).toBe('fail');
      expect(result.credentials.message).toBe(
        'The credentials URL /creds answered HTTP 500.'
      );
      expect(result['publish-bucket'].state).toBe('skip');
    });

    it('in anonymous mode, say that requests are unsigned', async () => {
      const result = await checks({
        settings: { ...DEMO, credentials: { mode: 'anonymous' } }
      });
      expect(result.credentials.state).toBe('pass');
      expect(result.credentials.message).toContain('unsigned');
    });
  });

  it('tells a service the browser keeps this page from (local network access refused)', async () => {
    Object.defineProperty(navigator, 'permissions', {
      configurable: true,
      value: {
        query: async ({ name }: { name: string }) => ({
          state: name === 'loopback-network' ? 'denied' : 'prompt'
        })
      }
    });
    try {
      const result = await checks({ reachable: false });
      expect(result.service.state).toBe('fail');
      expect(result.service.message).toBe(
        'The browser did not let this page reach the S3 service at http://127.0.0.1:9000: the service is on this computer or your local network, and this site is not allowed to reach them.'
      );
      expect(result.service.fix).toContain('"Local network access"');
      expect(states(result)).toMatchObject({ cors: 'skip' });
    } finally {
      delete (navigator as any).permissions;
    }
  });

  it('tells an unreachable service, and skips the bucket checks', async () => {
    const result = await checks({ reachable: false });
    expect(result.service.state).toBe('fail');
    expect(result.service.message).toBe(
      'Nothing answers at http://127.0.0.1:9000.'
    );
    expect(result.service.fix).toContain('Check the S3 endpoint URL');
    expect(states(result)).toMatchObject({
      cors: 'skip',
      'publish-bucket': 'skip',
      versioning: 'skip'
    });
  });

  it('probes Amazon S3 of the region when no endpoint is set', async () => {
    const { model, requests } = setUp({
      settings: { ...DEMO, endpointUrl: '', region: 'eu-west-1' }
    });
    await model.info({ live: true });
    expect(requests).toContain(
      'probe https://s3.eu-west-1.amazonaws.com no-cors'
    );
  });

  describe('CORS', () => {
    it('tells a CORS refusal from an unreachable service, with the rule to add', async () => {
      const result = await checks({
        failure: method =>
          method === 'headBucket' ? new TypeError('Failed to fetch') : undefined
      });
      expect(result.service.state).toBe('pass');
      expect(result.cors.state).toBe('fail');
      expect(result.cors.message).toContain('the bucket does not exist, or');
      // One rule to add, not a configuration that would replace the
      // bucket's other rules; without them the merge cannot be shown.
      const rule = JSON.parse(result.cors.rule!);
      expect(rule.AllowedOrigins).toEqual([ORIGIN]);
      expect(rule.AllowedMethods).toEqual([
        'GET',
        'HEAD',
        'PUT',
        'POST',
        'DELETE'
      ]);
      expect(result.cors.fix).toContain('keeping the rules it has');
      expect(result.cors.corsConfiguration).toBeUndefined();
      expect(result['publish-bucket'].state).toBe('fail');
      expect(result.versioning.state).toBe('skip');
    });

    it('fails when the rules do not allow uploads, and so does the bucket', async () => {
      const result = await checks({
        store: store =>
          store.setCors('published', [
            { ...GOOD_RULES[0], allowedMethods: ['GET', 'HEAD'] }
          ])
      });
      expect(result.cors.state).toBe('fail');
      expect(result.cors.message).toContain('do not allow PUT');
      expect(result.cors.rule).toContain(ORIGIN);
      // The rules could be read: the configuration to put is shown whole,
      // with this origin's rule widened, its only rule.
      expect(result.cors.fix).toContain('whose one rule, for this origin');
      expect(JSON.parse(result.cors.corsConfiguration!)).toEqual([
        expect.objectContaining({
          AllowedOrigins: [ORIGIN],
          AllowedMethods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE']
        })
      ]);
      expect(result['publish-bucket'].state).toBe('fail');
      expect(result['publish-bucket'].message).toContain(
        'do not allow uploads (PUT)'
      );
    });

    it('fails when the page may not read ETag and the version id', async () => {
      const result = await checks({
        store: store =>
          store.setCors('published', [{ ...GOOD_RULES[0], exposeHeaders: [] }])
      });
      expect(result.cors.state).toBe('fail');
      expect(result.cors.message).toContain('PUT: x-amz-version-id');
    });

    it('fails for rules of another origin or without the SDK headers', async () => {
      for (const rules of [
        [{ ...GOOD_RULES[0], allowedOrigins: ['https://other.example.org'] }],
        [{ ...GOOD_RULES[0], allowedHeaders: ['content-type'] }]
      ]) {
        const result = await checks({
          store: store => store.setCors('published', rules)
        });
        expect(result.cors.state).toBe('fail');
        expect(result.cors.message).toContain('do not allow GET, HEAD, PUT');
      }
    });

    it("keeps other origins' rules in the configuration it shows, which then passes", async () => {
      const other: ICorsRule = {
        id: 'other-site',
        allowedOrigins: ['https://other.example.org'],
        allowedMethods: ['GET'],
        allowedHeaders: ['authorization'],
        exposeHeaders: [],
        maxAgeSeconds: 60
      };
      const result = await checks({
        store: store =>
          store.setCors('published', [
            other,
            { ...GOOD_RULES[0], allowedMethods: ['GET', 'HEAD'] }
          ])
      });
      expect(result.cors.state).toBe('fail');
      expect(result.cors.fix).toContain(
        "keeps the bucket's rule for other origins as it is"
      );
      const shown = JSON.parse(result.cors.corsConfiguration!);
      expect(shown[1]).toEqual({
        ID: 'other-site',
        AllowedOrigins: ['https://other.example.org'],
        AllowedMethods: ['GET'],
        AllowedHeaders: ['authorization'],
        ExposeHeaders: [],
        MaxAgeSeconds: 60
      });
      // Put on the bucket, the configuration shown passes the check.
      const { model, store } = setUp();
      store.setCors(
        'published',
        shown.map((rule: any) => ({
          allowedOrigins: rule.AllowedOrigins,
          allowedMethods: rule.AllowedMethods,
          allowedHeaders: rule.AllowedHeaders,
          exposeHeaders: rule.ExposeHeaders
        }))
      );
      const again = await model.info({ live: true });
      expect(again.checks!.find(c => c.id === 'cors')!.state).toBe('pass');
    });

    it('passes, saying what was not checked, when the rules cannot be read', async () => {
      const result = await checks({
        failure: method =>
          method === 'getBucketCors' ? sdkError('AccessDenied', 403) : undefined
      });
      expect(result.cors.state).toBe('pass');
      expect(result.cors.message).toContain('could not be read');
      expect(result.cors.message).toContain('was not checked');
    });

    it('passes rules without POST, saying large notebooks are then published in one upload', async () => {
      const older = [
        { ...GOOD_RULES[0], allowedMethods: ['GET', 'HEAD', 'PUT', 'DELETE'] }
      ];
      const result = await checks({
        store: store => store.setCors('published', older)
      });
      expect(result.cors.state).toBe('pass');
      expect(result.cors.message).toContain(
        'They do not allow POST, so a notebook above 16 MiB is published in one upload instead of in parts.'
      );
      expect(result.cors.fix).toContain('To publish large notebooks in parts:');
      expect(
        JSON.parse(result.cors.corsConfiguration!)[0].AllowedMethods
      ).toEqual(['GET', 'HEAD', 'PUT', 'DELETE', 'POST']);
      // The rule proposed passes the check whole.
      const good = await checks({
        store: store =>
          store.setCors('published', [
            {
              ...GOOD_RULES[0],
              allowedMethods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE']
            }
          ])
      });
      expect(good.cors.message).not.toContain('POST');
      expect(good.cors.fix).toBe('');
    });

    it('passes when the service allows every origin without rules', async () => {
      const result = await checks({
        store: store => store.setCors('published', null)
      });
      expect(result.cors.state).toBe('pass');
      expect(result.cors.message).toContain('no CORS rules of its own');
    });
  });

  describe('the buckets links clone from', () => {
    const withAllowed = (allowedBuckets: string[], extra: ISetup = {}) =>
      checks({ settings: { ...DEMO, allowedBuckets }, ...extra });
    const cloneRows = (result: { info: IBookshelfInfo }) =>
      result.info.checks!.filter(c => c.id.startsWith('clone-bucket'));

    it('checks each named bucket in its own row, after the publish bucket', async () => {
      const result = await withAllowed(['examples', 'published'], {
        store: store => store.setPolicy('examples', null)
      });
      expect(cloneRows(result).map(c => [c.id, c.label, c.state])).toEqual([
        ['clone-bucket:examples', 'Clone bucket s3://examples', 'pass'],
        ['clone-bucket:published', 'Clone bucket s3://published', 'pass']
      ]);
      const row = result['clone-bucket:examples'];
      expect(row.message).toContain(
        's3://examples exists and answered a HEAD request'
      );
      expect(row.message).toContain('allow GET from this page');
      expect(row.message).toContain('denies no reading of objects');
    });

    it('names wildcard patterns as not checkable, and checks no bucket for them', async () => {
      const { model, store } = setUp({
        settings: { ...DEMO, allowedBuckets: ['team-*', 'examples'] }
      });
      const info = await model.info({ live: true });
      const rows = info.checks!.filter(c => c.id.startsWith('clone-bucket'));
      expect(rows.map(c => [c.id, c.state])).toEqual([
        ['clone-bucket:examples', 'pass'],
        ['clone-bucket:team-*', 'skip']
      ]);
      expect(rows[1].message).toContain('"team-*" is a pattern');
      expect(store.calls.filter(c => c.includes('team'))).toEqual([]);
    });

    it('says that nothing is checked when links may clone from any bucket', async () => {
      const result = await withAllowed([]);
      expect(result['clone-buckets'].state).toBe('skip');
      expect(result['clone-buckets'].message).toContain(
        '"allowedBuckets" is empty'
      );
    });

    it('fails a bucket whose CORS rules refuse this page, with the rule to add', async () => {
      const result = await withAllowed(['examples', 'nocors'], {
        failure: (method, bucket) =>
          bucket === 'nocors' && method === 'headBucket'
            ? new TypeError('Failed to fetch')
            : undefined,
        store: store => store.addBucket('nocors')
      });
      expect(result['clone-bucket:examples'].state).toBe('pass');
      const row = result['clone-bucket:nocors'];
      expect(row.state).toBe('fail');
      expect(row.message).toContain('clone links to it fail');
      expect(row.fix).toContain('Check the name in "allowedBuckets"');
      expect(JSON.parse(row.rule!).AllowedOrigins).toEqual([ORIGIN]);
      // The publish bucket is unaffected.
      expect(result.cors.state).toBe('pass');
    });

    it('fails a bucket that lets the page HEAD but not read what a clone checks, with the merged configuration', async () => {
      const other: ICorsRule = {
        allowedOrigins: ['https://other.example.org'],
        allowedMethods: ['GET', 'PUT'],
        allowedHeaders: ['*'],
        exposeHeaders: ['ETag']
      };
      const result = await withAllowed(['examples'], {
        store: store =>
          store.setCors('examples', [
            other,
            { ...GOOD_RULES[0], exposeHeaders: ['ETag'] }
          ])
      });
      const row = result['clone-bucket:examples'];
      expect(row.state).toBe('fail');
      expect(row.message).toContain('GET: x-amz-version-id');
      const shown = JSON.parse(row.corsConfiguration!);
      expect(shown).toHaveLength(2);
      expect(shown[0].AllowedOrigins).toEqual([ORIGIN]);
      expect(shown[1].AllowedOrigins).toEqual(['https://other.example.org']);
    });

    it('fails a bucket that does not exist, with the fix in the settings', async () => {
      const result = await withAllowed(['missing']);
      const row = result['clone-bucket:missing'];
      expect(row.state).toBe('fail');
      expect(row.message).toContain('The bucket "missing" does not exist.');
      expect(row.fix).toContain('Correct the name in "allowedBuckets"');
    });

    it('fails a bucket whose policy denies reading to everyone', async () => {
      const result = await withAllowed(['examples'], {
        store: store =>
          store.setPolicy(
            'examples',
            JSON.stringify({
              Statement: [
                {
                  Effect: 'Deny',
                  Principal: '*',
                  Action: 's3:GetObject',
                  Resource: 'arn:aws:s3:::examples/*'
                }
              ]
            })
          )
      });
      const row = result['clone-bucket:examples'];
      expect(row.state).toBe('fail');
      expect(row.message).toContain('denies reading objects (s3:GetObject)');
      expect(row.fix).toContain('lift the Deny statement for s3:GetObject');
    });

    it('passes a bucket these credentials may not list, saying that reading is unproven', async () => {
      const result = await withAllowed(['examples'], {
        failure: (method, bucket) =>
          bucket === 'examples' &&
          ['headBucket', 'getBucketCors', 'getBucketPolicy'].includes(method)
            ? sdkError('AccessDenied', 403)
            : undefined
      });
      const row = result['clone-bucket:examples'];
      expect(row.state).toBe('pass');
      expect(row.message).toContain('may not list it');
      expect(row.message).toContain(
        'send GET requests with the headers a clone sends'
      );
    });

    it('waits for the credentials and the service like the publish bucket', async () => {
      const result = await withAllowed(['examples'], { reachable: false });
      expect(result['clone-bucket:examples'].state).toBe('skip');
      expect(result['clone-bucket:examples'].message).toContain(
        'the S3 service does not answer'
      );
    });

    it('checks a few buckets at a time, and at most twenty', async () => {
      const names = Array.from({ length: 25 }, (_, i) => `bucket-${i}`);
      let running = 0;
      let most = 0;
      const { model, store } = setUp({
        settings: { ...DEMO, allowedBuckets: names },
        store: store => names.forEach(name => store.addBucket(name)),
        failure: (method, bucket) => {
          if (method === 'headBucket' && bucket.startsWith('bucket-')) {
            running++;
            most = Math.max(most, running);
            setTimeout(() => running--, 0);
          }
          return undefined;
        }
      });
      const info = await model.info({ live: true });
      const rows = info.checks!.filter(c => c.id.startsWith('clone-bucket'));
      expect(rows).toHaveLength(25);
      expect(rows.filter(c => c.state === 'pass')).toHaveLength(20);
      expect(rows[24].message).toContain('the first 20 buckets');
      expect(
        store.calls.filter(c => /^headBucket bucket-/.test(c))
      ).toHaveLength(20);
      expect(most).toBeGreaterThan(1);
      expect(most).toBeLessThanOrEqual(4);
    });
  });

  describe('the publish bucket', () => {
    it('fails with the fix when none is set', async () => {
      const result = await checks({ settings: { ...DEMO, publishBucket: '' } });
      expect(result['publish-bucket'].state).toBe('fail');
      expect(result['publish-bucket'].fix).toContain('Publish bucket');
      expect(result.cors.state).toBe('skip');
    });

    it('fails when the bucket does not exist', async () => {
      const result = await checks({
        settings: { ...DEMO, publishBucket: 'missing' }
      });
      expect(result['publish-bucket'].state).toBe('fail');
      expect(result['publish-bucket'].message).toContain(
        'The bucket "missing" does not exist.'
      );
    });

    it('fails when the credentials may not use it', async () => {
      const result = await checks({
        failure: method =>
          method === 'headBucket' ? sdkError('AccessDenied', 403) : undefined
      });
      expect(result['publish-bucket'].state).toBe('fail');
      expect(result['publish-bucket'].message).toContain(
        'Access to s3://published was denied.'
      );
    });

    it('fails when its policy denies uploads to everyone', async () => {
      const result = await checks({
        store: store =>
          store.setPolicy(
            'published',
            JSON.stringify({
              Statement: [
                {
                  Effect: 'Deny',
                  Principal: '*',
                  Action: ['s3:PutObject'],
                  Resource: 'arn:aws:s3:::published/*'
                }
              ]
            })
          )
      });
      expect(result['publish-bucket'].state).toBe('fail');
      expect(result['publish-bucket'].message).toContain(
        'denies uploads (s3:PutObject)'
      );
      expect(result['publish-bucket'].fix).toContain('Deny statement');
    });

    it('passes with a note when the policy may deny uploads to someone', async () => {
      const result = await checks({
        store: store =>
          store.setPolicy(
            'published',
            JSON.stringify({
              Statement: [
                {
                  Effect: 'Deny',
                  Principal: { AWS: 'arn:aws:iam::1:user/bob' },
                  Action: 's3:*',
                  Resource: 'arn:aws:s3:::published/*'
                }
              ]
            })
          )
      });
      expect(result['publish-bucket'].state).toBe('pass');
      expect(result['publish-bucket'].message).toContain(
        'to some principals or under conditions'
      );
    });

    it('passes with a note when the policy cannot be read', async () => {
      const result = await checks({
        failure: method =>
          method === 'getBucketPolicy'
            ? sdkError('AccessDenied', 403)
            : undefined
      });
      expect(result['publish-bucket'].state).toBe('pass');
      expect(result['publish-bucket'].message).toContain(
        'could not be read with these credentials'
      );
    });
  });

  describe('versioning', () => {
    it.each([
      ['Off', 'Versioning is off'],
      ['Suspended', 'Versioning is suspended']
    ])('fails when it is %s, saying how to turn it on', async (state, text) => {
      const result = await checks({
        store: store => {
          store.addBucket('published', state as any);
          store.setCors('published', GOOD_RULES);
        }
      });
      expect(result.versioning.state).toBe('fail');
      expect(result.versioning.message).toContain(text);
      expect(result.versioning.fix).toContain('Bucket Versioning');
    });

    it('fails when it cannot be read', async () => {
      const result = await checks({
        failure: method =>
          method === 'getBucketVersioning'
            ? sdkError('AccessDenied', 403)
            : undefined
      });
      expect(result.versioning.state).toBe('fail');
      expect(result.versioning.message).toContain('could not be read');
    });
  });
});

describe('BookshelfModel.explain', () => {
  it('adds the credentials mode, and drops session keys the service refused', async () => {
    let asked = 0;
    const { model, credentials } = setUp({
      settings: { ...DEMO, credentials: { mode: 'session' } },
      prompt: async () => {
        asked++;
        return { accessKeyId: 'AKIDS', secretAccessKey: SECRET };
      }
    });
    await credentials.get(model.settings);
    const refused = await model.explain(sdkError('InvalidAccessKeyId', 403), {
      bucket: 'examples',
      key: 'a.ipynb'
    });
    expect(refused.code).toBe('InvalidCredentials');
    expect(detailOf(refused).mode).toBe('session');
    expect(credentials.hasSessionCredentials).toBe(false);
    await credentials.get(model.settings);
    expect(asked).toBe(2);

    // Other errors keep them.
    const denied = await model.explain(sdkError('AccessDenied', 403), {
      bucket: 'examples'
    });
    expect(denied.code).toBe('AccessDenied');
    expect(credentials.hasSessionCredentials).toBe(true);
  });

  it('diagnoses a network failure against the endpoint', async () => {
    const { model, requests } = setUp({ reachable: false });
    const error = await model.explain(new TypeError('Failed to fetch'), {
      bucket: 'examples'
    });
    expect(error.code).toBe('Unreachable');
    expect(detailOf(error).reason).toBe('unreachable');
    expect(requests).toEqual(['probe http://127.0.0.1:9000 no-cors']);
  });

  it('clone refuses unusable settings with their translated problems', async () => {
    const { model } = setUp({
      settings: { ...DEMO, credentials: { mode: 'endpoint' } }
    });
    await expect(
      model.clone({ s3_bucket: 'examples', s3_key: 'a.ipynb' })
    ).rejects.toMatchObject({
      code: 'NotConfigured',
      message:
        'The credentials mode is "endpoint" but no credentials URL is set.'
    });
  });
});

describe('the settings check, with the server view of the files', () => {
  it('fails with the problems the server extension found in the settings files', async () => {
    const problem =
      'the overrides file overrides.json is not valid JSON at line 3, column 3: JupyterLab ignores every setting in it until it is corrected and JupyterLab is restarted';
    const result = await checks({
      shim: { release: '0.1.0', settings_files_problems: [problem] }
    });
    expect(result.settings.state).toBe('fail');
    expect(result.settings.message).toBe(
      `The settings files on the Jupyter server have problems: ${problem}.`
    );
    expect(result.settings.fix).toContain('restarts JupyterLab');
    // The page's settings work: S3 is still checked.
    expect(result.service.state).toBe('pass');
  });

  it('passes when the server finds nothing wrong', async () => {
    const result = await checks({
      shim: { release: '0.1.0', settings_files_problems: [] }
    });
    expect(result.settings.state).toBe('pass');
  });
});
