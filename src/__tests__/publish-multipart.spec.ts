import { BookshelfError } from '../errors/errors';
import { probeConditionalCompletes } from '../publish/conditional';
import { uploadInParts } from '../publish/multipart';
import {
  publishNotebook,
  type IPublishDeps,
  type IPublishNotebookOptions
} from '../publish/publish';
import type { IServerCheck } from '../clone/committer';
import { DEFAULT_SETTINGS } from '../settings/checks';
import type {
  IBookshelfSettings,
  IPublishResult,
  ITransferProgress,
  OverwritePolicy
} from '../tokens';
import { md5 } from '../s3/md5';
import { bytesEqual, randomBytes, utf8 } from './fakes/bytes';
import {
  FakeContentsManager,
  savedFiles,
  savedRanges,
  serverChecks
} from './fakes/contents';
import {
  conditionsHonoured,
  etagOf,
  FakeObjectStore,
  multipartEtag,
  MIN_PART_SIZE
} from './fakes/store';
import { rejection } from './fakes/rejection';

const BUCKET = 'published';
const KEY = 'notebooks/work/big.ipynb';
const PART = MIN_PART_SIZE;

/**
 * A notebook of about `size` bytes (one raw cell of ASCII text).
 */
function bigNotebook(size: number): string {
  const head = '{"cells": [{"cell_type": "raw", "metadata": {}, "source": "';
  const tail = '"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n';
  return head + 'x'.repeat(size - head.length - tail.length) + tail;
}

const BIG = utf8(bigNotebook(2 * PART + 12345));

