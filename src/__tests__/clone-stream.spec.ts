import { Md5, md5, toHex } from '../s3/md5';
import { MemoryFolderLocks } from '../clone/locks';
import { characterBoundary } from '../clone/contentsSave';
import { PARTIAL_SUFFIX, writeNewFile } from '../clone/writer';
import { bytesEqual, pieces, randomBytes } from './fakes/bytes';
import { FakeCommitter, FakeContentsManager } from './fakes/contents';
import { rejection } from './fakes/rejection';

/**
 * The files below a folder of the fake.
 */
function filesIn(contents: FakeContentsManager, folder: string): string[] {
  return contents.files().filter(path => path.startsWith(`${folder}/`));
}

describe('writeNewFile with a stream', () => {
  let contents: FakeContentsManager;
  let locks: MemoryFolderLocks;

  beforeEach(() => {
    contents = new FakeContentsManager();
    contents.addDirectory('work');
    locks = new MemoryFolderLocks();
  });

  it('saves the bytes exactly in numbered chunks, the last -1', async () => {
    const bytes = randomBytes(10_000, 3);
    const model = await writeNewFile(
      contents,
      'work',
      'data.bin',
      { stream: pieces(bytes, 700), total: bytes.length },
      { chunkSize: 4096, locks }
    );
    expect(model.path).toBe('work/data.bin');
    expect(bytesEqual(contents.readBytes('work/data.bin'), bytes)).toBe(true);
    const chunks = contents.calls
      .filter(call => call.method === 'save')
      .map(call => call.chunk);
    expect(chunks).toEqual([1, 2, -1]);
    expect(contents.files().some(path => path.endsWith(PARTIAL_SUFFIX))).toBe(
      false
    );
  });

  it('sends an exact multiple of the chunk size with its last chunk -1', async () => {
    const bytes = randomBytes(8192, 4);
    await writeNewFile(
      contents,
      'work',
      'data.bin',
      { stream: pieces(bytes, 1000) },
      { chunkSize: 4096, locks }
    );
    const chunks = contents.calls
      .filter(call => call.method === 'save')
      .map(call => call.chunk);
    expect(chunks).toEqual([1, -1]);
    expect(bytesEqual(contents.readBytes('work/data.bin'), bytes)).toBe(true);
  });

  it('saves a small stream, and an empty one, in one plain save', async () => {
    await writeNewFile(
      contents,
      'work',
      'small.bin',
      { stream: pieces(randomBytes(100), 30) },
      { chunkSize: 4096, locks }
    );
    await writeNewFile(
      contents,
      'work',
      'empty.bin',
      { stream: pieces(new Uint8Array(0), 30) },
      { chunkSize: 4096, locks }
    );
    const chunks = contents.calls
      .filter(call => call.method === 'save')
      .map(call => call.chunk);
    expect(chunks).toEqual([undefined, undefined]);
    expect(contents.readBytes('work/empty.bin').length).toBe(0);
  });

  it('never overwrites: the rename takes the next free name on 409', async () => {
    contents.addFile('work/data.bin', 'old');
    const bytes = randomBytes(5000, 5);
    const model = await writeNewFile(
      contents,
      'work',
      'data.bin',
      { stream: pieces(bytes, 999) },
      { chunkSize: 2048, locks }
    );
    expect(model.path).toBe('work/data-1.bin');
    expect(contents.readText('work/data.bin')).toBe('old');
    expect(bytesEqual(contents.readBytes('work/data-1.bin'), bytes)).toBe(true);
  });

  it('commits through the server extension when there is one', async () => {
    const bytes = randomBytes(5000, 6);
    const model = await writeNewFile(
      contents,
      'work',
      'data.bin',
      { stream: pieces(bytes, 999) },
      { chunkSize: 2048, locks, committer: new FakeCommitter(contents) }
    );
    expect(model.path).toBe('work/data.bin');
    expect(bytesEqual(contents.readBytes('work/data.bin'), bytes)).toBe(true);
    expect(contents.files().some(path => path.endsWith(PARTIAL_SUFFIX))).toBe(
      false
    );
  });

  it('hashes incrementally what it saves, chunk by chunk', async () => {
    const bytes = randomBytes(50_000, 7);
    const hash = new Md5();
    let counted = 0;
    await writeNewFile(
      contents,
      'work',
      'data.bin',
      {
        stream: pieces(bytes, 1234),
        onChunk: (chunk, loaded) => {
          hash.update(chunk);
          counted = loaded;
        }
      },
      { chunkSize: 4096, locks }
    );
    expect(counted).toBe(bytes.length);
    expect(toHex(hash.digest())).toBe(toHex(md5(bytes)));
  });

  it('removes the temporary file when the body stops mid-way', async () => {
    const bytes = randomBytes(20_000, 8);
    const error = await rejection(
      writeNewFile(
        contents,
        'work',
        'data.bin',
        { stream: pieces(bytes, 1000, 9000) },
        { chunkSize: 4096, locks }
      )
    );
    expect(String(error)).toMatch(/network error/);
    expect(filesIn(contents, 'work')).toEqual([]);
  });

  it('stops and removes the temporary file when a chunk check throws (size limit)', async () => {
    const bytes = randomBytes(20_000, 9);
    const error = await rejection(
      writeNewFile(
        contents,
        'work',
        'data.bin',
        {
          stream: pieces(bytes, 1000),
          onChunk: (_chunk, loaded) => {
            if (loaded > 10_000) {
              throw new Error('too large');
            }
          }
        },
        { chunkSize: 4096, locks }
      )
    );
    expect(String(error)).toMatch(/too large/);
    expect(filesIn(contents, 'work')).toEqual([]);
  });

  it('writes nothing when the final check fails (a checksum mismatch)', async () => {
    const error = await rejection(
      writeNewFile(
        contents,
        'work',
        'data.bin',
        { stream: pieces(randomBytes(9000, 10), 1000) },
        {
          chunkSize: 4096,
          locks,
          verify: () => {
            throw new Error('checksum mismatch');
          }
        }
      )
    );
    expect(String(error)).toMatch(/checksum mismatch/);
    expect(filesIn(contents, 'work')).toEqual([]);
  });

  it('is cancelled between chunks and leaves nothing', async () => {
    const controller = new AbortController();
    let sent = 0;
    const error = await rejection(
      writeNewFile(
        contents,
        'work',
        'data.bin',
        {
          stream: pieces(randomBytes(20_000, 11), 1000),
          onChunk: () => {
            if (++sent === 2) {
              controller.abort();
            }
          }
        },
        { chunkSize: 4096, locks, signal: controller.signal }
      )
    );
    expect((error as { code?: string }).code ?? String(error)).toMatch(
      /Cancel/
    );
    // The clean-up of a cancelled save runs once that save is over.
    await new Promise(resolve => setTimeout(resolve, 20));
    expect(filesIn(contents, 'work')).toEqual([]);
  });

  it('reads the next chunk while one is saved, and saves one chunk at a time, in order', async () => {
    const bytes = randomBytes(20_000, 13);
    let read = 0;
    async function* counted(): AsyncGenerator<Uint8Array> {
      for await (const piece of pieces(bytes, 1000)) {
        read += piece.length;
        yield piece;
      }
    }
    let saving = 0;
    let mostAtOnce = 0;
    // How far the stream was read by the end of each save.
    const readBySaveEnd: number[] = [];
    const slow = new FakeContentsManager({
      beforeSave: async () => {
        saving++;
        mostAtOnce = Math.max(mostAtOnce, saving);
        // A server that takes its time over each chunk.
        await new Promise(resolve => setTimeout(resolve, 20));
        readBySaveEnd.push(read);
        saving--;
      }
    });
    slow.addDirectory('work');
    await writeNewFile(
      slow,
      'work',
      'data.bin',
      { stream: counted(), total: bytes.length },
      { chunkSize: 4096, locks }
    );
    expect(bytesEqual(slow.readBytes('work/data.bin'), bytes)).toBe(true);
    const chunks = slow.calls
      .filter(call => call.method === 'save')
      .map(call => call.chunk);
    expect(chunks).toEqual([1, 2, 3, 4, -1]);
    expect(mostAtOnce).toBe(1);
    // While each of the first chunks was saved, the whole next one was
    // read; taking turns, only the piece that shows more follows would be.
    readBySaveEnd.slice(0, 3).forEach((bytesRead, index) => {
      expect(bytesRead).toBeGreaterThanOrEqual((index + 2) * 4096);
    });
  });

  it('saves UTF-8 text as text chunks cut between characters', async () => {
    // Characters of 1, 2, 3 and 4 bytes, cut everywhere by 7-byte chunks.
    const text = 'aé✓😀'.repeat(40);
    const bytes = new TextEncoder().encode(text);
    await writeNewFile(
      contents,
      'work',
      'text.ipynb',
      { stream: pieces(bytes, 5), text: true },
      { chunkSize: 7, locks }
    );
    const saves = contents.calls.filter(call => call.method === 'save');
    expect(saves.length).toBeGreaterThan(1);
    expect(saves.every(call => call.format === 'text')).toBe(true);
    expect(bytesEqual(contents.readBytes('work/text.ipynb'), bytes)).toBe(true);
  });

  it('keeps a byte order mark and saves a text stream in one save when it fits', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]);
    await writeNewFile(
      contents,
      'work',
      'bom.txt',
      { stream: pieces(bytes, 2), text: true },
      { chunkSize: 4096, locks }
    );
    const saves = contents.calls.filter(call => call.method === 'save');
    expect(saves.map(call => [call.format, call.chunk])).toEqual([
      ['text', undefined]
    ]);
    expect(bytesEqual(contents.readBytes('work/bom.txt'), bytes)).toBe(true);
  });

  it('writes bytes that are not UTF-8 exactly: base64 from the first chunk that does not decode', async () => {
    const head = new TextEncoder().encode('x✓'.repeat(10));
    const bytes = new Uint8Array([...head, 0xff, 0xfe, ...head, 0xe2]);
    await writeNewFile(
      contents,
      'work',
      'odd.ipynb',
      { stream: pieces(bytes, 3), text: true },
      { chunkSize: 16, locks }
    );
    const formats = contents.calls
      .filter(call => call.method === 'save')
      .map(call => call.format);
    expect(formats[0]).toBe('text');
    const firstBase64 = formats.indexOf('base64');
    expect(firstBase64).toBeGreaterThan(0);
    expect(formats.slice(firstBase64).every(f => f === 'base64')).toBe(true);
    expect(bytesEqual(contents.readBytes('work/odd.ipynb'), bytes)).toBe(true);
  });

  it('reports progress as chunks are saved', async () => {
    const bytes = randomBytes(10_000, 12);
    const seen: number[] = [];
    await writeNewFile(
      contents,
      'work',
      'data.bin',
      { stream: pieces(bytes, 1000), total: bytes.length },
      {
        chunkSize: 4096,
        locks,
        onProgress: ({ loaded }) => seen.push(loaded)
      }
    );
    expect(seen).toEqual([4096, 8192, 10_000]);
  });
});

describe('characterBoundary', () => {
  const utf8 = (text: string) => new TextEncoder().encode(text);
  const cut = (bytes: Uint8Array, drop: number) =>
    bytes.subarray(0, bytes.length - drop);

  it('is the end after whole characters', () => {
    for (const text of ['', 'a', 'aé', 'a✓', 'a😀']) {
      expect(characterBoundary(utf8(text))).toBe(utf8(text).length);
    }
  });

  it('is before a character cut off', () => {
    for (const char of ['é', '✓', '😀']) {
      const whole = utf8(`ab${char}`);
      for (let drop = 1; drop < utf8(char).length; drop++) {
        expect(characterBoundary(cut(whole, drop))).toBe(2);
      }
    }
  });
});
