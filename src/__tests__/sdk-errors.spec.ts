/**
 * @jest-environment-options {"customExportConditions": ["node", "require", "default"]}
 */
/**
 * The real S3 SDK (src/s3/client.ts) against a fake HTTP layer that answers
 * as S3 does (status, headers, XML error bodies): what the SDK makes of S3's
 * answers, and what the diagnosis makes of that, without a server. The SDK's
 * retries (with backoff) run for real.
 */
import { createHash, createHmac } from 'crypto';
import { Readable } from 'stream';

import { BookshelfError } from '../errors/errors';
import { createObjectStore, SIGNED_URL_SECONDS } from '../s3/client';
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
  refusedByBrowser?: (bucket: string) => Promise<boolean>,
  endpointUrl = 'http://127.0.0.1:9000'
) {
  return createObjectStore({
    endpointUrl,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: async () => credentials,
    requestHandler: s3,
    refusedByBrowser
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
    // A refusal of the GET signed in its URL is sent again signed in its
    // headers (see 'GetObject signed in its URL' below): that error is
    // the one reported.
    expect(s3.requests).toHaveLength(status === 404 ? 1 : 2);
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

/**
 * Whether `request` carries a valid SigV4 query signature (a presigned
 * URL) for `secret`, as S3 checks one: its own computation, not the SDK's.
 */
function validQuerySignature(
  request: {
    method: string;
    path: string;
    query: { [name: string]: string };
    headers: { [name: string]: string };
  },
  secret: string
): boolean {
  const { 'X-Amz-Signature': signature, ...query } = request.query;
  const encode = (text: string) =>
    encodeURIComponent(text).replace(
      /[!'()*]/g,
      c => `%${c.charCodeAt(0).toString(16).toUpperCase()}`
    );
  const canonicalQuery = Object.keys(query)
    .map(name => [encode(name), encode(query[name] ?? '')])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const headers: { [name: string]: string } = {};
  for (const [name, value] of Object.entries(request.headers)) {
    headers[name.toLowerCase()] = String(value).trim();
  }
  const signedHeaders = query['X-Amz-SignedHeaders'];
  const canonicalHeaders = signedHeaders
    .split(';')
    .map(name => `${name}:${headers[name]}\n`)
    .join('');
  const canonicalRequest = [
    request.method,
    request.path,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    'UNSIGNED-PAYLOAD'
  ].join('\n');
  const [, date, region, service] = query['X-Amz-Credential'].split('/');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    query['X-Amz-Date'],
    `${date}/${region}/${service}/aws4_request`,
    createHash('sha256').update(canonicalRequest).digest('hex')
  ].join('\n');
  const hmac = (key: string | Buffer, text: string) =>
    createHmac('sha256', key).update(text).digest();
  let key = hmac(`AWS4${secret}`, date);
  for (const part of [region, service, 'aws4_request']) {
    key = hmac(key, part);
  }
  return hmac(key, stringToSign).toString('hex') === signature;
}

describe('GetObject signed in its URL (no CORS preflight)', () => {
  const ok = (body = '{}'): IAnswer => ({
    status: 200,
    headers: { 'content-type': 'application/x-ipynb+json' },
    body
  });
  /** Headers that make the browser send a CORS preflight first. */
  const preflighted = (request: any) =>
    Object.keys(request.headers)
      .map(name => name.toLowerCase())
      .filter(name => name !== 'host');

  it('checks signatures as S3 does (the example of the S3 documentation)', () => {
    expect(
      validQuerySignature(
        {
          method: 'GET',
          path: '/test.txt',
          headers: { host: 'examplebucket.s3.amazonaws.com' },
          query: {
            'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
            'X-Amz-Credential':
              'AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request',
            'X-Amz-Date': '20130524T000000Z',
            'X-Amz-Expires': '86400',
            'X-Amz-SignedHeaders': 'host',
            'X-Amz-Signature':
              'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404'
          }
        },
        'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
      )
    ).toBe(true);
  });

  it('is signed in its query, short-lived, with no header that needs a preflight', async () => {
    const s3 = new ScriptedS3([ok()]);
    const data = await storeFor(s3).getObject('examples', 'team/q3 é.ipynb', {
      versionId: 'v1'
    });
    expect(new TextDecoder().decode(data.bytes)).toBe('{}');
    expect(s3.requests).toHaveLength(1);
    const request = s3.requests[0];
    expect(request.method).toBe('GET');
    expect(preflighted(request)).toEqual([]);
    expect(request.query).toMatchObject({
      versionId: 'v1',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Expires': String(SIGNED_URL_SECONDS),
      'X-Amz-SignedHeaders': 'host'
    });
    expect(request.query['X-Amz-Credential']).toMatch(
      /^AKIDSDKTEST\/\d{8}\/us-east-1\/s3\/aws4_request$/
    );
    expect(request.query).not.toHaveProperty('X-Amz-Security-Token');
    expect(validQuerySignature(request, SECRET)).toBe(true);
    expect(validQuerySignature(request, `${SECRET}x`)).toBe(false);
    expect(JSON.stringify(request)).not.toContain(SECRET);
  });

  it('is unsigned, with no header that needs a preflight, in anonymous mode', async () => {
    const s3 = new ScriptedS3([ok()]);
    await storeFor(s3, null).getObject('public', 'welcome.ipynb');
    expect(preflighted(s3.requests[0])).toEqual([]);
    expect(
      Object.keys(s3.requests[0].query).filter(name => /^X-Amz-/i.test(name))
    ).toEqual([]);
  });

  it('is signed in its headers with a session token, which never goes in a URL', async () => {
    const s3 = new ScriptedS3([ok()]);
    await storeFor(s3, {
      accessKeyId: 'AKIDSDKTEST',
      secretAccessKey: SECRET,
      sessionToken: TOKEN
    }).getObject('examples', 'q3.ipynb');
    expect(s3.requests).toHaveLength(1);
    const request = s3.requests[0];
    expect(request.headers.authorization).toContain('Credential=AKIDSDKTEST/');
    expect(request.headers['x-amz-security-token']).toBe(TOKEN);
    expect(JSON.stringify(request.query)).not.toContain(TOKEN);
  });

  it('refused, is sent again signed in its headers, and that answer is reported', async () => {
    // A clock 20 minutes slow: the URL had expired when it arrived; the
    // header-signed request says why.
    const s3 = new ScriptedS3([
      answer(403, errorXml('AccessDenied', 'Request has expired')),
      answer(403, errorXml('RequestTimeTooSkewed'))
    ]);
    const error = await failure(
      storeFor(s3, undefined, undefined, 'http://127.0.0.1:9001').getObject(
        'examples',
        'q3.ipynb'
      )
    );
    expect(error.code).toBe('InvalidCredentials');
    expect(error.detail).toMatchObject({ reason: 'clock-skew' });
    expect(s3.requests).toHaveLength(2);
    expect(s3.requests[0].query).toHaveProperty('X-Amz-Signature');
    expect(s3.requests[1].headers.authorization).toContain(
      'Credential=AKIDSDKTEST/'
    );
    expect(s3.requests[1].query).not.toHaveProperty('X-Amz-Signature');
  });

  it('is signed in its headers from then on where only the URL was refused', async () => {
    const endpoint = 'http://127.0.0.1:9002';
    const s3 = new ScriptedS3([
      answer(400, errorXml('AuthorizationQueryParametersError')),
      ok('{"a": 1}'),
      ok('{"b": 2}')
    ]);
    const store = storeFor(s3, undefined, undefined, endpoint);
    const first = await store.getObject('examples', 'a.ipynb');
    expect(new TextDecoder().decode(first.bytes)).toBe('{"a": 1}');
    const second = await storeFor(s3, undefined, undefined, endpoint).getObject(
      'examples',
      'b.ipynb'
    );
    expect(new TextDecoder().decode(second.bytes)).toBe('{"b": 2}');
    expect(
      s3.requests.map(request =>
        request.headers.authorization ? 'headers' : 'url'
      )
    ).toEqual(['url', 'headers', 'headers']);
  });

  it('is not sent again after a 404, nor when cancelled', async () => {
    const missing = new ScriptedS3([answer(404, errorXml('NoSuchKey'))]);
    const error = await failure(
      storeFor(
        missing,
        undefined,
        undefined,
        'http://127.0.0.1:9003'
      ).getObject('examples', 'gone.ipynb')
    );
    expect(error.code).toBe('NoSuchKey');
    expect(missing.requests).toHaveLength(1);

    const controller = new AbortController();
    const denied = new ScriptedS3([answer(403, errorXml('AccessDenied'))]);
    const original = denied.handle.bind(denied);
    denied.handle = async (request: any) => {
      controller.abort();
      return original(request);
    };
    const cancelled = await failure(
      storeFor(denied, undefined, undefined, 'http://127.0.0.1:9003').getObject(
        'examples',
        'q3.ipynb',
        { signal: controller.signal }
      )
    );
    expect(cancelled.code).toBe('Cancelled');
    expect(denied.requests).toHaveLength(1);
  });
});
