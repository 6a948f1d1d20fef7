/**
 * An in-memory S3 service for unit tests: buckets, versioned objects,
 * S3's errors as `BookshelfError`s, progress in steps, and cancellation.
 *
 * Like S3: an ETag is the quoted MD5 hex digest of the bytes (what S3 gives
 * a single-part upload), so equal bytes have equal ETags; a put with
 * `If-None-Match: *` on an existing key, or with an `If-Match` ETag that is
 * not the current one, fails with 412 (`PreconditionFailed`) and changes
 * nothing (with `ignoreConditions`, it stores every put, as s3rver does); a
 * versioned bucket gives each put a new version id.
 */

import { createHash } from 'crypto';
import { BookshelfError } from '../../errors/errors';
import type { IConditionalWrites } from '../../publish/conditional';
import type { ICorsRule } from '../../s3/cors';
import { toBookshelfError } from '../../s3/diagnosis';
import { blobBytes } from './bytes';
import type {
  ICompleteUploadOptions,
  IGetObjectOptions,
  IObjectData,
  IObjectHead,
  IObjectStore,
  IPutObjectOptions,
  IPutObjectResult,
  IUploadedPart,
  IUploadPartOptions
} from '../../s3/types';

type Versioning = 'Enabled' | 'Suspended' | 'Off';

interface IStoredVersion {
  versionId: string;
  bytes: Uint8Array;
  contentType?: string;
  etag: string;
  lastModified: Date;
}

interface IBucket {
  versioning: Versioning;
  cors: ICorsRule[] | null;
  policy: string | null;
  /** Versions of each key, oldest first. */
  objects: Map<string, IStoredVersion[]>;
}

/**
 * Options of the fake store.
 */
export interface IFakeStoreOptions {
  /** Bytes delivered per progress step of a download (default 64 KiB). */
  stepSize?: number;
  /** Milliseconds between steps (0: one macrotask). */
  stepDelay?: number;
  /**
   * Called when a put arrives, before its conditions are checked; may
   * change the store (another writer getting there first) or throw.
   */
  beforePut?: (
    bucket: string,
    key: string,
    options: IPutObjectOptions
  ) => void | Promise<void>;
  /**
   * What a call meets before the store answers, as the SDK would throw it
   * (e.g. `new TypeError('Failed to fetch')` for a bucket whose CORS rules
   * refuse the page, or an error named AccessDenied with status 403); it is
   * turned into a BookshelfError as the SDK-backed store does. Return
   * undefined to let the call through.
   */
  failure?: (method: string, bucket: string, key?: string) => unknown;
  /**
   * How many downloads, from the first, arrive damaged (one byte changed).
   * The checksum finds it as the SDK-backed store's does: in the result's
   * `verify` with `deferChecksum`, else as the download's `Corrupted`.
   */
  damagedDownloads?: number;
  /**
   * Accept `If-None-Match` and `If-Match` and ignore them, storing every
   * put, as s3rver and some other S3-compatible servers do.
   */
  ignoreConditions?: boolean;
  /**
   * How many streamed downloads, from the first, are cut off half-way (the
   * connection lost, or the server stopped): their pieces end with the
   * store's `Interrupted`, after the bytes that came.
   */
  cutStreams?: number;
  /**
   * Ignore `If-Match` on the completion of a multipart upload (as moto
   * 5.2 does) while honouring it on a put.
   */
  ignoreCompleteIfMatch?: boolean;
  /**
   * What an upload of a part meets, as the SDK would throw it (see
   * `failure`); `attempt` counts the tries of that part from 1.
   */
  partFailure?: (partNumber: number, attempt: number) => unknown;
  /** Called when a part arrives, before it is stored (to pause it). */
  beforePart?: (partNumber: number) => void | Promise<void>;
  /**
   * Store a put whose body does not match its Content-MD5, as s3rver does
   * (S3, moto and MinIO refuse it: 400 BadDigest).
   */
  ignoreContentMd5?: boolean;
}

/**
 * S3's smallest part but the last.
 */
export const MIN_PART_SIZE = 5 * 1024 * 1024;

interface IOpenUpload {
  bucket: string;
  key: string;
  contentType?: string;
  parts: Map<number, { bytes: Uint8Array; etag: string }>;
}

/**
 * One put as it arrived, with its conditions.
 */
export interface IFakePut {
  bucket: string;
  key: string;
  contentType?: string;
  ifMatch?: string;
  ifNoneMatch?: '*';
}

