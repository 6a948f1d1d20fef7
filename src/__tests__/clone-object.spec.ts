import {
  cloneObject,
  ICloneDependencies,
  ICloneObjectOptions,
  ICloneProgress,
  STREAM_ABOVE_BYTES,
  streamAbove,
  withoutByteOrderMark
} from '../clone/clone';
import { MemoryFolderLocks } from '../clone/locks';
import { PARTIAL_SUFFIX } from '../clone/writer';
import { BookshelfError } from '../errors/errors';
import type { ICloneRequest } from '../tokens';
import { bytesEqual, notebookText, randomBytes, utf8 } from './fakes/bytes';
import { FakeCommitter, FakeContentsManager } from './fakes/contents';
import { etagOf, FakeObjectStore } from './fakes/store';
import { rejection } from './fakes/rejection';

// Formatting that a parse-and-stringify would change.
const NOTEBOOK = `{"cells":[],"metadata":{"x":1.0},\n  "nbformat":4,"nbformat_minor":5}`;

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) {
    await new Promise(resolve => setTimeout(resolve, 5));
  }
  expect(condition()).toBe(true);
}

const MiB = 1024 * 1024;

/**
 * A clone of `big.bin` whose download came damaged once is saved whole
 * after all; one whose downloads always do is refused, and nothing stays.
 */
async function expectSavedOrRefused(
  result: Promise<unknown>,
  damagedDownloads: number,
  bytes: Uint8Array,
  contents: FakeContentsManager
): Promise<void> {
  if (damagedDownloads === 1) {
    await result;
    expect(bytesEqual(contents.readBytes('big.bin'), bytes)).toBe(true);
    expect(contents.files()).toEqual(['big.bin']);
  } else {
    expect((await rejection(result)).code).toBe('Corrupted');
    expect(contents.files()).toEqual([]);
  }
}

