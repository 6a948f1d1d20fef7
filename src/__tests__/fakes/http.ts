/**
 * A fake S3 HTTP endpoint for the SDK's `requestHandler`, for unit tests of
 * the SDK-backed store (`src/s3/client.ts`) without a network.
 *
 * It answers path-style GetObject, HeadObject and PutObject as S3 does: the
 * ETag of an object is the quoted MD5 hex of its bytes, a PutObject whose
 * body does not match its `Content-MD5` gets 400 BadDigest and stores
 * nothing, `If-None-Match: *` and `If-Match` fail with 412, errors are S3's
 * XML. Bodies are web `ReadableStream`s, as the browser's fetch gives them.
 *
 * Faults, in the order queued, one per request: the body cut off after some
 * bytes (the stream errors with the browser's `TypeError: network error`),
 * a body cut short or changed with a matching length, a status answer, or
 * the request failing as a dropped connection does in the browser
 * (`TypeError: Failed to fetch`).
 */

import { createHash } from 'crypto';

import { createObjectStore } from '../../s3/client';
import type { IObjectStore } from '../../s3/types';

/**
 * What to do to one request.
 */
export type HttpFault =
  | { type: 'cut'; after: number }
  | { type: 'truncate'; keep: number }
  | { type: 'corrupt'; offset: number }
  | { type: 'status'; status: number; code: string }
  | { type: 'fail' }
  | { type: 'headers'; headers: { [name: string]: string } }
  // Takes the request and never answers; the handler's `requestTimeout`
  // then fails it as the SDK's FetchHttpHandler does (a TimeoutError).
  | { type: 'silent' };

interface IStored {
  bytes: Uint8Array;
  etag: string;
}

/**
 * One request as the fake saw it.
 */
export interface IHttpCall {
  method: string;
  path: string;
  headers: { [name: string]: string };
  fault?: HttpFault['type'];
  /** The handler options the request came with. */
  requestTimeout?: number;
  /** The fetch's signal: a real fetch stops when it is aborted. */
  abortSignal?: AbortSignal;
}

export class FakeS3Http {
  readonly objects = new Map<string, IStored>();
  readonly calls: IHttpCall[] = [];

  /** Faults for the next requests of a method, in order. */
  queue(method: string, ...faults: HttpFault[]): void {
    const queued = this._faults.get(method) ?? [];
    queued.push(...faults);
    this._faults.set(method, queued);
  }

  /** A fault for every request of a method. */
  always(method: string, fault: HttpFault): void {
    this._always.set(method, fault);
  }

  put(bucket: string, key: string, body: string | Uint8Array): string {
    const bytes =
      typeof body === 'string' ? new TextEncoder().encode(body) : body;
    const etag = `"${md5Hex(bytes)}"`;
    this.objects.set(`${bucket}/${key}`, { bytes: bytes.slice(), etag });
    return etag;
  }

  get(bucket: string, key: string): Uint8Array | undefined {
    return this.objects.get(`${bucket}/${key}`)?.bytes;
  }

