import type { Contents } from '@jupyterlab/services';
import { readCloneQuery } from '../clone/request';
import { BookshelfError } from '../errors/errors';
import {
  NOTEBOOK_CONTENT_TYPE,
  publishNotebook,
  readPublishTarget,
  type IPublishDeps,
  type IPublishNotebookOptions
} from '../publish/publish';
import { md5, toHex } from '../s3/md5';
import type { IPutObjectOptions } from '../s3/types';
import { DEFAULT_SETTINGS } from '../settings/checks';
import type {
  IBookshelfSettings,
  IPublishResult,
  ITransferProgress,
  OverwritePolicy
} from '../tokens';
import { bytesEqual, notebookText, utf8 } from './fakes/bytes';
import {
  delay,
  FakeContentsManager,
  responseError,
  savedFiles
} from './fakes/contents';
import { conditionsHonoured, etagOf, FakeObjectStore } from './fakes/store';
import { rejection } from './fakes/rejection';

/**
 * The fake contents manager, answering `get(path, {type: 'file', format:
 * 'text'})` as jupyter_server does: the file's text as it is on disk, also
 * for a notebook (which is not parsed), 404 for a missing path, and 400 for
 * a folder or bytes that are not UTF-8. Other reads go to the fake.
 */
class ServerContents extends FakeContentsManager {
  async get(
    path: string,
    options: Contents.IFetchOptions = {}
  ): Promise<Contents.IModel> {
    if (options.type !== 'file') {
      return super.get(path, options);
    }
    this.calls.push({
      method: 'get',
      path,
      type: options.type,
      format: options.format
    });
    await delay(0);
    if (!this.has(path)) {
      throw responseError(404, `No such file or directory: ${path}`);
    }
    if (!this.files().includes(path)) {
      throw responseError(400, `${path} is a directory, not a file`);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(
        this.readBytes(path)
      );
    } catch {
      throw responseError(400, `${path} is not UTF-8 encoded`);
    }
    return {
      name: path.slice(path.lastIndexOf('/') + 1),
      path,
      type: 'file',
      format: 'text',
      mimetype: 'text/plain',
      content: options.content === false ? null : text,
      writable: true,
      created: '',
      last_modified: ''
    } as Contents.IModel;
  }
}

// A saved notebook whose bytes a parse-and-stringify would change: key
// order, indentation, a float, non-ASCII text, no final newline.
const SAVED = `{"nbformat": 4, "nbformat_minor": 5,
  "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}, "x": 1.0},
  "cells": [{"cell_type": "markdown", "id": "c1", "metadata": {}, "source": ["Ünïcode ✓"]}]}`;

const BUCKET = 'published';
const PREFIX = 'notebooks/';
const ORIGIN = 'https://hub.example.org';
const BASE_URL = '/user/ana/';