export class FakeObjectStore implements IObjectStore {
  constructor(readonly options: IFakeStoreOptions = {}) {}

  private _cutStreams = 0;

  /** Every call, as `method bucket/key`. */
  readonly calls: string[] = [];

  /** Every put, with its conditions, whether it succeeded or not. */
  readonly puts: IFakePut[] = [];

  private _downloads = 0;

  addBucket(bucket: string, versioning: Versioning = 'Off'): void {
    this._buckets.set(bucket, {
      versioning,
      cors: null,
      policy: null,
      objects: new Map()
    });
  }

  /** Set a bucket's CORS rules (null: none). */
  setCors(bucket: string, rules: ICorsRule[] | null): void {
    this._bucket(bucket).cors = rules;
  }

  /** Set a bucket's policy (JSON text; null: none). */
  setPolicy(bucket: string, policy: string | null): void {
    this._bucket(bucket).policy = policy;
  }

  /** Store an object (a new version when versioned); returns its version id. */
  addObject(
    bucket: string,
    key: string,
    body: string | Uint8Array,
    contentType?: string
  ): string {
    const stored = this._bucket(bucket);
    const bytes =
      typeof body === 'string' ? new TextEncoder().encode(body) : body;
    const versionId =
      stored.versioning === 'Enabled' ? `v${++this._versionCount}` : 'null';
    const versions = stored.objects.get(key) ?? [];
    const kept =
      stored.versioning === 'Enabled'
        ? versions
        : versions.filter(version => version.versionId !== 'null');
    kept.push({
      versionId,
      bytes: copy(bytes),
      contentType,
      etag: etagOf(bytes),
      lastModified: new Date()
    });
    stored.objects.set(key, kept);
    return versionId;
  }

  async headObject(
    bucket: string,
    key: string,
    versionId?: string
  ): Promise<IObjectHead | null> {
    this.calls.push(`headObject ${bucket}/${key}`);
    await delay(0);
    this._meet('headObject', bucket, key);
    const stored = this._bucket(bucket);
    const versions = stored.objects.get(key);
    if (!versions) {
      return null;
    }
    const version = versionId
      ? versions.find(candidate => candidate.versionId === versionId)
      : versions[versions.length - 1];
    return version ? head(version) : null;
  }

  async getObject(
    bucket: string,
    key: string,
    options: IGetObjectOptions = {}
  ): Promise<IObjectData> {
    this.calls.push(`getObject ${bucket}/${key}`);
    await delay(0);
    this._meet('getObject', bucket, key);
    const version = this._version(bucket, key, options.versionId);
    const total = version.bytes.length;
    if (options.maxBytes !== undefined && total > options.maxBytes) {
      throw new BookshelfError({
        code: 'TooLarge',
        detail: { size: total, limit: options.maxBytes }
      });
    }
    const stepSize = this.options.stepSize ?? 64 * 1024;
    // Like the real store: a larger body comes in pieces, checked after,
    // with its progress as they come.
    const streamed =
      options.streamAbove !== undefined && total > options.streamAbove;
    let loaded = streamed ? total : 0;
    do {
      cancelIfAborted(options.signal);
      loaded = Math.min(total, loaded + stepSize);
      if (!streamed) {
        options.onProgress?.(loaded, total);
      }
      await delay(this.options.stepDelay ?? 0);
    } while (loaded < total);
    cancelIfAborted(options.signal);
    const bytes = copy(version.bytes);
    const asPieces = (data: IObjectData): IObjectData =>
      !streamed && options.gatherAsBlob
        ? { ...data, bytes: new Uint8Array(0), blob: new Blob([data.bytes]) }
        : streamed
          ? {
              ...data,
              bytes: new Uint8Array(0),
              pieces: pieces(
                data.bytes,
                stepSize,
                options,
                this._cutStreams++ < (this.options.cutStreams ?? 0)
              ),
              verify: data.verify ?? (() => undefined)
            }
          : data;
    // As the real store: the MD5 of the ETag, of the bytes S3 holds.
    const md5 = etagOf(version.bytes).slice(1, -1);
    const damaged = (actual = 'damaged') =>
      new BookshelfError({
        code: 'Corrupted',
        detail: {
          reason: 'checksum',
          expected: etagOf(bytes),
          actual,
          bucket,
          key
        }
      });
    // As the real store: the bytes gathered, or those given, or their
    // digest, are checked against it.
    const verify = (given?: Uint8Array, digest?: Uint8Array) => {
      const actual = digest
        ? Buffer.from(digest).toString('hex')
        : etagOf(given ?? bytes).slice(1, -1);
      if (actual !== md5) {
        throw damaged(actual);
      }
    };
    if (this._downloads++ >= (this.options.damagedDownloads ?? 0)) {
      return asPieces(
        options.deferChecksum || streamed
          ? { head: head(version), bytes, verify, md5 }
          : { head: head(version), bytes }
      );
    }
    if (bytes.length > 0) {
      bytes[bytes.length >> 1] ^= 0x20;
    }
    if (!options.deferChecksum && !streamed) {
      throw damaged();
    }
    return asPieces({
      head: head(version),
      bytes,
      verify,
      md5
    });
  }

