import * as fs from 'fs';
import * as path from 'path';

import type { TranslationBundle } from '@jupyterlab/translation';

import {
  BOOKSHELF_ERROR_CODES,
  BookshelfError,
  BookshelfErrorCode,
  DetailOf
} from '../errors/errors';
import { describeError } from '../errors/describe';
import { corsRule } from '../errors/messages';

const ORIGIN = 'http://127.0.0.1:38888';

/**
 * A translation bundle that marks what it translated: «text».
 */
const marked = {
  __: (msgid: string, ...args: unknown[]) =>
    '«' + msgid.replace(/%(\d+)/g, (_, n) => String(args[Number(n) - 1])) + '»'
} as unknown as TranslationBundle;

const translated = (text: string) => /^«[\s\S]*»$/.test(text);

/**
 * Every code, with an error as the code that raises it makes it. `own`:
 * the message is the error's own (a validation text naming the rule).
 */
const CASES: {
  [code in BookshelfErrorCode]: {
    error: BookshelfError;
    message: string | RegExp;
    fix: string | RegExp;
    own?: boolean;
  };
} = {
  InvalidRequest: {
    error: new BookshelfError({
      code: 'InvalidRequest',
      detail: { message: 's3_key: a key is required.', field: 's3_key' }
    }),
    message: 's3_key: a key is required.',
    fix: 'Correct the values',
    own: true
  },
  BucketNotAllowed: {
    error: new BookshelfError({
      code: 'BucketNotAllowed',
      detail: { bucket: 'secret' }
    }),
    message: 'Links may not clone from the bucket "secret"',
    fix: 'allowedBuckets'
  },
  NoSuchBucket: {
    error: new BookshelfError({
      code: 'NoSuchBucket',
      detail: { bucket: 'nope' }
    }),
    message: 'The bucket "nope" does not exist.',
    fix: 'Check the bucket name'
  },
  NoSuchKey: {
    error: new BookshelfError({
      code: 'NoSuchKey',
      detail: { bucket: 'b', key: 'k.ipynb' }
    }),
    message: 'There is no object s3://b/k.ipynb.',
    fix: 'case-sensitive'
  },
  NoSuchVersion: {
    error: new BookshelfError({
      code: 'NoSuchVersion',
      detail: { bucket: 'b', key: 'k', versionId: 'v9' }
    }),
    message: 's3://b/k has no version "v9".',
    fix: 'Leave the version empty'
  },
  AccessDenied: {
    error: new BookshelfError({
      code: 'AccessDenied',
      detail: { bucket: 'denied', key: 'a.ipynb', mode: 'settings' }
    }),
    message: 'Access to s3://denied/a.ipynb was denied.',
    fix: 'a bucket policy may deny it'
  },
  InvalidCredentials: {
    error: new BookshelfError({
      code: 'InvalidCredentials',
      detail: { reason: 'refused', mode: 'session' }
    }),
    message: 'The S3 service did not accept the credentials.',
    fix: 'enter the right access key id and secret'
  },
  ExpiredCredentials: {
    error: new BookshelfError({
      code: 'ExpiredCredentials',
      detail: { mode: 'endpoint' }
    }),
    message: 'The S3 credentials have expired.',
    fix: 'Bookshelf fetches new credentials before they expire'
  },
  CorsRefused: {
    error: new BookshelfError({
      code: 'CorsRefused',
      detail: {
        bucket: 'nocors',
        endpoint: 'http://127.0.0.1:39000'
      }
    }),
    message:
      'The S3 service at http://127.0.0.1:39000 answers, but the bucket "nocors" does not allow requests from this page (http://127.0.0.1:38888)',
    fix: 'add this rule at the start of its CORS configuration, keeping the rules it has'
  },
  Unreachable: {
    error: new BookshelfError({
      code: 'Unreachable',
      detail: { endpoint: 'http://127.0.0.1:9', reason: 'unreachable' }
    }),
    message: 'Nothing answers at http://127.0.0.1:9.',
    fix: 'Check the S3 endpoint URL'
  },
  SlowDown: {
    error: new BookshelfError({ code: 'SlowDown', detail: { status: 503 } }),
    message: 'asked to slow down; it still was after several tries',
    fix: 'Wait a minute'
  },
  ServerError: {
    error: new BookshelfError({ code: 'ServerError', detail: { status: 500 } }),
    message:
      'The S3 service failed (HTTP 500); it still did after several tries.',
    fix: 'Try again in a minute'
  },
  NotANotebook: {
    error: new BookshelfError({
      code: 'NotANotebook',
      detail: {
        message: 'The object is not a Jupyter notebook: nbformat is missing'
      }
    }),
    message: 'The object is not a Jupyter notebook: nbformat is missing',
    fix: 'Nothing was written',
    own: true
  },
  TooLarge: {
    error: new BookshelfError({
      code: 'TooLarge',
      detail: { size: 300 * 1024 * 1024, limitMB: 200 }
    }),
    message: 'The object is 300 MB, more than the limit of 200 MB.',
    fix: 'Largest object to clone (MB)'
  },
  Conflict: {
    error: new BookshelfError({
      code: 'Conflict',
      detail: {
        message: 's3://p/a.ipynb was changed',
        reason: 'changed',
        bucket: 'p',
        key: 'a.ipynb'
      }
    }),
    message: 's3://p/a.ipynb was changed',
    fix: 'Nothing was overwritten',
    own: true
  },
  PreconditionFailed: {
    error: new BookshelfError({
      code: 'PreconditionFailed',
      detail: { bucket: 'p', key: 'a.ipynb' }
    }),
    message: 's3://p/a.ipynb was changed by someone else meanwhile.',
    fix: 'Nothing was overwritten'
  },
  PublishNotConfigured: {
    error: new BookshelfError({
      code: 'PublishNotConfigured',
      detail: { message: 'No publish bucket.' }
    }),
    message: 'No publish bucket.',
    fix: 'Set "Publish bucket"',
    own: true
  },
  NotConfigured: {
    error: new BookshelfError({
      code: 'NotConfigured',
      detail: { reason: 'endpoint-missing' }
    }),
    message: 'no credentials URL is set',
    fix: 'Set "Credentials URL"'
  },
  Cancelled: {
    error: new BookshelfError({ code: 'Cancelled', detail: {} }),
    message: 'The transfer was cancelled; nothing was written.',
    fix: ''
  },
  SaveFailed: {
    error: new BookshelfError({
      code: 'SaveFailed',
      detail: { message: 'The server said 500.', folder: 'work' }
    }),
    message: 'The server said 500.',
    fix: 'you may write to the folder',
    own: true
  },
  ReadFailed: {
    error: new BookshelfError({
      code: 'ReadFailed',
      detail: {
        path: 'reports/q3.ipynb',
        jupyterStatus: 500
      }
    }),
    message:
      "The Jupyter server could not read 'reports/q3.ipynb' (HTTP 500); nothing was published.",
    fix: 'Check that the Jupyter server is running'
  },
  Interrupted: {
    error: new BookshelfError({
      code: 'Interrupted',
      detail: { bucket: 'examples', key: 'q3.ipynb' }
    }),
    message:
      'Connection to the S3 service lost; the transfer did not complete (s3://examples/q3.ipynb).',
    fix: 'Nothing partial was saved'
  },
  Corrupted: {
    error: new BookshelfError({
      code: 'Corrupted',
      detail: { reason: 'length', loaded: 10, total: 20 }
    }),
    message: 'did not arrive with the length the S3 service announced',
    fix: 'Try again'
  },
  Unknown: {
    error: new BookshelfError({
      code: 'Unknown',
      detail: { bucket: 'b', key: 'k', name: 'MalformedXML', status: 400 }
    }),
    message: 'The S3 request for s3://b/k failed (MalformedXML).',
    fix: 'Try again'
  }
};

