import {
  blobPieces,
  ByteCollector,
  byteSize,
  fixedChunks
} from '../transfer/bytes';
import { randomBytes } from './fakes/bytes';
import { ReadableStream as WebReadableStream } from 'stream/web';

const pieces = [
  new Uint8Array([1, 2, 3]),
  new Uint8Array([4]),
  new Uint8Array([5, 6])
];

describe('ByteCollector', () => {
  test.each([
    ['the exact size', 6],
    ['a size too small', 2],
    ['a size too large', 100],
    ['no size', undefined],
    ['a size that is no number', NaN]
  ])('gathers the pieces in order with %s', (_, hint) => {
    const collected = new ByteCollector(hint);
    for (const piece of pieces) {
      collected.add(piece);
    }
    expect(collected.length).toBe(6);
    expect(Array.from(collected.bytes())).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('answers its buffer itself when the size was exact', () => {
    const collected = new ByteCollector(4);
    collected.add(new Uint8Array([9, 8, 7, 6]));
    expect(collected.bytes()).toBe(collected.bytes());
    expect(collected.bytes().length).toBe(4);
  });

  it('is empty when nothing was added', () => {
    expect(new ByteCollector(10).bytes()).toEqual(new Uint8Array(0));
  });
});

describe('fixedChunks', () => {
  async function* from(...pieces: number[][]): AsyncIterable<Uint8Array> {
    for (const piece of pieces) {
      yield new Uint8Array(piece);
    }
  }

  async function chunksOf(
    pieces: AsyncIterable<Uint8Array>,
    size: number
  ): Promise<[number[], boolean][]> {
    const chunks: [number[], boolean][] = [];
    // Copied: each chunk's buffer is filled again for the next.
    for await (const { bytes, last } of fixedChunks(pieces, size)) {
      chunks.push([[...bytes], last]);
    }
    return chunks;
  }

  it('cuts and joins pieces into chunks, the last one marked', async () => {
    expect(await chunksOf(from([1, 2], [3, 4, 5, 6, 7], [8]), 3)).toEqual([
      [[1, 2, 3], false],
      [[4, 5, 6], false],
      [[7, 8], true]
    ]);
  });

  it('hands out a full last chunk as the last one', async () => {
    expect(await chunksOf(from([1, 2, 3, 4]), 2)).toEqual([
      [[1, 2], false],
      [[3, 4], true]
    ]);
  });

  it('hands out one empty last chunk for no bytes at all', async () => {
    expect(await chunksOf(from(), 4)).toEqual([[[], true]]);
    expect(await chunksOf(from([]), 4)).toEqual([[[], true]]);
  });
});

describe('byteSize', () => {
  it('counts the bytes of an array and of a Blob', () => {
    expect(byteSize(new Uint8Array(5))).toBe(5);
    expect(byteSize(new Blob([new Uint8Array(7)]))).toBe(7);
  });
});

describe('blobPieces', () => {
  it("gives a Blob's bytes in pieces, in order, each to the callback first", async () => {
    const bytes = randomBytes(200 * 1024 + 5, 3);
    const given: number[] = [];
    const read: Uint8Array[] = [];
    for await (const piece of blobPieces(new Blob([bytes]), piece =>
      given.push(piece.length)
    )) {
      read.push(piece);
    }
    // Several pieces (64 KiB in the test's Blob, as in Chromium).
    expect(read.length).toBeGreaterThan(1);
    expect(given).toEqual(read.map(piece => piece.length));
    expect(Buffer.concat(read).equals(Buffer.from(bytes))).toBe(true);
  });

  it('cancels the read when stopped early', async () => {
    let cancelled = false;
    const stream = new WebReadableStream<Uint8Array>({
      pull: controller => controller.enqueue(new Uint8Array(1024)),
      cancel: () => {
        cancelled = true;
      }
    });
    const blob = new Blob([]);
    jest.spyOn(blob, 'stream').mockReturnValue(stream as any);
    for await (const piece of blobPieces(blob)) {
      expect(piece.length).toBe(1024);
      break;
    }
    expect(cancelled).toBe(true);
  });

  it('gives nothing for an empty Blob', async () => {
    const read: Uint8Array[] = [];
    for await (const piece of blobPieces(new Blob([]))) {
      read.push(piece);
    }
    expect(read).toEqual([]);
  });
});
