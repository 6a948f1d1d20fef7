/**
 * What the core logic needs of an S3 service. The SDK-backed implementation
 * lives in `./client.ts` and is loaded on first use; unit tests use fakes.
 */
import type { ICorsRule } from './cors';

/**
 * Metadata of one object (version).
 */
export interface IObjectHead {
  contentLength?: number;
  contentType?: string;
  etag?: string;
  versionId?: string;
  lastModified?: Date;
}

/**
 * Options of a download.
 */
export interface IGetObjectOptions {
  versionId?: string;
  signal?: AbortSignal;
  /** Called as bytes arrive. */
  onProgress?: (loaded: number, total?: number) => void;
  /** Refuse (TooLarge) before downloading an object larger than this. */
  maxBytes?: number;
  /**
   * Leave the checksum to the result's `verify`: hashing 50 MB takes a few
   * hundred milliseconds, which a caller can spend while it waits for
   * something else (the clone: while the Jupyter server saves the file).
   */
  deferChecksum?: boolean;
  /**
   * When the announced length is larger than this, do not gather the body:
   * the result's `pieces` hand it out as it arrives (with the same length,
   * size limit and connection checks), hashed on the way, and its `verify`
   * checks the checksum once they are all read. A store may ignore it.
   */
  streamAbove?: number;
  /**
   * Gather the body (when it is not streamed) into a Blob, a part at a time
   * as it arrives, instead of into one buffer: the page then holds one part
   * of it, and the Blob goes to a request without another copy. The
   * result's `blob` has it; `bytes` is empty. A store may ignore it.
   */
  gatherAsBlob?: boolean;
}

/**
 * A downloaded object.
 */
export interface IObjectData {
  head: IObjectHead;
  /** The body; empty when it comes as `pieces`. */
  bytes: Uint8Array;
  /** With `streamAbove`: the body as it arrives, to be read once. */
  pieces?: AsyncIterable<Uint8Array>;
  /** With `gatherAsBlob`: the body. */
  blob?: Blob;
  /**
   * With `deferChecksum`: throw `Corrupted` (`detail.reason` 'checksum')
   * when the bytes do not match the object's checksum, if it has one. Given
   * `bytes` (read back from `blob`), those are checked; given the MD5
   * `digest` of the bytes (hashed as they were read from `blob`), that is.
   */
  verify?: (bytes?: Uint8Array, digest?: Uint8Array) => void;
  /**
   * The object's MD5 (hex) when its ETag is one (see `etagMd5`), for a
   * check of the bytes elsewhere (the server's, as it receives them).
   */
  md5?: string;
}

/**
 * Options of an upload.
 */
export interface IPutObjectOptions {
  contentType?: string;
  /** Replace only this version (compare-and-swap on the ETag). */
  ifMatch?: string;
  /** Create only: fail if the object exists. */
  ifNoneMatch?: '*';
  signal?: AbortSignal;
  onProgress?: (loaded: number, total?: number) => void;
  /**
   * The body's MD5 digest, when the caller computed it already (while
   * reading the bytes): hashing 50 MB takes a few hundred milliseconds.
   * Required for a Blob body, which is not read into the page.
   */
  md5?: Uint8Array;
  /**
   * The body's SHA-256 digest (see `sha256Digest`), when the caller started
   * it already, so that it ran alongside other work.
   */
  sha256?: Promise<Uint8Array | null>;
}

/**
 * The result of an upload.
 */
export interface IPutObjectResult {
  etag?: string;
  versionId?: string;
}

/**
 * Options of `uploadPart`.
 */
export interface IUploadPartOptions {
  signal?: AbortSignal;
  /**
   * The part's MD5 digest, when the caller knows it (required for a Blob,
   * which is sent as it is, never read into the page).
   */
  md5?: Uint8Array;
}

/**
 * A part uploaded: its number and the ETag the service gave it.
 */
export interface IUploadedPart {
  partNumber: number;
  etag: string;
  /**
   * The part's server-side encryption, as the service said (with KMS, the
   * ETag is not the part's MD5).
   */
  serverSideEncryption?: string;
}

/**
 * Options of `completeMultipartUpload`: the conditions of the object's
 * creation, as a put's.
 */
export interface ICompleteUploadOptions {
  ifMatch?: string;
  ifNoneMatch?: '*';
  signal?: AbortSignal;
}

/**
 * An S3 service as the core logic sees it. Failures are `BookshelfError`s.
 */
export interface IObjectStore {
  /** The object's metadata, or null when it does not exist. */
  headObject(
    bucket: string,
    key: string,
    versionId?: string
  ): Promise<IObjectHead | null>;
  getObject(
    bucket: string,
    key: string,
    options?: IGetObjectOptions
  ): Promise<IObjectData>;
  putObject(
    bucket: string,
    key: string,
    body: Uint8Array | string | Blob,
    options?: IPutObjectOptions
  ): Promise<IPutObjectResult>;
  /** Start a multipart upload; its upload id. */
  createMultipartUpload(
    bucket: string,
    key: string,
    options?: { contentType?: string; signal?: AbortSignal }
  ): Promise<string>;
  /**
   * Upload part `partNumber` (from 1) of an upload; every part but the
   * last must be at least 5 MiB.
   */
  uploadPart(
    bucket: string,
    key: string,
    uploadId: string,
    partNumber: number,
    body: Uint8Array | Blob,
    options?: IUploadPartOptions
  ): Promise<IUploadedPart>;
  /** Make the parts one object, under the options' conditions. */
  completeMultipartUpload(
    bucket: string,
    key: string,
    uploadId: string,
    parts: IUploadedPart[],
    options?: ICompleteUploadOptions
  ): Promise<IPutObjectResult>;
  /** Drop an upload and its parts. */
  abortMultipartUpload(
    bucket: string,
    key: string,
    uploadId: string
  ): Promise<void>;
  /**
   * Delete an object, or one version of it. Only the conditional-writes
   * probe deletes (what it wrote on a server that should have refused it).
   */
  deleteObject(bucket: string, key: string, versionId?: string): Promise<void>;
  /** 'Enabled', 'Suspended' or 'Off' (never enabled). */
  getBucketVersioning(bucket: string): Promise<'Enabled' | 'Suspended' | 'Off'>;
  /** Resolves when the bucket exists and may be reached. */
  headBucket(bucket: string): Promise<void>;
  /** The bucket's CORS rules; null when it has none. */
  getBucketCors(bucket: string): Promise<ICorsRule[] | null>;
  /** The bucket policy (JSON text); null when it has none. */
  getBucketPolicy(bucket: string): Promise<string | null>;
}
