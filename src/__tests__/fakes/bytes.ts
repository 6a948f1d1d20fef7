/**
 * Byte helpers for tests.
 */

/**
 * Deterministic pseudo-random bytes (xorshift), so failures repeat.
 */
export function randomBytes(length: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = seed || 1;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  return bytes;
}

/**
 * Whether two byte arrays are equal (without jest's slow diff of large
 * arrays).
 */
export function bytesEqual(first: Uint8Array, second: Uint8Array): boolean {
  if (first.length !== second.length) {
    return false;
  }
  for (let i = 0; i < first.length; i++) {
    if (first[i] !== second[i]) {
      return false;
    }
  }
  return true;
}

/**
 * UTF-8 bytes of a text.
 */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/**
 * A minimal valid notebook, as compact JSON text.
 */
export function notebookText(marker = 'x'): string {
  return JSON.stringify({
    cells: [
      {
        cell_type: 'markdown',
        id: 'c1',
        metadata: {},
        source: [marker]
      }
    ],
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
    nbformat: 4,
    nbformat_minor: 5
  });
}

/**
 * The bytes of a Blob (see blobShim.ts for jsdom's).
 */
export async function blobBytes(blob: Blob): Promise<Uint8Array> {
  return new Uint8Array(await blob.arrayBuffer());
}

/**
 * A body arriving in pieces of `pieceSize` bytes (the last shorter), as a
 * fetch ReadableStream hands them out; `fail` throws after that many bytes.
 */
export async function* pieces(
  bytes: Uint8Array,
  pieceSize: number,
  fail?: number
): AsyncGenerator<Uint8Array> {
  for (let start = 0; start < bytes.length; start += pieceSize) {
    if (fail !== undefined && start >= fail) {
      throw new TypeError('network error');
    }
    await Promise.resolve();
    // A copy, as each read of a real stream gives a new buffer.
    yield bytes.slice(start, start + pieceSize);
  }
}