  async putObject(
    bucket: string,
    key: string,
    given: Uint8Array | string | Blob,
    options: IPutObjectOptions = {}
  ): Promise<IPutObjectResult> {
    const body = given instanceof Blob ? await blobBytes(given) : given;
    this.calls.push(`putObject ${bucket}/${key}`);
    this.puts.push({
      bucket,
      key,
      contentType: options.contentType,
      ifMatch: options.ifMatch,
      ifNoneMatch: options.ifNoneMatch
    });
    await delay(0);
    cancelIfAborted(options.signal);
    this._meet('putObject', bucket, key);
    await this.options.beforePut?.(bucket, key, options);
    cancelIfAborted(options.signal);
    this._checkConditions(bucket, key, options, true);
    if (
      options.md5 &&
      !this.options.ignoreContentMd5 &&
      etagOf(
        typeof body === 'string' ? new TextEncoder().encode(body) : body
      ).slice(1, -1) !== Buffer.from(options.md5).toString('hex')
    ) {
      throw toBookshelfError(
        Object.assign(
          new Error('The Content-MD5 you specified did not match'),
          {
            name: 'BadDigest',
            $metadata: { httpStatusCode: 400 }
          }
        ),
        { bucket, key }
      );
    }
    const versionId = this.addObject(bucket, key, body, options.contentType);
    const stored = this._bucket(bucket).objects.get(key)!;
    const size =
      typeof body === 'string'
        ? new TextEncoder().encode(body).length
        : body.length;
    options.onProgress?.(size, size);
    return {
      etag: stored[stored.length - 1].etag,
      versionId: versionId === 'null' ? undefined : versionId
    };
  }

  async createMultipartUpload(
    bucket: string,
    key: string,
    options: { contentType?: string; signal?: AbortSignal } = {}
  ): Promise<string> {
    this.calls.push(`createMultipartUpload ${bucket}/${key}`);
    await delay(0);
    cancelIfAborted(options.signal);
    this._meet('createMultipartUpload', bucket, key);
    this._bucket(bucket);
    const uploadId = `upload-${++this._uploadCount}`;
    this._uploads.set(uploadId, {
      bucket,
      key,
      contentType: options.contentType,
      parts: new Map()
    });
    return uploadId;
  }

  async uploadPart(
    bucket: string,
    key: string,
    uploadId: string,
    partNumber: number,
    body: Uint8Array | Blob,
    options: IUploadPartOptions = {}
  ): Promise<IUploadedPart> {
    const bytes = body instanceof Blob ? await blobBytes(body) : body;
    this.calls.push(`uploadPart ${bucket}/${key} ${partNumber}`);
    const attempt = (this._partAttempts.get(partNumber) ?? 0) + 1;
    this._partAttempts.set(partNumber, attempt);
    await delay(0);
    cancelIfAborted(options.signal);
    await this.options.beforePart?.(partNumber);
    cancelIfAborted(options.signal);
    const failure = this.options.partFailure?.(partNumber, attempt);
    if (failure !== undefined) {
      throw toBookshelfError(failure, { bucket, key });
    }
    const upload = this._uploads.get(uploadId);
    if (!upload) {
      throw new BookshelfError({ code: 'NoSuchKey', detail: { bucket, key } });
    }
    const etag = etagOf(bytes);
    upload.parts.set(partNumber, { bytes: copy(bytes), etag });
    return { partNumber, etag };
  }