describe('describeError', () => {
  it('has a case for every error code', () => {
    const codes = [...BOOKSHELF_ERROR_CODES];
    expect(codes.length).toBeGreaterThan(10);
    expect(Object.keys(CASES).sort()).toEqual(codes.sort());
  });

  it('knows the codes of the shared list, src/rules/errors.json', () => {
    const shared = JSON.parse(
      fs.readFileSync(
        path.join(__dirname, '..', 'rules', 'errors.json'),
        'utf8'
      )
    ).codes;
    expect([...BOOKSHELF_ERROR_CODES].sort()).toEqual(
      Object.keys(shared).sort()
    );
  });

  it('a refusal of the overwrite policy says the policy is "never"', () => {
    const description = describeError(
      new BookshelfError({
        code: 'Conflict',
        detail: {
          reason: 'policy-never',
          message: 'exists',
          bucket: 'p',
          key: 'a.ipynb'
        }
      }),
      marked,
      ORIGIN
    );
    expect(description.message).toBe('exists');
    expect(translated(description.fix)).toBe(true);
    expect(description.fix).toContain('the overwrite policy is "never"');
  });

  it.each(Object.entries(CASES))(
    '%s: a translated title, message and fix',
    (code, { error, message, fix, own }) => {
      const description = describeError(error, marked, ORIGIN);
      expect(translated(description.title)).toBe(true);
      expect(description.title.length).toBeGreaterThan(2);
      if (own) {
        expect(description.message).toBe(message);
      } else {
        expect(translated(description.message)).toBe(true);
        expect(description.message).toContain(message);
      }
      if (fix) {
        expect(translated(description.fix)).toBe(true);
        expect(description.fix).toContain(fix);
      } else {
        expect(description.fix).toBe('');
      }
    }
  );

  it('gives the CORS rule to add, with this origin filled in', () => {
    const description = describeError(CASES.CorsRefused.error, marked, ORIGIN);
    expect(description.rule).toBe(corsRule(ORIGIN));
    // One rule to add: a whole configuration would replace the rules
    // other sites rely on.
    const rule = JSON.parse(description.rule!);
    expect(rule).toEqual({
      AllowedOrigins: [ORIGIN],
      AllowedMethods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'],
      AllowedHeaders: ['*'],
      ExposeHeaders: [
        'ETag',
        'x-amz-version-id',
        'x-amz-server-side-encryption'
      ],
      MaxAgeSeconds: 3000
    });
    // Without a bucket: the service refuses the origin.
    const service = describeError(
      new BookshelfError({
        code: 'CorsRefused',
        detail: { endpoint: 'http://s3' }
      }),
      marked,
      ORIGIN
    );
    expect(service.message).toContain(ORIGIN);
    expect(service.rule).toBe(corsRule(ORIGIN));
  });

  it('gives no rule for other errors', () => {
    for (const [code, { error }] of Object.entries(CASES)) {
      if (code !== 'CorsRefused') {
        expect(describeError(error, marked, ORIGIN).rule).toBeUndefined();
      }
    }
  });

  it('says a failure of the Jupyter server is one, not an S3 failure', () => {
    const description = describeError(
      new BookshelfError({
        code: 'Unknown',
        detail: { status: 500, source: 'jupyter' }
      }),
      marked,
      ORIGIN
    );
    expect(translated(description.message)).toBe(true);
    expect(description.message).toContain(
      'The Jupyter server answered HTTP 500.'
    );
    expect(description.message).not.toContain('S3');
    expect(description.fix).toContain("Jupyter server's log");
  });

  it.each([
    ['anonymous', 'not public'],
    ['session', 'Forget S3 Credentials'],
    ['endpoint', 'a bucket policy may deny it']
  ] as const)('access denied in %s mode says what to do there', (mode, fix) => {
    const description = describeError(
      new BookshelfError({
        code: 'AccessDenied',
        detail: { bucket: 'b', key: 'k', mode }
      }),
      marked,
      ORIGIN
    );
    expect(description.fix).toContain(fix);
  });

  it.each([
    ['clock-skew', {}, "computer's clock"],
    ['endpoint-unreachable', { url: '/creds' }, '/creds could not be reached'],
    ['endpoint-status', { url: '/creds', status: 403 }, 'answered HTTP 403'],
    ['endpoint-not-json', { url: '/creds' }, 'did not answer S3 credentials'],
    ['endpoint-fields', { url: '/creds' }, 'did not answer S3 credentials'],
    ['endpoint-expiration', { url: '/creds' }, 'did not answer S3 credentials']
  ])('credentials error %s', (reason, detail, text) => {
    const description = describeError(
      new BookshelfError({
        code: 'InvalidCredentials',
        detail: { reason, ...detail } as DetailOf<'InvalidCredentials'>
      }),
      marked,
      ORIGIN
    );
    expect(translated(description.message)).toBe(true);
    expect(description.message).toContain(text);
    expect(translated(description.fix)).toBe(true);
  });

  it('an endpoint answering 401 asks to log in, 404 to check the URL', () => {
    const fixFor = (status: number) =>
      describeError(
        new BookshelfError({
          code: 'InvalidCredentials',
          detail: { reason: 'endpoint-status', url: '/creds', status }
        }),
        marked
      ).fix;
    expect(fixFor(401)).toContain('Log in to Jupyter again');
    expect(fixFor(404)).toContain('check the credentials URL');
    expect(fixFor(500)).toContain('failed');
  });

  it.each([
    ['session-empty', 'No S3 credentials are set for this tab.'],
    ['settings-keys-missing', 'the access key id or the secret access key'],
    ['endpoint-cross-origin', 'is not on this Jupyter server']
  ])('not configured: %s', (reason, text) => {
    const description = describeError(
      new BookshelfError({
        code: 'NotConfigured',
        detail: { reason, url: 'https://x/c' } as DetailOf<'NotConfigured'>
      }),
      marked
    );
    expect(description.message).toContain(text);
  });

  it('an unreachable service that was not probed mentions CORS', () => {
    const description = describeError(
      new BookshelfError({
        code: 'Unreachable',
        detail: { endpoint: 'http://s3', reason: 'network' }
      }),
      marked,
      ORIGIN
    );
    expect(description.fix).toContain('CORS');
    expect(description.fix).toContain(ORIGIN);
  });

  it('a cancelled credentials dialog says nothing was done', () => {
    expect(
      describeError(
        new BookshelfError({
          code: 'Cancelled',
          detail: { reason: 'credentials-cancelled' }
        }),
        marked
      ).message
    ).toContain('No S3 credentials were given');
  });

  it('a not-a-notebook publish does not suggest cloning', () => {
    const description = describeError(
      new BookshelfError({
        code: 'NotANotebook',
        detail: { message: 'bad', path: 'a.txt' }
      }),
      marked
    );
    expect(description.fix).toContain('Nothing was published');
  });

  it('describes other errors by their message', () => {
    const description = describeError(new Error('boom'), marked);
    expect(description.message).toBe('boom');
    expect(translated(description.title)).toBe(true);
  });
});
