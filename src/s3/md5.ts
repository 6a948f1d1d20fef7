/**
 * MD5 (RFC 1321), for checking transfers against S3: a single-part object's
 * ETag is the MD5 of its bytes, and an upload's `Content-MD5` header lets
 * the server refuse a body damaged on the way. Browsers' Web Crypto has no
 * MD5. Not for security: MD5 only detects accidental damage here. Written
 * here rather than taken from the SDK (@smithy/md5-js): about 3–4× faster
 * on the same bytes (`bench/md5.js`, figures in bench/README.md).
 */

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
   * How many bytes were added so far.
   */
  get bytesHashed(): number {
    return this._length;
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

  /**
   * One 64-byte block. The 64 steps of RFC 1321 written out: a loop with
   * a branch per step was about three times slower, and this runs on every
   * byte of a download or an upload.
   */
  private _block(bytes: Uint8Array, offset: number): void {
    const w0 =
      bytes[offset] |
      (bytes[offset + 1] << 8) |
      (bytes[offset + 2] << 16) |
      (bytes[offset + 3] << 24);
    const w1 =
      bytes[offset + 4] |
      (bytes[offset + 4 + 1] << 8) |
      (bytes[offset + 4 + 2] << 16) |
      (bytes[offset + 4 + 3] << 24);
    const w2 =
      bytes[offset + 8] |
      (bytes[offset + 8 + 1] << 8) |
      (bytes[offset + 8 + 2] << 16) |
      (bytes[offset + 8 + 3] << 24);
    const w3 =
      bytes[offset + 12] |
      (bytes[offset + 12 + 1] << 8) |
      (bytes[offset + 12 + 2] << 16) |
      (bytes[offset + 12 + 3] << 24);
    const w4 =
      bytes[offset + 16] |
      (bytes[offset + 16 + 1] << 8) |
      (bytes[offset + 16 + 2] << 16) |
      (bytes[offset + 16 + 3] << 24);
    const w5 =
      bytes[offset + 20] |
      (bytes[offset + 20 + 1] << 8) |
      (bytes[offset + 20 + 2] << 16) |
      (bytes[offset + 20 + 3] << 24);
    const w6 =
      bytes[offset + 24] |
      (bytes[offset + 24 + 1] << 8) |
      (bytes[offset + 24 + 2] << 16) |
      (bytes[offset + 24 + 3] << 24);
    const w7 =
      bytes[offset + 28] |
      (bytes[offset + 28 + 1] << 8) |
      (bytes[offset + 28 + 2] << 16) |
      (bytes[offset + 28 + 3] << 24);
    const w8 =
      bytes[offset + 32] |
      (bytes[offset + 32 + 1] << 8) |
      (bytes[offset + 32 + 2] << 16) |
      (bytes[offset + 32 + 3] << 24);
    const w9 =
      bytes[offset + 36] |
      (bytes[offset + 36 + 1] << 8) |
      (bytes[offset + 36 + 2] << 16) |
      (bytes[offset + 36 + 3] << 24);
    const w10 =
      bytes[offset + 40] |
      (bytes[offset + 40 + 1] << 8) |
      (bytes[offset + 40 + 2] << 16) |
      (bytes[offset + 40 + 3] << 24);
    const w11 =
      bytes[offset + 44] |
      (bytes[offset + 44 + 1] << 8) |
      (bytes[offset + 44 + 2] << 16) |
      (bytes[offset + 44 + 3] << 24);
    const w12 =
      bytes[offset + 48] |
      (bytes[offset + 48 + 1] << 8) |
      (bytes[offset + 48 + 2] << 16) |
      (bytes[offset + 48 + 3] << 24);
    const w13 =
      bytes[offset + 52] |
      (bytes[offset + 52 + 1] << 8) |
      (bytes[offset + 52 + 2] << 16) |
      (bytes[offset + 52 + 3] << 24);
    const w14 =
      bytes[offset + 56] |
      (bytes[offset + 56 + 1] << 8) |
      (bytes[offset + 56 + 2] << 16) |
      (bytes[offset + 56 + 3] << 24);
    const w15 =
      bytes[offset + 60] |
      (bytes[offset + 60 + 1] << 8) |
      (bytes[offset + 60 + 2] << 16) |
      (bytes[offset + 60 + 3] << 24);
    const state = this._state;
    let a = state[0];
    let b = state[1];
    let c = state[2];
    let d = state[3];
    let t: number;
    t = (a + ((b & c) | (~b & d)) + w0 + -680876936) | 0;
    a = (b + ((t << 7) | (t >>> 25))) | 0;
    t = (d + ((a & b) | (~a & c)) + w1 + -389564586) | 0;
    d = (a + ((t << 12) | (t >>> 20))) | 0;
    t = (c + ((d & a) | (~d & b)) + w2 + 606105819) | 0;
    c = (d + ((t << 17) | (t >>> 15))) | 0;
    t = (b + ((c & d) | (~c & a)) + w3 + -1044525330) | 0;
    b = (c + ((t << 22) | (t >>> 10))) | 0;
    t = (a + ((b & c) | (~b & d)) + w4 + -176418897) | 0;
    a = (b + ((t << 7) | (t >>> 25))) | 0;
    t = (d + ((a & b) | (~a & c)) + w5 + 1200080426) | 0;
    d = (a + ((t << 12) | (t >>> 20))) | 0;
    t = (c + ((d & a) | (~d & b)) + w6 + -1473231341) | 0;
    c = (d + ((t << 17) | (t >>> 15))) | 0;
    t = (b + ((c & d) | (~c & a)) + w7 + -45705983) | 0;
    b = (c + ((t << 22) | (t >>> 10))) | 0;
    t = (a + ((b & c) | (~b & d)) + w8 + 1770035416) | 0;
    a = (b + ((t << 7) | (t >>> 25))) | 0;
    t = (d + ((a & b) | (~a & c)) + w9 + -1958414417) | 0;
    d = (a + ((t << 12) | (t >>> 20))) | 0;
    t = (c + ((d & a) | (~d & b)) + w10 + -42063) | 0;
    c = (d + ((t << 17) | (t >>> 15))) | 0;
    t = (b + ((c & d) | (~c & a)) + w11 + -1990404162) | 0;
    b = (c + ((t << 22) | (t >>> 10))) | 0;
    t = (a + ((b & c) | (~b & d)) + w12 + 1804603682) | 0;
    a = (b + ((t << 7) | (t >>> 25))) | 0;
    t = (d + ((a & b) | (~a & c)) + w13 + -40341101) | 0;
    d = (a + ((t << 12) | (t >>> 20))) | 0;
    t = (c + ((d & a) | (~d & b)) + w14 + -1502002290) | 0;
    c = (d + ((t << 17) | (t >>> 15))) | 0;
    t = (b + ((c & d) | (~c & a)) + w15 + 1236535329) | 0;
    b = (c + ((t << 22) | (t >>> 10))) | 0;
    t = (a + ((d & b) | (~d & c)) + w1 + -165796510) | 0;
    a = (b + ((t << 5) | (t >>> 27))) | 0;
    t = (d + ((c & a) | (~c & b)) + w6 + -1069501632) | 0;
    d = (a + ((t << 9) | (t >>> 23))) | 0;
    t = (c + ((b & d) | (~b & a)) + w11 + 643717713) | 0;
    c = (d + ((t << 14) | (t >>> 18))) | 0;
    t = (b + ((a & c) | (~a & d)) + w0 + -373897302) | 0;
    b = (c + ((t << 20) | (t >>> 12))) | 0;
    t = (a + ((d & b) | (~d & c)) + w5 + -701558691) | 0;
    a = (b + ((t << 5) | (t >>> 27))) | 0;
    t = (d + ((c & a) | (~c & b)) + w10 + 38016083) | 0;
    d = (a + ((t << 9) | (t >>> 23))) | 0;
    t = (c + ((b & d) | (~b & a)) + w15 + -660478335) | 0;
    c = (d + ((t << 14) | (t >>> 18))) | 0;
    t = (b + ((a & c) | (~a & d)) + w4 + -405537848) | 0;
    b = (c + ((t << 20) | (t >>> 12))) | 0;
    t = (a + ((d & b) | (~d & c)) + w9 + 568446438) | 0;
    a = (b + ((t << 5) | (t >>> 27))) | 0;
    t = (d + ((c & a) | (~c & b)) + w14 + -1019803690) | 0;
    d = (a + ((t << 9) | (t >>> 23))) | 0;
    t = (c + ((b & d) | (~b & a)) + w3 + -187363961) | 0;
    c = (d + ((t << 14) | (t >>> 18))) | 0;
    t = (b + ((a & c) | (~a & d)) + w8 + 1163531501) | 0;
    b = (c + ((t << 20) | (t >>> 12))) | 0;
    t = (a + ((d & b) | (~d & c)) + w13 + -1444681467) | 0;
    a = (b + ((t << 5) | (t >>> 27))) | 0;
    t = (d + ((c & a) | (~c & b)) + w2 + -51403784) | 0;
    d = (a + ((t << 9) | (t >>> 23))) | 0;
    t = (c + ((b & d) | (~b & a)) + w7 + 1735328473) | 0;
    c = (d + ((t << 14) | (t >>> 18))) | 0;
    t = (b + ((a & c) | (~a & d)) + w12 + -1926607734) | 0;
    b = (c + ((t << 20) | (t >>> 12))) | 0;
    t = (a + (b ^ c ^ d) + w5 + -378558) | 0;
    a = (b + ((t << 4) | (t >>> 28))) | 0;
    t = (d + (a ^ b ^ c) + w8 + -2022574463) | 0;
    d = (a + ((t << 11) | (t >>> 21))) | 0;
    t = (c + (d ^ a ^ b) + w11 + 1839030562) | 0;
    c = (d + ((t << 16) | (t >>> 16))) | 0;
    t = (b + (c ^ d ^ a) + w14 + -35309556) | 0;
    b = (c + ((t << 23) | (t >>> 9))) | 0;
    t = (a + (b ^ c ^ d) + w1 + -1530992060) | 0;
    a = (b + ((t << 4) | (t >>> 28))) | 0;
    t = (d + (a ^ b ^ c) + w4 + 1272893353) | 0;
    d = (a + ((t << 11) | (t >>> 21))) | 0;
    t = (c + (d ^ a ^ b) + w7 + -155497632) | 0;
    c = (d + ((t << 16) | (t >>> 16))) | 0;
    t = (b + (c ^ d ^ a) + w10 + -1094730640) | 0;
    b = (c + ((t << 23) | (t >>> 9))) | 0;
    t = (a + (b ^ c ^ d) + w13 + 681279174) | 0;
    a = (b + ((t << 4) | (t >>> 28))) | 0;
    t = (d + (a ^ b ^ c) + w0 + -358537222) | 0;
    d = (a + ((t << 11) | (t >>> 21))) | 0;
    t = (c + (d ^ a ^ b) + w3 + -722521979) | 0;
    c = (d + ((t << 16) | (t >>> 16))) | 0;
    t = (b + (c ^ d ^ a) + w6 + 76029189) | 0;
    b = (c + ((t << 23) | (t >>> 9))) | 0;
    t = (a + (b ^ c ^ d) + w9 + -640364487) | 0;
    a = (b + ((t << 4) | (t >>> 28))) | 0;
    t = (d + (a ^ b ^ c) + w12 + -421815835) | 0;
    d = (a + ((t << 11) | (t >>> 21))) | 0;
    t = (c + (d ^ a ^ b) + w15 + 530742520) | 0;
    c = (d + ((t << 16) | (t >>> 16))) | 0;
    t = (b + (c ^ d ^ a) + w2 + -995338651) | 0;
    b = (c + ((t << 23) | (t >>> 9))) | 0;
    t = (a + (c ^ (b | ~d)) + w0 + -198630844) | 0;
    a = (b + ((t << 6) | (t >>> 26))) | 0;
    t = (d + (b ^ (a | ~c)) + w7 + 1126891415) | 0;
    d = (a + ((t << 10) | (t >>> 22))) | 0;
    t = (c + (a ^ (d | ~b)) + w14 + -1416354905) | 0;
    c = (d + ((t << 15) | (t >>> 17))) | 0;
    t = (b + (d ^ (c | ~a)) + w5 + -57434055) | 0;
    b = (c + ((t << 21) | (t >>> 11))) | 0;
    t = (a + (c ^ (b | ~d)) + w12 + 1700485571) | 0;
    a = (b + ((t << 6) | (t >>> 26))) | 0;
    t = (d + (b ^ (a | ~c)) + w3 + -1894986606) | 0;
    d = (a + ((t << 10) | (t >>> 22))) | 0;
    t = (c + (a ^ (d | ~b)) + w10 + -1051523) | 0;
    c = (d + ((t << 15) | (t >>> 17))) | 0;
    t = (b + (d ^ (c | ~a)) + w1 + -2054922799) | 0;
    b = (c + ((t << 21) | (t >>> 11))) | 0;
    t = (a + (c ^ (b | ~d)) + w8 + 1873313359) | 0;
    a = (b + ((t << 6) | (t >>> 26))) | 0;
    t = (d + (b ^ (a | ~c)) + w15 + -30611744) | 0;
    d = (a + ((t << 10) | (t >>> 22))) | 0;
    t = (c + (a ^ (d | ~b)) + w6 + -1560198380) | 0;
    c = (d + ((t << 15) | (t >>> 17))) | 0;
    t = (b + (d ^ (c | ~a)) + w13 + 1309151649) | 0;
    b = (c + ((t << 21) | (t >>> 11))) | 0;
    t = (a + (c ^ (b | ~d)) + w4 + -145523070) | 0;
    a = (b + ((t << 6) | (t >>> 26))) | 0;
    t = (d + (b ^ (a | ~c)) + w11 + -1120210379) | 0;
    d = (a + ((t << 10) | (t >>> 22))) | 0;
    t = (c + (a ^ (d | ~b)) + w2 + 718787259) | 0;
    c = (d + ((t << 15) | (t >>> 17))) | 0;
    t = (b + (d ^ (c | ~a)) + w9 + -343485551) | 0;
    b = (c + ((t << 21) | (t >>> 11))) | 0;
    state[0] = (state[0] + a) | 0;
    state[1] = (state[1] + b) | 0;
    state[2] = (state[2] + c) | 0;
    state[3] = (state[3] + d) | 0;
  }

  private _state = new Int32Array([
    0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476
  ]);
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
 * The bytes of a digest written in hex.
 */
export function fromHex(hex: string): Uint8Array {
  const digest = new Uint8Array(hex.length / 2);
  for (let i = 0; i < digest.length; i++) {
    digest[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  }
  return digest;
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