describe('publishing a large notebook in parts', () => {
  let store: FakeObjectStore;
  let contents: FakeContentsManager;
  let deps: IPublishDeps;
  let settings: IBookshelfSettings;

  function publish(
    options: Partial<IPublishNotebookOptions> = {}
  ): Promise<IPublishResult> {
    return publishNotebook(deps, 'work/big.ipynb', {
      settings,
      serverOrigin: 'https://hub.example.org',
      baseUrl: '/',
      ...options
    });
  }

  function calls(method: string): string[] {
    return store.calls.filter(call => call.startsWith(method));
  }

  function withPolicy(overwritePolicy: OverwritePolicy): void {
    settings = { ...settings, overwritePolicy };
  }

  beforeEach(() => {
    store = new FakeObjectStore();
    store.addBucket(BUCKET, 'Enabled');
    contents = new FakeContentsManager();
    contents.addFile('work/big.ipynb', BIG);
    const opener = savedFiles(contents, { pieceSize: 256 * 1024 });
    deps = {
      store,
      contents,
      openSaved: async path => {
        const saved = await opener.open(path);
        // Read a part at a time: never gathered whole.
        return saved && { ...saved, bytes: () => Promise.reject('whole') };
      },
      readSavedRange: savedRanges(contents),
      checkSaved: serverChecks(contents),
      conditionalWrites: conditionsHonoured,
      conditionalCompletes: conditionsHonoured,
      multipart: { above: PART + 1, partSize: PART }
    };
    settings = {
      ...DEFAULT_SETTINGS,
      publishBucket: BUCKET,
      publishPrefix: 'notebooks/',
      overwritePolicy: 'confirm'
    };
  });

  afterEach(() => {
    // Every upload started was completed or aborted: no parts left behind.
    expect(store.openUploads()).toEqual([]);
  });

  it('uploads the saved bytes in parts, and S3 gets them whole', async () => {
    const progress: ITransferProgress[] = [];
    const result = await publish({ onProgress: step => progress.push(step) });

    const stored = await store.getObject(BUCKET, KEY);
    expect(bytesEqual(stored.bytes, BIG)).toBe(true);
    expect(calls('uploadPart')).toHaveLength(3);
    expect(calls('putObject')).toEqual([]);
    const parts = [0, PART, 2 * PART].map(start =>
      etagOf(BIG.subarray(start, start + PART))
    );
    expect(result.etag).toBe(multipartEtag(parts));
    expect(stored.head.contentType).toBe('application/x-ipynb+json');
    expect(progress[progress.length - 1]).toEqual({
      loaded: BIG.length,
      total: BIG.length
    });
  });

  it('sends at most three parts at once', async () => {
    let running = 0;
    let most = 0;
    deps.multipart = { above: PART + 1, partSize: PART };
    contents.addFile('work/big.ipynb', utf8(bigNotebook(6 * PART)));
    store.options.beforePart = async () => {
      most = Math.max(most, ++running);
      await new Promise(resolve => setTimeout(resolve, 300));
      running--;
    };
    await publish();
    expect(calls('uploadPart')).toHaveLength(6);
    expect(most).toBe(3);
  });

  it('creates only when nothing is there, and replaces only the version seen', async () => {
    const sent: string[] = [];
    const complete = store.completeMultipartUpload.bind(store);
    store.completeMultipartUpload = (bucket, key, id, parts, options = {}) => {
      sent.push(
        options.ifNoneMatch ? 'If-None-Match' : `If-Match ${options.ifMatch}`
      );
      return complete(bucket, key, id, parts, options);
    };
    await publish();
    const seen = (await store.headObject(BUCKET, KEY))!.etag!;
    await publish({ overwrite: true, ifMatch: seen });
    expect(sent).toEqual(['If-None-Match', `If-Match ${seen}`]);
  });

  it('aborts the upload when a part fails, and says why', async () => {
    store.options.partFailure = partNumber =>
      partNumber === 2
        ? Object.assign(new Error('Access Denied'), {
            name: 'AccessDenied',
            $metadata: { httpStatusCode: 403 }
          })
        : undefined;
    const error = await rejection(publish());
    expect(error.code).toBe('AccessDenied');
    expect(await store.headObject(BUCKET, KEY)).toBeNull();
    expect(calls('abortMultipartUpload')).toHaveLength(1);
    expect(calls('completeMultipartUpload')).toEqual([]);
  });

  it('aborts the upload when cancelled half-way', async () => {
    const controller = new AbortController();
    store.options.beforePart = partNumber => {
      if (partNumber === 2) {
        controller.abort();
      }
    };
    const error = await rejection(publish({ signal: controller.signal }));
    expect(error.code).toBe('Cancelled');
    expect(await store.headObject(BUCKET, KEY)).toBeNull();
    expect(calls('abortMultipartUpload')).toHaveLength(1);
  });

  it('publishes nothing, and leaves no parts, when the server finds it is not a notebook', async () => {
    const text = bigNotebook(2 * PART).replace(
      '"nbformat": 4',
      '"nbformat": 3'
    );
    contents.addFile('work/big.ipynb', text);
    const error = await rejection(publish());
    expect(error.code).toBe('NotANotebook');
    expect(error.message).toContain("'work/big.ipynb' is not a valid");
    expect(await store.headObject(BUCKET, KEY)).toBeNull();
    // The parts went while the server checked; the upload was aborted.
    expect(calls('createMultipartUpload')).toHaveLength(1);
    expect(calls('completeMultipartUpload')).toEqual([]);
    expect(calls('abortMultipartUpload')).toHaveLength(1);
  });

  it('sends the parts while the server checks, and completes once it passed', async () => {
    const check = deps.checkSaved!;
    const events: string[] = [];
    store.options.beforePart = partNumber => {
      events.push(`part ${partNumber}`);
    };
    deps.checkSaved = async (path, partSize, onPart) => {
      const checked = await check(path, partSize, onPart);
      // A server still reading the file: it answers once the whole parts
      // went (or after a second, if they wait for it).
      for (let i = 0; i < 200 && !events.includes('part 2'); i++) {
        await new Promise(resolve => setTimeout(resolve, 5));
      }
      events.push('checked');
      return checked;
    };
    await publish();
    // The two whole parts went before the check's end; the last, short
    // one's digest came with it.
    expect(events).toEqual(['part 1', 'part 2', 'checked', 'part 3']);
    expect(calls('completeMultipartUpload')).toHaveLength(1);
    expect(bytesEqual((await store.getObject(BUCKET, KEY)).bytes, BIG)).toBe(
      true
    );
  });

  it('completes nothing when the file was saved again after the check', async () => {
    const check = deps.checkSaved!;
    deps.checkSaved = async (path, partSize) => {
      const checked = await check(path, partSize);
      // Saved again (same size) between the server's check and the reads.
      contents.addFile(
        path,
        utf8(bigNotebook(2 * PART + 12345).replace('xx', 'yy'))
      );
      return checked;
    };
    const error = await rejection(publish());
    expect(error.code).toBe('ReadFailed');
    expect(error.detail).toMatchObject({ reason: 'saved-meanwhile' });
    expect(error.message).toContain('saved again while it was being published');
    expect(await store.headObject(BUCKET, KEY)).toBeNull();
    expect(calls('completeMultipartUpload')).toEqual([]);
  });

  it('publishes whole when the server does not give the parts', async () => {
    deps.openSaved = savedFiles(contents, { pieceSize: 256 * 1024 }).open;
    deps.readSavedRange = async () => null;
    await publish();
    expect(calls('abortMultipartUpload')).toHaveLength(1);
    expect(calls('putObject')).toHaveLength(1);
    expect(bytesEqual((await store.getObject(BUCKET, KEY)).bytes, BIG)).toBe(
      true
    );
  });

  it('publishes whole when the server cannot check the file', async () => {
    const opener = savedFiles(contents, { pieceSize: 256 * 1024 });
    deps.openSaved = opener.open;
    deps.checkSaved = async (): Promise<IServerCheck | null> => null;
    await publish();
    expect(calls('putObject')).toHaveLength(1);
    expect(bytesEqual((await store.getObject(BUCKET, KEY)).bytes, BIG)).toBe(
      true
    );
  });

  it('publishes whole a file whose size the server did not announce', async () => {
    deps.openSaved = savedFiles(contents, {
      pieceSize: 256 * 1024,
      announceSize: false
    }).open;
    await publish();
    expect(calls('createMultipartUpload')).toEqual([]);
    expect(calls('putObject')).toHaveLength(1);
  });

  it('puts whole, with If-Match, where only the completion ignores If-Match', async () => {
    await publish();
    store.options.ignoreCompleteIfMatch = true;
    deps.conditionalCompletes = async () => ({
      ifMatch: false,
      ifNoneMatch: true
    });
    deps.openSaved = savedFiles(contents, { pieceSize: 256 * 1024 }).open;
    const seen = (await store.headObject(BUCKET, KEY))!.etag!;
    store.addObject(BUCKET, KEY, 'someone else');
    const error = await rejection(publish({ overwrite: true, ifMatch: seen }));
    expect(error.code).toBe('Conflict');
    expect(
      new TextDecoder().decode((await store.getObject(BUCKET, KEY)).bytes)
    ).toBe('someone else');
    expect(store.puts[store.puts.length - 1].ifMatch).toBe(seen);
  });

  it("refuses under 'never' a notebook someone created meanwhile", async () => {
    withPolicy('never');
    store.options.beforePart = partNumber => {
      if (partNumber === 3) {
        store.addObject(BUCKET, KEY, 'theirs');
      }
    };
    const error = await rejection(publish());
    expect(error.code).toBe('Conflict');
    expect(error.detail).toMatchObject({ reason: 'changed' });
    expect(
      new TextDecoder().decode((await store.getObject(BUCKET, KEY)).bytes)
    ).toBe('theirs');
  });

  it("replaces under 'always' a notebook someone created meanwhile", async () => {
    withPolicy('always');
    store.options.beforePart = partNumber => {
      if (partNumber === 3) {
        store.addObject(BUCKET, KEY, 'theirs');
      }
    };
    await publish();
    expect(bytesEqual((await store.getObject(BUCKET, KEY)).bytes, BIG)).toBe(
      true
    );
  });

  it('publishes in one put, not read into the page, to a bucket whose CORS rule does not allow POST', async () => {
    // deps.openSaved's file cannot be read whole in the page.
    store.options.failure = method =>
      method === 'createMultipartUpload'
        ? new TypeError('Failed to fetch')
        : undefined;
    await publish();
    expect(calls('uploadPart')).toEqual([]);
    expect(calls('putObject')).toHaveLength(1);
    expect(bytesEqual((await store.getObject(BUCKET, KEY)).bytes, BIG)).toBe(
      true
    );
  });

  describe('in one put, checked on the server', () => {
    let bodies: string[];

    beforeEach(() => {
      // BIG is above checkOnServerAbove and below multipart.above.
      deps.checkOnServerAbove = 64 * 1024;
      deps.multipart = { above: 4 * PART, partSize: PART };
      // As the server's /files/ path: a Blob the page need not read.
      const ranges = savedRanges(contents);
      deps.readSavedRange = async (path, start, end) => {
        const bytes = await ranges(path, start, end);
        return bytes && new Blob([bytes]);
      };
      bodies = [];
      const put = store.putObject.bind(store);
      store.putObject = (bucket, key, body, options) => {
        bodies.push(body instanceof Blob ? 'Blob' : typeof body);
        return put(bucket, key, body, options);
      };
    });

    function saveAgainAfterCheck(text: string): void {
      const check = deps.checkSaved!;
      let checks = 0;
      deps.checkSaved = async (path, partSize) => {
        const checked = await check(path, partSize);
        if (++checks === 1) {
          contents.addFile(path, utf8(text));
        }
        return checked;
      };
      // The page fetches the file once the check has read it.
      const read = deps.readSavedRange!;
      deps.readSavedRange = async (path, start, end) => {
        while (checks === 0) {
          await new Promise(resolve => setTimeout(resolve, 1));
        }
        return read(path, start, end);
      };
    }

    it("sends the server's bytes as a Blob with the server's MD5, never read into the page", async () => {
      const partSizes: number[] = [];
      const check = deps.checkSaved!;
      deps.checkSaved = (path, partSize, onPart) => {
        partSizes.push(partSize);
        return check(path, partSize, onPart);
      };
      const progress: ITransferProgress[] = [];
      const result = await publish({ onProgress: step => progress.push(step) });

      expect(bodies).toEqual(['Blob']);
      expect(calls('createMultipartUpload')).toEqual([]);
      // One part as large as the file: its MD5 is the file's.
      expect(partSizes).toHaveLength(1);
      expect(partSizes[0]).toBeGreaterThanOrEqual(BIG.length);
      const stored = await store.getObject(BUCKET, KEY);
      expect(bytesEqual(stored.bytes, BIG)).toBe(true);
      expect(result.etag).toBe(etagOf(BIG));
      expect(store.puts[0]).toMatchObject({
        contentType: 'application/x-ipynb+json',
        ifNoneMatch: '*'
      });
      expect(progress[progress.length - 1]).toEqual({
        loaded: BIG.length,
        total: BIG.length
      });
    });

    it('publishes nothing when the server finds it is not a notebook', async () => {
      contents.addFile(
        'work/big.ipynb',
        bigNotebook(2 * PART).replace('"nbformat": 4', '"nbformat": 3')
      );
      const error = await rejection(publish());
      expect(error.code).toBe('NotANotebook');
      expect(error.message).toContain("'work/big.ipynb' is not a valid");
      expect(calls('putObject')).toEqual([]);
      expect(await store.headObject(BUCKET, KEY)).toBeNull();
    });

    it('publishes nothing when the file was saved again, at another size, before the check', async () => {
      const open = deps.openSaved!;
      deps.openSaved = async path => {
        const saved = await open(path);
        contents.addFile(path, utf8(bigNotebook(3 * PART)));
        return saved;
      };
      const error = await rejection(publish());
      expect(error.code).toBe('ReadFailed');
      expect(error.detail).toMatchObject({ reason: 'saved-meanwhile' });
      expect(calls('putObject')).toEqual([]);
      expect(await store.headObject(BUCKET, KEY)).toBeNull();
    });

    it('publishes nothing when the file was saved again, at the same size, after the check: S3 refuses the bytes', async () => {
      saveAgainAfterCheck(
        bigNotebook(2 * PART + 12345).replace('xxxx', 'yyyy')
      );
      const error = await rejection(publish());
      expect(error.code).toBe('ReadFailed');
      expect(error.detail).toMatchObject({ reason: 'saved-meanwhile' });
      expect(error.message).toContain(
        'saved again while it was being published, so nothing was published'
      );
      expect(await store.headObject(BUCKET, KEY)).toBeNull();
    });

    it('says so when an S3 service that ignores Content-MD5 stored a save made after the check', async () => {
      store.options.ignoreContentMd5 = true;
      saveAgainAfterCheck(
        bigNotebook(2 * PART + 12345).replace('xxxx', 'yyyy')
      );
      const error = await rejection(publish());
      expect(error.code).toBe('ReadFailed');
      expect(error.detail).toMatchObject({ reason: 'saved-unchecked' });
      expect(error.message).toContain(
        'stored the bytes of that save, which were not checked'
      );
    });

    it('stops the put when cancelled, and stores nothing', async () => {
      const controller = new AbortController();
      store.options.beforePut = () => controller.abort();
      const error = await rejection(publish({ signal: controller.signal }));
      expect(error.code).toBe('Cancelled');
      expect(await store.headObject(BUCKET, KEY)).toBeNull();
    });

    it("refuses under 'never' where the S3 service ignores If-None-Match, and puts nothing", async () => {
      withPolicy('never');
      deps.conditionalWrites = async () => ({
        ifMatch: true,
        ifNoneMatch: false
      });
      const error = await rejection(publish());
      expect(error.code).toBe('NotConfigured');
      expect(error.detail).toMatchObject({ reason: 'conditional-writes' });
      expect(calls('putObject')).toEqual([]);
    });

    it('reads the notebook into the page when the server cannot check it', async () => {
      deps.openSaved = savedFiles(contents, { pieceSize: 256 * 1024 }).open;
      deps.checkSaved = async (): Promise<IServerCheck | null> => null;
      await publish();
      expect(bodies).toEqual(['object']);
      expect(bytesEqual((await store.getObject(BUCKET, KEY)).bytes, BIG)).toBe(
        true
      );
    });
  });

  it('knows its own completion when the answer was lost and the retry refused', async () => {
    const complete = store.completeMultipartUpload.bind(store);
    store.completeMultipartUpload = async (...args) => {
      await complete(...args);
      // The answer never came; the SDK's resend met its own object.
      throw new BookshelfError({
        code: 'PreconditionFailed',
        detail: { bucket: BUCKET, key: KEY }
      });
    };
    const result = await publish();
    expect(result.etag).toBe((await store.headObject(BUCKET, KEY))!.etag);
  });
});

