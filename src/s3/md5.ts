/**
 * MD5 (RFC 1321), for checking transfers against S3: a single-part object's
 * ETag is the MD5 of its bytes, and an upload's `Content-MD5` header lets
 * the server refuse a body damaged on the way. Browsers' Web Crypto has no
 * MD5. Not for security: MD5 only detects accidental damage here.
 */

/**
 * The constants K[i] = floor(|sin(i + 1)| × 2^32) of RFC 1321.
 */
const K = new Int32Array([
  0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
  0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
  0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
  0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
  0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
  0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
  0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
  0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
  0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
  0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
  0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391
]);

/**
 * The left rotations of each step, four per round.
 */
const SHIFTS = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];

/**
 * An MD5 computation fed piece by piece, so that a download can be hashed
 * as it arrives.
 */
export class Md5 {
  /**
   * Add bytes to the message.
   */
  update(bytes: Uint8Array): this {
    if (this._done) {
      throw new Error('The digest was already computed.');
    }
    let offset = 0;
    this._length += bytes.length;
    if (this._buffered > 0) {
      const take = Math.min(64 - this._buffered, bytes.length);
      this._buffer.set(bytes.subarray(0, take), this._buffered);
      this._buffered += take;
      offset = take;
      if (this._buffered < 64) {
        return this;
      }
      this._block(this._buffer, 0);
      this._buffered = 0;
    }
    for (; offset + 64 <= bytes.length; offset += 64) {
      this._block(bytes, offset);
    }
    if (offset < bytes.length) {
      this._buffer.set(bytes.subarray(offset), 0);
      this._buffered = bytes.length - offset;
    }
    return this;
  }

  /**
   * The 16 bytes of the digest. Ends the computation.
   */
  digest(): Uint8Array {
    if (!this._done) {
      const bits = this._length * 8;
      const tail = new Uint8Array(this._buffered < 56 ? 64 : 128);
      tail.set(this._buffer.subarray(0, this._buffered));
      tail[this._buffered] = 0x80;
      const end = tail.length - 8;
      // The message length in bits, 64 bits little-endian.
      writeWord(tail, end, bits >>> 0);
      writeWord(tail, end + 4, Math.floor(bits / 0x100000000));
      for (let offset = 0; offset < tail.length; offset += 64) {
        this._block(tail, offset);
      }
      this._done = true;
    }
    const result = new Uint8Array(16);
    this._state.forEach((word, i) => writeWord(result, i * 4, word));
    return result;
  }

  private _block(bytes: Uint8Array, offset: number): void {
    const words = this._words;
    for (let i = 0; i < 16; i++) {
      const at = offset + i * 4;
      words[i] =
        bytes[at] |
        (bytes[at + 1] << 8) |
        (bytes[at + 2] << 16) |
        (bytes[at + 3] << 24);
    }
    const state = this._state;
    let a = state[0];
    let b = state[1];
    let c = state[2];
    let d = state[3];
    for (let i = 0; i < 64; i++) {
      let mixed: number;
      let word: number;
      const round = i >> 4;
      if (round === 0) {
        mixed = (b & c) | (~b & d);
        word = i;
      } else if (round === 1) {
        mixed = (d & b) | (~d & c);
        word = (5 * i + 1) & 15;
      } else if (round === 2) {
        mixed = b ^ c ^ d;
        word = (3 * i + 5) & 15;
      } else {
        mixed = c ^ (b | ~d);
        word = (7 * i) & 15;
      }
      const shift = SHIFTS[(round << 2) | (i & 3)];
      const sum = (a + mixed + K[i] + words[word]) | 0;
      a = d;
      d = c;
      c = b;
      b = (b + ((sum << shift) | (sum >>> (32 - shift)))) | 0;
    }
    state[0] = (state[0] + a) | 0;
    state[1] = (state[1] + b) | 0;
    state[2] = (state[2] + c) | 0;
    state[3] = (state[3] + d) | 0;
  }

  private _state = new Int32Array([
    0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476
  ]);
  private _words = new Int32Array(16);
  private _buffer = new Uint8Array(64);
  private _buffered = 0;
  private _length = 0;
  private _done = false;
}

/**
 * The MD5 digest of bytes (16 bytes).
 */
export function md5(bytes: Uint8Array): Uint8Array {
  return new Md5().update(bytes).digest();
}

/**
 * A digest as lowercase hex, as S3 writes it in an ETag.
 */
export function toHex(digest: Uint8Array): string {
  let hex = '';
  for (const byte of digest) {
    hex += byte.toString(16).padStart(2, '0');
  }
  return hex;
}

/**
 * A digest in base64, as the `Content-MD5` header carries it.
 */
export function toBase64(digest: Uint8Array): string {
  return btoa(String.fromCharCode(...digest));
}

function writeWord(target: Uint8Array, offset: number, word: number): void {
  target[offset] = word & 0xff;
  target[offset + 1] = (word >>> 8) & 0xff;
  target[offset + 2] = (word >>> 16) & 0xff;
  target[offset + 3] = (word >>> 24) & 0xff;
}
