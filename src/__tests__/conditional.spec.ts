/**
 * Conditional writes found out, not assumed: the probe, its memory, which
 * publishes need it, and the refusals, on a fake store that honours the
 * conditions (as S3 and moto do) and one that ignores them (as s3rver does).
 */
import { ServerConnection } from '@jupyterlab/services';
import { nullTranslator } from '@jupyterlab/translation';

import { BookshelfError } from '../errors/errors';
import { describeError } from '../errors/describe';
import { BookshelfModel } from '../service/model';
import {
  ConditionalWritesMemory,
  PROBE_KEY_STEM,
  probeConditionalWrites,
  requiredCondition
} from '../publish/conditional';
import { publishNotebook, type IPublishDeps } from '../publish/publish';
import { CredentialsProvider } from '../s3/credentials';
import { DEFAULT_SETTINGS, parseSettings } from '../settings/checks';
import type { IBookshelfSettings, OverwritePolicy } from '../tokens';
import { notebookText } from './fakes/bytes';
import { FakeContentsManager } from './fakes/contents';
import {
  FakeObjectStore,
  type IFakeStoreOptions,
  rejection
} from './fakes/store';

/** An error's detail, whatever its code. */
const detailOf = (error: { detail: unknown }) =>
  error.detail as { [key: string]: unknown };

const BUCKET = 'published';
const PREFIX = 'team/';
const trans = nullTranslator.load('jupyterlab_bookshelf');

function storeWith(
  options: IFakeStoreOptions = {},
  versioning: 'Enabled' | 'Off' = 'Enabled'
): FakeObjectStore {
  const store = new FakeObjectStore(options);
  store.addBucket(BUCKET, versioning);
  return store;
}

function denied(): Error {
  const error = new Error('AccessDenied');
  error.name = 'AccessDenied';
  (error as any).$metadata = { httpStatusCode: 403 };
  return error;
}

/** Every key of the bucket with at least one version. */
async function keysLeft(store: FakeObjectStore, keys: string[]) {
  const left: string[] = [];
  for (const key of keys) {
    if (await store.headObject(BUCKET, key)) {
      left.push(key);
    }
  }
  return left;
}

