import { nullTranslator } from '@jupyterlab/translation';

import { describeError } from '../errors/describe';
import { BookshelfError } from '../errors/errors';
import {
  CAUSE_REMEMBERED_MS,
  diagnoseNetworkFailure,
  isNetworkFailure,
  localNetworkBlocked,
  probeReachable,
  refusedByBrowser,
  toBookshelfError
} from '../s3/diagnosis';

/** An error's detail, whatever its code. */
const detailOf = (error: { detail: unknown }) =>
  error.detail as { [key: string]: unknown };

/**
 * An error as the S3 SDK throws it: a name (S3's error code) and the
 * HTTP status in $metadata.
 */
function sdkError(name: string, status?: number): Error {
  const error = new Error(`${name} from S3`);
  error.name = name;
  (error as any).$metadata = { httpStatusCode: status };
  return error;
}

describe('the SDK error inside', () => {
  it('is kept as the cause, with the request id S3 gave it', () => {
    const sdk = sdkError('AccessDenied', 403);
    (sdk as any).$metadata.requestId = 'R3QU35T';
    const error = toBookshelfError(sdk, objectContext);
    expect(error.cause).toBe(sdk);
    expect(error.requestId).toBe('R3QU35T');
    const located = error.withContext({ mode: 'session' });
    expect(located.cause).toBe(error);
    expect(located.requestId).toBe('R3QU35T');
    expect(located.detail).toMatchObject({
      mode: 'session',
      bucket: 'examples'
    });
    // An undefined value adds nothing.
    expect(located.withContext({ bucket: undefined }).detail).toMatchObject({
      bucket: 'examples'
    });
    const description = describeError(located, nullTranslator.load('x'));
    expect(description.requestId).toBe('R3QU35T');
  });

  it('has no request id when S3 gave none', () => {
    const error = toBookshelfError(sdkError('AccessDenied', 403), {});
    expect(error.requestId).toBeUndefined();
    expect(describeError(error, nullTranslator.load('x'))).not.toHaveProperty(
      'requestId'
    );
  });
});

const objectContext = {
  bucket: 'examples',
  key: 'reports/q3.ipynb',
  endpointUrl: 'http://127.0.0.1:9000'
};
const bucketContext = {
  bucket: 'examples',
  endpointUrl: 'http://127.0.0.1:9000'
};

