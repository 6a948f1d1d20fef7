/**
 * @jest-environment-options {"customExportConditions": ["node", "require", "default"]}
 */
/**
 * The SDK-backed store (src/s3/client.ts) with the real SDK, over a fake
 * S3 HTTP endpoint that breaks transfers: the checks of length and
 * checksum, the download and upload retries, Content-MD5 on uploads.
 */
import { createHash, webcrypto } from 'crypto';
import { ReadableStream as NodeReadableStream } from 'stream/web';

import { BookshelfError } from '../errors/errors';
import { blobBody, cacheMode, createObjectStore } from '../s3/client';
import { DOWNLOAD_ATTEMPTS, UPLOAD_ATTEMPTS } from '../s3/retry';
import { FakeS3Http, md5Hex, sdkStoreOver } from './fakes/http';
import { blobBytes } from './fakes/bytes';

/** An error's detail, whatever its code. */
const detailOf = (error: { detail: unknown }) =>
  error.detail as { [key: string]: unknown };

// jsdom has no web streams; the browser's fetch bodies are ones.
if (typeof globalThis.ReadableStream === 'undefined') {
  (globalThis as any).ReadableStream = NodeReadableStream;
}

function bytesOf(size: number, seed = 1): Uint8Array {
  const bytes = new Uint8Array(size);
  let state = seed;
  for (let i = 0; i < size; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

const store = sdkStoreOver;

async function failure(promise: Promise<unknown>): Promise<BookshelfError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(BookshelfError);
    return error as BookshelfError;
  }
  throw new Error('It did not fail');
}

const gets = (http: FakeS3Http) =>
  http.calls.filter(call => call.method === 'GET');
const puts = (http: FakeS3Http) =>
  http.calls.filter(call => call.method === 'PUT');

