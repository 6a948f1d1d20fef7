/**
 * The writer behind a proxy with a request body limit (nginx's
 * `client_max_body_size`, ingress-nginx's `proxy-body-size`): saves it
 * refuses with 413 are sent again in smaller pieces, and the file is the
 * same byte for byte.
 */
import { MemoryFolderLocks } from '../clone/locks';
import { SMALLEST_SAVE_PIECE } from '../clone/contentsSave';
import { PARTIAL_SUFFIX, writeNewFile } from '../clone/writer';
import { BookshelfError } from '../errors/errors';
import {
  bytesEqual,
  notebookText,
  pieces,
  randomBytes,
  utf8
} from './fakes/bytes';
import { FakeContentsManager } from './fakes/contents';
import { rejection } from './fakes/rejection';

const MiB = 1024 * 1024;
const LIMIT = 700 * 1024;

describe('writeNewFile behind a proxy that limits request bodies', () => {
  let contents: FakeContentsManager;
  let locks: MemoryFolderLocks;

  beforeEach(() => {
    contents = new FakeContentsManager({ bodyLimit: LIMIT });
    contents.addDirectory('work');
    locks = new MemoryFolderLocks();
  });

  const saves = () => contents.calls.filter(call => call.method === 'save');

  it('saves bytes it refused whole in pieces below the limit', async () => {
    const bytes = randomBytes(3 * MiB, 11);
    const progress: number[] = [];
    const model = await writeNewFile(
      contents,
      'work',
      'data.bin',
      { bytes, format: 'base64' },
      { locks, onProgress: ({ loaded }) => progress.push(loaded) }
    );
    expect(model.path).toBe('work/data.bin');
    expect(bytesEqual(contents.readBytes('work/data.bin'), bytes)).toBe(true);
    expect(saves()[0]).toMatchObject({ chunk: undefined, refused: true });
    const accepted = saves().filter(call => !call.refused);
    expect(accepted.every(call => call.bodyLength! <= LIMIT)).toBe(true);
    // One chunked save: the first creates the file, the last ends it.
    expect(accepted[0].chunk).toBe(1);
    expect(accepted[accepted.length - 1].chunk).toBe(-1);
    expect(accepted.slice(1, -1).every(call => call.chunk! > 1)).toBe(true);
    expect(progress).toEqual([bytes.length]);
    expect(contents.files()).toEqual(['work/data.bin']);
  });

  it('cuts text between characters, a surrogate pair never halved', async () => {
    const content = notebookText('é😀"\\\n'.repeat(300 * 1024));
    await writeNewFile(
      contents,
      'work',
      'big.ipynb',
      { bytes: utf8(content), format: 'text' },
      { locks }
    );
    expect(contents.readText('work/big.ipynb')).toBe(content);
    const accepted = saves().filter(call => !call.refused);
    expect(accepted.length).toBeGreaterThan(1);
    expect(accepted.every(call => call.format === 'text')).toBe(true);
  });

  it('cuts the chunks of a stream as they come, each in its place', async () => {
    const bytes = randomBytes(5 * MiB + 123, 12);
    const model = await writeNewFile(
      contents,
      'work',
      'stream.bin',
      { stream: pieces(bytes, 64 * 1024), total: bytes.length },
      { locks, chunkSize: 2 * MiB }
    );
    expect(bytesEqual(contents.readBytes(model.path), bytes)).toBe(true);
    expect(contents.files()).toEqual(['work/stream.bin']);
  });

  it('remembers the limit: the next file is cut before it is sent', async () => {
    const bytes = randomBytes(3 * MiB, 13);
    await writeNewFile(
      contents,
      'work',
      'first.bin',
      { bytes, format: 'base64' },
      { locks }
    );
    const before = saves().length;
    await writeNewFile(
      contents,
      'work',
      'second.bin',
      { bytes, format: 'base64' },
      { locks }
    );
    const second = saves().slice(before);
    expect(second.some(call => call.refused)).toBe(false);
    expect(bytesEqual(contents.readBytes('work/second.bin'), bytes)).toBe(true);
    // Another server (another contents manager) learns on its own.
    const other = new FakeContentsManager({ bodyLimit: 8 * MiB });
    await writeNewFile(other, '', 'third.bin', { bytes, format: 'base64' });
    expect(
      other.calls.filter(call => call.method === 'save').map(c => c.chunk)
    ).toEqual([undefined]);
  });

  it('gives up below the smallest piece, says why, and leaves nothing', async () => {
    contents = new FakeContentsManager({ bodyLimit: 100 * 1024 });
    contents.addDirectory('work');
    const error = await rejection(
      writeNewFile(
        contents,
        'work',
        'data.bin',
        { stream: pieces(randomBytes(2 * MiB, 14), 64 * 1024) },
        { locks, chunkSize: MiB }
      )
    );
    // The writer rethrows the contents API's error; the clone says it
    // with `asSaveFailed` (below).
    expect((error as { response?: Response }).response?.status).toBe(413);
    const smallest = Math.min(
      ...saves()
        .filter(call => call.refused)
        .map(call => call.bodyLength!)
    );
    expect(smallest).toBeGreaterThan(SMALLEST_SAVE_PIECE / 2);
    expect(smallest).toBeLessThanOrEqual(SMALLEST_SAVE_PIECE + 1024);
    expect(contents.files().filter(p => p.endsWith(PARTIAL_SUFFIX))).toEqual(
      []
    );
    expect(contents.files()).toEqual([]);
  });

  it('does not cut a save refused for another reason', async () => {
    contents = new FakeContentsManager({ failOnSaveChunk: 0 });
    contents.addDirectory('work');
    const error = await rejection(
      writeNewFile(
        contents,
        'work',
        'data.bin',
        { bytes: randomBytes(MiB, 15), format: 'base64' },
        { locks }
      )
    );
    expect((error as { response?: Response }).response?.status).toBe(500);
    expect(saves()).toHaveLength(1);
  });
});

describe('asSaveFailed for a 413', () => {
  it('names the proxy and what the administrator can raise', async () => {
    const { asSaveFailed } = await import('../clone/contentsSave');
    const { responseError } = await import('./fakes/contents');
    const error = asSaveFailed(responseError(413, 'Too large'), 'work');
    expect(error).toBeInstanceOf(BookshelfError);
    const detail = (error as BookshelfError).detail as {
      message: string;
      status: number;
    };
    expect(detail.status).toBe(413);
    expect(detail.message).toContain('proxy');
    expect(detail.message).toContain('client_max_body_size');
    expect(detail.message).toContain(`${SMALLEST_SAVE_PIECE / 1024} KiB`);
  });
});
