import type { Contents } from '@jupyterlab/services';
import { ServerConnection } from '@jupyterlab/services';
import type { IFileData } from '../clone/content';
import {
  defaultFolderLocks,
  IFolderLocks,
  MemoryFolderLocks,
  WebFolderLocks
} from '../clone/locks';
import {
  hasResponseStatus,
  IContentsWriter,
  textChunks
} from '../clone/contentsSave';
import { PARTIAL_SUFFIX, temporaryName, writeNewFile } from '../clone/writer';
import { BookshelfError } from '../errors/errors';
import { bytesEqual, notebookText, randomBytes, utf8 } from './fakes/bytes';
import {
  delay,
  FakeCommitter,
  FakeContentsManager,
  responseError
} from './fakes/contents';
import { rejection } from './fakes/rejection';

const MiB = 1024 * 1024;

function text(content: string): IFileData {
  return { bytes: utf8(content), format: 'text' };
}

/**
 * Locks that do not lock: the writer without serialization.
 */
const noLocks: IFolderLocks = {
  run: (_folder, task) => task()
};

// The writer must accept the real contents manager.
const contentsManagerFits: (
  manager: Contents.IManager
) => IContentsWriter = manager => manager;

describe('writeNewFile', () => {
  let contents: FakeContentsManager;
  let locks: MemoryFolderLocks;

  beforeEach(() => {
    contents = new FakeContentsManager();
    contents.addDirectory('work');
    locks = new MemoryFolderLocks();
  });

  it('accepts the contents manager type', () => {
    expect(contentsManagerFits).toBeDefined();
  });

  it('gives name, name-1, name-2 to three clones of one name', async () => {
    const names: string[] = [];
    for (const marker of ['a', 'b', 'c']) {
      const model = await writeNewFile(
        contents,
        'work',
        'q3.ipynb',
        text(notebookText(marker)),
        { locks }
      );
      names.push(model.path);
    }
    expect(names).toEqual([
      'work/q3.ipynb',
      'work/q3-1.ipynb',
      'work/q3-2.ipynb'
    ]);
    expect(contents.readText('work/q3-2.ipynb')).toBe(notebookText('c'));
    expect(contents.files()).toEqual([...names].sort());
  });

  it('answers the new file model, as the contents API gives it', async () => {
    const model = await writeNewFile(
      contents,
      '',
      'q3.ipynb',
      text(notebookText()),
      { locks }
    );
    expect(model).toMatchObject({
      name: 'q3.ipynb',
      path: 'q3.ipynb',
      type: 'notebook',
      writable: true,
      content: null,
      size: utf8(notebookText()).length
    });
  });

  it('uploads under a visible temporary name in the same folder', async () => {
    await writeNewFile(contents, 'work', 'q3.ipynb', text('{}'), { locks });
    const save = contents.calls.find(call => call.method === 'save')!;
    expect(save.path).toMatch(
      /^work\/q3\.ipynb\.[0-9a-f]{16}\.bookshelf-partial$/
    );
    expect(save).toMatchObject({ type: 'file', format: 'text' });
    const rename = contents.calls.find(call => call.method === 'rename')!;
    expect(rename).toMatchObject({ path: save.path, newPath: 'work/q3.ipynb' });
  });

  it('treats a 409 on rename as taken and tries the next name', async () => {
    // Another writer took the name between the check and the rename.
    contents = new FakeContentsManager({
      beforeRename: (_path, newPath) => {
        if (newPath === 'q3.ipynb') {
          throw responseError(409, 'File already exists: q3.ipynb');
        }
      }
    });
    const model = await writeNewFile(contents, '', 'q3.ipynb', text('{}'), {
      locks
    });
    expect(model.path).toBe('q3-1.ipynb');
    expect(contents.files()).toEqual(['q3-1.ipynb']);
  });

  it('recognizes a 409 from an error shaped like a ResponseError', async () => {
    contents = new FakeContentsManager({
      beforeRename: (_path, newPath) => {
        if (newPath === 'q3.ipynb') {
          throw { message: 'taken', response: { status: 409 } };
        }
      }
    });
    const model = await writeNewFile(contents, '', 'q3.ipynb', text('{}'), {
      locks
    });
    expect(model.path).toBe('q3-1.ipynb');
  });

  it('skips names that exist before renaming', async () => {
    contents.addFile('work/q3.ipynb', 'first');
    contents.addDirectory('work/q3-1.ipynb');
    const model = await writeNewFile(contents, 'work', 'q3.ipynb', text('x'), {
      locks
    });
    expect(model.path).toBe('work/q3-2.ipynb');
    const renames = contents.calls.filter(call => call.method === 'rename');
    expect(renames).toHaveLength(1);
    expect(contents.readText('work/q3.ipynb')).toBe('first');
  });

  describe('with the server race', () => {
    const count = 20;

    async function cloneConcurrently(
      writerLocks: IFolderLocks
    ): Promise<FakeContentsManager> {
      const racing = new FakeContentsManager({
        renameRace: true,
        renameRaceDelay: 2
      });
      racing.addFile('work/q3.ipynb', 'the original');
      const writes = Array.from({ length: count }, (_, i) =>
        writeNewFile(racing, 'work', 'q3.ipynb', text(`clone ${i}`), {
          locks: writerLocks
        })
      );
      const models = await Promise.all(writes);
      expect(models).toHaveLength(count);
      return racing;
    }

    it('gives concurrent clones that many distinct files', async () => {
      const racing = await cloneConcurrently(locks);
      const files = racing.files();
      expect(files).toHaveLength(count + 1);
      expect(files.some(path => path.endsWith(PARTIAL_SUFFIX))).toBe(false);
      expect(racing.readText('work/q3.ipynb')).toBe('the original');
      const texts = new Set(
        files
          .filter(path => path !== 'work/q3.ipynb')
          .map(racing.readText, racing)
      );
      expect(texts).toEqual(
        new Set(Array.from({ length: count }, (_, i) => `clone ${i}`))
      );
    });

    it('loses files without the lock, so the test above can fail', async () => {
      const racing = await cloneConcurrently(noLocks);
      // Every writer resolved, but some renames replaced another's file.
      expect(racing.files().length).toBeLessThan(count + 1);
      expect(racing.readText('work/q3.ipynb')).toBe('the original');
    });
  });

  describe('chunked upload', () => {
    it('saves up to 8 MiB in one request by default', async () => {
      const bytes = randomBytes(3 * MiB, 7);
      await writeNewFile(
        contents,
        'work',
        'one.bin',
        { bytes, format: 'base64' },
        { locks }
      );
      const saves = contents.calls.filter(call => call.method === 'save');
      expect(saves.map(call => call.chunk)).toEqual([undefined]);
      expect(bytesEqual(contents.readBytes('work/one.bin'), bytes)).toBe(true);
    });

    it('reassembles a 3 MiB binary byte for byte', async () => {
      const bytes = randomBytes(3 * MiB, 42);
      const progress: number[] = [];
      const model = await writeNewFile(
        contents,
        'work',
        'data.bin',
        { bytes, format: 'base64' },
        {
          locks,
          chunkSize: MiB,
          onProgress: ({ loaded }) => progress.push(loaded)
        }
      );
      const saves = contents.calls.filter(call => call.method === 'save');
      expect(saves.map(call => call.chunk)).toEqual([1, 2, -1]);
      expect(saves.every(call => call.format === 'base64')).toBe(true);
      expect(saves.every(call => call.type === 'file')).toBe(true);
      expect(progress).toEqual([MiB, 2 * MiB, 3 * MiB]);
      expect(model.path).toBe('work/data.bin');
      expect(bytesEqual(contents.readBytes('work/data.bin'), bytes)).toBe(true);
    });

    it('saves text as text, in one save by default', async () => {
      const content = notebookText('é😀'.repeat(MiB));
      await writeNewFile(contents, 'work', 'big.ipynb', text(content), {
        locks
      });
      const saves = contents.calls.filter(call => call.method === 'save');
      expect(saves).toMatchObject([
        { format: 'text', type: 'file', chunk: undefined }
      ]);
      expect(contents.readText('work/big.ipynb')).toBe(content);
    });

    it('uses the text it is given, not a second decoding', async () => {
      const saved: unknown[] = [];
      const { save } = contents;
      contents.save = (path, options) => {
        saved.push(options?.content);
        return save.call(contents, path, options);
      };
      await writeNewFile(
        contents,
        'work',
        'a.txt',
        { bytes: utf8('abc'), format: 'text', text: 'abc' },
        { locks }
      );
      expect(saved).toEqual(['abc']);
    });

    it('takes the threshold as an option and splits text between characters', async () => {
      // 'é' is two bytes: text chunks count characters, and each is
      // encoded to UTF-8 by the server on its own.
      const content = 'é'.repeat(20) + 'end';
      const progress: number[] = [];
      await writeNewFile(contents, 'work', 'notes.txt', text(content), {
        locks,
        chunkSize: 7,
        onProgress: ({ loaded }) => progress.push(loaded)
      });
      const saves = contents.calls.filter(call => call.method === 'save');
      expect(saves.map(call => call.chunk)).toEqual([1, 2, 3, -1]);
      expect(saves.every(call => call.format === 'text')).toBe(true);
      expect(progress).toEqual([14, 28, 41, 43]);
      expect(contents.readText('work/notes.txt')).toBe(content);
    });

    it('never splits a surrogate pair between text chunks', async () => {
      // Each emoji is two UTF-16 code units; chunks of 3 would cut every
      // other one in half, which the server refuses to encode.
      const content = 'a' + '😀'.repeat(10) + 'z';
      await writeNewFile(contents, 'work', 'emoji.txt', text(content), {
        locks,
        chunkSize: 3
      });
      const saves = contents.calls.filter(call => call.method === 'save');
      expect(saves.length).toBeGreaterThan(3);
      expect(contents.readText('work/emoji.txt')).toBe(content);
    });

    it('textChunks joins back to the text, each piece whole', () => {
      const content = '😀x😀😀yz😀'.repeat(50);
      for (const size of [2, 3, 4, 5, 7, 64, 1000]) {
        const pieces = textChunks(content, size);
        expect(pieces.join('')).toBe(content);
        for (const piece of pieces) {
          expect(piece.length).toBeGreaterThan(0);
          expect(piece.length).toBeLessThanOrEqual(size);
          expect(/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(piece)).toBe(false);
        }
      }
    });

    it('saves a file of exactly the threshold in one save', async () => {
      await writeNewFile(
        contents,
        'work',
        'a.bin',
        { bytes: randomBytes(1000), format: 'base64' },
        { locks, chunkSize: 1000 }
      );
      const saves = contents.calls.filter(call => call.method === 'save');
      expect(saves).toHaveLength(1);
      expect(saves[0].chunk).toBeUndefined();
    });

    it('leaves nothing behind when cancelled between chunks', async () => {
      const controller = new AbortController();
      contents = new FakeContentsManager({
        beforeSave: (_path, options) => {
          if (options.chunk === 2) {
            controller.abort();
          }
        }
      });
      contents.addFile('keep.txt', 'keep');
      const error = await rejection(
        writeNewFile(
          contents,
          '',
          'data.bin',
          { bytes: randomBytes(5 * MiB), format: 'base64' },
          { locks, chunkSize: MiB, signal: controller.signal }
        )
      );
      expect(error).toBeInstanceOf(BookshelfError);
      expect(error.code).toBe('Cancelled');
      const chunks = contents.calls
        .filter(call => call.method === 'save')
        .map(call => call.chunk);
      expect(chunks).toEqual([1, 2]);
      expect(contents.calls.some(call => call.method === 'rename')).toBe(false);
      expect(contents.files()).toEqual(['keep.txt']);
    });

    it('leaves nothing behind when a chunk fails, and throws its error', async () => {
      contents = new FakeContentsManager({ failOnSaveChunk: 2 });
      const error = await rejection(
        writeNewFile(
          contents,
          '',
          'data.bin',
          { bytes: randomBytes(3 * MiB), format: 'base64' },
          { locks, chunkSize: MiB }
        )
      );
      expect(error).toBeInstanceOf(ServerConnection.ResponseError);
      expect(error.response.status).toBe(500);
      expect(contents.files()).toEqual([]);
      expect(contents.calls.map(call => call.method)).toEqual([
        'save',
        'save',
        'delete'
      ]);
    });
  });

  it('leaves no temporary file when the rename fails', async () => {
    contents = new FakeContentsManager({ failOnRename: true });
    const error = await rejection(
      writeNewFile(contents, '', 'q3.ipynb', text('{}'), { locks })
    );
    expect(hasResponseStatus(error, 500)).toBe(true);
    expect(contents.files()).toEqual([]);
  });

  it('leaves no temporary file when checking a name fails', async () => {
    const forbidden = new FakeContentsManager();
    const get = forbidden.get.bind(forbidden);
    forbidden.get = async (path, options) => {
      if (!path.endsWith(PARTIAL_SUFFIX)) {
        throw responseError(403, 'Forbidden');
      }
      return get(path, options);
    };
    const error = await rejection(
      writeNewFile(forbidden, '', 'q3.ipynb', text('{}'), { locks })
    );
    expect(hasResponseStatus(error, 403)).toBe(true);
    expect(forbidden.files()).toEqual([]);
  });

  it('verifies once, after the last chunk was sent and before it is saved', async () => {
    const events: string[] = [];
    contents = new FakeContentsManager({
      beforeSave: async (_path, options) => {
        events.push(`sent ${options.chunk}`);
        await delay(5);
        events.push(`saved ${options.chunk}`);
      }
    });
    for (const format of ['text', 'base64'] as const) {
      events.length = 0;
      const data: IFileData =
        format === 'text'
          ? text('x'.repeat(10))
          : { bytes: randomBytes(10), format };
      await writeNewFile(contents, '', `v.${format}`, data, {
        locks,
        chunkSize: 4,
        verify: () => void events.push('verify')
      });
      expect(events).toEqual([
        'sent 1',
        'saved 1',
        'sent 2',
        'saved 2',
        'sent -1',
        'verify',
        'saved -1'
      ]);
    }
  });

  it('removes the saved file and renames nothing when verify fails', async () => {
    const refused = new BookshelfError({
      code: 'NotANotebook',
      detail: { message: 'Not a notebook.' }
    });
    const error = await rejection(
      writeNewFile(contents, 'work', 'q3.ipynb', text('{}'), {
        locks,
        verify: async () => {
          throw refused;
        }
      })
    );
    expect(error).toBe(refused);
    expect(contents.calls.some(call => call.method === 'rename')).toBe(false);
    expect(contents.files()).toEqual([]);
  });

  it('still throws the original error when the clean-up fails', async () => {
    contents = new FakeContentsManager({ failOnRename: true });
    contents.delete = async () => {
      throw responseError(500, 'delete failed');
    };
    const error = await rejection(
      writeNewFile(contents, '', 'q3.ipynb', text('{}'), { locks })
    );
    expect(error.message).toMatch(/^Unknown error renaming file/);
  });

  it('gives up with Conflict after the set number of attempts', async () => {
    contents.addFile('q3.ipynb', '0');
    contents.addFile('q3-1.ipynb', '1');
    contents.addFile('q3-2.ipynb', '2');
    const error = await rejection(
      writeNewFile(contents, '', 'q3.ipynb', text('new'), {
        locks,
        maxAttempts: 3
      })
    );
    expect(error).toBeInstanceOf(BookshelfError);
    expect(error.code).toBe('Conflict');
    expect(error.message).toBe(
      "No free name was found for 'q3.ipynb' in the root folder after 3 attempts; choose another name or folder, or remove some copies."
    );
    expect(contents.files()).toEqual(['q3-1.ipynb', 'q3-2.ipynb', 'q3.ipynb']);
  });

  it('does nothing when cancelled before it starts', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(
      writeNewFile(contents, '', 'q3.ipynb', text('{}'), {
        locks,
        signal: controller.signal
      })
    );
    expect(error.code).toBe('Cancelled');
    expect(contents.calls).toEqual([]);
  });

  it('leaves nothing behind when cancelled while waiting for the lock', async () => {
    const controller = new AbortController();
    let releaseHolder!: () => void;
    const holder = locks.run(
      'work',
      () => new Promise<void>(resolve => (releaseHolder = resolve))
    );
    const writing = writeNewFile(contents, 'work', 'q3.ipynb', text('{}'), {
      locks,
      signal: controller.signal
    });
    while (!contents.files().length) {
      await delay(1);
    }
    await delay(5);
    controller.abort();
    const error = await rejection(writing);
    releaseHolder();
    await holder;
    expect(error.code).toBe('Cancelled');
    expect(contents.files()).toEqual([]);
  });

  it('fetches the model when the rename answers less', async () => {
    const rename = contents.rename.bind(contents);
    contents.rename = async (path, newPath) => {
      await rename(path, newPath);
      return undefined as unknown as Contents.IModel;
    };
    const model = await writeNewFile(contents, 'work', 'a.txt', text('a'), {
      locks
    });
    expect(model).toMatchObject({ path: 'work/a.txt', type: 'file' });
  });

  it('saves binary data as base64 in one save', async () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    await writeNewFile(
      contents,
      'work',
      'a.bin',
      { bytes, format: 'base64' },
      { locks }
    );
    const save = contents.calls.find(call => call.method === 'save')!;
    expect(save.format).toBe('base64');
    expect(bytesEqual(contents.readBytes('work/a.bin'), bytes)).toBe(true);
  });
});