describe('toBookshelfError', () => {
  it.each([
    // S3 error codes, as the SDK names its errors.
    ['NoSuchBucket', 404, 'object', 'NoSuchBucket'],
    ['NoSuchKey', 404, 'object', 'NoSuchKey'],
    ['NoSuchVersion', 404, 'object', 'NoSuchVersion'],
    ['AccessDenied', 403, 'object', 'AccessDenied'],
    ['AllAccessDisabled', 403, 'object', 'AccessDenied'],
    ['AccountProblem', 403, 'object', 'AccessDenied'],
    ['Forbidden', 403, 'bucket', 'AccessDenied'],
    ['InvalidAccessKeyId', 403, 'object', 'InvalidCredentials'],
    ['SignatureDoesNotMatch', 403, 'object', 'InvalidCredentials'],
    ['InvalidToken', 400, 'object', 'InvalidCredentials'],
    ['InvalidSecurity', 403, 'object', 'InvalidCredentials'],
    ['RequestTimeTooSkewed', 403, 'object', 'InvalidCredentials'],
    ['CredentialsProviderError', undefined, 'object', 'InvalidCredentials'],
    ['ExpiredToken', 400, 'object', 'ExpiredCredentials'],
    ['TokenRefreshRequired', 400, 'object', 'ExpiredCredentials'],
    ['PreconditionFailed', 412, 'object', 'PreconditionFailed'],
    ['ConditionalRequestConflict', 409, 'object', 'PreconditionFailed'],
    ['SlowDown', 503, 'object', 'SlowDown'],
    ['ServiceUnavailable', 503, 'object', 'SlowDown'],
    ['Throttling', 400, 'object', 'SlowDown'],
    ['TooManyRequests', 429, 'object', 'SlowDown'],
    ['InternalError', 500, 'object', 'ServerError'],
    ['TimeoutError', undefined, 'object', 'Unreachable'],
    // A HEAD answer has no body, so no code: the status decides.
    ['NotFound', 404, 'object', 'NoSuchKey'],
    ['NotFound', 404, 'bucket', 'NoSuchBucket'],
    ['403', 403, 'object', 'AccessDenied'],
    ['Unknown', 401, 'object', 'AccessDenied'],
    ['UnknownError', 404, 'object', 'NoSuchKey'],
    ['UnknownError', 412, 'object', 'PreconditionFailed'],
    ['UnknownError', 429, 'object', 'SlowDown'],
    ['UnknownError', 503, 'object', 'SlowDown'],
    ['UnknownError', 500, 'object', 'ServerError'],
    ['UnknownError', 502, 'object', 'ServerError'],
    ['UnknownError', 400, 'object', 'Unknown'],
    ['InvalidArgument', 400, 'object', 'Unknown']
  ])('%s (HTTP %s) on an %s → %s', (name, status, on, code) => {
    const context = on === 'object' ? objectContext : bucketContext;
    expect(toBookshelfError(sdkError(name, status), context).code).toBe(code);
  });

  it('reads a malformed version id (InvalidArgument) as a missing version', () => {
    const error = toBookshelfError(sdkError('InvalidArgument', 400), {
      ...objectContext,
      versionId: 'not-a-version'
    });
    expect(error.code).toBe('NoSuchVersion');
    expect(detailOf(error).versionId).toBe('not-a-version');
  });

  it("reads the browser's bare network failure as Unreachable, to be diagnosed", () => {
    for (const message of [
      'Failed to fetch',
      'NetworkError when attempting to fetch resource.',
      'Load failed'
    ]) {
      const error = toBookshelfError(new TypeError(message), objectContext);
      expect(error.code).toBe('Unreachable');
      expect(detailOf(error).reason).toBe('network');
      expect(error.message).toContain('CORS');
    }
    expect(isNetworkFailure(new TypeError('x is not a function'))).toBe(false);
    expect(isNetworkFailure(new Error('Failed to fetch'))).toBe(false);
  });

  it('reads an abort as Cancelled', () => {
    const abort = new Error('aborted');
    abort.name = 'AbortError';
    expect(toBookshelfError(abort, objectContext).code).toBe('Cancelled');
  });

  it('marks an answer of the Jupyter server as its own', () => {
    const answer = Object.assign(new Error('Permission denied'), {
      response: { status: 403 }
    });
    const error = toBookshelfError(answer, objectContext);
    expect(error.code).toBe('Unknown');
    expect(error.detail).toMatchObject({ status: 403, source: 'jupyter' });
    expect(error.message).toBe(
      'The Jupyter server answered HTTP 403: Permission denied.'
    );
  });

  it('passes a BookshelfError on unchanged', () => {
    const original = new BookshelfError({ code: 'TooLarge', detail: {} });
    expect(toBookshelfError(original, objectContext)).toBe(original);
  });

  it('names the object, the version and the endpoint in the detail', () => {
    const error = toBookshelfError(sdkError('NoSuchKey', 404), {
      ...objectContext,
      versionId: 'v1'
    });
    expect(error.detail).toMatchObject({
      bucket: 'examples',
      key: 'reports/q3.ipynb',
      versionId: 'v1',
      endpoint: 'http://127.0.0.1:9000'
    });
    expect(error.message).toContain('s3://examples/reports/q3.ipynb');
  });

  it('tells a wrong clock from wrong keys', () => {
    const error = toBookshelfError(
      sdkError('RequestTimeTooSkewed', 403),
      objectContext
    );
    expect(detailOf(error).reason).toBe('clock-skew');
    expect(
      detailOf(
        toBookshelfError(sdkError('SignatureDoesNotMatch', 403), objectContext)
      ).reason
    ).toBe('refused');
  });

  it('keeps the SDK name and status of an unknown error', () => {
    const error = toBookshelfError(
      sdkError('MalformedXML', 400),
      objectContext
    );
    expect(error.code).toBe('Unknown');
    expect(detailOf(error).name).toBe('MalformedXML');
    expect(detailOf(error).status).toBe(400);
  });

  it('never shows the user name, password or query of the endpoint', () => {
    const error = toBookshelfError(new TypeError('Failed to fetch'), {
      bucket: 'examples',
      endpointUrl: 'https://admin:hunter2@s3.example.org/?X-Amz-Signature=abc'
    });
    expect(detailOf(error).endpoint).toBe('https://s3.example.org/');
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('abc');
  });
});