describe('probeConditionalWrites', () => {
  it('on a store that honours If-Match: one refused put, nothing written', async () => {
    const store = storeWith();
    const answer = await probeConditionalWrites(store, BUCKET, PREFIX);
    expect(answer).toEqual({ ifMatch: true, ifNoneMatch: true });
    expect(store.puts).toEqual([
      {
        bucket: BUCKET,
        key: expect.stringMatching(
          new RegExp(
            `^team/\\${PROBE_KEY_STEM}[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`
          )
        ),
        contentType: 'text/plain',
        ifMatch: expect.stringMatching(
          /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/
        ),
        ifNoneMatch: undefined
      }
    ]);
    expect(await keysLeft(store, [store.puts[0].key])).toEqual([]);
    expect(store.calls.some(call => call.startsWith('deleteObject'))).toBe(
      false
    );
  });

  it('uses a fresh key each time', async () => {
    const store = storeWith();
    await probeConditionalWrites(store, BUCKET, PREFIX);
    await probeConditionalWrites(store, BUCKET, PREFIX);
    expect(store.puts[0].key).not.toBe(store.puts[1].key);
  });

  it.each([['Enabled'], ['Off']] as const)(
    'on a store that ignores both (versioning %s): says so and deletes every version it wrote',
    async versioning => {
      const store = storeWith({ ignoreConditions: true }, versioning);
      const answer = await probeConditionalWrites(store, BUCKET, PREFIX);
      expect(answer).toEqual({ ifMatch: false, ifNoneMatch: false });
      const key = store.puts[0].key;
      expect(
        store.puts.map(put => [put.ifMatch !== undefined, put.ifNoneMatch])
      ).toEqual([
        [true, undefined],
        [false, '*']
      ]);
      expect(await keysLeft(store, [key])).toEqual([]);
      expect(
        store.calls.filter(call => call.startsWith('deleteObject'))
      ).toEqual(
        versioning === 'Enabled'
          ? [`deleteObject ${BUCKET}/${key}`, `deleteObject ${BUCKET}/${key}`]
          : [`deleteObject ${BUCKET}/${key}`]
      );
    }
  );

  it('tells If-None-Match honoured from If-Match ignored', async () => {
    const store = storeWith({
      ignoreConditions: true,
      beforePut: (bucket, key, options) => {
        if (options.ifNoneMatch === '*') {
          throw new BookshelfError({
            code: 'PreconditionFailed',
            detail: { bucket, key }
          });
        }
      }
    });
    const answer = await probeConditionalWrites(store, BUCKET, PREFIX);
    expect(answer).toEqual({ ifMatch: false, ifNoneMatch: true });
    expect(await keysLeft(store, [store.puts[0].key])).toEqual([]);
  });

  it('throws its own failures as they are, never as "ignores conditions"', async () => {
    const store = storeWith({
      ignoreConditions: true,
      failure: method => (method === 'putObject' ? denied() : undefined)
    });
    const error = await rejection(
      probeConditionalWrites(store, BUCKET, PREFIX)
    );
    expect(error.code).toBe('AccessDenied');
    const offline = storeWith({
      failure: () => new TypeError('Failed to fetch')
    });
    expect(
      (await rejection(probeConditionalWrites(offline, BUCKET, PREFIX))).code
    ).toBe('Unreachable');
  });

  it('cleans up when the second put fails, and throws that failure', async () => {
    let puts = 0;
    const store = storeWith({
      ignoreConditions: true,
      failure: method =>
        method === 'putObject' && ++puts === 2 ? denied() : undefined
    });
    const error = await rejection(
      probeConditionalWrites(store, BUCKET, PREFIX)
    );
    expect(error.code).toBe('AccessDenied');
    expect(await keysLeft(store, [store.puts[0].key])).toEqual([]);
  });

  it('names the object it could not delete', async () => {
    const store = storeWith({
      ignoreConditions: true,
      failure: method => (method === 'deleteObject' ? denied() : undefined)
    });
    const answer = await probeConditionalWrites(store, BUCKET, PREFIX);
    expect(answer).toEqual({
      ifMatch: false,
      ifNoneMatch: false,
      leftover: `s3://${BUCKET}/${store.puts[0].key}`
    });
  });
});

describe('ConditionalWritesMemory', () => {
  it('probes once per endpoint and bucket, sharing a probe under way', async () => {
    const memory = new ConditionalWritesMemory();
    const probe = jest.fn(async () => ({ ifMatch: true, ifNoneMatch: true }));
    expect(memory.known('http://a', 'b')).toBeNull();
    const [first, second] = await Promise.all([
      memory.get('http://a', 'b', probe),
      memory.get('http://a', 'b', probe)
    ]);
    expect(first).toBe(second);
    expect(probe).toHaveBeenCalledTimes(1);
    await memory.get('http://a', 'other', probe);
    await memory.get('http://elsewhere', 'b', probe);
    expect(probe).toHaveBeenCalledTimes(3);
    expect(await memory.known('http://a', 'b')).toEqual(first);
  });

  it('forgets a probe that failed', async () => {
    const memory = new ConditionalWritesMemory();
    const failing = jest.fn(async () => {
      throw new BookshelfError({ code: 'AccessDenied', detail: {} });
    });
    await expect(memory.get('http://a', 'b', failing)).rejects.toThrow(
      'Access to the S3 service was denied.'
    );
    expect(memory.known('http://a', 'b')).toBeNull();
    const probe = jest.fn(async () => ({ ifMatch: false, ifNoneMatch: false }));
    expect(await memory.get('http://a', 'b', probe)).toEqual({
      ifMatch: false,
      ifNoneMatch: false
    });
  });
});