  async completeMultipartUpload(
    bucket: string,
    key: string,
    uploadId: string,
    parts: IUploadedPart[],
    options: ICompleteUploadOptions = {}
  ): Promise<IPutObjectResult> {
    this.calls.push(`completeMultipartUpload ${bucket}/${key}`);
    await delay(0);
    cancelIfAborted(options.signal);
    this._meet('completeMultipartUpload', bucket, key);
    const upload = this._uploads.get(uploadId);
    if (!upload) {
      throw new BookshelfError({ code: 'NoSuchKey', detail: { bucket, key } });
    }
    const chosen = parts.map(part => {
      const stored = upload.parts.get(part.partNumber);
      if (!stored || stored.etag !== part.etag) {
        throw new BookshelfError({
          code: 'InvalidRequest',
          detail: { message: `InvalidPart ${part.partNumber}`, bucket }
        });
      }
      return stored;
    });
    if (
      chosen.some(
        (part, index) =>
          index < chosen.length - 1 && part.bytes.length < MIN_PART_SIZE
      )
    ) {
      throw new BookshelfError({
        code: 'InvalidRequest',
        detail: { message: 'EntityTooSmall', bucket }
      });
    }
    this._checkConditions(
      bucket,
      key,
      options,
      !this.options.ignoreCompleteIfMatch
    );
    const whole = new Uint8Array(
      chosen.reduce((sum, part) => sum + part.bytes.length, 0)
    );
    let offset = 0;
    for (const part of chosen) {
      whole.set(part.bytes, offset);
      offset += part.bytes.length;
    }
    const versionId = this.addObject(bucket, key, whole, upload.contentType);
    const stored = this._bucket(bucket).objects.get(key)!;
    // S3's ETag of a multipart object: the MD5 of the parts' MD5s, and
    // their number.
    const etag = multipartEtag(chosen.map(part => part.etag));
    stored[stored.length - 1].etag = etag;
    this._uploads.delete(uploadId);
    return {
      etag,
      versionId: versionId === 'null' ? undefined : versionId
    };
  }

  async abortMultipartUpload(
    bucket: string,
    key: string,
    uploadId: string
  ): Promise<void> {
    this.calls.push(`abortMultipartUpload ${bucket}/${key}`);
    await delay(0);
    this._meet('abortMultipartUpload', bucket, key);
    this._uploads.delete(uploadId);
  }

  /** The multipart uploads started and neither completed nor aborted. */
  openUploads(): { bucket: string; key: string; parts: number }[] {
    return [...this._uploads.values()].map(upload => ({
      bucket: upload.bucket,
      key: upload.key,
      parts: upload.parts.size
    }));
  }

  async deleteObject(
    bucket: string,
    key: string,
    versionId?: string
  ): Promise<void> {
    this.calls.push(`deleteObject ${bucket}/${key}`);
    await delay(0);
    this._meet('deleteObject', bucket, key);
    const stored = this._bucket(bucket);
    const versions = stored.objects.get(key) ?? [];
    const kept =
      versionId === undefined
        ? stored.versioning === 'Off'
          ? []
          : versions // a delete marker hides it; the fake keeps no markers
        : versions.filter(version => version.versionId !== versionId);
    if (kept.length) {
      stored.objects.set(key, kept);
    } else {
      stored.objects.delete(key);
    }
  }

  async getBucketVersioning(bucket: string): Promise<Versioning> {
    this.calls.push(`getBucketVersioning ${bucket}`);
    await delay(0);
    this._meet('getBucketVersioning', bucket);
    return this._bucket(bucket).versioning;
  }

  async headBucket(bucket: string): Promise<void> {
    this.calls.push(`headBucket ${bucket}`);
    await delay(0);
    this._meet('headBucket', bucket);
    this._bucket(bucket);
  }

  async getBucketCors(bucket: string): Promise<ICorsRule[] | null> {
    this.calls.push(`getBucketCors ${bucket}`);
    await delay(0);
    this._meet('getBucketCors', bucket);
    return this._bucket(bucket).cors;
  }

  async getBucketPolicy(bucket: string): Promise<string | null> {
    this.calls.push(`getBucketPolicy ${bucket}`);
    await delay(0);
    this._meet('getBucketPolicy', bucket);
    return this._bucket(bucket).policy;
  }

