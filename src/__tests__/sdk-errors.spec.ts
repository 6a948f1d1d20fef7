/**
 * @jest-environment-options {"customExportConditions": ["node", "require", "default"]}
 */
/**
 * The real S3 SDK (src/s3/client.ts) against a fake HTTP layer that answers
 * as S3 does (status, headers, XML error bodies): what the SDK makes of S3's
 * answers, and what the diagnosis makes of that, without a server. The SDK's
 * retries (with backoff) run for real.
 */
import { Readable } from 'stream';

import { BookshelfError } from '../errors/errors';
import { createObjectStore } from '../s3/client';
import type { ICredentials } from '../s3/credentials';

jest.setTimeout(60000);

const SECRET = 'sdk-test-SECRET-5d9e1c7a';
const TOKEN = 'sdk-test-TOKEN-b28f04e6';

interface IAnswer {
  /** 0 for a network failure: the browser's bare TypeError. */
  status: number;
  headers?: { [name: string]: string };
  body?: string;
}

function errorXml(code: string, message = 'S3 says no'): IAnswer {
  return {
    status: 0,
    headers: { 'content-type': 'application/xml' },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>`
  };
}

function answer(status: number, xml?: IAnswer): IAnswer {
  return xml ? { ...xml, status } : { status };
}

/**
 * A request handler that answers from a script and records the requests.
 */
class ScriptedS3 {
  constructor(private readonly _answers: IAnswer[]) {}

  /** The SDK's requests: method, path, query, headers. */
  readonly requests: any[] = [];

  async handle(request: any): Promise<{ response: any }> {
    this.requests.push(request);
    const next =
      this._answers.length > 1 ? this._answers.shift()! : this._answers[0];
    if (next.status === 0) {
      throw new TypeError('Failed to fetch');
    }
    const body = Buffer.from(next.body ?? '');
    return {
      // The shape of the SDK's HttpResponse.
      response: {
        statusCode: next.status,
        reason: undefined,
        headers: {
          'x-amz-request-id': '4442587FB7D0A2F9',
          'content-length': String(body.length),
          ...next.headers
        },
        body: Readable.from([body])
      }
    };
  }

  updateHttpClientConfig(): void {
    // Nothing to configure.
  }

  httpHandlerConfigs(): object {
    return {};
  }

  destroy(): void {
    // Nothing to release.
  }
}

function storeFor(
  s3: ScriptedS3,
  credentials: ICredentials | null = {
    accessKeyId: 'AKIDSDKTEST',
    secretAccessKey: SECRET
  },
  refusedByCors?: (bucket: string) => Promise<boolean>
) {
  return createObjectStore({
    endpointUrl: 'http://127.0.0.1:9000',
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: async () => credentials,
    requestHandler: s3,
    refusedByCors
  });
}

async function failure(promise: Promise<unknown>): Promise<BookshelfError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(BookshelfError);
    return error as BookshelfError;
  }
  throw new Error('expected a failure');
}

describe('the S3 SDK and the diagnosis, on S3 answers', () => {
  it.each([
    ['NoSuchKey', 404, 'NoSuchKey'],
    ['NoSuchBucket', 404, 'NoSuchBucket'],
    ['NoSuchVersion', 404, 'NoSuchVersion'],
    ['AccessDenied', 403, 'AccessDenied'],
    ['InvalidAccessKeyId', 403, 'InvalidCredentials'],
    ['SignatureDoesNotMatch', 403, 'InvalidCredentials'],
    ['ExpiredToken', 400, 'ExpiredCredentials']
  ])('GetObject answered %s (HTTP %s) is %s', async (code, status, ours) => {
    const s3 = new ScriptedS3([answer(status, errorXml(code))]);
    const error = await failure(
      storeFor(s3).getObject('examples', 'q3.ipynb', { versionId: 'v1' })
    );
    expect(error.code).toBe(ours);
    expect(error.detail).toMatchObject({
      bucket: 'examples',
      key: 'q3.ipynb',
      endpoint: 'http://127.0.0.1:9000'
    });
    expect(s3.requests).toHaveLength(1);
  });

  it('a 403 without a body (a bucket policy Deny, as moto answers it) is AccessDenied', async () => {
    const s3 = new ScriptedS3([answer(403)]);
    const error = await failure(storeFor(s3).getObject('denied', 'a.ipynb'));
    expect(error.code).toBe('AccessDenied');
  });

  it('HEAD answers have no body: the status decides', async () => {
    expect(
      await storeFor(new ScriptedS3([answer(404)])).headObject('b', 'k')
    ).toBeNull();
    const missing = await failure(
      storeFor(new ScriptedS3([answer(404)])).headBucket('missing')
    );
    expect(missing.code).toBe('NoSuchBucket');
    const denied = await failure(
      storeFor(new ScriptedS3([answer(403)])).headBucket('denied')
    );
    expect(denied.code).toBe('AccessDenied');
  });

  it.each([
    ['SignatureDoesNotMatch', 'InvalidCredentials'],
    ['InvalidAccessKeyId', 'InvalidCredentials'],
    ['AccessDenied', 'AccessDenied']
  ])(
    "a HEAD's bodiless 403 is explained by a one-byte GET that answered %s: %s",
    async (code, ours) => {
      const s3 = new ScriptedS3([answer(403), answer(403, errorXml(code))]);
      const error = await failure(
        storeFor(s3).headObject('published', 'team/q3.ipynb')
      );
      expect(error.code).toBe(ours);
      expect(error.detail).toMatchObject({
        bucket: 'published',
        key: 'team/q3.ipynb'
      });
      expect(s3.requests.map(r => [r.method, r.path])).toEqual([
        ['HEAD', '/published/team/q3.ipynb'],
        ['GET', '/published/team/q3.ipynb']
      ]);
      expect(s3.requests[1].headers.range).toBe('bytes=0-0');
    }
  );

  it("a HEAD's 403 stays AccessDenied when the GET is allowed", async () => {
    const s3 = new ScriptedS3([
      answer(403),
      { status: 206, headers: { 'content-range': 'bytes 0-0/10' }, body: '{' }
    ]);
    const error = await failure(storeFor(s3).headObject('published', 'a'));
    expect(error.code).toBe('AccessDenied');
  });

  it('a refused conditional upload is PreconditionFailed, not retried', async () => {
    const s3 = new ScriptedS3([answer(412, errorXml('PreconditionFailed'))]);
    const error = await failure(
      storeFor(s3).putObject('published', 'a.ipynb', '{}', { ifNoneMatch: '*' })
    );
    expect(error.code).toBe('PreconditionFailed');
    expect(s3.requests).toHaveLength(1);
    expect(s3.requests[0].headers['if-none-match']).toBe('*');
  });

  it('retries SlowDown with backoff, and succeeds when the service recovers', async () => {
    const s3 = new ScriptedS3([
      answer(503, errorXml('SlowDown')),
      answer(503, errorXml('SlowDown')),
      { status: 200, headers: { etag: '"abc"' } }
    ]);
    expect(await storeFor(s3).putObject('published', 'a.ipynb', '{}')).toEqual({
      etag: '"abc"',
      versionId: undefined
    });
    expect(s3.requests).toHaveLength(3);
  });

  it('gives up on SlowDown after four tries', async () => {
    const s3 = new ScriptedS3([answer(503, errorXml('SlowDown'))]);
    const error = await failure(storeFor(s3).getObject('examples', 'a'));
    expect(error.code).toBe('SlowDown');
    expect(s3.requests).toHaveLength(4);
  });

  it('gives up on a failing server after four tries', async () => {
    const s3 = new ScriptedS3([answer(500, errorXml('InternalError'))]);
    const error = await failure(storeFor(s3).getBucketVersioning('published'));
    expect(error.code).toBe('ServerError');
    expect(s3.requests).toHaveLength(4);
  });

  describe('a network failure (the browser tells no cause)', () => {
    const failed: IAnswer = { status: 0 };

    it('is tried four times when the bucket does not refuse this page', async () => {
      const asked: string[] = [];
      const s3 = new ScriptedS3([failed]);
      const error = await failure(
        storeFor(s3, undefined, async bucket => {
          asked.push(bucket);
          return false;
        }).getObject('examples', 'a.ipynb')
      );
      expect(error.code).toBe('Unreachable');
      expect(s3.requests).toHaveLength(4);
      // Asked after each failed try but the last.
      expect(asked).toEqual(['examples', 'examples', 'examples']);
    });

    it('is tried once when the bucket refuses this page (CORS)', async () => {
      const s3 = new ScriptedS3([failed]);
      const error = await failure(
        storeFor(s3, undefined, async () => true).createMultipartUpload(
          'published',
          'large.ipynb'
        )
      );
      expect(error.code).toBe('Unreachable');
      expect(error.cause).toBeInstanceOf(TypeError);
      expect(s3.requests).toHaveLength(1);
    });

    it('is tried again, and succeeds, when the connection came back', async () => {
      const s3 = new ScriptedS3([
        failed,
        { status: 200, headers: { etag: '"abc"' } }
      ]);
      expect(
        await storeFor(s3, undefined, async () => false).putObject(
          'published',
          'a.ipynb',
          '{}'
        )
      ).toEqual({ etag: '"abc"', versionId: undefined });
      expect(s3.requests).toHaveLength(2);
    });

    it('does not ask about CORS after an answer from S3', async () => {
      let asked = 0;
      const s3 = new ScriptedS3([answer(503, errorXml('SlowDown'))]);
      await failure(
        storeFor(s3, undefined, async () => {
          asked++;
          return true;
        }).getObject('examples', 'a')
      );
      expect(s3.requests).toHaveLength(4);
      expect(asked).toBe(0);
    });
  });

  it('reads CORS rules, and no rules or no policy as null', async () => {
    const rules = new ScriptedS3([
      {
        status: 200,
        headers: { 'content-type': 'application/xml' },
        body:
          '<CORSConfiguration><CORSRule><AllowedOrigin>http://127.0.0.1:8888</AllowedOrigin>' +
          '<AllowedMethod>GET</AllowedMethod><AllowedMethod>PUT</AllowedMethod>' +
          '<AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader></CORSRule></CORSConfiguration>'
      }
    ]);
    expect(await storeFor(rules).getBucketCors('examples')).toEqual([
      {
        allowedOrigins: ['http://127.0.0.1:8888'],
        allowedMethods: ['GET', 'PUT'],
        allowedHeaders: ['*'],
        exposeHeaders: ['ETag']
      }
    ]);
    expect(rules.requests[0].query).toHaveProperty('cors');
    const none = new ScriptedS3([
      answer(404, errorXml('NoSuchCORSConfiguration'))
    ]);
    expect(await storeFor(none).getBucketCors('examples')).toBeNull();
    const noPolicy = new ScriptedS3([
      answer(404, errorXml('NoSuchBucketPolicy'))
    ]);
    expect(await storeFor(noPolicy).getBucketPolicy('examples')).toBeNull();
  });

  it('signs with the credentials, sending the session token but never the secret', async () => {
    const s3 = new ScriptedS3([{ status: 200 }]);
    await storeFor(s3, {
      accessKeyId: 'AKIDSDKTEST',
      secretAccessKey: SECRET,
      sessionToken: TOKEN
    }).headBucket('published');
    const headers = s3.requests[0].headers;
    expect(headers.authorization).toContain('Credential=AKIDSDKTEST/');
    expect(headers['x-amz-security-token']).toBe(TOKEN);
    expect(JSON.stringify(s3.requests[0])).not.toContain(SECRET);
  });

  it('sends unsigned requests in anonymous mode', async () => {
    const s3 = new ScriptedS3([{ status: 200 }]);
    await storeFor(s3, null).headBucket('public');
    const names = Object.keys(s3.requests[0].headers).map(h => h.toLowerCase());
    expect(names).not.toContain('authorization');
    expect(names).not.toContain('x-amz-security-token');
  });
});