describe('SdkObjectStore.getObject over a failing network', () => {
  const body = bytesOf(100 * 1024);
  let http: FakeS3Http;

  beforeEach(() => {
    http = new FakeS3Http();
    http.put('b', 'k.bin', body);
  });

  it('downloads and checks an object', async () => {
    const loaded: number[] = [];
    const data = await store(http).getObject('b', 'k.bin', {
      onProgress: n => loaded.push(n)
    });
    expect(md5Hex(data.bytes)).toBe(md5Hex(body));
    expect(data.head.etag).toBe(`"${md5Hex(body)}"`);
    expect(loaded[loaded.length - 1]).toBe(body.length);
    expect(gets(http)).toHaveLength(1);
  });

  it('gathers a body into a Blob, byte for byte, and checks the bytes read back from it', async () => {
    const data = await store(http).getObject('b', 'k.bin', {
      gatherAsBlob: true,
      deferChecksum: true
    });
    expect(data.bytes).toHaveLength(0);
    const bytes = await blobBytes(data.blob!);
    expect(md5Hex(bytes)).toBe(md5Hex(body));
    expect(data.md5).toBe(md5Hex(body));
    expect(() => data.verify!(bytes)).not.toThrow();
    const damaged = bytes.slice();
    damaged[5] ^= 1;
    expect(() => data.verify!(damaged)).toThrow(
      expect.objectContaining({ code: 'Corrupted' })
    );
  });

  it('gathers a body larger than a part into a Blob of parts, byte for byte', async () => {
    const large = bytesOf(9 * 1024 * 1024 + 123, 9);
    http.put('b', 'large.bin', large);
    const data = await store(http).getObject('b', 'large.bin', {
      gatherAsBlob: true
    });
    expect(data.blob!.size).toBe(large.length);
    expect(md5Hex(await blobBytes(data.blob!))).toBe(md5Hex(large));
  });

  it('finds a damaged body gathered into a Blob by its checksum, and downloads it again', async () => {
    http.queue('GET', { type: 'corrupt', offset: 500 });
    const data = await store(http).getObject('b', 'k.bin', {
      gatherAsBlob: true
    });
    expect(md5Hex(await blobBytes(data.blob!))).toBe(md5Hex(body));
    expect(gets(http)).toHaveLength(2);
  });

  it('downloads again from the start when the body is cut off once', async () => {
    http.queue('GET', { type: 'cut', after: 40000 });
    const data = await store(http).getObject('b', 'k.bin');
    expect(md5Hex(data.bytes)).toBe(md5Hex(body));
    expect(gets(http).map(call => call.fault)).toEqual(['cut', undefined]);
  });

  it('reports Interrupted when the body is cut off every time', async () => {
    http.always('GET', { type: 'cut', after: 40000 });
    const error = await failure(store(http).getObject('b', 'k.bin'));
    expect(error.code).toBe('Interrupted');
    expect(error.message).toContain('s3://b/k.bin');
    expect(error.message).toContain(`(tried ${DOWNLOAD_ATTEMPTS} times)`);
    expect(error.detail).toMatchObject({
      bucket: 'b',
      key: 'k.bin',
      attempts: DOWNLOAD_ATTEMPTS,
      total: body.length
    });
    expect(gets(http)).toHaveLength(DOWNLOAD_ATTEMPTS);
    // The count wraps the last attempt's error, which wraps the stream's.
    const last = error.cause as BookshelfError;
    expect(last.code).toBe('Interrupted');
    expect(last.detail).not.toHaveProperty('attempts');
    expect((last.cause as BookshelfError).cause).toBeInstanceOf(Error);
  });

  it('catches a body cut short behind a matching length by its checksum', async () => {
    http.always('GET', { type: 'truncate', keep: 1000 });
    const error = await failure(store(http).getObject('b', 'k.bin'));
    expect(error.code).toBe('Corrupted');
    expect(detailOf(error).reason).toBe('checksum');
    expect(gets(http)).toHaveLength(DOWNLOAD_ATTEMPTS);
  });

  it('catches one changed byte, and downloads again', async () => {
    http.queue('GET', { type: 'corrupt', offset: 777 });
    const data = await store(http).getObject('b', 'k.bin');
    expect(md5Hex(data.bytes)).toBe(md5Hex(body));
    expect(gets(http)).toHaveLength(2);
  });

  it('reports Corrupted when every download is changed', async () => {
    http.always('GET', { type: 'corrupt', offset: 777 });
    const error = await failure(store(http).getObject('b', 'k.bin'));
    expect(error.code).toBe('Corrupted');
    expect(error.message).toContain('do not match the checksum');
  });

  it('leaves a changed byte to verify with deferChecksum, and still retries a cut', async () => {
    http.queue('GET', { type: 'cut', after: 40000 });
    http.queue('GET', { type: 'corrupt', offset: 777 });
    const data = await store(http).getObject('b', 'k.bin', {
      deferChecksum: true
    });
    // The cut was tried again; the changed byte came through, for verify.
    expect(gets(http).map(call => call.fault)).toEqual(['cut', 'corrupt']);
    expect(md5Hex(data.bytes)).not.toBe(md5Hex(body));
    let error: unknown;
    try {
      data.verify!();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BookshelfError);
    expect((error as BookshelfError).code).toBe('Corrupted');
    expect((error as BookshelfError).detail).toMatchObject({
      reason: 'checksum',
      bucket: 'b',
      key: 'k.bin'
    });
    const again = await store(http).getObject('b', 'k.bin', {
      deferChecksum: true
    });
    expect(() => again.verify!()).not.toThrow();
  });

  it('checks only the length of a KMS-encrypted object, whose ETag is no MD5', async () => {
    http.always('GET', {
      type: 'headers',
      headers: {
        etag: '"0123456789abcdef0123456789abcdef"',
        'x-amz-server-side-encryption': 'aws:kms'
      }
    });
    const data = await store(http).getObject('b', 'k.bin');
    expect(md5Hex(data.bytes)).toBe(md5Hex(body));
  });

  it('checks only the length of a multipart object', async () => {
    http.always('GET', {
      type: 'headers',
      headers: { etag: '"0123456789abcdef0123456789abcdef-3"' }
    });
    const data = await store(http).getObject('b', 'k.bin');
    expect(data.bytes.length).toBe(body.length);
  });

  it('reports a plain-MD5 ETag that the bytes do not match, without encryption', async () => {
    http.always('GET', {
      type: 'headers',
      headers: {
        etag: '"0123456789abcdef0123456789abcdef"',
        'x-amz-server-side-encryption': 'AES256'
      }
    });
    const error = await failure(store(http).getObject('b', 'k.bin'));
    expect(error.code).toBe('Corrupted');
  });

  it('lets the SDK retry a failed request, then reports Unreachable', async () => {
    http.always('GET', { type: 'fail' });
    const error = await failure(store(http).getObject('b', 'k.bin'));
    expect(error.code).toBe('Unreachable');
    // The SDK's four attempts; a failed request is not a damaged body.
    expect(gets(http)).toHaveLength(4);
  });

  it('lets the SDK retry 503 SlowDown, then reports SlowDown', async () => {
    http.always('GET', { type: 'status', status: 503, code: 'SlowDown' });
    const error = await failure(store(http).getObject('b', 'k.bin'));
    expect(error.code).toBe('SlowDown');
    expect(gets(http)).toHaveLength(4);
  });

  it('reports 500 as ServerError after the SDK retries', async () => {
    http.always('GET', { type: 'status', status: 500, code: 'InternalError' });
    const error = await failure(store(http).getObject('b', 'k.bin'));
    expect(error.code).toBe('ServerError');
    expect(error.message).toContain('HTTP 500');
  });

  it('stops retrying when cancelled', async () => {
    http.always('GET', { type: 'cut', after: 1000 });
    const controller = new AbortController();
    const pending = store(http).getObject('b', 'k.bin', {
      signal: controller.signal
    });
    setTimeout(() => controller.abort(), 100);
    const error = await failure(pending);
    expect(error.code).toBe('Cancelled');
    expect(gets(http).length).toBeLessThan(DOWNLOAD_ATTEMPTS);
  });
});

