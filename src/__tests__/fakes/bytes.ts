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