describe('requiredCondition', () => {
  it.each([
    ['never', { ifNoneMatch: '*' }, 'ifNoneMatch'],
    ['confirm', { ifMatch: '"e"' }, 'ifMatch'],
    ['confirm', { ifNoneMatch: '*' }, null],
    ['confirm', {}, null],
    ['always', { ifMatch: '"e"' }, null],
    ['always', { ifNoneMatch: '*' }, null],
    ['always', {}, null]
  ] as const)('%s with %j needs %s', (policy, condition, needed) => {
    expect(requiredCondition(policy, condition as any)).toBe(needed);
  });
});

describe('publishing where conditional writes are ignored', () => {
  const PATH = 'work/q3.ipynb';
  const KEY = `${PREFIX}${PATH}`;
  const THEIRS = notebookText('theirs');
  const MINE = JSON.parse(notebookText('mine'));

  function setUp(ignoreConditions: boolean) {
    const store = storeWith({ ignoreConditions });
    const contents = new FakeContentsManager();
    contents.addFile(PATH, notebookText('mine'));
    const memory = new ConditionalWritesMemory();
    const deps: IPublishDeps = {
      store,
      contents,
      conditionalWrites: bucket =>
        memory.get('http://s3', bucket, () =>
          probeConditionalWrites(store, bucket, PREFIX)
        )
    };
    const publish = (
      policy: OverwritePolicy,
      options: { overwrite?: boolean; ifMatch?: string } = {}
    ) =>
      publishNotebook(deps, PATH, {
        ...options,
        settings: {
          ...DEFAULT_SETTINGS,
          publishBucket: BUCKET,
          publishPrefix: PREFIX,
          overwritePolicy: policy
        },
        serverOrigin: 'https://hub.example.org',
        baseUrl: '/',
        trans
      });
    const stored = async () => {
      const head = await store.headObject(BUCKET, KEY);
      return head
        ? new TextDecoder().decode((await store.getObject(BUCKET, KEY)).bytes)
        : null;
    };
    return { store, publish, stored };
  }

  it("refuses 'never' with the server's shortcoming and the setting to change; nothing written", async () => {
    const { store, publish, stored } = setUp(true);
    const error = await rejection(publish('never'));
    expect(error.code).toBe('NotConfigured');
    expect(error.detail).toMatchObject({
      reason: 'conditional-writes',
      condition: 'If-None-Match',
      bucket: BUCKET,
      key: KEY
    });
    expect(error.message).toContain(`s3://${BUCKET}/${KEY}`);
    expect(error.message).toContain('ignores that condition');
    expect(error.message).toContain("Set overwritePolicy to 'always'");
    expect(await stored()).toBeNull();
    // Only the probe's puts, and the probe's object is gone.
    expect(store.puts.every(put => put.key.includes(PROBE_KEY_STEM))).toBe(
      true
    );
    expect(await keysLeft(store, [store.puts[0].key])).toEqual([]);
    const description = describeError(error, trans);
    expect(description.title).toBe('Publishing cannot be protected');
    expect(description.fix).toContain("overwritePolicy to 'always'");
  });

  it("refuses the confirmed replace of 'confirm' and leaves the object unchanged", async () => {
    const { store, publish, stored } = setUp(true);
    store.addObject(BUCKET, KEY, THEIRS);
    const seen = await store.headObject(BUCKET, KEY);
    const error = await rejection(
      publish('confirm', { overwrite: true, ifMatch: seen!.etag })
    );
    expect(error.code).toBe('NotConfigured');
    expect(detailOf(error).condition).toBe('If-Match');
    expect(error.message).toContain('If-Match');
    expect(await stored()).toBe(THEIRS);
  });

  it('probes once for several publishes', async () => {
    const { store, publish } = setUp(true);
    await rejection(publish('never'));
    await rejection(publish('never'));
    expect(
      store.puts.filter(put => put.key.includes(PROBE_KEY_STEM))
    ).toHaveLength(2); // one probe: its If-Match put and its If-None-Match put
  });

  it.each([
    [
      "ignores them: a new object under 'confirm', a replace under 'always'",
      true,
      'confirm',
      'always'
    ],
    [
      "honours them: a new object under 'never', a confirmed replace",
      false,
      'never',
      'confirm'
    ]
  ] as const)(
    'publishes what it can protect where the store %s',
    async (_, ignore, create, replace) => {
      const { store, publish, stored } = setUp(ignore);
      await publish(create);
      expect(JSON.parse((await stored())!)).toEqual(MINE);
      store.addObject(BUCKET, KEY, THEIRS);
      const seen = await store.headObject(BUCKET, KEY);
      await publish(replace, { overwrite: true, ifMatch: seen!.etag });
      expect(JSON.parse((await stored())!)).toEqual(MINE);
    }
  );
});