describe('SdkObjectStore.putObject over a failing network', () => {
  const mine = bytesOf(50 * 1024, 7);
  const old = bytesOf(10 * 1024, 3);
  let http: FakeS3Http;

  beforeEach(() => {
    http = new FakeS3Http();
    http.put('b', 'n.ipynb', old);
  });

  it('sends the Content-MD5 of the body', async () => {
    const result = await store(http).putObject('b', 'n.ipynb', mine);
    expect(puts(http)[0].headers['content-md5']).toBe(
      createHash('md5').update(mine).digest('base64')
    );
    expect(result.etag).toBe(`"${md5Hex(mine)}"`);
    expect(md5Hex(http.get('b', 'n.ipynb')!)).toBe(md5Hex(mine));
  });

  it('sends again a body that the server refused as damaged', async () => {
    http.queue('PUT', { type: 'corrupt', offset: 10 });
    await store(http).putObject('b', 'n.ipynb', mine);
    expect(puts(http)).toHaveLength(2);
    expect(md5Hex(http.get('b', 'n.ipynb')!)).toBe(md5Hex(mine));
  });

  it('reports Corrupted when every upload is damaged, and the old object stays', async () => {
    http.always('PUT', { type: 'truncate', keep: 100 });
    const error = await failure(store(http).putObject('b', 'n.ipynb', mine));
    expect(error.code).toBe('Corrupted');
    expect(detailOf(error).reason).toBe('upload');
    expect(detailOf(error).attempts).toBe(UPLOAD_ATTEMPTS);
    expect(puts(http)).toHaveLength(UPLOAD_ATTEMPTS);
    expect(md5Hex(http.get('b', 'n.ipynb')!)).toBe(md5Hex(old));
  });

  it('keeps the conditions of the put', async () => {
    const error = await failure(
      store(http).putObject('b', 'n.ipynb', mine, { ifNoneMatch: '*' })
    );
    expect(error.code).toBe('PreconditionFailed');
    expect(md5Hex(http.get('b', 'n.ipynb')!)).toBe(md5Hex(old));
  });

  describe('payload hash', () => {
    const sha256 = (bytes: Uint8Array) =>
      createHash('sha256').update(bytes).digest('hex');
    let subtle: unknown;

    beforeEach(() => {
      // jsdom has no Web Crypto; the browser's is Node's.
      subtle = (globalThis.crypto as any)?.subtle;
      Object.defineProperty(globalThis.crypto, 'subtle', {
        value: webcrypto.subtle,
        configurable: true
      });
    });

    afterEach(() => {
      Object.defineProperty(globalThis.crypto, 'subtle', {
        value: subtle,
        configurable: true
      });
    });

    it('signs the SHA-256 of the body, from Web Crypto', async () => {
      const digest = jest.spyOn(webcrypto.subtle, 'digest');
      try {
        await store(http).putObject('b', 'n.ipynb', mine);
        expect(digest).toHaveBeenCalledTimes(1);
      } finally {
        digest.mockRestore();
      }
      expect(puts(http)[0].headers['x-amz-content-sha256']).toBe(sha256(mine));
      expect(puts(http)[0].headers['authorization']).toContain(
        'x-amz-content-sha256'
      );
      expect(md5Hex(http.get('b', 'n.ipynb')!)).toBe(md5Hex(mine));
    });

    it('uses the digests the caller computed', async () => {
      await store(http).putObject('b', 'n.ipynb', mine, {
        md5: createHash('md5').update(mine).digest(),
        sha256: Promise.resolve(createHash('sha256').update(mine).digest())
      });
      expect(puts(http)[0].headers['x-amz-content-sha256']).toBe(sha256(mine));
      expect(puts(http)[0].headers['content-md5']).toBe(
        createHash('md5').update(mine).digest('base64')
      );
    });

    it("is refused by the server when it is not the body's", async () => {
      const error = await failure(
        store(http).putObject('b', 'n.ipynb', mine, {
          sha256: Promise.resolve(createHash('sha256').update(old).digest())
        })
      );
      expect(detailOf(error).name).toBe('XAmzContentSHA256Mismatch');
      expect(md5Hex(http.get('b', 'n.ipynb')!)).toBe(md5Hex(old));
    });

    it('falls back to the SDK without Web Crypto', async () => {
      Object.defineProperty(globalThis.crypto, 'subtle', {
        value: undefined,
        configurable: true
      });
      await store(http).putObject('b', 'n.ipynb', mine);
      expect(puts(http)[0].headers['x-amz-content-sha256']).toBe(sha256(mine));
    });

    it('is not added to unsigned requests', async () => {
      const anonymous = createObjectStore({
        endpointUrl: 'http://s3.example.test',
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: async () => null,
        requestHandler: http
      });
      await anonymous.putObject('b', 'n.ipynb', mine);
      expect(puts(http)[0].headers['x-amz-content-sha256']).toBeUndefined();
      expect(md5Hex(http.get('b', 'n.ipynb')!)).toBe(md5Hex(mine));
    });
  });

  it('encodes text bodies as UTF-8', async () => {
    await store(http).putObject('b', 'n.ipynb', 'héllo');
    expect(new TextDecoder().decode(http.get('b', 'n.ipynb'))).toBe('héllo');
  });
});

