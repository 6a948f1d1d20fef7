/**
 * Bodies that arrive in pieces: gathered into one buffer, or cut into
 * chunks of a fixed size. No SDK import: the S3 download, the read of a
 * saved file and the chunked save use them.
 */

/**
 * Pieces of bytes gathered into one buffer, allocated once when the size is
 * known beforehand (so a large body is held only once), grown by doubling
 * when it is not.
 */
export class ByteCollector {
  /**
   * @param sizeHint - the expected size, when known; a wrong one costs
   *   only a copy.
   */
  constructor(sizeHint?: number) {
    this._buffer = new Uint8Array(
      sizeHint !== undefined && Number.isSafeInteger(sizeHint) && sizeHint > 0
        ? sizeHint
        : 64 * 1024
    );
  }

  /**
   * How many bytes were added.
   */
  get length(): number {
    return this._length;
  }

  /**
   * Append a piece.
   */
  add(piece: Uint8Array): void {
    if (this._length + piece.length > this._buffer.length) {
      const grown = new Uint8Array(
        Math.max(2 * this._buffer.length, this._length + piece.length)
      );
      grown.set(this._buffer.subarray(0, this._length));
      this._buffer = grown;
    }
    this._buffer.set(piece, this._length);
    this._length += piece.length;
  }

  /**
   * The bytes added, exactly (the buffer itself when it is full).
   */
  bytes(): Uint8Array {
    return this._length === this._buffer.length
      ? this._buffer
      : this._buffer.slice(0, this._length);
  }

  private _buffer: Uint8Array;
  private _length = 0;
}

/**
 * The bytes of a body, an array or a Blob.
 */
export function byteSize(body: Uint8Array | Blob): number {
  return body instanceof Blob ? body.size : body.byteLength;
}

/**
 * `pieces` cut and joined into chunks of `size` bytes, each handed out in
 * one buffer that is filled again once the next chunk is asked for: a
 * caller copies or encodes a chunk before it asks for the next. A full
 * chunk is handed out only once more bytes follow, so the last one (`last`,
 * perhaps shorter, empty for no bytes at all) is known as such.
 */
export async function* fixedChunks(
  pieces: AsyncIterable<Uint8Array>,
  size: number
): AsyncGenerator<{ bytes: Uint8Array; last: boolean }> {
  const buffer = new Uint8Array(size);
  let filled = 0;
  for await (const piece of pieces) {
    for (let offset = 0; offset < piece.length;) {
      if (filled === size) {
        yield { bytes: buffer, last: false };
        filled = 0;
      }
      const take = Math.min(size - filled, piece.length - offset);
      buffer.set(piece.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
    }
  }
  yield { bytes: buffer.subarray(0, filled), last: true };
}

/**
 * A Blob's bytes in pieces, read from its stream as they are asked for:
 * the page holds a piece at a time, never the Blob's bytes whole. Each
 * piece is given to `onPiece` first (a hash). Stopping early (a failed
 * save) cancels the read.
 */
export async function* blobPieces(
  blob: Blob,
  onPiece?: (piece: Uint8Array) => void
): AsyncGenerator<Uint8Array> {
  const reader = blob.stream().getReader();
  let done = false;
  try {
    for (;;) {
      const read = await reader.read();
      if (read.done) {
        done = true;
        return;
      }
      onPiece?.(read.value);
      yield read.value;
    }
  } finally {
    if (!done) {
      await reader.cancel().catch(() => undefined);
    }
  }
}