describe('uploadInParts', () => {
  let store: FakeObjectStore;

  beforeEach(() => {
    store = new FakeObjectStore();
    store.addBucket('b');
  });

  function source(bytes: Uint8Array) {
    const md5s: Uint8Array[] = [];
    for (let start = 0; start < bytes.length || !md5s.length; start += PART) {
      md5s.push(md5(bytes.subarray(start, start + PART)));
    }
    return {
      size: bytes.length,
      md5: (index: number) => md5s[index],
      read: async (start: number, end: number) => bytes.slice(start, end)
    };
  }

  it.each([
    ['two parts and a byte', 2 * PART + 1],
    ['one part exactly', PART],
    ['a few bytes', 3]
  ])('uploads %s in parts of the size given', async (_, size) => {
    const bytes = randomBytes(size);
    const sent: { size: number; etag: string }[] = [];
    const uploadId = await store.createMultipartUpload('b', 'k');
    const result = await uploadInParts(
      store,
      'b',
      'k',
      uploadId,
      source(bytes),
      {
        partSize: PART,
        changed: () => new Error('changed'),
        complete: async (uploadId, parts, whole) => {
          sent.push(whole);
          return store.completeMultipartUpload('b', 'k', uploadId, parts);
        }
      }
    );
    const stored = await store.getObject('b', 'k');
    expect(bytesEqual(stored.bytes, bytes)).toBe(true);
    // The ETag announced before the completion is the one S3 gives.
    expect(sent).toEqual([{ size: bytes.length, etag: result.etag }]);
    expect(store.openUploads()).toEqual([]);
  });

  it('aborts the upload when a part cannot be read', async () => {
    const bytes = randomBytes(2 * PART);
    const uploadId = await store.createMultipartUpload('b', 'k');
    const broken = {
      ...source(bytes),
      read: async (start: number) => {
        if (start > 0) {
          throw new TypeError('network error');
        }
        return bytes.slice(0, PART);
      }
    };
    await expect(
      uploadInParts(store, 'b', 'k', uploadId, broken, {
        partSize: PART,
        changed: () => new Error('changed'),
        complete: () => Promise.reject(new Error('not reached'))
      })
    ).rejects.toThrow('network error');
    expect(store.openUploads()).toEqual([]);
    expect(await store.headObject('b', 'k')).toBeNull();
  });
});

describe('probeConditionalCompletes', () => {
  it.each([
    ['S3', {}, { ifMatch: true, ifNoneMatch: true }],
    [
      'moto 5.2',
      { ignoreCompleteIfMatch: true },
      { ifMatch: false, ifNoneMatch: true }
    ],
    [
      's3rver',
      { ignoreConditions: true },
      { ifMatch: false, ifNoneMatch: false }
    ]
  ])(
    'finds out what %s honours, leaving nothing behind',
    async (_, options, found) => {
      const store = new FakeObjectStore(options);
      store.addBucket('pub', 'Enabled');
      const random = () => 'r';
      expect(
        await probeConditionalCompletes(store, 'pub', 'nb/', random)
      ).toEqual(found);
      expect(store.openUploads()).toEqual([]);
      expect(
        await store.headObject('pub', 'nb/.bookshelf-conditional-write-check-r')
      ).toBeNull();
      expect(store.calls.filter(call => call.startsWith('putObject'))).toEqual(
        []
      );
    }
  );
});
