/**
 * The S3 service through @aws-sdk/client-s3. This is the only module that
 * imports the SDK, and only the commands used: `./loader.ts` loads it on first
 * use with a dynamic import so that JupyterLab's start-up does not pay for it.
 */
import {
  GetBucketVersioningCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client
} from '@aws-sdk/client-s3';

import { BookshelfError, throwIfAborted } from '../errors';
import { toBookshelfError } from './diagnosis';
import {
  IGetObjectOptions,
  IObjectData,
  IObjectHead,
  IObjectStore,
  IPutObjectOptions,
  IPutObjectResult
} from './types';
import type { ICredentials } from './credentials';

/**
 * How to reach the service.
 */
export interface IObjectStoreConfig {
  endpointUrl: string;
  region: string;
  forcePathStyle: boolean;
  /** Resolves to null for unsigned (anonymous) requests. */
  credentials: () => Promise<ICredentials | null>;
}

/**
 * Create an object store for the configuration.
 */
export function createObjectStore(config: IObjectStoreConfig): IObjectStore {
  return new SdkObjectStore(config);
}

class SdkObjectStore implements IObjectStore {
  constructor(private readonly _config: IObjectStoreConfig) {}

  async headObject(
    bucket: string,
    key: string,
    versionId?: string
  ): Promise<IObjectHead | null> {
    try {
      const client = await this._client();
      const response = await client.send(
        new HeadObjectCommand({
          Bucket: bucket,
          Key: key,
          VersionId: versionId
        })
      );
      return {
        contentLength: response.ContentLength,
        contentType: response.ContentType,
        etag: response.ETag,
        versionId: response.VersionId,
        lastModified: response.LastModified
      };
    } catch (error) {
      const status = (error as any)?.$metadata?.httpStatusCode;
      if (status === 404) {
        return null;
      }
      throw this._error(error, { bucket, key, versionId });
    }
  }

  async getObject(
    bucket: string,
    key: string,
    options: IGetObjectOptions = {}
  ): Promise<IObjectData> {
    const { versionId, signal, onProgress, maxBytes } = options;
    throwIfAborted(signal);
    let response;
    try {
      const client = await this._client();
      response = await client.send(
        new GetObjectCommand({
          Bucket: bucket,
          Key: key,
          VersionId: versionId
        }),
        { abortSignal: signal as any }
      );
    } catch (error) {
      throw this._error(error, { bucket, key, versionId }, signal);
    }
    const head: IObjectHead = {
      contentLength: response.ContentLength,
      contentType: response.ContentType,
      etag: response.ETag,
      versionId: response.VersionId,
      lastModified: response.LastModified
    };
    const total = response.ContentLength;
    const stream = (response.Body as any)?.transformToWebStream?.() as
      ReadableStream<Uint8Array> | undefined;
    if (maxBytes !== undefined && total !== undefined && total > maxBytes) {
      await stream?.cancel().catch(() => undefined);
      throw new BookshelfError(
        'TooLarge',
        `The object is ${total} bytes, more than the limit of ${maxBytes} bytes.`,
        { size: total, limit: maxBytes }
      );
    }
    if (!stream) {
      throw new BookshelfError('ServerError', 'The object had no body.');
    }
    const bytes = await readStream(stream, {
      total,
      maxBytes,
      signal,
      onProgress
    });
    return { head, bytes };
  }