describe('the model', () => {
  const SECRET = 'cond-SECRET-4e1a9b7c';

  function setUp(settings: object, options: IFakeStoreOptions = {}) {
    const store = storeWith(options);
    const credentials = new CredentialsProvider({
      prompt: async () => ({ accessKeyId: 'AKIDCOND', secretAccessKey: SECRET })
    });
    const model = new BookshelfModel({
      contents: new FakeContentsManager() as any,
      serverSettings: ServerConnection.makeSettings({
        baseUrl: 'http://127.0.0.1:8888/'
      }),
      credentials,
      version: '0.1.0',
      origin: 'http://127.0.0.1:8888',
      createObjectStore: async () => store,
      fetch: (async () => new Response(null)) as any
    });
    const parsed: IBookshelfSettings = parseSettings({
      endpointUrl: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      credentials: {
        mode: 'settings',
        accessKeyId: 'AKIDCOND',
        secretAccessKey: SECRET
      },
      publishBucket: BUCKET,
      ...settings
    });
    model.updateSettings(parsed);
    const body = {
      type: 'notebook' as const,
      content: JSON.parse(notebookText('mine'))
    };
    return { model, store, credentials, body };
  }

  it('refuses to publish, as to clone, with settings GET /api/bookshelf calls invalid', async () => {
    const { model, store, body } = setUp({
      endpointUrl: 'http://ana:pw@127.0.0.1:9000'
    });
    const error = await rejection(model.publish('a.ipynb', { body }));
    expect(error.code).toBe('NotConfigured');
    expect(error.message).toContain('must not contain a user name or password');
    expect(error.message).not.toContain('pw');
    const target = await rejection(model.publishTarget('a.ipynb'));
    expect(target.code).toBe('NotConfigured');
    const clone = await rejection(
      model.clone({ s3_bucket: 'examples', s3_key: 'a.ipynb' })
    );
    expect(clone.message).toBe(error.message);
    expect(store.calls).toEqual([]);
  });

  it("refuses 'never' on a store that ignores conditions, probing once per session", async () => {
    const { model, store, body } = setUp(
      { overwritePolicy: 'never' },
      { ignoreConditions: true }
    );
    for (const path of ['a.ipynb', 'b.ipynb']) {
      const error = await rejection(model.publish(path, { body }));
      expect(detailOf(error).reason).toBe('conditional-writes');
    }
    expect(store.puts).toHaveLength(2); // the one probe's two puts
    expect(await model.knownConditionalWrites(BUCKET)).toEqual({
      ifMatch: false,
      ifNoneMatch: false
    });
  });

  it('forgets session keys the service refused on publish, so they are asked again', async () => {
    const refused = new Error('SignatureDoesNotMatch');
    refused.name = 'SignatureDoesNotMatch';
    (refused as any).$metadata = { httpStatusCode: 403 };
    const { model, credentials, body } = setUp(
      { credentials: { mode: 'session' } },
      { failure: () => refused }
    );
    const settings = model.settings;
    await credentials.get(settings, { prompt: true });
    expect(credentials.hasSessionCredentials).toBe(true);
    const error = await rejection(model.publish('a.ipynb', { body }));
    expect(error.code).toBe('InvalidCredentials');
    expect(detailOf(error).mode).toBe('session');
    expect(describeError(error, trans).title).toBe('Credentials refused');
    expect(credentials.hasSessionCredentials).toBe(false);
  });
});