describe('publishNotebook', () => {
  let store: FakeObjectStore;
  let contents: ServerContents;
  let deps: IPublishDeps;
  let settings: IBookshelfSettings;

  function withPolicy(overwritePolicy: OverwritePolicy): IBookshelfSettings {
    return { ...settings, overwritePolicy };
  }

  function publish(
    path: string,
    options: Partial<IPublishNotebookOptions> = {},
    publisher: IPublishDeps = deps
  ): Promise<IPublishResult> {
    return publishNotebook(publisher, path, {
      settings,
      serverOrigin: ORIGIN,
      baseUrl: BASE_URL,
      ...options
    });
  }

  async function storedText(key: string, versionId?: string): Promise<string> {
    const { bytes } = await store.getObject(BUCKET, key, { versionId });
    return new TextDecoder().decode(bytes);
  }

  function putCount(): number {
    return store.calls.filter(call => call.startsWith('putObject')).length;
  }

  beforeEach(() => {
    store = new FakeObjectStore();
    store.addBucket(BUCKET, 'Enabled');
    contents = new ServerContents();
    contents.addFile('work/q3.ipynb', SAVED);
    deps = { store, contents, conditionalWrites: conditionsHonoured };
    settings = {
      ...DEFAULT_SETTINGS,
      publishBucket: BUCKET,
      publishPrefix: PREFIX,
      overwritePolicy: 'confirm'
    };
  });

  describe('when S3 asks the person nothing', () => {
    it('asks what is at the destination while the notebook is read', async () => {
      const order: string[] = [];
      const get = contents.get.bind(contents);
      contents.get = async (path, fetchOptions) => {
        order.push(
          `read, head asked: ${store.calls.includes(`headObject ${BUCKET}/notebooks/work/q3.ipynb`)}`
        );
        return get(path, fetchOptions);
      };
      await publish('work/q3.ipynb', {}, { ...deps, asksNothing: () => true });
      expect(order).toEqual(['read, head asked: true']);
      expect(await storedText('notebooks/work/q3.ipynb')).toBe(SAVED);
    });

    it('asks it after the read where S3 may ask for keys', async () => {
      const order: string[] = [];
      const get = contents.get.bind(contents);
      contents.get = async (path, fetchOptions) => {
        order.push(
          `read, head asked: ${store.calls.some(call => call.startsWith('headObject'))}`
        );
        return get(path, fetchOptions);
      };
      await publish('work/q3.ipynb', {}, { ...deps, asksNothing: () => false });
      expect(order).toEqual(['read, head asked: false']);
    });

    it('still refuses a notebook that cannot be published first', async () => {
      store = new FakeObjectStore({
        failure: method =>
          method === 'headObject' ? { name: 'AccessDenied' } : undefined
      });
      store.addBucket(BUCKET, 'Enabled');
      contents.addFile('work/bad.ipynb', '{"cells": [');
      const error = await rejection(
        publish(
          'work/bad.ipynb',
          {},
          { ...deps, store, asksNothing: () => true }
        )
      );
      expect(error.code).toBe('NotANotebook');
      expect(putCount()).toBe(0);
    });
  });

  describe('content', () => {
    it('uploads the saved file byte for byte, as a notebook', async () => {
      const result = await publish('work/q3.ipynb');

      const stored = await store.getObject(BUCKET, 'notebooks/work/q3.ipynb');
      expect(bytesEqual(stored.bytes, utf8(SAVED))).toBe(true);
      expect(stored.head.contentType).toBe(NOTEBOOK_CONTENT_TYPE);
      expect(NOTEBOOK_CONTENT_TYPE).toBe('application/x-ipynb+json');
      // Read as text, so the server does not parse and rewrite it.
      expect(contents.calls).toEqual([
        { method: 'get', path: 'work/q3.ipynb', type: 'file', format: 'text' }
      ]);
      expect(result).toEqual({
        s3_path: 's3://published/notebooks/work/q3.ipynb',
        version_id: stored.head.versionId,
        etag: etagOf(utf8(SAVED)),
        clone_url: `https://hub.example.org/user/ana/bookshelf/clone?s3_bucket=published&s3_key=notebooks%2Fwork%2Fq3.ipynb&s3_version_id=${stored.head.versionId}`
      });
    });

    it('publishes a given body as Jupyter writes notebooks', async () => {
      const content = {
        cells: [],
        metadata: { title: 'unsaved' },
        nbformat: 4,
        nbformat_minor: 5
      };
      await publish('work/q3.ipynb', {
        body: { type: 'notebook', content }
      });

      expect(await storedText('notebooks/work/q3.ipynb')).toBe(
        JSON.stringify(content, null, 1) + '\n'
      );
      // The saved file is not read.
      expect(contents.calls).toEqual([]);
    });

    it('publishes a notebook the contents manager sent parsed', async () => {
      // A contents manager that ignores `type: 'file'`.
      const plain = new FakeContentsManager({ ignoresFileType: true });
      plain.addFile('work/q3.ipynb', SAVED);
      await publish(
        'work/q3.ipynb',
        {},
        {
          store,
          contents: plain,
          conditionalWrites: conditionsHonoured
        }
      );

      expect(await storedText('notebooks/work/q3.ipynb')).toBe(
        JSON.stringify(JSON.parse(SAVED), null, 1) + '\n'
      );
    });

    it.each([
      ['not JSON', '{"cells": [', 'not valid JSON'],
      [
        'JSON without cells',
        '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}}',
        "'cells' is missing"
      ],
      [
        'a version 3 notebook',
        '{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}',
        'which converts it to version 4, then publish it'
      ],
      ['a JSON list', '[]', 'not an object'],
      ['not UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), 'UTF-8'],
      [
        // Jupyter's reader refuses the mark: named, not "not valid JSON".
        'a notebook after a byte order mark',
        '\ufeff' + SAVED,
        'it starts with a byte order mark (U+FEFF), which Jupyter cannot read: save it as UTF-8 without one.'
      ]
    ])(
      'refuses a saved file that is %s, putting nothing',
      async (_, saved, reason) => {
        contents.addFile('work/bad.ipynb', saved);

        const error = await rejection(publish('work/bad.ipynb'));

        expect(error).toBeInstanceOf(BookshelfError);
        expect(error.code).toBe('NotANotebook');
        expect(error.message).toContain("'work/bad.ipynb'");
        expect(error.message).toContain(reason);
        expect(putCount()).toBe(0);
      }
    );

    it('refuses a body whose content is not a notebook, putting nothing', async () => {
      const error = await rejection(
        publish('work/q3.ipynb', {
          body: {
            type: 'notebook',
            content: { nbformat: 4, nbformat_minor: 5, metadata: {} }
          }
        })
      );
      expect(error.code).toBe('NotANotebook');
      expect(error.message).toContain("'cells' is missing");
      expect(putCount()).toBe(0);
    });

    it.each([
      ['a file body', { type: 'file', content: SAVED }],
      ['text content', { type: 'notebook', content: SAVED }],
      ['no content', { type: 'notebook' }]
    ])('refuses %s, putting nothing', async (_, body) => {
      const error = await rejection(
        publish('work/q3.ipynb', { body: body as any })
      );
      expect(error.code).toBe('InvalidRequest');
      expect(putCount()).toBe(0);
    });

    it('refuses a path that is not a notebook', async () => {
      contents.addFile('work/data.csv', 'a,b\n');
      const error = await rejection(publish('work/data.csv'));
      expect(error.code).toBe('NotANotebook');
      expect(error.message).toContain("'work/data.csv'");
      expect(contents.calls).toEqual([]);
      expect(store.calls).toEqual([]);
    });

    it('names a missing file', async () => {
      const error = await rejection(publish('work/gone.ipynb'));
      expect(error).toBeInstanceOf(BookshelfError);
      expect(error.code).toBe('InvalidRequest');
      expect(error.message).toBe(
        "There is no file 'work/gone.ipynb' in the file tree: save the notebook first, or check its path."
      );
      expect(store.calls).toEqual([]);
    });

    it('refuses a folder named like a notebook', async () => {
      contents.addDirectory('work/folder.ipynb');
      const error = await rejection(publish('work/folder.ipynb'));
      expect(error.code).toBe('NotANotebook');
      expect(putCount()).toBe(0);
    });
  });

  describe('destination', () => {
    it('refuses without a publish bucket, touching nothing', async () => {
      settings = { ...settings, publishBucket: '' };
      const error = await rejection(publish('work/q3.ipynb'));
      expect(error).toBeInstanceOf(BookshelfError);
      expect(error.code).toBe('PublishNotConfigured');
      expect(error.message).toBe(
        "No publish bucket is set: set 'Publish bucket' in the Bookshelf settings."
      );
      expect(store.calls).toEqual([]);
      expect(contents.calls).toEqual([]);
    });

    it('refuses an invalid publish bucket name as a settings problem', async () => {
      settings = { ...settings, publishBucket: 'Published_Notebooks' };
      const error = await rejection(publish('work/q3.ipynb'));
      expect(error.code).toBe('PublishNotConfigured');
      expect(store.calls).toEqual([]);
    });

    it('publishes to the prefix plus the destination', async () => {
      const result = await publish('work/q3.ipynb', {
        destination: 'reports/2024/q3.ipynb'
      });
      expect(result.s3_path).toBe(
        's3://published/notebooks/reports/2024/q3.ipynb'
      );
      expect(await storedText('notebooks/reports/2024/q3.ipynb')).toBe(SAVED);
    });

    it('uses a prefix without a trailing slash as it is', async () => {
      settings = { ...settings, publishPrefix: 'team-' };
      const result = await publish('q.ipynb', {
        body: { type: 'notebook', content: JSON.parse(SAVED) }
      });
      expect(result.s3_path).toBe('s3://published/team-q.ipynb');
    });

    it.each([
      ['not a notebook', 'reports/q3.txt'],
      ['a .. segment', '../admin/q3.ipynb'],
      ['a right-to-left override', 'q3\u202egpj.ipynb'],
      ['a control character', 'q3\u0007.ipynb']
    ])(
      'refuses a destination with %s, putting nothing',
      async (_, destination) => {
        const error = await rejection(
          publish('work/q3.ipynb', { destination })
        );
        expect(error.code).toBe('InvalidRequest');
        expect(store.calls).toEqual([]);
      }
    );
  });

  describe('overwrite policy', () => {
    const KEY = 'notebooks/work/q3.ipynb';
    const THEIRS = notebookText('theirs');

    it('creates a new object with If-None-Match, under every policy', async () => {
      for (const policy of ['never', 'confirm', 'always'] as const) {
        const path = `work/${policy}.ipynb`;
        contents.addFile(path, SAVED);
        await publish(path, { settings: withPolicy(policy) });
        expect(await storedText(`notebooks/${path}`)).toBe(SAVED);
      }
      expect(store.puts.map(put => put.ifNoneMatch)).toEqual(['*', '*', '*']);
    });

    it("'never' refuses an existing object and leaves it unchanged", async () => {
      const theirs = store.addObject(BUCKET, KEY, THEIRS);

      const error = await rejection(
        publish('work/q3.ipynb', {
          settings: withPolicy('never'),
          overwrite: true
        })
      );

      expect(error).toBeInstanceOf(BookshelfError);
      expect(error.code).toBe('Conflict');
      expect(error.message).toBe(
        `s3://published/${KEY} exists and the overwrite policy is 'never': nothing was published; choose another path.`
      );
      expect(error.detail).toMatchObject({
        bucket: BUCKET,
        key: KEY,
        reason: 'policy-never'
      });
      expect(putCount()).toBe(0);
      const head = await store.headObject(BUCKET, KEY);
      expect(head?.versionId).toBe(theirs);
      expect(await storedText(KEY)).toBe(THEIRS);
    });

    it("'confirm' asks before replacing an existing object", async () => {
      store.addObject(BUCKET, KEY, THEIRS);

      const error = await rejection(publish('work/q3.ipynb'));

      expect(error.code).toBe('Conflict');
      expect(error.message).toBe(
        `s3://published/${KEY} exists; confirm to replace it.`
      );
      // What the dialog needs to ask, and to replace only that version.
      expect(error.detail).toMatchObject({
        reason: 'needs-confirmation',
        etag: etagOf(utf8(THEIRS))
      });
      expect(typeof error.detail.lastModified).toBe('string');
      expect(putCount()).toBe(0);
      expect(await storedText(KEY)).toBe(THEIRS);
    });

    it("'confirm' replaces the version the user saw once confirmed", async () => {
      const old = store.addObject(BUCKET, KEY, THEIRS);
      const target = await readPublishTarget(deps, 'work/q3.ipynb', settings);

      const result = await publish('work/q3.ipynb', {
        overwrite: true,
        ifMatch: target.existing!.etag
      });

      expect(store.puts).toEqual([
        expect.objectContaining({ ifMatch: etagOf(utf8(THEIRS)) })
      ]);
      expect(await storedText(KEY)).toBe(SAVED);
      expect(result.version_id).toBeDefined();
      expect(result.version_id).not.toBe(old);
      expect(result.etag).toBe(etagOf(utf8(SAVED)));
      // The replaced version is kept by the versioned bucket.
      expect(await storedText(KEY, old)).toBe(THEIRS);
    });

    it("'confirm' refuses when someone replaced the version the user saw", async () => {
      store.addObject(BUCKET, KEY, notebookText('A'));
      const seen = await readPublishTarget(deps, 'work/q3.ipynb', settings);
      // Someone else publishes B while the dialog is open.
      const b = store.addObject(BUCKET, KEY, notebookText('B'));

      const error = await rejection(
        publish('work/q3.ipynb', {
          overwrite: true,
          ifMatch: seen.existing!.etag
        })
      );

      expect(error).toBeInstanceOf(BookshelfError);
      expect(error.code).toBe('Conflict');
      expect(error.message).toBe(
        `s3://published/${KEY} was changed by someone else since you looked; nothing was overwritten. Look at the newer version, then publish again.`
      );
      expect(error.detail).toMatchObject({ bucket: BUCKET, key: KEY });
      expect(putCount()).toBe(1);
      expect((await store.headObject(BUCKET, KEY))?.versionId).toBe(b);
      expect(await storedText(KEY)).toBe(notebookText('B'));
    });

    it("'confirm' without an ETag replaces only the version it just found", async () => {
      // B lands between our look and our put.
      const racing = new FakeObjectStore({
        beforePut: () => {
          racing.addObject(BUCKET, KEY, notebookText('B'));
        }
      });
      racing.addBucket(BUCKET, 'Enabled');
      racing.addObject(BUCKET, KEY, notebookText('A'));

      const error = await rejection(
        publish(
          'work/q3.ipynb',
          { overwrite: true },
          { store: racing, contents, conditionalWrites: conditionsHonoured }
        )
      );

      expect(error.code).toBe('Conflict');
      expect(racing.puts).toEqual([
        expect.objectContaining({ ifMatch: etagOf(utf8(notebookText('A'))) })
      ]);
      const { bytes } = await racing.getObject(BUCKET, KEY);
      expect(new TextDecoder().decode(bytes)).toBe(notebookText('B'));
    });

    it("lets exactly one of two publishers create an object under 'never'", async () => {
      settings = withPolicy('never');
      contents.addFile('work/mine.ipynb', notebookText('mine'));
      contents.addFile('work/yours.ipynb', notebookText('yours'));

      const outcomes = await Promise.allSettled([
        publish('work/mine.ipynb', { destination: 'shared.ipynb' }),
        publish('work/yours.ipynb', { destination: 'shared.ipynb' })
      ]);

      // Both looked before either wrote.
      expect(store.calls.slice(0, 2)).toEqual([
        `headObject ${BUCKET}/notebooks/shared.ipynb`,
        `headObject ${BUCKET}/notebooks/shared.ipynb`
      ]);
      const won = outcomes.filter(outcome => outcome.status === 'fulfilled');
      const lost = outcomes.filter(outcome => outcome.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      const error = (lost[0] as PromiseRejectedResult).reason;
      expect(error.code).toBe('Conflict');
      expect(error.message).toContain('was created by someone else');
      const winner = outcomes[0].status === 'fulfilled' ? 'mine' : 'yours';
      const result = (won[0] as PromiseFulfilledResult<IPublishResult>).value;
      expect(await storedText('notebooks/shared.ipynb')).toBe(
        notebookText(winner)
      );
      expect(
        await storedText('notebooks/shared.ipynb', result.version_id)
      ).toBe(notebookText(winner));
    });

    it("'always' replaces an existing object", async () => {
      store.addObject(BUCKET, KEY, THEIRS);

      const result = await publish('work/q3.ipynb', {
        settings: withPolicy('always')
      });

      expect(store.puts).toEqual([
        expect.objectContaining({ ifMatch: undefined, ifNoneMatch: undefined })
      ]);
      expect(await storedText(KEY)).toBe(SAVED);
      expect(result.etag).toBe(etagOf(utf8(SAVED)));
    });

    it("'always' replaces an object created while it was publishing", async () => {
      const racing = new FakeObjectStore({
        beforePut: (bucket, key, options) => {
          if (options.ifNoneMatch) {
            racing.addObject(bucket, key, THEIRS);
          }
        }
      });
      racing.addBucket(BUCKET, 'Enabled');

      await publish(
        'work/q3.ipynb',
        { settings: withPolicy('always') },
        { store: racing, contents, conditionalWrites: conditionsHonoured }
      );

      expect(
        racing.puts.map(({ ifMatch, ifNoneMatch }) => ({
          ifMatch,
          ifNoneMatch
        }))
      ).toEqual([
        { ifMatch: undefined, ifNoneMatch: '*' },
        { ifMatch: undefined, ifNoneMatch: undefined }
      ]);
      const { bytes } = await racing.getObject(BUCKET, KEY);
      expect(bytesEqual(bytes, utf8(SAVED))).toBe(true);
    });

    it("'confirm' refuses an object created while it was publishing", async () => {
      const racing = new FakeObjectStore({
        beforePut: (bucket, key) => {
          racing.addObject(bucket, key, THEIRS);
        }
      });
      racing.addBucket(BUCKET, 'Enabled');

      const error = await rejection(
        publish(
          'work/q3.ipynb',
          {},
          { store: racing, contents, conditionalWrites: conditionsHonoured }
        )
      );

      expect(error.code).toBe('Conflict');
      expect(racing.puts).toHaveLength(1);
      const { bytes } = await racing.getObject(BUCKET, KEY);
      expect(new TextDecoder().decode(bytes)).toBe(THEIRS);
    });
  });

  describe('result', () => {
    it('carries the new version id, also in the clone link', async () => {
      const first = await publish('work/q3.ipynb');
      contents.addFile('work/q3.ipynb', notebookText('second'));
      const second = await publish('work/q3.ipynb', {
        overwrite: true,
        ifMatch: first.etag
      });

      expect(first.version_id).toBeTruthy();
      expect(second.version_id).toBeTruthy();
      expect(second.version_id).not.toBe(first.version_id);
      const query = readCloneQuery(new URL(second.clone_url).search);
      expect(query).toEqual({
        s3_bucket: BUCKET,
        s3_key: 'notebooks/work/q3.ipynb',
        s3_version_id: second.version_id
      });
      expect(await storedText(query.s3_key as string, first.version_id)).toBe(
        SAVED
      );
    });

    it('has no version id from a bucket without versioning', async () => {
      store = new FakeObjectStore();
      store.addBucket(BUCKET);
      const result = await publish(
        'work/q3.ipynb',
        {},
        {
          store,
          contents,
          conditionalWrites: conditionsHonoured
        }
      );

      expect(result).toEqual({
        s3_path: 's3://published/notebooks/work/q3.ipynb',
        etag: etagOf(utf8(SAVED)),
        clone_url:
          'https://hub.example.org/user/ana/bookshelf/clone?s3_bucket=published&s3_key=notebooks%2Fwork%2Fq3.ipynb'
      });
    });
  });

  describe('transfer', () => {
    it('reports progress', async () => {
      const progress: ITransferProgress[] = [];
      await publish('work/q3.ipynb', {
        onProgress: step => progress.push(step)
      });
      const size = utf8(SAVED).length;
      expect(progress[progress.length - 1]).toEqual({
        loaded: size,
        total: size
      });
    });

    it('puts nothing when cancelled', async () => {
      const controller = new AbortController();
      controller.abort();
      const error = await rejection(
        publish('work/q3.ipynb', { signal: controller.signal })
      );
      expect(error.code).toBe('Cancelled');
      expect(store.calls).toEqual([]);
    });

    describe('digests', () => {
      let sent: IPutObjectOptions[];
      let readerDeps: IPublishDeps;

      beforeEach(() => {
        sent = [];
        const spy = Object.create(store) as FakeObjectStore;
        spy.putObject = (bucket, key, body, options = {}) => {
          sent.push(options);
          return store.putObject(bucket, key, body, options);
        };
        // A /files/ reader that hands the bytes over in uneven pieces.
        readerDeps = {
          store: spy,
          contents,
          conditionalWrites: conditionsHonoured,
          openSaved: savedFiles(contents).open
        };
      });

      it('hands the store the MD5 computed while reading, and a SHA-256', async () => {
        await publish('work/q3.ipynb', {}, readerDeps);
        const bytes = utf8(SAVED);
        expect(toHex(sent[0].md5!)).toBe(toHex(md5(bytes)));
        // jsdom has no Web Crypto: the store computes it then.
        expect(await sent[0].sha256).toBeNull();
        expect(await storedText('notebooks/work/q3.ipynb')).toBe(SAVED);
      });

      it('leaves the MD5 to the store when the reader did not show every byte', async () => {
        const open = savedFiles(contents).open;
        readerDeps.openSaved = async path => {
          const saved = (await open(path))!;
          return { ...saved, bytes: async () => contents.readBytes(path) };
        };
        await publish('work/q3.ipynb', {}, readerDeps);
        expect(sent[0].md5).toBeUndefined();
        expect(await storedText('notebooks/work/q3.ipynb')).toBe(SAVED);
      });

      it('reads through the contents manager when the server has no /files/ of it (JupyterLite)', async () => {
        const asked: string[] = [];
        readerDeps.openSaved = async path => {
          asked.push(path);
          return null; // 404: Lite's files live in the browser
        };
        await publish('work/q3.ipynb', {}, readerDeps);
        expect(asked[0]).toBe('work/q3.ipynb');
        expect(await storedText('notebooks/work/q3.ipynb')).toBe(SAVED);
      });

      it('names a missing file when neither /files/ nor the contents manager has it', async () => {
        readerDeps.openSaved = async () => null;
        const error = await rejection(
          publish('work/gone.ipynb', {}, readerDeps)
        );
        expect(error.code).toBe('InvalidRequest');
        expect(error.message).toBe(
          "There is no file 'work/gone.ipynb' in the file tree: save the notebook first, or check its path."
        );
        expect(store.calls).toEqual([]);
      });

      it('hashes nothing it does not publish', async () => {
        contents.addFile('work/bad.ipynb', '{"cells": []}');
        const error = await rejection(
          publish('work/bad.ipynb', {}, readerDeps)
        );
        expect(error.code).toBe('NotANotebook');
        expect(sent).toEqual([]);
        expect(store.calls).toEqual([]);
      });
    });
  });
});

describe('readPublishTarget', () => {
  let store: FakeObjectStore;
  const settings: IBookshelfSettings = {
    ...DEFAULT_SETTINGS,
    publishBucket: BUCKET,
    publishPrefix: PREFIX
  };

  beforeEach(() => {
    store = new FakeObjectStore();
    store.addBucket(BUCKET, 'Enabled');
  });

  it('says what exists at the destination, uploading nothing', async () => {
    const versionId = store.addObject(BUCKET, 'notebooks/work/q3.ipynb', SAVED);

    const target = await readPublishTarget(
      { store },
      'work/q3.ipynb',
      settings
    );

    expect(target).toEqual({
      bucket: BUCKET,
      key: 'notebooks/work/q3.ipynb',
      s3_path: 's3://published/notebooks/work/q3.ipynb',
      existing: expect.objectContaining({
        etag: etagOf(utf8(SAVED)),
        versionId,
        lastModified: expect.any(Date)
      })
    });
    expect(store.calls).toEqual([
      `headObject ${BUCKET}/notebooks/work/q3.ipynb`
    ]);
  });

  it('gives null when nothing is there, and follows the destination', async () => {
    const target = await readPublishTarget(
      { store },
      'work/q3.ipynb',
      settings,
      'reports/q3.ipynb'
    );
    expect(target.key).toBe('notebooks/reports/q3.ipynb');
    expect(target.existing).toBeNull();
  });

  it('refuses without a publish bucket', async () => {
    const error = await rejection(
      readPublishTarget({ store }, 'work/q3.ipynb', {
        ...settings,
        publishBucket: ''
      })
    );
    expect(error.code).toBe('PublishNotConfigured');
    expect(store.calls).toEqual([]);
  });
});