  /** The SDK's request handler interface. */
  async handle(
    request: {
      method: string;
      path: string;
      headers: { [name: string]: string };
      body?: unknown;
    },
    options: { requestTimeout?: number; abortSignal?: AbortSignal } = {}
  ): Promise<{ response: IHttpResponse }> {
    const headers: { [name: string]: string } = {};
    for (const [name, value] of Object.entries(request.headers)) {
      headers[name.toLowerCase()] = value;
    }
    const fault =
      this._faults.get(request.method)?.shift() ??
      this._always.get(request.method);
    const path = decodeURIComponent(request.path.replace(/^\//, ''));
    this.calls.push({
      method: request.method,
      path,
      headers,
      fault: fault?.type,
      requestTimeout: options.requestTimeout,
      abortSignal: options.abortSignal
    });
    if (fault?.type === 'silent') {
      return new Promise((_, reject) => {
        if (options.requestTimeout) {
          setTimeout(() => {
            const error = new Error(
              `Request did not complete within ${options.requestTimeout} ms`
            );
            error.name = 'TimeoutError';
            reject(error);
          }, options.requestTimeout);
        }
      });
    }
    if (fault?.type === 'fail') {
      throw new TypeError('Failed to fetch');
    }
    if (fault?.type === 'status') {
      return { response: errorAnswer(fault.status, fault.code) };
    }
    const stored = this.objects.get(path);
    switch (request.method) {
      case 'GET':
      case 'HEAD': {
        if (!stored) {
          return { response: errorAnswer(404, 'NoSuchKey') };
        }
        let bytes = stored.bytes;
        let length = bytes.length;
        if (fault?.type === 'truncate') {
          bytes = bytes.slice(0, fault.keep);
          length = bytes.length;
        } else if (fault?.type === 'corrupt') {
          bytes = bytes.slice();
          bytes[fault.offset] ^= 0x01;
        }
        const answerHeaders: { [name: string]: string } = {
          'content-length': String(length),
          etag: stored.etag,
          ...(fault?.type === 'headers' ? fault.headers : {})
        };
        return {
          response: {
            statusCode: 200,
            headers: answerHeaders,
            body:
              request.method === 'HEAD'
                ? stream(new Uint8Array(0))
                : stream(bytes, fault?.type === 'cut' ? fault.after : undefined)
          }
        };
      }
      case 'PUT': {
        const body = await bodyBytes(request.body);
        const sent = headers['content-md5'];
        let received = body;
        if (fault?.type === 'truncate') {
          received = body.slice(0, fault.keep);
        } else if (fault?.type === 'corrupt') {
          received = body.slice();
          received[fault.offset] ^= 0x01;
        }
        if (
          sent !== undefined &&
          createHash('md5').update(received).digest('base64') !== sent
        ) {
          return { response: errorAnswer(400, 'BadDigest') };
        }
        // S3 checks the signed payload hash against the body it received.
        const payloadHash = headers['x-amz-content-sha256'];
        if (
          /^[0-9a-f]{64}$/.test(payloadHash ?? '') &&
          createHash('sha256').update(received).digest('hex') !== payloadHash
        ) {
          return { response: errorAnswer(400, 'XAmzContentSHA256Mismatch') };
        }
        const ifNoneMatch = headers['if-none-match'];
        const ifMatch = headers['if-match'];
        if (ifNoneMatch === '*' && stored) {
          return { response: errorAnswer(412, 'PreconditionFailed') };
        }
        if (ifMatch !== undefined && stored?.etag !== ifMatch) {
          return {
            response: errorAnswer(
              stored ? 412 : 404,
              stored ? 'PreconditionFailed' : 'NoSuchKey'
            )
          };
        }
        const etag = `"${md5Hex(received)}"`;
        this.objects.set(path, { bytes: received.slice(), etag });
        return {
          response: {
            statusCode: 200,
            headers: { etag },
            body: stream(new Uint8Array(0))
          }
        };
      }
    }
    return { response: errorAnswer(405, 'MethodNotAllowed') };
  }

  private _faults = new Map<string, HttpFault[]>();
  private _always = new Map<string, HttpFault>();
}

interface IHttpResponse {
  statusCode: number;
  headers: { [name: string]: string };
  body: ReadableStream<Uint8Array>;
}

export function md5Hex(bytes: Uint8Array): string {
  return createHash('md5').update(bytes).digest('hex');
}

/**
 * A body in pieces of 16 KiB; with `cutAfter`, the stream errors after
 * that many bytes, as a browser's does when the connection drops. A byte
 * stream, as a `fetch` body is in Chromium (it can be read into the
 * reader's own buffer).
 */
function stream(
  bytes: Uint8Array,
  cutAfter?: number
): ReadableStream<Uint8Array> {
  let offset = 0;
  const end = cutAfter ?? bytes.length;
  return new ReadableStream({
    type: 'bytes',
    pull(controller: ReadableByteStreamController) {
      if (offset >= end) {
        if (cutAfter !== undefined) {
          controller.error(new TypeError('network error'));
        } else {
          controller.close();
          // A byte stream's pending read ends (done) only when answered.
          controller.byobRequest?.respond(0);
        }
        return;
      }
      const next = Math.min(end, offset + 16 * 1024);
      controller.enqueue(bytes.slice(offset, next));
      offset = next;
    }
  });
}

function errorAnswer(status: number, code: string): IHttpResponse {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${code}</Message><RequestId>fake</RequestId></Error>`;
  const bytes = new TextEncoder().encode(xml);
  return {
    statusCode: status,
    headers: {
      'content-type': 'application/xml',
      'content-length': String(bytes.length)
    },
    body: stream(bytes)
  };
}

async function bodyBytes(body: unknown): Promise<Uint8Array> {
  if (ArrayBuffer.isView(body)) {
    // A Uint8Array, maybe of another realm (jsdom's TextEncoder).
    return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  }
  if (typeof body === 'string') {
    return new TextEncoder().encode(body);
  }
  if (body === undefined || body === null) {
    return new Uint8Array(0);
  }
  throw new Error(`The fake cannot read a body of type ${typeof body}`);
}

/**
 * The SDK-backed store (src/s3/client.ts) with the real SDK, over `http`.
 */
export function sdkStoreOver(http: FakeS3Http): IObjectStore {
  return createObjectStore({
    endpointUrl: 'http://s3.example.test',
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: async () => ({
      accessKeyId: 'test-key',
      secretAccessKey: 'test-secret'
    }),
    requestHandler: http
  });
}