describe('blobBody', () => {
  it('sends the bytes of a view as a Blob, and only those', async () => {
    const buffer = new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]);
    const { body } = blobBody('PUT', buffer.subarray(2, 5));
    expect(body).toBeInstanceOf(Blob);
    expect([...(await blobBytes(body!))]).toEqual([2, 3, 4]);
  });

  it('sends text as a Blob of its UTF-8 bytes, as fetch would', async () => {
    const { body } = blobBody('POST', 'héllo ✓');
    expect([...(await blobBytes(body!))]).toEqual([
      ...new TextEncoder().encode('héllo ✓')
    ]);
  });

  it('leaves reads, empty bodies, Blobs and streams as they are', () => {
    const blob = new Blob(['x']);
    expect(blobBody('GET', 'x')).toEqual({});
    expect(blobBody('HEAD', new Uint8Array(3))).toEqual({});
    expect(blobBody('PUT', '')).toEqual({});
    expect(blobBody('PUT', new Uint8Array(0))).toEqual({});
    expect(blobBody('PUT', undefined)).toEqual({});
    expect(blobBody('PUT', blob)).toEqual({});
    expect(blobBody('PUT', { getReader: () => null })).toEqual({});
  });
});

describe('cacheMode', () => {
  it('bypasses the HTTP cache for reads only', () => {
    expect(['GET', 'HEAD', 'get'].map(cacheMode)).toEqual([
      'no-store',
      'no-store',
      'no-store'
    ]);
    // Writes keep the preflight cache.
    expect(['PUT', 'POST', 'DELETE'].map(cacheMode)).toEqual([
      'default',
      'default',
      'default'
    ]);
  });
});
