/**
 * Uploading a large file to S3 in parts while it is read: a multipart
 * upload whose parts go up a few at a time, so that the page holds a few
 * parts rather than the file (and a file above S3's 5 GB limit of one put
 * can be published at all). No UI here.
 *
 * Hand-written over the SDK's `Upload` (`@aws-sdk/lib-storage`) because
 * publishing needs what it does not give: every part with its Content-MD5,
 * the object's conditions on the completion (the overwrite policy), a
 * check of the whole before the completion, and the upload aborted on any
 * failure or Cancel so that no parts are left behind.
 */

import { BookshelfError, cancelled } from '../errors/errors';
import { md5, Md5, toHex } from '../s3/md5';
import type {
  IObjectStore,
  IPutObjectResult,
  IUploadedPart
} from '../s3/types';
import publishRules from '../rules/publish.json';

/**
 * Above this size, a notebook is published in parts.
 */
export const MULTIPART_ABOVE = publishRules.multipart.above;

/**
 * The size of each part but the last (S3 asks at least 5 MiB, and at most
 * 10,000 parts: 16 MiB parts reach 160 GB).
 */
export const PART_SIZE = publishRules.multipart.partSize;

/**
 * How many parts are sent at once.
 */
export const PARTS_AT_ONCE = publishRules.multipart.partsAtOnce;

/**
 * What the upload has sent, before it is completed.
 */
export interface IUploadedWhole {
  /** Bytes in all. */
  size: number;
  /** The ETag S3 will give the object: see `multipartEtag`. */
  etag: string;
}

/**
 * Options of `uploadInParts`.
 */
export interface IUploadInPartsOptions {
  partSize?: number;
  partsAtOnce?: number;
  signal?: AbortSignal;
  /** The bytes sent so far, and the size when it is known. */
  onProgress?: (loaded: number, total?: number) => void;
  total?: number;
  /**
   * Make the parts one object (with the conditions the caller needs, and
   * its retries). Throwing here aborts the upload: nothing is published.
   */
  complete: (
    uploadId: string,
    parts: IUploadedPart[],
    whole: IUploadedWhole
  ) => Promise<IPutObjectResult>;
}

/**
 * Upload `pieces` (a file as it is read) to `bucket`/`key` in parts of the
 * multipart upload `uploadId` (started by the caller, who may do something
 * else when it cannot be), and complete it with `options.complete`. On any
 * failure, and on Cancel, the upload is aborted (its parts deleted) and
 * the error thrown.
 */
export async function uploadInParts(
  store: IObjectStore,
  bucket: string,
  key: string,
  uploadId: string,
  pieces: AsyncIterable<Uint8Array>,
  options: IUploadInPartsOptions
): Promise<IPutObjectResult> {
  const partSize = options.partSize ?? PART_SIZE;
  const partsAtOnce = Math.max(1, options.partsAtOnce ?? PARTS_AT_ONCE);
  const { signal } = options;
  // One failed part stops the others.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort);
  if (signal?.aborted) {
    stop.abort();
  }

  const uploaded: IUploadedPart[] = [];
  const digests: Uint8Array[] = [];
  const running = new Set<Promise<void>>();
  let failure: unknown = null;
  let sent = 0;
  let size = 0;
  let completed = false;

  const send = async (bytes: Uint8Array) => {
    const partNumber = digests.length + 1;
    // Hashed here, once: the part's Content-MD5 and the object's ETag.
    const digest = md5(bytes);
    digests.push(digest);
    while (running.size >= partsAtOnce) {
      await Promise.race(running);
    }
    if (failure !== null) {
      return;
    }
    const upload = store
      .uploadPart(bucket, key, uploadId, partNumber, bytes, {
        md5: digest,
        signal: stop.signal
      })
      .then(
        part => {
          uploaded.push(part);
          sent += bytes.length;
          options.onProgress?.(sent, options.total);
        },
        error => {
          if (failure === null) {
            failure = error;
          }
          stop.abort();
        }
      )
      .finally(() => running.delete(upload));
    running.add(upload);
  };

  try {
    const part = new PartBuffer(partSize);
    for await (const piece of pieces) {
      let offset = 0;
      while (offset < piece.length) {
        offset += part.take(piece, offset);
        if (part.full) {
          await send(part.release());
        }
        if (failure !== null || stop.signal.aborted) {
          break;
        }
      }
      size += piece.length;
      if (failure !== null || stop.signal.aborted) {
        break;
      }
    }
    if (failure === null && !stop.signal.aborted && (part.length || !size)) {
      await send(part.release());
    }
    await Promise.all(running);
    if (signal?.aborted) {
      throw cancelled();
    }
    if (failure !== null) {
      throw failure;
    }
    uploaded.sort((a, b) => a.partNumber - b.partNumber);
    const result = await options.complete(uploadId, uploaded, {
      size,
      etag: multipartEtag(digests)
    });
    completed = true;
    return result;
  } catch (error) {
    stop.abort();
    await Promise.all(running);
    throw signal?.aborted && !(error instanceof BookshelfError)
      ? cancelled({ cause: error })
      : error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!completed) {
      // Best effort: an upload that cannot be aborted now (the network is
      // gone) is removed by the bucket's lifecycle rule, if it has one.
      await store
        .abortMultipartUpload(bucket, key, uploadId)
        .catch(() => undefined);
    }
  }
}

/**
 * The ETag S3 gives an object uploaded in parts: the MD5 of the parts'
 * MD5 digests, a dash, and how many parts there were (quoted).
 */
export function multipartEtag(partDigests: Uint8Array[]): string {
  const hash = new Md5();
  for (const digest of partDigests) {
    hash.update(digest);
  }
  return `"${toHex(hash.digest())}-${partDigests.length}"`;
}

/**
 * One part being filled from the pieces of a file, allocated once.
 */
class PartBuffer {
  constructor(private readonly _size: number) {}

  get length(): number {
    return this._length;
  }

  get full(): boolean {
    return this._length === this._size;
  }

  /** Copy what fits from `piece` at `offset`; how many bytes it took. */
  take(piece: Uint8Array, offset: number): number {
    if (!this._bytes) {
      this._bytes = new Uint8Array(this._size);
    }
    const count = Math.min(this._size - this._length, piece.length - offset);
    this._bytes.set(piece.subarray(offset, offset + count), this._length);
    this._length += count;
    return count;
  }

  /** The part's bytes; the buffer starts a new part. */
  release(): Uint8Array {
    const bytes = (this._bytes ?? new Uint8Array(0)).subarray(0, this._length);
    this._bytes = null;
    this._length = 0;
    return bytes;
  }

  private _bytes: Uint8Array | null = null;
  private _length = 0;
}