  /**
   * Refuse a write whose conditions do not hold, as S3 does (unless the
   * store ignores them): 412, or 404 for an If-Match on a missing key.
   */
  private _checkConditions(
    bucket: string,
    key: string,
    options: { ifMatch?: string; ifNoneMatch?: '*' },
    honoursIfMatch: boolean
  ): void {
    if (this.options.ignoreConditions) {
      return;
    }
    const versions = this._bucket(bucket).objects.get(key);
    const latest = versions?.[versions.length - 1];
    if (options.ifNoneMatch === '*' && latest) {
      throw new BookshelfError({
        code: 'PreconditionFailed',
        detail: { bucket, key }
      });
    }
    if (!honoursIfMatch || options.ifMatch === undefined) {
      return;
    }
    if (!latest) {
      throw new BookshelfError({ code: 'NoSuchKey', detail: { bucket, key } });
    }
    if (latest.etag !== options.ifMatch) {
      throw new BookshelfError({
        code: 'PreconditionFailed',
        detail: { bucket, key }
      });
    }
  }

  private _meet(method: string, bucket: string, key?: string): void {
    const error = this.options.failure?.(method, bucket, key);
    if (error !== undefined) {
      throw toBookshelfError(error, { bucket, key });
    }
  }

  private _bucket(bucket: string): IBucket {
    const stored = this._buckets.get(bucket);
    if (!stored) {
      throw new BookshelfError({ code: 'NoSuchBucket', detail: { bucket } });
    }
    return stored;
  }

  private _version(
    bucket: string,
    key: string,
    versionId?: string
  ): IStoredVersion {
    const versions = this._bucket(bucket).objects.get(key);
    if (!versions || versions.length === 0) {
      throw new BookshelfError({ code: 'NoSuchKey', detail: { bucket, key } });
    }
    if (versionId === undefined) {
      return versions[versions.length - 1];
    }
    const version = versions.find(
      candidate => candidate.versionId === versionId
    );
    if (!version) {
      throw new BookshelfError({
        code: 'NoSuchVersion',
        detail: { bucket, key, versionId }
      });
    }
    return version;
  }

  private _buckets = new Map<string, IBucket>();
  private _versionCount = 0;
  private _uploads = new Map<string, IOpenUpload>();
  private _uploadCount = 0;
  private _partAttempts = new Map<number, number>();
}

/**
 * The BookshelfError a promise rejects with; fails the test if it resolves.
 */
export async function rejection(
  promise: Promise<unknown>
): Promise<BookshelfError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(BookshelfError);
    return error as BookshelfError;
  }
  throw new Error('The promise resolved');
}

/**
 * A publish's `conditionalWrites` for a service that honours both
 * conditions (the fake store without `ignoreConditions`), without probing.
 */
export async function conditionsHonoured(): Promise<IConditionalWrites> {
  return { ifMatch: true, ifNoneMatch: true };
}

/**
 * S3's ETag of a single-part upload: the quoted MD5 hex digest.
 */
export function etagOf(bytes: Uint8Array): string {
  return `"${createHash('md5').update(bytes).digest('hex')}"`;
}

/**
 * The ETag S3 gives an object uploaded in parts with these ETags.
 */
export function multipartEtag(partEtags: string[]): string {
  const hash = createHash('md5');
  for (const etag of partEtags) {
    hash.update(Buffer.from(etag.replace(/"/g, ''), 'hex'));
  }
  return `"${hash.digest('hex')}-${partEtags.length}"`;
}

function head(version: IStoredVersion): IObjectHead {
  return {
    contentLength: version.bytes.length,
    contentType: version.contentType,
    etag: version.etag,
    versionId: version.versionId === 'null' ? undefined : version.versionId,
    lastModified: version.lastModified
  };
}

function cancelIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) {
    throw new BookshelfError({ code: 'Cancelled', detail: {} });
  }
}

function copy(bytes: Uint8Array): Uint8Array {
  const result = new Uint8Array(bytes.length);
  result.set(bytes);
  return result;
}

function delay(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/**
 * Bytes handed out in pieces, as a download's body arrives.
 */
async function* pieces(
  bytes: Uint8Array,
  size: number,
  options: IGetObjectOptions,
  cut = false
): AsyncGenerator<Uint8Array> {
  for (let start = 0; start < bytes.length; start += size) {
    await delay(0);
    cancelIfAborted(options.signal);
    if (cut && start >= bytes.length / 2) {
      throw new BookshelfError({
        code: 'Interrupted',
        detail: { loaded: start, total: bytes.length }
      });
    }
    const piece = bytes.slice(start, start + size);
    options.onProgress?.(start + piece.length, bytes.length);
    yield piece;
  }
}