describe('writeNewFile with the commit path', () => {
  let contents: FakeContentsManager;
  let lockedFolders: string[];
  let locks: IFolderLocks;

  beforeEach(() => {
    contents = new FakeContentsManager({ renameRace: true });
    contents.addFile('work/q3.ipynb', 'the original');
    lockedFolders = [];
    locks = {
      run: (folder, task) => {
        lockedFolders.push(folder);
        return task();
      }
    };
  });

  function write(
    committer: FakeCommitter,
    content = '{}',
    signal?: AbortSignal
  ) {
    return writeNewFile(contents, 'work', 'q3.ipynb', text(content), {
      committer,
      locks,
      signal
    });
  }

  it('commits on the server: no rename, no lock', async () => {
    const committer = new FakeCommitter(contents);
    const model = await write(committer, 'mine');
    expect(model).toMatchObject({ path: 'work/q3-1.ipynb', type: 'notebook' });
    expect(committer.calls).toEqual([
      {
        temporaryPath: expect.stringMatching(
          /^work\/q3\.ipynb\..*bookshelf-partial$/
        ),
        folder: 'work',
        name: 'q3.ipynb'
      }
    ]);
    expect(contents.calls.some(call => call.method === 'rename')).toBe(false);
    expect(lockedFolders).toEqual([]);
    expect(contents.files()).toEqual(['work/q3-1.ipynb', 'work/q3.ipynb']);
    expect(contents.readText('work/q3-1.ipynb')).toBe('mine');
  });

  it('gives 20 concurrent clones 20 files without any browser lock', async () => {
    const committer = new FakeCommitter(contents);
    const models = await Promise.all(
      Array.from({ length: 20 }, (_, i) => write(committer, `clone ${i}`))
    );
    expect(new Set(models.map(model => model.path)).size).toBe(20);
    models.forEach((model, i) =>
      expect(contents.readText(model.path)).toBe(`clone ${i}`)
    );
    expect(contents.files()).toHaveLength(21);
    expect(contents.readText('work/q3.ipynb')).toBe('the original');
  });

  it('renames under the lock when the server has no commit path', async () => {
    const committer = new FakeCommitter(contents, { absent: true });
    const model = await write(committer, 'mine');
    expect(model.path).toBe('work/q3-1.ipynb');
    expect(committer.calls).toHaveLength(1);
    expect(lockedFolders).toEqual(['work']);
    const renames = contents.calls.filter(call => call.method === 'rename');
    expect(renames).toHaveLength(1);
    expect(contents.files()).toEqual(['work/q3-1.ipynb', 'work/q3.ipynb']);
  });

  it('asks again when the answer was lost, and reports the file made', async () => {
    const committer = new FakeCommitter(contents, { loseAnswers: 1 });
    const model = await write(committer, 'mine');
    expect(model.path).toBe('work/q3-1.ipynb');
    expect(committer.calls).toHaveLength(2);
    expect(contents.files()).toEqual(['work/q3-1.ipynb', 'work/q3.ipynb']);
    expect(contents.readText('work/q3-1.ipynb')).toBe('mine');
  });

  it('commits when the first request never arrived', async () => {
    let first = true;
    const committer = new FakeCommitter(contents, {
      beforeCommit: () => {
        if (first) {
          first = false;
          throw new ServerConnection.NetworkError(
            new TypeError('Failed to fetch')
          );
        }
      }
    });
    const model = await write(committer, 'mine');
    expect(model.path).toBe('work/q3-1.ipynb');
    expect(contents.readText('work/q3-1.ipynb')).toBe('mine');
  });

  it('fails, leaving nothing, when both answers are lost', async () => {
    const committer = new FakeCommitter(contents, {
      beforeCommit: () => {
        throw new ServerConnection.NetworkError(
          new TypeError('Failed to fetch')
        );
      }
    });
    const error = await rejection(write(committer));
    expect(error).toBeInstanceOf(ServerConnection.NetworkError);
    expect(committer.calls).toHaveLength(2);
    expect(contents.files()).toEqual(['work/q3.ipynb']);
  });

  it("turns the server's 409 into Conflict and removes the temporary file", async () => {
    const committer = new FakeCommitter(contents, { maxAttempts: 1 });
    const error = await rejection(write(committer));
    expect(error).toBeInstanceOf(BookshelfError);
    expect(error.code).toBe('Conflict');
    expect(error.message).toBe(
      "No free name was found for 'q3.ipynb' in the folder 'work' after 10000 attempts; choose another name or folder, or remove some copies."
    );
    expect(committer.calls).toHaveLength(1);
    expect(contents.files()).toEqual(['work/q3.ipynb']);
  });

  it('throws a refusal as it is, once, and removes the temporary file', async () => {
    const committer = new FakeCommitter(contents, {
      beforeCommit: () => {
        throw responseError(403, 'Forbidden');
      }
    });
    const error = await rejection(write(committer));
    expect(hasResponseStatus(error, 403)).toBe(true);
    expect(committer.calls).toHaveLength(1);
    expect(contents.files()).toEqual(['work/q3.ipynb']);
  });

  it('leaves nothing and commits nothing when cancelled during the upload', async () => {
    const controller = new AbortController();
    contents = new FakeContentsManager({
      beforeSave: () => controller.abort()
    });
    contents.addDirectory('work');
    const committer = new FakeCommitter(contents);
    const error = await rejection(write(committer, '{}', controller.signal));
    expect(error.code).toBe('Cancelled');
    expect(committer.calls).toEqual([]);
    // The clean-up runs once the save the server was working on is over.
    await delay(5);
    expect(contents.files()).toEqual([]);
  });

  it('completes a commit already sent when cancelled meanwhile', async () => {
    const controller = new AbortController();
    const committer = new FakeCommitter(contents, {
      beforeCommit: () => controller.abort()
    });
    const model = await write(committer, 'mine', controller.signal);
    expect(model.path).toBe('work/q3-1.ipynb');
    expect(contents.readText('work/q3-1.ipynb')).toBe('mine');
  });
});

