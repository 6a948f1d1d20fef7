import { createHash, randomBytes } from 'crypto';

import { BookshelfError } from '../errors/errors';
import { checkDownload, contentMd5, etagMd5 } from '../s3/integrity';
import { Md5, md5, toBase64, toHex } from '../s3/md5';

/** An error's detail, whatever its code. */
const detailOf = (error: { detail: unknown }) =>
  error.detail as { [key: string]: unknown };

const nodeMd5 = (bytes: Uint8Array) =>
  createHash('md5').update(bytes).digest('hex');
const utf8 = (text: string) => new TextEncoder().encode(text);

describe('md5', () => {
  it.each([
    ['', 'd41d8cd98f00b204e9800998ecf8427e'],
    ['a', '0cc175b9c0f1b6a831c399e269772661'],
    ['abc', '900150983cd24fb0d6963f7d28e17f72'],
    ['message digest', 'f96b697d7cb7938d525a2f31aaf161d0'],
    ['abcdefghijklmnopqrstuvwxyz', 'c3fcd3d76192e4007dfb496cca67e13b'],
    [
      'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
      'd174ab98d277d9f5a5611c2c9f419d9f'
    ],
    [
      '12345678901234567890123456789012345678901234567890123456789012345678901234567890',
      '57edf4a22be3c955ac49da2e2107b67a'
    ]
  ])('gives the RFC 1321 digest of %j', (text, digest) => {
    expect(toHex(md5(utf8(text)))).toBe(digest);
  });

  it('agrees with Node for every length around the block boundaries', () => {
    const bytes = randomBytes(300);
    for (let length = 0; length <= 300; length++) {
      const piece = bytes.subarray(0, length);
      expect(toHex(md5(piece))).toBe(nodeMd5(piece));
    }
  });

  it('agrees with Node on a megabyte fed in uneven pieces', () => {
    const bytes = randomBytes(1024 * 1024 + 17);
    const digest = new Md5();
    let offset = 0;
    for (const size of [1, 63, 64, 65, 1000, 4096, 12345]) {
      digest.update(bytes.subarray(offset, offset + size));
      offset += size;
    }
    digest.update(bytes.subarray(offset));
    expect(toHex(digest.digest())).toBe(nodeMd5(bytes));
  });

  it('refuses more bytes after the digest', () => {
    const digest = new Md5();
    digest.digest();
    expect(() => digest.update(utf8('late'))).toThrow();
  });

  it('writes base64 as Content-MD5 wants it', () => {
    const bytes = utf8('{"cells": []}');
    expect(toBase64(md5(bytes))).toBe(
      createHash('md5').update(bytes).digest('base64')
    );
    expect(contentMd5(bytes)).toBe(
      createHash('md5').update(bytes).digest('base64')
    );
  });
});

describe('etagMd5', () => {
  const hex = '0123456789abcdef0123456789abcdef';
  it.each<[string, object, string | null]>([
    ['a quoted MD5', { etag: `"${hex}"` }, hex],
    ['an unquoted MD5', { etag: hex }, hex],
    ['an uppercase MD5', { etag: `"${hex.toUpperCase()}"` }, hex],
    [
      'SSE-S3 (AES256)',
      { etag: `"${hex}"`, serverSideEncryption: 'AES256' },
      hex
    ],
    ['a multipart ETag', { etag: `"${hex}-4"` }, null],
    ['no ETag (not exposed)', {}, null],
    ['SSE-KMS', { etag: `"${hex}"`, serverSideEncryption: 'aws:kms' }, null],
    [
      'SSE-KMS (DSSE)',
      { etag: `"${hex}"`, serverSideEncryption: 'aws:kms:dsse' },
      null
    ],
    ['SSE-C', { etag: `"${hex}"`, sseCustomerAlgorithm: 'AES256' }, null],
    ['a short ETag', { etag: '"abc"' }, null]
  ])('%s', (_, head, expected) => {
    expect(etagMd5(head)).toBe(expected);
  });
});

describe('checkDownload', () => {
  const bytes = utf8('{"cells": [], "metadata": {}}');
  it('accepts bytes that match the ETag', () => {
    expect(() =>
      checkDownload(
        bytes,
        { etag: `"${nodeMd5(bytes)}"` },
        { bucket: 'b', key: 'k' }
      )
    ).not.toThrow();
  });

  it('throws Corrupted for bytes that do not', () => {
    const damaged = bytes.slice();
    damaged[3] ^= 1;
    let error: unknown;
    try {
      checkDownload(
        damaged,
        { etag: `"${nodeMd5(bytes)}"` },
        { bucket: 'b', key: 'k' }
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BookshelfError);
    expect((error as BookshelfError).code).toBe('Corrupted');
    expect(detailOf(error as BookshelfError).reason).toBe('checksum');
    expect((error as BookshelfError).message).toContain('s3://b/k');
  });

  it('cannot check without an MD5 ETag', () => {
    expect(() =>
      checkDownload(bytes, { etag: '"x-2"' }, { bucket: 'b', key: 'k' })
    ).not.toThrow();
  });
});