describe('diagnoseNetworkFailure', () => {
  const network = () =>
    toBookshelfError(new TypeError('Failed to fetch'), objectContext);

  /** A fetch that records its calls and answers as told. */
  function fakeFetch(answer: 'opaque' | 'open' | 'refused' | 'hang') {
    const calls: { url: string; init?: RequestInit }[] = [];
    const fetchImpl = ((url: string, init?: RequestInit) => {
      calls.push({ url, init });
      if (answer === 'open') {
        // The server answers, and lets this page in.
        return Promise.resolve(new Response(null, { status: 403 }));
      }
      if (answer === 'opaque') {
        // The server answers, but its CORS rules refuse this page: a
        // no-cors request resolves (opaque), a cors request fails.
        return init?.mode === 'cors'
          ? Promise.reject(new TypeError('Failed to fetch'))
          : Promise.resolve(new Response(null, { status: 200 }));
      }
      if (answer === 'refused') {
        return Promise.reject(new TypeError('Failed to fetch'));
      }
      return new Promise((_, reject) => {
        init?.signal?.addEventListener('abort', () =>
          reject(new DOMException('aborted', 'AbortError'))
        );
      });
    }) as typeof fetch;
    return { calls, fetchImpl };
  }

  it('says CorsRefused when the server answers a no-cors request', async () => {
    const { calls, fetchImpl } = fakeFetch('opaque');
    const failure = network();
    const error = await diagnoseNetworkFailure(
      failure,
      'http://127.0.0.1:9000',
      fetchImpl
    );
    expect(error.code).toBe('CorsRefused');
    expect(error.cause).toBe(failure);
    expect(detailOf(error).bucket).toBe('examples');
    expect(error.message).toContain('the bucket "examples"');
    // The endpoint answers (no-cors), the bucket refuses the page (cors).
    expect(calls).toHaveLength(2);
    expect(calls[0].url).toBe('http://127.0.0.1:9000');
    expect(calls[0].init).toMatchObject({
      mode: 'no-cors',
      credentials: 'omit'
    });
    expect(calls[1].url).toBe('http://127.0.0.1:9000/examples/');
    expect(calls[1].init).toMatchObject({ mode: 'cors', credentials: 'omit' });
  });

  it('says Unreachable when nothing answers', async () => {
    const { fetchImpl } = fakeFetch('refused');
    const error = await diagnoseNetworkFailure(
      network(),
      'http://127.0.0.1:9',
      fetchImpl
    );
    expect(error.code).toBe('Unreachable');
    expect(detailOf(error).reason).toBe('unreachable');
    expect(error.message).toContain('http://127.0.0.1:9');
  });

  describe("with Chromium's local network access", () => {
    /**
     * The Permissions API of a browser whose permission `name` is in
     * `state`; it knows `known` names only (others are a TypeError, as in
     * browsers without them).
     */
    function permissionsWith(
      states: { [name: string]: PermissionState },
      known = Object.keys(states)
    ): Permissions {
      return {
        query: async ({ name }: { name: string }) => {
          if (!known.includes(name)) {
            throw new TypeError(`'${name}' is not a valid permission name`);
          }
          return { state: states[name] } as PermissionStatus;
        }
      } as unknown as Permissions;
    }

    afterEach(() => {
      delete (navigator as any).permissions;
    });

    it('says the browser blocks this page from the service when its permission is refused', async () => {
      Object.defineProperty(navigator, 'permissions', {
        configurable: true,
        value: permissionsWith({
          'local-network': 'prompt',
          'loopback-network': 'denied'
        })
      });
      const { fetchImpl } = fakeFetch('refused');
      const error = await diagnoseNetworkFailure(
        network(),
        'http://127.0.0.1:9001',
        fetchImpl
      );
      expect(error.code).toBe('Unreachable');
      expect(detailOf(error).reason).toBe('local-network-blocked');
      const described = describeError(error, nullTranslator.load('x'));
      expect(described.message).toBe(
        'The browser did not let this page reach the S3 service at http://127.0.0.1:9001: the service is on this computer or your local network, and this site is not allowed to reach them.'
      );
      expect(described.fix).toContain('"Local network access"');
    });

    it('is a refusal the SDK does not try again', async () => {
      Object.defineProperty(navigator, 'permissions', {
        configurable: true,
        value: permissionsWith({ 'local-network-access': 'denied' })
      });
      const { fetchImpl } = fakeFetch('refused');
      expect(
        await refusedByBrowser('http://127.0.0.1:9003', 'examples', fetchImpl)
      ).toBe(true);
    });

    it('says nothing answers while the permission is still to be asked, or unknown', async () => {
      expect(
        await localNetworkBlocked(
          permissionsWith({ 'local-network-access': 'prompt' })
        )
      ).toBe(false);
      expect(await localNetworkBlocked(permissionsWith({}))).toBe(false);
      expect(await localNetworkBlocked(undefined)).toBe(false);
      expect(
        await localNetworkBlocked(
          permissionsWith({ 'local-network-access': 'denied' })
        )
      ).toBe(true);
    });

    it('does not ask when the service answers', async () => {
      const query = jest.fn();
      Object.defineProperty(navigator, 'permissions', {
        configurable: true,
        value: { query }
      });
      const { fetchImpl } = fakeFetch('opaque');
      const error = await diagnoseNetworkFailure(
        network(),
        'http://127.0.0.1:9002',
        fetchImpl
      );
      expect(error.code).toBe('CorsRefused');
      expect(query).not.toHaveBeenCalled();
    });
  });

  it('says Unreachable when the probe gets no answer in time', async () => {
    const { fetchImpl } = fakeFetch('hang');
    expect(await probeReachable('http://10.255.255.1', fetchImpl, 20)).toBe(
      false
    );
  });

  it('leaves other errors alone and does not probe', async () => {
    const { calls, fetchImpl } = fakeFetch('opaque');
    const denied = toBookshelfError(
      sdkError('AccessDenied', 403),
      objectContext
    );
    expect(
      await diagnoseNetworkFailure(denied, 'http://127.0.0.1:9000', fetchImpl)
    ).toBe(denied);
    const diagnosed = await diagnoseNetworkFailure(
      network(),
      'http://127.0.0.1:9000',
      fetchImpl
    );
    // A diagnosed error is not probed again.
    expect(
      await diagnoseNetworkFailure(
        diagnosed,
        'http://127.0.0.1:9000',
        fetchImpl
      )
    ).toBe(diagnosed);
    // The two probes of the one diagnosis, none for the others.
    expect(calls).toHaveLength(2);
  });

  it('says Interrupted when the bucket lets this page in', async () => {
    const { fetchImpl } = fakeFetch('open');
    const error = await diagnoseNetworkFailure(
      network(),
      'http://127.0.0.1:9000',
      fetchImpl
    );
    expect(error.code).toBe('Interrupted');
  });

  // What the SDK's retries ask after a network failure: only a refusal is
  // not tried again.
  it.each([
    ['the bucket refuses this page', 'opaque', true],
    ['the bucket lets this page in (a lost connection)', 'open', false],
    ['nothing answers', 'refused', false]
  ] as const)('refusedByBrowser when %s is %s', async (_, answer, refused) => {
    const { calls, fetchImpl } = fakeFetch(answer);
    expect(
      await refusedByBrowser(
        'http://s3.example.org',
        'examples',
        fetchImpl,
        false
      )
    ).toBe(refused);
    expect(calls[0].init).toMatchObject({ mode: 'no-cors' });
    if (answer !== 'refused') {
      // Virtual-hosted style, as asked.
      expect(calls[1].url).toBe('http://examples.s3.example.org/');
      expect(calls[1].init).toMatchObject({ mode: 'cors' });
    } else {
      expect(calls).toHaveLength(1);
    }
  });

  it('probes once for one failure: the retries ask, then the error is diagnosed', async () => {
    const { calls, fetchImpl } = fakeFetch('opaque');
    expect(
      await refusedByBrowser('http://127.0.0.1:9000', 'examples', fetchImpl)
    ).toBe(true);
    const error = await diagnoseNetworkFailure(
      network(),
      'http://127.0.0.1:9000',
      fetchImpl
    );
    expect(error.code).toBe('CorsRefused');
    expect(calls).toHaveLength(2);
  });

  it('probes again for a failure after a while, and for another bucket', async () => {
    const { calls, fetchImpl } = fakeFetch('opaque');
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      await refusedByBrowser('http://127.0.0.1:9000', 'examples', fetchImpl);
      await refusedByBrowser('http://127.0.0.1:9000', 'other', fetchImpl);
      expect(calls).toHaveLength(4);
      now.mockReturnValue(1_000_000 + CAUSE_REMEMBERED_MS - 1);
      await refusedByBrowser('http://127.0.0.1:9000', 'examples', fetchImpl);
      expect(calls).toHaveLength(4);
      now.mockReturnValue(1_000_000 + CAUSE_REMEMBERED_MS);
      await refusedByBrowser('http://127.0.0.1:9000', 'examples', fetchImpl);
      expect(calls).toHaveLength(6);
    } finally {
      now.mockRestore();
    }
  });

  it('without a URL to probe, keeps the undiagnosed error', async () => {
    const { calls, fetchImpl } = fakeFetch('opaque');
    const error = network();
    expect(await diagnoseNetworkFailure(error, '', fetchImpl)).toBe(error);
    expect(calls).toHaveLength(0);
  });

  it('probes the endpoint without its user name, password or query in messages', async () => {
    const { calls, fetchImpl } = fakeFetch('opaque');
    const error = await diagnoseNetworkFailure(
      toBookshelfError(new TypeError('Failed to fetch'), { bucket: 'b' }),
      'https://s3.example.org',
      fetchImpl
    );
    expect(calls[0].url).toBe('https://s3.example.org');
    expect(detailOf(error).endpoint).toBe('https://s3.example.org');
  });
});
