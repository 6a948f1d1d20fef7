/**
 * Checks that a transfer moved the object's bytes unchanged.
 *
 * A download is checked against the length the server announced and,
 * when the object's ETag is the MD5 of its bytes, against that MD5: that is
 * S3's ETag for an object written in one part and not encrypted with KMS or
 * a customer key. An upload carries `Content-MD5`, so that the server
 * refuses a body damaged on the way instead of storing it.
 */
import { BookshelfError } from '../errors/errors';
import type { IS3Context } from '../errors/kinds';
import { md5, toBase64, toHex } from './md5';

/**
 * What a download's answer says about the object.
 */
export interface IIntegrityHead {
  etag?: string;
  /** `x-amz-server-side-encryption`, when the CORS rule exposes it. */
  serverSideEncryption?: string;
  /** `x-amz-server-side-encryption-customer-algorithm`, likewise. */
  sseCustomerAlgorithm?: string;
}

/**
 * The MD5 hex digest an ETag stands for, or null when the ETag is not one:
 * a multipart ETag (`"…-3"`), a missing one (a CORS rule that does not
 * expose it), or an object encrypted with KMS or a customer key (their
 * ETags are not the MD5 of the bytes).
 */
export function etagMd5(head: IIntegrityHead): string | null {
  const encryption = (head.serverSideEncryption ?? '').toLowerCase();
  if (encryption.startsWith('aws:kms') || head.sseCustomerAlgorithm) {
    return null;
  }
  const match = /^(?:W\/)?"?([0-9a-fA-F]{32})"?$/.exec(head.etag?.trim() ?? '');
  return match ? match[1].toLowerCase() : null;
}

/**
 * Throw `Corrupted` when downloaded bytes (or their `digest`, when given)
 * do not match the object's MD5 (see `etagMd5`); do nothing when there is
 * no MD5 to compare with.
 */
export function checkDownload(
  bytes: Uint8Array,
  head: IIntegrityHead,
  location: IS3Context,
  digest?: Uint8Array
): void {
  const expected = etagMd5(head);
  if (expected === null) {
    return;
  }
  // The digest may have been computed while the bytes arrived.
  const actual = toHex(digest ?? md5(bytes));
  if (actual !== expected) {
    throw new BookshelfError({
      code: 'Corrupted',
      detail: { ...location, reason: 'checksum', expected, actual }
    });
  }
}

/**
 * The `Content-MD5` header value of an upload (of its digest, when known).
 */
export function contentMd5(body: Uint8Array, digest?: Uint8Array): string {
  return toBase64(digest ?? md5(body));
}

/**
 * The SHA-256 digest of bytes from the browser's Web Crypto, which hashes
 * on another thread and ten times faster than the SDK's own JavaScript
 * SHA-256; null where there is none (pages that are not a secure context).
 * The bytes are copied when called, so they may change afterwards.
 */
export async function sha256Digest(
  bytes: Uint8Array
): Promise<Uint8Array | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) {
    return null;
  }
  try {
    return new Uint8Array(await subtle.digest('SHA-256', bytes));
  } catch {
    return null;
  }
}
