/**
 * @jest-environment-options {"customExportConditions": ["node", "require", "default"]}
 */
/**
 * `streamPieces` reads a byte stream (a `fetch` body in Chromium) into
 * memory of its own, handed back and forth, instead of a new buffer per
 * piece; any other stream as it comes.
 */
import { ReadableStream as NodeReadableStream } from 'stream/web';

import { readStream, streamPieces } from '../s3/client';
import { md5, Md5, toHex } from '../s3/md5';
import { bytesEqual, randomBytes } from './fakes/bytes';

// jsdom has no web streams; the browser's fetch bodies are ones.
if (typeof globalThis.ReadableStream === 'undefined') {
  (globalThis as any).ReadableStream = NodeReadableStream;
}

/** `bytes` in pieces of `size`, as a byte stream or a default one. */
function source(
  bytes: Uint8Array,
  size: number,
  type: 'bytes' | undefined
): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    type,
    pull(controller: any) {
      if (offset >= bytes.length) {
        controller.close();
        // A byte stream's pending read ends (done) only when answered.
        controller.byobRequest?.respond(0);
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    }
  } as any);
}

describe('streamPieces', () => {
  const bytes = randomBytes(3 * 1024 * 1024 + 123, 7);

  for (const type of ['bytes', undefined] as const) {
    it(`gives the bytes exactly, hashed as they come (${type ?? 'default'} stream)`, async () => {
      const hash = new Md5();
      const copies: Uint8Array[] = [];
      for await (const piece of streamPieces(source(bytes, 200_000, type), {
        total: bytes.length,
        hash
      })) {
        copies.push(piece.slice());
      }
      const joined = new Uint8Array(bytes.length);
      let at = 0;
      for (const copy of copies) {
        joined.set(copy, at);
        at += copy.length;
      }
      expect(at).toBe(bytes.length);
      expect(bytesEqual(joined, bytes)).toBe(true);
      expect(toHex(hash.digest())).toBe(toHex(md5(bytes)));
    });
  }

  it('reads a byte stream into the same memory, so a piece lasts until the next', async () => {
    const seen: { piece: Uint8Array; length: number }[] = [];
    for await (const piece of streamPieces(source(bytes, 300_000, 'bytes'), {
      total: bytes.length
    })) {
      // The earlier pieces' memory went back to the reader (detached).
      expect(seen.every(({ piece }) => piece.byteLength === 0)).toBe(true);
      seen.push({ piece, length: piece.byteLength });
    }
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.reduce((sum, { length }) => sum + length, 0)).toBe(
      bytes.length
    );
  });

  it('readStream collects a byte stream whole', async () => {
    const read = await readStream(source(bytes, 65_536, 'bytes'), {
      total: bytes.length
    });
    expect(bytesEqual(read, bytes)).toBe(true);
  });
});
