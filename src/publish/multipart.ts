/**
 * Uploading a large file to S3 in parts: a multipart upload whose parts go
 * up a few at a time, each read just before it is sent (from the Jupyter
 * server, as a Blob the page never reads), so that the page holds no part
 * of the file, and a file above S3's 5 GB limit of one put can be
 * published at all. No UI here.
 *
 * Hand-written over the SDK's `Upload` (`@aws-sdk/lib-storage`) because
 * publishing needs what it does not give: parts from a source other than
 * the page's memory, every part with the Content-MD5 the server computed
 * (and its ETag compared with it), the object's conditions on the
 * completion (the overwrite policy), and the upload aborted on any failure
 * or Cancel so that no parts are left behind.
 */

import { PromiseDelegate } from '@lumino/coreutils';

import { BookshelfError, cancelled, unlessAborted } from '../errors/errors';
import { Md5, toHex } from '../s3/md5';
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
 * 10,000 parts: 8 MiB parts reach 80 GB).
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
 * Where the parts come from: a file of `size` bytes, read a part at a time,
 * each part's MD5 digest given by someone who read it (the server, which
 * hashes the parts as it checks the file), so the page need not read the
 * bytes at all.
 */
export interface IPartSource {
  size: number;
  /**
   * The MD5 digest of the part `index` (from 0), once it is known: a part
   * is sent as soon as its digest and its bytes are there.
   */
  md5(index: number): Uint8Array | Promise<Uint8Array>;
  /** The bytes from `start` to `end` (excluded). */
  read(start: number, end: number): Promise<Uint8Array | Blob>;
}

/**
 * Options of `uploadInParts`.
 */
export interface IUploadInPartsOptions {
  partSize?: number;
  partsAtOnce?: number;
  signal?: AbortSignal;
  /** The bytes stored so far, and the size. */
  onProgress?: (loaded: number, total: number) => void;
  /**
   * The error to throw when a part's ETag is not the MD5 it was sent with:
   * the bytes read are not those hashed (the file changed in between).
   */
  changed: () => unknown;
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
 * Upload `source` to `bucket`/`key` in parts of the multipart upload
 * `uploadId` (started by the caller, who may do something else when it
 * cannot be), a few parts at a time, each read just before it is sent,
 * and complete it with `options.complete`. On any failure, and on Cancel,
 * the upload is aborted (its parts deleted) and the error thrown.
 */
export async function uploadInParts(
  store: IObjectStore,
  bucket: string,
  key: string,
  uploadId: string,
  source: IPartSource,
  options: IUploadInPartsOptions
): Promise<IPutObjectResult> {
  const partSize = options.partSize ?? PART_SIZE;
  const partsAtOnce = Math.max(1, options.partsAtOnce ?? PARTS_AT_ONCE);
  const { signal, size } = { signal: options.signal, size: source.size };
  const count = Math.max(1, Math.ceil(size / partSize));
  const digests: Uint8Array[] = [];
  // One failed part stops the others.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort);
  if (signal?.aborted) {
    stop.abort();
  }
  const uploaded: IUploadedPart[] = [];
  let failure: unknown = null;
  let stored = 0;
  let completed = false;

  const sendPart = async (index: number) => {
    const start = index * partSize;
    const end = Math.min(size, start + partSize);
    // The part's bytes are asked for while its digest may still be on its
    // way; a Cancel does not wait for either.
    const [md5, body] = await unlessAborted(
      Promise.all([source.md5(index), source.read(start, end)]),
      stop.signal
    );
    if (stop.signal.aborted) {
      return;
    }
    digests[index] = md5;
    const part = await store.uploadPart(
      bucket,
      key,
      uploadId,
      index + 1,
      body,
      {
        md5,
        signal: stop.signal
      }
    );
    // S3 gives a part the MD5 of the bytes it got (but with KMS keys).
    const bare = part.etag.replace(/"/g, '').toLowerCase();
    if (!/kms/.test(part.serverSideEncryption ?? '') && bare !== toHex(md5)) {
      throw options.changed();
    }
    uploaded.push(part);
    stored += end - start;
    options.onProgress?.(stored, size);
  };

  try {
    let next = 0;
    const worker = async () => {
      while (next < count && failure === null && !stop.signal.aborted) {
        const index = next++;
        try {
          await sendPart(index);
        } catch (error) {
          if (failure === null) {
            failure = error;
          }
          stop.abort();
        }
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(partsAtOnce, count) }, worker)
    );
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
 * Parts' MD5 digests that come one by one (from the server's check as it
 * hashes the file), for `IPartSource.md5`: asking for one not yet known
 * waits for it; once `end` is called, asking for one that never came
 * rejects with the error given.
 */
export class PartDigests {
  /** Part `index`'s digest, now or once it comes. */
  get(index: number): Promise<Uint8Array> {
    const known = this._known.get(index);
    if (known) {
      return Promise.resolve(known);
    }
    if (this._ended) {
      return Promise.reject(this._error);
    }
    let waiting = this._waiting.get(index);
    if (!waiting) {
      waiting = new PromiseDelegate<Uint8Array>();
      // Rejected only for a part that waits, which sees it.
      waiting.promise.catch(() => undefined);
      this._waiting.set(index, waiting);
    }
    return waiting.promise;
  }

  /** Part `index`'s digest has come. */
  set(index: number, digest: Uint8Array): void {
    this._known.set(index, digest);
    this._waiting.get(index)?.resolve(digest);
    this._waiting.delete(index);
  }

  /** No more digests will come: the parts still waiting fail with `error`. */
  end(error: unknown): void {
    this._ended = true;
    this._error = error;
    for (const waiting of this._waiting.values()) {
      waiting.reject(error);
    }
    this._waiting.clear();
  }

  private readonly _known = new Map<number, Uint8Array>();
  private readonly _waiting = new Map<number, PromiseDelegate<Uint8Array>>();
  private _ended = false;
  private _error: unknown = null;
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