  async putObject(
    bucket: string,
    key: string,
    body: Uint8Array | string,
    options: IPutObjectOptions = {}
  ): Promise<IPutObjectResult> {
    throwIfAborted(options.signal);
    try {
      const client = await this._client();
      const total =
        typeof body === 'string'
          ? new TextEncoder().encode(body).byteLength
          : body.byteLength;
      options.onProgress?.(0, total);
      const response = await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentType: options.contentType,
          IfMatch: options.ifMatch,
          IfNoneMatch: options.ifNoneMatch
        }),
        { abortSignal: options.signal as any }
      );
      options.onProgress?.(total, total);
      return { etag: response.ETag, versionId: response.VersionId };
    } catch (error) {
      throw this._error(error, { bucket, key }, options.signal);
    }
  }

  async getBucketVersioning(
    bucket: string
  ): Promise<'Enabled' | 'Suspended' | 'Off'> {
    try {
      const client = await this._client();
      const response = await client.send(
        new GetBucketVersioningCommand({ Bucket: bucket })
      );
      return response.Status === 'Enabled' || response.Status === 'Suspended'
        ? response.Status
        : 'Off';
    } catch (error) {
      throw this._error(error, { bucket });
    }
  }

  async headBucket(bucket: string): Promise<void> {
    try {
      const client = await this._client();
      await client.send(new HeadBucketCommand({ Bucket: bucket }));
    } catch (error) {
      const status = (error as any)?.$metadata?.httpStatusCode;
      if (status === 404) {
        throw new BookshelfError(
          'NoSuchBucket',
          `The bucket '${bucket}' does not exist.`,
          { bucket }
        );
      }
      throw this._error(error, { bucket });
    }
  }

  private async _client(): Promise<S3Client> {
    const credentials = await this._config.credentials();
    // A client per call is cheap, and picks up refreshed credentials.
    return new S3Client({
      region: this._config.region || 'us-east-1',
      endpoint: this._config.endpointUrl || undefined,
      forcePathStyle: this._config.forcePathStyle,
      // Checksums by default break Blob bodies in the browser and some
      // S3-compatible servers reject their headers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 4,
      credentials: credentials
        ? {
            accessKeyId: credentials.accessKeyId,
            secretAccessKey: credentials.secretAccessKey,
            sessionToken: credentials.sessionToken || undefined,
            expiration: credentials.expiration
          }
        : { accessKeyId: '', secretAccessKey: '' },
      ...(credentials
        ? {}
        : { signer: { sign: async (request: any) => request } })
    });
  }

  private _error(
    error: unknown,
    context: { bucket?: string; key?: string; versionId?: string },
    signal?: AbortSignal
  ): BookshelfError {
    if (signal?.aborted) {
      return new BookshelfError('Cancelled', 'The transfer was cancelled.');
    }
    return toBookshelfError(error, {
      ...context,
      endpointUrl: this._config.endpointUrl
    });
  }
}

/**
 * Read a stream into one buffer, reporting progress; the buffer is allocated
 * once when the length is known, so a large object is held only once.
 */
async function readStream(
  stream: ReadableStream<Uint8Array>,
  options: {
    total?: number;
    maxBytes?: number;
    signal?: AbortSignal;
    onProgress?: (loaded: number, total?: number) => void;
  }
): Promise<Uint8Array> {
  const { total, maxBytes, signal, onProgress } = options;
  const reader = stream.getReader();
  const onAbort = () => {
    void reader.cancel().catch(() => undefined);
  };
  signal?.addEventListener('abort', onAbort);
  try {
    let buffer = new Uint8Array(total ?? 64 * 1024);
    let loaded = 0;
    onProgress?.(0, total);
    for (;;) {
      const { done, value } = await reader.read();
      throwIfAborted(signal);
      if (done) {
        break;
      }
      if (maxBytes !== undefined && loaded + value.byteLength > maxBytes) {
        throw new BookshelfError(
          'TooLarge',
          `The object is more than the limit of ${maxBytes} bytes.`,
          { limit: maxBytes }
        );
      }
      if (loaded + value.byteLength > buffer.byteLength) {
        if (total !== undefined) {
          throw new BookshelfError(
            'Corrupted',
            `The object sent more bytes than the ${total} it announced.`
          );
        }
        const grown = new Uint8Array(
          Math.max(buffer.byteLength * 2, loaded + value.byteLength)
        );
        grown.set(buffer.subarray(0, loaded));
        buffer = grown;
      }
      buffer.set(value, loaded);
      loaded += value.byteLength;
      onProgress?.(loaded, total);
    }
    if (total !== undefined && loaded !== total) {
      throw new BookshelfError(
        'Corrupted',
        `The download ended after ${loaded} of ${total} bytes.`
      );
    }
    return loaded === buffer.byteLength ? buffer : buffer.slice(0, loaded);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
