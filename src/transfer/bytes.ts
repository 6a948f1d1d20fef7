/**
 * Collecting a body that arrives in pieces into one buffer. No SDK import:
 * both the S3 download and the read of a saved file use it.
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