describe('cloneObject', () => {
  let store: FakeObjectStore;
  let contents: FakeContentsManager;
  let deps: ICloneDependencies;
  const options: ICloneObjectOptions = { maxObjectSizeMB: 10 };

  function clone(
    request: Partial<ICloneRequest>,
    extra: Partial<ICloneObjectOptions> = {}
  ) {
    return cloneObject(
      deps,
      { s3_bucket: 'shared', s3_key: 'reports/q3.ipynb', ...request },
      { ...options, ...extra }
    );
  }

  beforeEach(() => {
    store = new FakeObjectStore();
    store.addBucket('shared');
    store.addObject('shared', 'reports/q3.ipynb', NOTEBOOK);
    contents = new FakeContentsManager();
    contents.addDirectory('work/sub');
    deps = { store, contents, locks: new MemoryFolderLocks() };
  });

  it('saves a notebook at the root, byte for byte', async () => {
    const model = await clone({});
    expect(model).toMatchObject({
      name: 'q3.ipynb',
      path: 'q3.ipynb',
      type: 'notebook'
    });
    expect(contents.readText('q3.ipynb')).toBe(NOTEBOOK);
    // As a file: the server neither validates nor rewrites it.
    const save = contents.calls.find(call => call.method === 'save')!;
    expect(save).toMatchObject({ type: 'file', format: 'text' });
  });

  it('goes into the default folder without a target_path', async () => {
    const model = await clone({}, { defaultFolder: 'work/sub' });
    expect(model.path).toBe('work/sub/q3.ipynb');
  });

  it('numbers repeated clones of one key', async () => {
    const paths = [];
    for (let i = 0; i < 3; i++) {
      paths.push((await clone({ target_path: 'work/' })).path);
    }
    expect(paths).toEqual([
      'work/q3.ipynb',
      'work/q3-1.ipynb',
      'work/q3-2.ipynb'
    ]);
  });

  it('gives concurrent clones distinct files despite the server race', async () => {
    contents = new FakeContentsManager({
      renameRace: true,
      renameRaceDelay: 2
    });
    contents.addDirectory('work');
    deps = { store, contents, locks: new MemoryFolderLocks() };
    const models = await Promise.all(
      Array.from({ length: 10 }, () => clone({ target_path: 'work/' }))
    );
    expect(new Set(models.map(model => model.path)).size).toBe(10);
    expect(contents.files()).toHaveLength(10);
  });

  describe('target_path', () => {
    it('with a trailing slash is a folder', async () => {
      const model = await clone({ target_path: 'work/sub/' });
      expect(model.path).toBe('work/sub/q3.ipynb');
    });

    it('naming an existing folder without a slash is that folder', async () => {
      const model = await clone({ target_path: 'work/sub' });
      expect(model.path).toBe('work/sub/q3.ipynb');
    });

    it('otherwise names the file', async () => {
      const model = await clone({ target_path: 'work/mine.ipynb' });
      expect(model.path).toBe('work/mine.ipynb');
      expect(contents.readText('work/mine.ipynb')).toBe(NOTEBOOK);
    });

    it('naming an existing file gets the next free name', async () => {
      contents.addFile('work/mine.ipynb', 'keep');
      const model = await clone({ target_path: 'work/mine.ipynb' });
      expect(model.path).toBe('work/mine-1.ipynb');
      expect(contents.readText('work/mine.ipynb')).toBe('keep');
    });

    it('in a missing folder is refused before downloading', async () => {
      const error = await rejection(clone({ target_path: 'nope/deeper/' }));
      expect(error).toBeInstanceOf(BookshelfError);
      expect(error.code).toBe('InvalidRequest');
      expect(error.message).toBe(
        "target_path: the folder 'nope/deeper' does not exist; create it first or choose another folder."
      );
      expect(error.detail).toMatchObject({ field: 'target_path' });
      expect(store.calls).toEqual([]);
      expect(contents.files()).toEqual([]);
    });

    it('for a file in a missing folder is refused', async () => {
      const error = await rejection(clone({ target_path: 'nope/a.ipynb' }));
      expect(error.message).toContain("the folder 'nope' does not exist");
    });

    it('below a file is refused', async () => {
      contents.addFile('notes.txt', 'x');
      const error = await rejection(clone({ target_path: 'notes.txt/' }));
      expect(error.code).toBe('InvalidRequest');
      expect(error.message).toContain("'notes.txt' is a file, not a folder");
    });

    it('a missing default folder is refused', async () => {
      const error = await rejection(clone({}, { defaultFolder: 'gone' }));
      expect(error.message).toBe(
        "The folder 'gone' does not exist; create it first or choose another folder."
      );
    });

    describe('with createFolders, as a clone from the dialog', () => {
      it('makes a missing folder and its parents, then saves there', async () => {
        const model = await clone(
          { target_path: 'work/new/deeper/' },
          { createFolders: true }
        );
        expect(model.path).toBe('work/new/deeper/q3.ipynb');
        expect(contents.readText('work/new/deeper/q3.ipynb')).toBe(NOTEBOOK);
        // Parents first, and only the missing ones.
        const made = contents.calls
          .filter(call => call.method === 'save' && call.type === 'directory')
          .map(call => call.path);
        expect(made).toEqual(['work/new', 'work/new/deeper']);
      });

      it('makes the folder of a target file too', async () => {
        const model = await clone(
          { target_path: 'shared/mine.ipynb' },
          { createFolders: true }
        );
        expect(model.path).toBe('shared/mine.ipynb');
      });

      it('creates nothing before the object is downloaded', async () => {
        const error = await rejection(
          clone(
            { s3_key: 'missing.ipynb', target_path: 'new/' },
            { createFolders: true }
          )
        );
        expect(error.code).toBe('NoSuchKey');
        expect(contents.has('new')).toBe(false);
      });

      it('removes the folders it made when the clone fails, and keeps the others', async () => {
        store.addObject('shared', 'bad.ipynb', 'not a notebook');
        const error = await rejection(
          clone(
            { s3_key: 'bad.ipynb', target_path: 'work/new/deeper/' },
            { createFolders: true }
          )
        );
        expect(error.code).toBe('NotANotebook');
        expect(contents.has('work/new')).toBe(false);
        expect(contents.has('work')).toBe(true);
        expect(contents.files()).toEqual([]);
      });

      it('refuses a file on the way', async () => {
        contents.addFile('notes.txt', 'x');
        const error = await rejection(
          clone({ target_path: 'notes.txt/sub/' }, { createFolders: true })
        );
        expect(error.code).toBe('InvalidRequest');
        expect(error.message).toBe(
          "target_path: the path 'notes.txt' is a file, not a folder; choose a folder."
        );
        expect(contents.readText('notes.txt')).toBe('x');
      });
    });

    it('naming a folder does not let a hidden object name through', async () => {
      store.addObject('shared', 'config/.env', 'A=1');
      const error = await rejection(
        clone({ s3_key: 'config/.env', target_path: 'work' })
      );
      expect(error.code).toBe('InvalidRequest');
      expect(error.detail).toEqual({ field: 's3_key', message: error.message });
      expect(error.message).toContain("'.env' starts with a dot");
      expect(store.calls).toEqual([]);
    });
  });

  it('refuses an invalid request before any call', async () => {
    const error = await rejection(
      clone({ s3_bucket: 'Bad_Bucket', target_path: '../x' })
    );
    expect(error.code).toBe('InvalidRequest');
    expect(error.detail).toEqual({
      field: 's3_bucket',
      message: error.message
    });
    expect(error.message).toMatch(/^s3_bucket: .*; target_path: .*\.$/);
    expect(store.calls).toEqual([]);
    expect(contents.calls).toEqual([]);
  });

  describe('versions', () => {
    let first: string;

    beforeEach(() => {
      store.addBucket('versioned', 'Enabled');
      first = store.addObject('versioned', 'q3.ipynb', notebookText('first'));
      store.addObject('versioned', 'q3.ipynb', notebookText('second'));
    });

    it('clones the version asked for', async () => {
      await clone({
        s3_bucket: 'versioned',
        s3_key: 'q3.ipynb',
        s3_version_id: first
      });
      expect(contents.readText('q3.ipynb')).toBe(notebookText('first'));
    });

    it('clones the latest version by default', async () => {
      await clone({ s3_bucket: 'versioned', s3_key: 'q3.ipynb' });
      expect(contents.readText('q3.ipynb')).toBe(notebookText('second'));
    });

    it('reports a missing version and writes nothing', async () => {
      const error = await rejection(
        clone({
          s3_bucket: 'versioned',
          s3_key: 'q3.ipynb',
          s3_version_id: 'v99'
        })
      );
      expect(error.code).toBe('NoSuchVersion');
      expect(contents.files()).toEqual([]);
    });
  });

  test.each([
    ['NoSuchBucket', { s3_bucket: 'missing' }],
    ['NoSuchKey', { s3_key: 'reports/missing.ipynb' }]
  ])('passes %s on and writes nothing', async (code, request) => {
    const error = await rejection(clone(request));
    expect(error).toBeInstanceOf(BookshelfError);
    expect(error.code).toBe(code);
    expect(contents.calls.some(call => call.method === 'save')).toBe(false);
  });

  it('saves text as text', async () => {
    store.addObject('shared', 'data/table.csv', 'a,b\n1,2\n');
    const model = await clone({ s3_key: 'data/table.csv' });
    expect(model).toMatchObject({ path: 'table.csv', type: 'file' });
    const save = contents.calls.find(call => call.method === 'save')!;
    expect(save.format).toBe('text');
    expect(contents.readText('table.csv')).toBe('a,b\n1,2\n');
  });

  it('saves binary as base64, byte for byte', async () => {
    const bytes = randomBytes(10000, 9);
    store.addObject('shared', 'img/plot.png', bytes);
    await clone({ s3_key: 'img/plot.png' });
    const save = contents.calls.find(call => call.method === 'save')!;
    expect(save.format).toBe('base64');
    expect(bytesEqual(contents.readBytes('plot.png'), bytes)).toBe(true);
  });

  it('saves a large notebook in chunks, byte for byte', async () => {
    const cells = Array.from({ length: 200 }, (_, i) => ({
      cell_type: 'code',
      execution_count: i,
      id: `c${i}`,
      metadata: {},
      outputs: [],
      source: `print('é${i}')`
    }));
    const text = JSON.stringify(
      { cells, metadata: {}, nbformat: 4, nbformat_minor: 5 },
      null,
      2
    );
    store.addObject('shared', 'big.ipynb', text);
    await clone({ s3_key: 'big.ipynb' }, { chunkSize: 4096 });
    const chunks = contents.calls.filter(call => call.chunk !== undefined);
    expect(chunks.length).toBeGreaterThan(2);
    expect(bytesEqual(contents.readBytes('big.ipynb'), utf8(text))).toBe(true);
  });

  it('refuses an object that is not a notebook under a .ipynb name', async () => {
    store.addObject('shared', 'fake.ipynb', '{"cells": []}');
    const error = await rejection(clone({ s3_key: 'fake.ipynb' }));
    expect(error.code).toBe('NotANotebook');
    expect(error.message).toBe(
      "The object is not a Jupyter notebook: 'nbformat' is missing."
    );
    // Checked while the server saved: the saved file is gone before the
    // error is thrown.
    expect(contents.files()).toEqual([]);
  });

  it('checks the notebook while the server saves it, and removes it when it fails', async () => {
    const events: string[] = [];
    let finishSave = () => undefined as void;
    contents = new FakeContentsManager({
      beforeSave: async () => {
        events.push('save sent');
        await new Promise<void>(resolve => (finishSave = resolve));
        events.push('save done');
      }
    });
    deps = { store, contents, locks: new MemoryFolderLocks() };
    store.addObject('shared', 'fake.ipynb', '{"cells": []}');
    const cloning = rejection(clone({ s3_key: 'fake.ipynb' }));
    await waitFor(() => events.length === 1);
    // The check ran (and failed) with the save still in flight; the error
    // waits until the saved file is removed.
    let settled = false;
    void cloning.then(() => (settled = true));
    await new Promise(resolve => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    finishSave();
    const error = await cloning;
    expect(error.code).toBe('NotANotebook');
    expect(events).toEqual(['save sent', 'save done']);
    expect(contents.calls.map(call => call.method)).toContain('delete');
    expect(contents.files()).toEqual([]);
  });

  it('clones again when the checksum finds a damaged download during the save', async () => {
    store = new FakeObjectStore({ damagedDownloads: 1 });
    store.addBucket('shared');
    store.addObject('shared', 'reports/q3.ipynb', NOTEBOOK);
    deps = { store, contents, locks: new MemoryFolderLocks() };
    const model = await clone({});
    expect(model.path).toBe('q3.ipynb');
    expect(contents.readText('q3.ipynb')).toBe(NOTEBOOK);
    expect(
      store.calls.filter(call => call.startsWith('getObject'))
    ).toHaveLength(2);
    expect(contents.files()).toEqual(['q3.ipynb']);
  });

  it('reports a download damaged every time, after three tries, and leaves nothing', async () => {
    store = new FakeObjectStore({ damagedDownloads: 99 });
    store.addBucket('shared');
    store.addObject('shared', 'reports/q3.ipynb', NOTEBOOK);
    deps = { store, contents, locks: new MemoryFolderLocks() };
    const error = await rejection(clone({}));
    expect(error.code).toBe('Corrupted');
    expect(error.message).toContain('(tried 3 times)');
    expect(error.detail).toMatchObject({
      attempts: 3,
      key: 'reports/q3.ipynb'
    });
    expect(
      store.calls.filter(call => call.startsWith('getObject'))
    ).toHaveLength(3);
    expect(contents.files()).toEqual([]);
  });

  it('says a damaged download is damaged, not that it is not UTF-8', async () => {
    store = new FakeObjectStore({ damagedDownloads: 99 });
    store.addBucket('shared');
    // The fake changes the middle byte: here the lead byte of 'é', which
    // makes the bytes invalid UTF-8.
    store.addObject('shared', 'e.ipynb', utf8('aaa\u00e9a'));
    deps = { store, contents, locks: new MemoryFolderLocks() };
    const error = await rejection(clone({ s3_key: 'e.ipynb' }));
    expect(error.code).toBe('Corrupted');
    expect(contents.files()).toEqual([]);
  });

  it('streams an object above STREAM_ABOVE_BYTES into chunks, byte for byte, nothing left over', async () => {
    const bytes = randomBytes(STREAM_ABOVE_BYTES + 5000, 13);
    store.addObject('shared', 'data/big.bin', bytes);
    const phases: string[] = [];
    await clone(
      { s3_key: 'data/big.bin' },
      { chunkSize: 1024 * 1024, onProgress: step => phases.push(step.phase) }
    );
    // Saved while it downloads: a chunk is saved before the download ends.
    expect(phases.indexOf('save')).toBeLessThan(phases.lastIndexOf('download'));
    const chunks = contents.calls
      .filter(call => call.method === 'save')
      .map(call => call.chunk);
    expect(chunks).toHaveLength(9);
    expect(chunks[chunks.length - 1]).toBe(-1);
    // Not a notebook: base64, whatever the bytes.
    expect(
      contents.calls
        .filter(call => call.method === 'save')
        .every(call => call.format === 'base64')
    ).toBe(true);
    expect(bytesEqual(contents.readBytes('big.bin'), bytes)).toBe(true);
    expect(contents.files()).toEqual(['big.bin']);
  });

  describe('a notebook above the streaming size', () => {
    // As STREAM_ABOVE_BYTES does for 8 MiB (the test above), smaller.
    const stream = { chunkSize: 16 * 1024, streamAbove: 64 * 1024 };
    const big = JSON.stringify({
      cells: [
        {
          cell_type: 'markdown',
          metadata: {},
          source: 'x'.repeat(200 * 1024)
        }
      ],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 4
    });
    const withMark = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(big)]);

    function chunkSaves(): number {
      return contents.calls.filter(
        call => call.method === 'save' && call.chunk !== undefined
      ).length;
    }

    it('is saved while it downloads, without its byte order mark, and checked by the server before its commit', async () => {
      const committer = new FakeCommitter(contents);
      deps = { ...deps, committer };
      store.addObject('shared', 'big.ipynb', withMark);
      const model = await clone({ s3_key: 'big.ipynb' }, stream);
      expect(model.path).toBe('big.ipynb');
      expect(chunkSaves()).toBeGreaterThan(8);
      // As text: faster for the server than base64.
      expect(
        contents.calls
          .filter(call => call.method === 'save' && call.chunk !== undefined)
          .every(call => call.format === 'text')
      ).toBe(true);
      // Only the pieces in flight were held, never the notebook.
      expect(contents.readText('big.ipynb')).toBe(big);
      expect(committer.checked).toHaveLength(1);
      expect(committer.checked[0]).toMatch(
        /^big\.ipynb\..*\.bookshelf-partial$/
      );
      expect(contents.files()).toEqual(['big.ipynb']);
    });

    it('that is not a notebook is refused, by the server or by the page, and nothing is written', async () => {
      const notNotebook = utf8(big.replace('"nbformat":4', '"nbformat":9'));
      for (const committer of [
        new FakeCommitter(contents),
        new FakeCommitter(contents, { noCheck: true }),
        undefined
      ]) {
        deps = { ...deps, committer };
        store.addObject('shared', 'bad.ipynb', notNotebook);
        const error = await rejection(clone({ s3_key: 'bad.ipynb' }, stream));
        expect(error.code).toBe('NotANotebook');
        expect(error.message).toContain('nbformat');
        expect(contents.files()).toEqual([]);
        if (committer) {
          expect(committer.calls).toEqual([]);
        }
      }
    });

    it('that is not UTF-8 is refused as such, and nothing is written', async () => {
      const bytes = utf8(big);
      bytes[100 * 1024] = 0xff;
      deps = { ...deps, committer: new FakeCommitter(contents) };
      store.addObject('shared', 'odd.ipynb', bytes);
      const error = await rejection(clone({ s3_key: 'odd.ipynb' }, stream));
      expect(error.code).toBe('NotANotebook');
      expect(error.message).toContain('UTF-8');
      expect(contents.files()).toEqual([]);
    });

    it('in JupyterLite, whose chunked save takes only base64, is saved as base64 chunks', async () => {
      // Lite's browser storage decodes every chunk with `atob`, whatever its
      // format: a text chunk of a notebook fails there (InvalidCharacterError).
      contents = new FakeContentsManager({ base64Chunks: true });
      const committer = new FakeCommitter(contents, { absent: true });
      deps = { ...deps, contents, committer };
      const huge = notebookText('é😀'.repeat(STREAM_ABOVE_BYTES / 6));
      store.addObject('shared', 'huge.ipynb', huge);
      options.maxObjectSizeMB = 40;
      try {
        // As in production: offered to the create path first, then saved
        // in chunks from the Blob; once the create path is known missing,
        // saved in chunks as it downloads.
        const first = await clone({ s3_key: 'huge.ipynb' });
        expect(committer.createUnavailable).toBe(true);
        const second = await clone({ s3_key: 'huge.ipynb' });
        for (const model of [first, second]) {
          expect(contents.readText(model.path)).toBe(huge);
        }
        expect(contents.files()).toEqual(['huge-1.ipynb', 'huge.ipynb']);
        const chunks = contents.calls.filter(
          call => call.method === 'save' && call.chunk !== undefined
        );
        expect(chunks.length).toBeGreaterThanOrEqual(4);
        expect(chunks.every(call => call.format === 'base64')).toBe(true);
      } finally {
        options.maxObjectSizeMB = 10;
      }
    });

    it('into JupyterLite, a version 3 notebook is refused, small or streamed, and nothing is written', async () => {
      contents = new FakeContentsManager({ base64Chunks: true });
      const committer = new FakeCommitter(contents, { absent: true });
      deps = { ...deps, contents, committer };
      const v3 = (filler: string) =>
        JSON.stringify({
          nbformat: 3,
          nbformat_minor: 0,
          metadata: { filler },
          worksheets: [{ metadata: {}, cells: [] }]
        });
      store.addObject('shared', 'small.ipynb', v3(''));
      store.addObject('shared', 'large.ipynb', v3('x'.repeat(200 * 1024)));
      for (const [key, extra] of [
        ['small.ipynb', {}],
        ['large.ipynb', stream]
      ] as const) {
        const error = await rejection(
          clone({ s3_key: key }, { ...extra, jupyterLite: true })
        );
        expect(error.code).toBe('NotANotebook');
        expect(error.message).toContain('JupyterLite opens only version 4');
        expect(contents.files()).toEqual([]);
      }
      // The same into a Jupyter server's tree: cloned as it is.
      const model = await clone({ s3_key: 'small.ipynb' });
      expect(contents.readText(model.path)).toBe(v3(''));
    });

    it("says a contents manager's own save error as a failed save, not as S3's, and leaves nothing", async () => {
      // JupyterLite's storage, full.
      contents = new FakeContentsManager({
        beforeSave: () => {
          throw new DOMException(
            'The quota has been exceeded.',
            'QuotaExceededError'
          );
        }
      });
      contents.addDirectory('work');
      deps = { ...deps, contents, committer: undefined };
      store.addObject('shared', 'big.ipynb', utf8(big));
      for (const extra of [{}, stream]) {
        const error = await rejection(
          clone({ s3_key: 'big.ipynb', target_path: 'work/' }, extra)
        );
        expect(error.code).toBe('SaveFailed');
        expect(error.message).toBe(
          "The file could not be saved in the folder 'work' (QuotaExceededError: The quota has been exceeded.); nothing was written."
        );
        expect(contents.files()).toEqual([]);
      }
    });

    it('without the server check is read back and checked in the page', async () => {
      const committer = new FakeCommitter(contents, { noCheck: true });
      deps = { ...deps, committer };
      store.addObject('shared', 'big.ipynb', utf8(big));
      await clone({ s3_key: 'big.ipynb' }, stream);
      expect(committer.checked).toHaveLength(1);
      const readBack = contents.calls.filter(
        call =>
          call.method === 'get' && call.path.endsWith('.bookshelf-partial')
      );
      expect(readBack.length).toBeGreaterThan(0);
      expect(contents.readText('big.ipynb')).toBe(big);
    });
  });

  describe('when S3 asks the person nothing', () => {
    beforeEach(() => {
      deps = { ...deps, asksNothing: () => true };
    });

    it('downloads while the target folder is checked', async () => {
      // The folder check answers only once the download started.
      const get = contents.get.bind(contents);
      contents.get = async (path, fetchOptions) => {
        await waitFor(() => store.calls.length > 0);
        return get(path, fetchOptions);
      };
      const cloning = clone({ target_path: 'work/sub/' });
      expect((await cloning).path).toBe('work/sub/q3.ipynb');
      expect(contents.readText('work/sub/q3.ipynb')).toBe(NOTEBOOK);
    });

    it('still refuses a missing folder first, and writes nothing', async () => {
      const error = await rejection(clone({ target_path: 'nope/deeper/' }));
      expect(error.code).toBe('InvalidRequest');
      expect(error.detail).toMatchObject({ field: 'target_path' });
      expect(contents.files()).toEqual([]);
    });

    it('refuses a missing folder before a missing key', async () => {
      const error = await rejection(
        clone({ s3_key: 'reports/missing.ipynb', target_path: 'nope/' })
      );
      expect(error.code).toBe('InvalidRequest');
    });
  });

  describe("through the server's create path", () => {
    let committer: FakeCommitter;

    beforeEach(() => {
      committer = new FakeCommitter(contents, { create: true });
      deps = { ...deps, committer };
    });

    it('saves and commits in one request, byte for byte', async () => {
      const model = await clone({ target_path: 'work/' });
      expect(model).toMatchObject({ path: 'work/q3.ipynb', type: 'notebook' });
      expect(contents.readText('work/q3.ipynb')).toBe(NOTEBOOK);
      expect(contents.calls.filter(call => call.method === 'save')).toEqual([]);
      expect(committer.creates).toEqual([
        {
          temporaryPath: expect.stringMatching(
            /^work\/q3\.ipynb\.[0-9a-f]{16}\.bookshelf-partial$/
          ),
          folder: 'work',
          name: 'q3.ipynb',
          options: {
            md5: etagOf(utf8(NOTEBOOK)).slice(1, -1),
            notebook: true,
            onSent: expect.any(Function)
          },
          // The download gathered as a Blob goes as it is.
          asBlob: true
        }
      ]);
      expect(contents.files()).toEqual(['work/q3.ipynb']);
    });

    it('reads the gathered Blob back where the server has no create path', async () => {
      committer = new FakeCommitter(contents, { create: false });
      deps = { ...deps, committer };
      const bytes = randomBytes(20000, 5);
      store.addObject('shared', 'img/plot.png', bytes);
      await clone({ s3_key: 'img/plot.png' });
      expect(bytesEqual(contents.readBytes('plot.png'), bytes)).toBe(true);
      // Once refused, later downloads are gathered into a buffer again.
      expect(committer.createUnavailable).toBe(true);
      await clone({ s3_key: 'img/plot.png' });
      expect(bytesEqual(contents.readBytes('plot-1.png'), bytes)).toBe(true);
    });

    it('checks the bytes read back from the Blob against the checksum where the server has no create path', async () => {
      committer = new FakeCommitter(contents, { create: false });
      deps = { ...deps, committer };
      store.options.damagedDownloads = 1;
      const bytes = randomBytes(20000, 6);
      store.addObject('shared', 'img/plot.png', bytes);
      await clone({ s3_key: 'img/plot.png' });
      // The damaged download was found out and cloned again.
      expect(bytesEqual(contents.readBytes('plot.png'), bytes)).toBe(true);
      expect(contents.files().filter(path => path.endsWith('.png'))).toEqual([
        'plot.png'
      ]);
    });

    it('keeps every byte of other files, unchecked as notebooks', async () => {
      const bytes = randomBytes(10000, 31);
      store.addObject('shared', 'img/plot.png', bytes);
      await clone({ s3_key: 'img/plot.png' });
      expect(bytesEqual(contents.readBytes('plot.png'), bytes)).toBe(true);
      expect(committer.creates[0].options.notebook).toBe(false);
    });

    it('gives concurrent clones distinct files', async () => {
      contents.addFile('work/q3.ipynb', 'keep');
      const models = await Promise.all(
        Array.from({ length: 10 }, () => clone({ target_path: 'work/' }))
      );
      expect(new Set(models.map(model => model.path)).size).toBe(10);
      expect(contents.files()).toHaveLength(11);
      expect(contents.readText('work/q3.ipynb')).toBe('keep');
    });

    it("drops a notebook's byte order mark and nothing else", async () => {
      store.addObject('shared', 'bom.ipynb', '\ufeff' + NOTEBOOK);
      await clone({ s3_key: 'bom.ipynb' });
      expect(contents.readText('bom.ipynb')).toBe(NOTEBOOK);
    });

    it("refuses what is not a notebook in the page's words, and writes nothing", async () => {
      store.addObject('shared', 'bad.ipynb', '{"cells": [');
      const error = await rejection(
        clone(
          { s3_key: 'bad.ipynb', target_path: 'work/new/' },
          {
            createFolders: true
          }
        )
      );
      expect(error.code).toBe('NotANotebook');
      expect(committer.creates).toHaveLength(1);
      expect(contents.files()).toEqual([]);
      expect(contents.has('work/new')).toBe(false);
    });

    it('clones again when the server finds the bytes damaged', async () => {
      store = new FakeObjectStore({ damagedDownloads: 1 });
      store.addBucket('shared');
      store.addObject('shared', 'reports/q3.ipynb', NOTEBOOK);
      deps = { ...deps, store };
      await clone({});
      expect(contents.readText('q3.ipynb')).toBe(NOTEBOOK);
      expect(committer.creates).toHaveLength(2);
      expect(contents.files()).toEqual(['q3.ipynb']);
    });

    it('asks the commit path when the answer was lost, and makes one file', async () => {
      committer = new FakeCommitter(contents, { create: true, loseAnswers: 1 });
      deps = { ...deps, committer };
      const model = await clone({});
      expect(model.path).toBe('q3.ipynb');
      expect(contents.files()).toEqual(['q3.ipynb']);
      expect(committer.calls).toHaveLength(2);
    });

    it("reports the save's progress as the bytes go to the server", async () => {
      const bytes = randomBytes(3 * MiB, 40);
      store.addObject('shared', 'data.bin', bytes);
      const saved: number[] = [];
      await clone(
        { s3_key: 'data.bin' },
        {
          onProgress: step => {
            if (step.phase === 'save') {
              expect(step.total).toBe(bytes.length);
              saved.push(step.loaded);
            }
          }
        }
      );
      // The fake server says it received the first half, then the rest.
      expect(saved).toEqual([0, bytes.length / 2, bytes.length, bytes.length]);
    });

    it('stops the request of a clone cancelled while its bytes go, and nothing is committed', async () => {
      const bytes = randomBytes(3 * MiB, 41);
      store.addObject('shared', 'data.bin', bytes);
      const controller = new AbortController();
      const error = await rejection(
        clone(
          { s3_key: 'data.bin' },
          {
            signal: controller.signal,
            onProgress: step => {
              if (
                step.phase === 'save' &&
                step.loaded > 0 &&
                step.loaded < bytes.length
              ) {
                controller.abort();
              }
            }
          }
        )
      );
      expect(error.code).toBe('Cancelled');
      expect(committer.stoppedUploads).toBe(1);
      // The commit path, asked whether the request committed, said no.
      await waitFor(() => committer.calls.length === 1);
      expect(contents.files()).toEqual([]);
    });

    it('saves and commits where the server has no create path', async () => {
      committer = new FakeCommitter(contents);
      deps = { ...deps, committer };
      const model = await clone(
        { target_path: 'work/new/' },
        {
          createFolders: true
        }
      );
      expect(model.path).toBe('work/new/q3.ipynb');
      expect(contents.readText('work/new/q3.ipynb')).toBe(NOTEBOOK);
      expect(committer.creates).toHaveLength(1);
      expect(contents.calls.some(call => call.method === 'save')).toBe(true);
    });

    it('takes objects of any size whole where the server creates files, up to 8 MiB elsewhere', () => {
      expect(streamAbove(committer)).toBe(Number.POSITIVE_INFINITY);
      committer.createUnavailable = true;
      expect(streamAbove(committer)).toBe(STREAM_ABOVE_BYTES);
      expect(streamAbove(undefined)).toBe(STREAM_ABOVE_BYTES);
    });

    it('creates an object of the threshold whole, and streams one a byte larger', async () => {
      // The threshold made small (1 MiB) for the test: the same code path.
      const whole = randomBytes(1024 * 1024, 32);
      const larger = randomBytes(1024 * 1024 + 1, 33);
      store.addObject('shared', 'whole.bin', whole);
      store.addObject('shared', 'larger.bin', larger);
      await clone({ s3_key: 'whole.bin' }, { streamAbove: 1024 * 1024 });
      expect(committer.creates).toHaveLength(1);
      expect(contents.calls.some(call => call.method === 'save')).toBe(false);
      await clone({ s3_key: 'larger.bin' }, { streamAbove: 1024 * 1024 });
      // Saved while it downloaded (one chunk: one save), then committed.
      expect(committer.creates).toHaveLength(1);
      expect(contents.calls.some(call => call.method === 'save')).toBe(true);
      expect(bytesEqual(contents.readBytes('whole.bin'), whole)).toBe(true);
      expect(bytesEqual(contents.readBytes('larger.bin'), larger)).toBe(true);
    });

    it('streams objects above 8 MiB once the server said it has no create path', async () => {
      options.maxObjectSizeMB = 40;
      committer = new FakeCommitter(contents);
      deps = { ...deps, committer };
      store.addObject('shared', 'a.bin', randomBytes(100, 34));
      store.addObject(
        'shared',
        'b.bin',
        randomBytes(STREAM_ABOVE_BYTES + 1, 35)
      );
      try {
        await clone({ s3_key: 'a.bin' });
        expect(committer.creates).toHaveLength(1);
        expect(committer.createUnavailable).toBe(true);
        await clone({ s3_key: 'b.bin' });
        expect(committer.creates).toHaveLength(1);
        expect(contents.calls.some(call => call.chunk === -1)).toBe(true);
      } finally {
        options.maxObjectSizeMB = 10;
      }
    });

    it('saves a Blob above 8 MiB in chunks read from it where the create path turns out missing', async () => {
      options.maxObjectSizeMB = 40;
      committer = new FakeCommitter(contents);
      deps = { ...deps, committer };
      const bytes = randomBytes(STREAM_ABOVE_BYTES + 1, 36);
      store.addObject('shared', 'big.bin', bytes);
      const read = jest.spyOn(Blob.prototype, 'arrayBuffer');
      try {
        const model = await clone({ s3_key: 'big.bin' });
        expect(model.path).toBe('big.bin');
        // Offered to the create path as a Blob, which the server lacked.
        expect(committer.creates).toHaveLength(1);
        expect(committer.createUnavailable).toBe(true);
        // Then saved in chunks, never read whole into the page: the one
        // whole read is the fake server's, of the body it was sent.
        expect(contents.calls.some(call => call.chunk === -1)).toBe(true);
        const whole = read.mock.contexts.filter(
          blob => (blob as Blob).size > STREAM_ABOVE_BYTES
        );
        expect(whole).toHaveLength(1);
        expect(bytesEqual(contents.readBytes('big.bin'), bytes)).toBe(true);
        expect(contents.files()).toEqual(['big.bin']);
      } finally {
        read.mockRestore();
        options.maxObjectSizeMB = 10;
      }
    });

    it('saves in chunks what a proxy refused as too large for the create path, and larger objects after that', async () => {
      options.maxObjectSizeMB = 40;
      committer = new FakeCommitter(contents, {
        create: true,
        createLimit: 4 * MiB
      });
      deps = { ...deps, committer };
      const big = randomBytes(STREAM_ABOVE_BYTES + 1, 38);
      const small = randomBytes(3 * MiB, 39);
      store.addObject('shared', 'big.bin', big);
      store.addObject('shared', 'small.bin', small);
      try {
        const first = await clone({ s3_key: 'big.bin' });
        // Offered, refused as too large, then saved in chunks.
        expect(committer.creates).toHaveLength(1);
        expect(committer.createRefusedFrom).toBe(big.length);
        expect(streamAbove(committer)).toBe(big.length - 1);
        expect(contents.calls.some(call => call.chunk === -1)).toBe(true);
        // Not offered again at that size; smaller objects still are.
        const second = await clone({ s3_key: 'big.bin' });
        expect(committer.creates).toHaveLength(1);
        await clone({ s3_key: 'small.bin' });
        expect(committer.creates).toHaveLength(2);
        expect(committer.createUnavailable).toBe(false);
        for (const model of [first, second]) {
          expect(bytesEqual(contents.readBytes(model.path), big)).toBe(true);
        }
        expect(bytesEqual(contents.readBytes('small.bin'), small)).toBe(true);
        expect(contents.files()).toEqual(['big-1.bin', 'big.bin', 'small.bin']);
      } finally {
        options.maxObjectSizeMB = 10;
      }
    });

    it('clones through a proxy that refuses both the create request and the 8 MiB chunks', async () => {
      options.maxObjectSizeMB = 40;
      // nginx with `client_max_body_size 4m` in front of the server.
      contents = new FakeContentsManager({ bodyLimit: 4 * MiB });
      committer = new FakeCommitter(contents, {
        create: true,
        createLimit: 4 * MiB
      });
      deps = { ...deps, contents, committer };
      const notebook = notebookText('ü'.repeat(STREAM_ABOVE_BYTES));
      const bytes = randomBytes(STREAM_ABOVE_BYTES + 1, 40);
      store.addObject('shared', 'big.ipynb', notebook);
      store.addObject('shared', 'big.bin', bytes);
      try {
        const saved = await clone({ s3_key: 'big.ipynb' });
        expect(contents.readText(saved.path)).toBe(notebook);
        const binary = await clone({ s3_key: 'big.bin' });
        expect(bytesEqual(contents.readBytes(binary.path), bytes)).toBe(true);
        const saves = contents.calls.filter(call => call.method === 'save');
        expect(saves.some(call => call.refused)).toBe(true);
        expect(
          saves.every(call => call.refused || call.bodyLength! <= 4 * MiB)
        ).toBe(true);
        expect(contents.files()).toEqual(['big.bin', 'big.ipynb']);
      } finally {
        options.maxObjectSizeMB = 10;
      }
    });

    it("says the server's refusal of a large notebook without reading it into the page", async () => {
      options.maxObjectSizeMB = 40;
      const notNotebook = JSON.stringify({
        cells: [],
        metadata: { filler: 'x'.repeat(STREAM_ABOVE_BYTES) },
        nbformat: 9,
        nbformat_minor: 0
      });
      store.addObject('shared', 'big.ipynb', notNotebook);
      const read = jest.spyOn(Blob.prototype, 'arrayBuffer');
      try {
        const error = await rejection(clone({ s3_key: 'big.ipynb' }));
        expect(error.code).toBe('NotANotebook');
        expect(error.message).toContain('nbformat');
        // The one whole read is the fake server's, of the body it was sent.
        const whole = read.mock.contexts.filter(
          blob => (blob as Blob).size > STREAM_ABOVE_BYTES
        );
        expect(whole).toHaveLength(1);
        expect(contents.files()).toEqual([]);
      } finally {
        read.mockRestore();
        options.maxObjectSizeMB = 10;
      }
    });

    it('clones again when the bytes read from the Blob do not match the checksum, and leaves nothing when they never do', async () => {
      options.maxObjectSizeMB = 40;
      try {
        for (const damagedDownloads of [1, 99]) {
          store = new FakeObjectStore({ damagedDownloads, stepSize: MiB });
          store.addBucket('shared');
          const bytes = randomBytes(STREAM_ABOVE_BYTES + 1, 37);
          store.addObject('shared', 'big.bin', bytes);
          contents = new FakeContentsManager();
          committer = new FakeCommitter(contents);
          deps = { ...deps, store, contents, committer };
          await expectSavedOrRefused(
            clone({ s3_key: 'big.bin' }),
            damagedDownloads,
            bytes,
            contents
          );
        }
      } finally {
        options.maxObjectSizeMB = 10;
      }
    }, 120_000);

    it('removes the file of a clone cancelled while the request ran', async () => {
      // The request takes a while, so the cancel comes during it.
      contents = new FakeContentsManager({ latency: 30 });
      committer = new FakeCommitter(contents, { create: true });
      deps = { ...deps, contents, committer };
      const controller = new AbortController();
      const cloning = clone({}, { signal: controller.signal });
      await waitFor(() => committer.creates.length === 1);
      controller.abort();
      const error = await rejection(cloning);
      expect(error.code).toBe('Cancelled');
      // Said at once; the file the request made is removed when it answers.
      expect(committer.calls).toEqual([]);
      await waitFor(() => committer.calls.length === 1);
      await waitFor(() => contents.files().length === 0);
      expect(contents.files()).toEqual([]);
    });
  });

  describe('a streamed download cut off half-way', () => {
    const stream = { chunkSize: 16 * 1024, streamAbove: 64 * 1024 };

    it('is cloned again from the start, and saved whole', async () => {
      store = new FakeObjectStore({ cutStreams: 1, stepSize: 8 * 1024 });
      store.addBucket('shared');
      const bytes = randomBytes(200 * 1024, 21);
      store.addObject('shared', 'data.bin', bytes);
      deps = { ...deps, store };
      await clone({ s3_key: 'data.bin' }, stream);
      expect(bytesEqual(contents.readBytes('data.bin'), bytes)).toBe(true);
      expect(contents.files()).toEqual(['data.bin']);
      expect(
        store.calls.filter(call => call.startsWith('getObject'))
      ).toHaveLength(2);
    });

    it('every time is reported after three tries, and nothing is written', async () => {
      store = new FakeObjectStore({ cutStreams: 99, stepSize: 8 * 1024 });
      store.addBucket('shared');
      store.addObject('shared', 'data.bin', randomBytes(200 * 1024, 22));
      deps = { ...deps, store };
      const error = await rejection(clone({ s3_key: 'data.bin' }, stream));
      expect(error.code).toBe('Interrupted');
      expect(error.detail).toMatchObject({ attempts: 3 });
      expect(contents.files()).toEqual([]);
    });
  });

  describe('withoutByteOrderMark', () => {
    async function collect(pieces: number[][]): Promise<number[]> {
      async function* stream() {
        for (const piece of pieces) {
          yield new Uint8Array(piece);
        }
      }
      const out: number[] = [];
      for await (const piece of withoutByteOrderMark(stream())) {
        out.push(...piece);
      }
      return out;
    }

    it.each([
      ['a mark in the first piece', [[0xef, 0xbb, 0xbf, 1, 2], [3]], [1, 2, 3]],
      ['a mark across pieces', [[0xef], [0xbb], [0xbf, 1], [2]], [1, 2]],
      ['no mark', [[1, 2, 3, 4]], [1, 2, 3, 4]],
      ['a start like a mark', [[0xef, 0xbb, 1]], [0xef, 0xbb, 1]],
      ['fewer than three bytes', [[1], [2]], [1, 2]],
      ['only the mark', [[0xef, 0xbb, 0xbf]], []],
      ['nothing', [], []]
    ])('%s', async (_, pieces, expected) => {
      expect(await collect(pieces)).toEqual(expected);
    });
  });

  it('clones a streamed object again when its checksum fails, and leaves nothing when it always does', async () => {
    for (const damagedDownloads of [1, 99]) {
      store = new FakeObjectStore({ damagedDownloads, stepSize: MiB });
      store.addBucket('shared');
      const bytes = randomBytes(STREAM_ABOVE_BYTES + 1, 14);
      store.addObject('shared', 'big.bin', bytes);
      contents = new FakeContentsManager();
      deps = { store, contents, locks: new MemoryFolderLocks() };
      await expectSavedOrRefused(
        clone({ s3_key: 'big.bin' }, { chunkSize: 4 * 1024 * 1024 }),
        damagedDownloads,
        bytes,
        contents
      );
    }
  }, 120_000);

  it('refuses an object over the size limit before downloading it', async () => {
    store.addObject('shared', 'huge.bin', randomBytes(2 * 1024 * 1024));
    const error = await rejection(
      clone({ s3_key: 'huge.bin' }, { maxObjectSizeMB: 1 })
    );
    expect(error.code).toBe('TooLarge');
    expect(contents.calls.some(call => call.method === 'save')).toBe(false);
  });

  it('refuses an object over the limit when the store could not', async () => {
    // A store that does not know the size before downloading.
    const blind = Object.create(store) as FakeObjectStore;
    blind.getObject = (bucket, key, getOptions) =>
      store.getObject(bucket, key, { ...getOptions, maxBytes: undefined });
    deps = { ...deps, store: blind };
    store.addObject('shared', 'huge.bin', randomBytes(1024 * 1024 + 1));
    const error = await rejection(
      clone({ s3_key: 'huge.bin' }, { maxObjectSizeMB: 1 })
    );
    expect(error.code).toBe('TooLarge');
    expect(contents.files()).toEqual([]);
  });

  it('reports download then save progress', async () => {
    store = new FakeObjectStore({ stepSize: 4000 });
    store.addBucket('shared');
    store.addObject('shared', 'a.bin', randomBytes(10000));
    deps = { ...deps, store };
    const progress: ICloneProgress[] = [];
    await clone(
      { s3_key: 'a.bin' },
      { chunkSize: 6000, onProgress: step => progress.push({ ...step }) }
    );
    expect(progress).toEqual([
      { phase: 'download', loaded: 4000, total: 10000 },
      { phase: 'download', loaded: 8000, total: 10000 },
      { phase: 'download', loaded: 10000, total: 10000 },
      { phase: 'save', loaded: 6000, total: 10000 },
      { phase: 'save', loaded: 10000, total: 10000 }
    ]);
  });

  it('writes nothing when cancelled during the download', async () => {
    store = new FakeObjectStore({ stepSize: 1000 });
    store.addBucket('shared');
    store.addObject('shared', 'a.bin', randomBytes(10000));
    deps = { ...deps, store };
    const controller = new AbortController();
    const error = await rejection(
      clone(
        { s3_key: 'a.bin' },
        {
          signal: controller.signal,
          onProgress: ({ loaded }) => loaded >= 3000 && controller.abort()
        }
      )
    );
    expect(error.code).toBe('Cancelled');
    expect(contents.calls.some(call => call.method === 'save')).toBe(false);
  });

  it('writes nothing when cancelled during the save', async () => {
    store.addObject('shared', 'a.bin', randomBytes(50000));
    const controller = new AbortController();
    const error = await rejection(
      clone(
        { s3_key: 'a.bin' },
        {
          chunkSize: 10000,
          signal: controller.signal,
          onProgress: step =>
            step.phase === 'save' && step.loaded >= 20000 && controller.abort()
        }
      )
    );
    expect(error.code).toBe('Cancelled');
    expect(contents.files()).toEqual([]);
    expect(
      contents.calls.some(
        call => call.method === 'delete' && call.path.endsWith(PARTIAL_SUFFIX)
      )
    ).toBe(true);
  });
});