describe('temporaryName', () => {
  it('is visible, unique and not a notebook', () => {
    const first = temporaryName('q3.ipynb');
    expect(first.startsWith('q3.ipynb.')).toBe(true);
    expect(first.endsWith('.bookshelf-partial')).toBe(true);
    expect(temporaryName('q3.ipynb')).not.toBe(first);
  });

  it('stays within 255 bytes for a long name', () => {
    const name = temporaryName('é'.repeat(127) + '.ipynb');
    expect(new TextEncoder().encode(name).length).toBeLessThanOrEqual(255);
  });
});

describe('folder locks', () => {
  it('MemoryFolderLocks runs one task at a time per folder', async () => {
    const locks = new MemoryFolderLocks();
    const events: string[] = [];
    const task = (label: string) => async () => {
      events.push(`${label} start`);
      await delay(5);
      events.push(`${label} end`);
      return label;
    };
    const results = await Promise.all([
      locks.run('a', task('a1')),
      locks.run('a', task('a2')),
      locks.run('b', task('b1'))
    ]);
    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(events.indexOf('a2 start')).toBeGreaterThan(
      events.indexOf('a1 end')
    );
    expect(events.indexOf('b1 start')).toBeLessThan(events.indexOf('a1 end'));
  });

  it('MemoryFolderLocks releases the lock when a task fails', async () => {
    const locks = new MemoryFolderLocks();
    await expect(
      locks.run('a', async () => {
        throw new Error('boom');
      })
    ).rejects.toThrow('boom');
    await expect(locks.run('a', async () => 'next')).resolves.toBe('next');
  });

  it('WebFolderLocks names the lock after the folder', async () => {
    const names: string[] = [];
    const lockManager = {
      request: (
        name: string,
        options: LockOptions,
        callback: () => unknown
      ) => {
        names.push(name);
        return Promise.resolve(callback());
      },
      query: async () => ({})
    } as unknown as LockManager;
    const locks = new WebFolderLocks(lockManager);
    await expect(locks.run('work/a', async () => 7)).resolves.toBe(7);
    expect(names).toEqual(['jupyterlab-bookshelf:work/a']);
  });

  it('WebFolderLocks turns an abort while waiting into Cancelled', async () => {
    const controller = new AbortController();
    const lockManager = {
      request: (_name: string, options: LockOptions) =>
        new Promise((_, reject) =>
          options.signal!.addEventListener('abort', () =>
            reject(new DOMException('aborted', 'AbortError'))
          )
        )
    } as unknown as LockManager;
    const locks = new WebFolderLocks(lockManager);
    const running = locks.run('a', async () => 1, controller.signal);
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: 'Cancelled' });
  });

  it('defaultFolderLocks prefers Web Locks', () => {
    expect(defaultFolderLocks()).toBeInstanceOf(MemoryFolderLocks);
    expect(defaultFolderLocks()).toBe(defaultFolderLocks());
    Object.defineProperty(navigator, 'locks', {
      value: { request: jest.fn() },
      configurable: true
    });
    try {
      expect(defaultFolderLocks()).toBeInstanceOf(WebFolderLocks);
    } finally {
      delete (navigator as any).locks;
    }
  });
});
