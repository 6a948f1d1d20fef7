import { BookshelfError } from '../errors/errors';
import {
  CredentialsProvider,
  ICredentials,
  REFRESH_MARGIN_MS
} from '../s3/credentials';
import { parseSettings } from '../settings/checks';
import type { CredentialsMode, IBookshelfSettings } from '../tokens';

/** An error's detail, whatever its code. */
const detailOf = (error: { detail: unknown }) =>
  error.detail as { [key: string]: unknown };

// Distinctive fake secrets: a test fails if one shows up in an error.
const SECRET = 'wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY';
const TOKEN = 'FwoGZXIvYXdzEXAMPLE-session-token-42';

function settingsFor(
  mode: CredentialsMode,
  credentials: Partial<IBookshelfSettings['credentials']> = {}
): IBookshelfSettings {
  return parseSettings({ credentials: { mode, ...credentials } });
}

/**
 * A promise and the functions that settle it, for a prompt the test answers.
 */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
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

function expectNoSecret(error: BookshelfError): void {
  const text = `${error.message} ${JSON.stringify(error.detail)}`;
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(TOKEN);
}

describe('CredentialsProvider', () => {
  describe('anonymous mode', () => {
    it('gives no credentials: requests are unsigned', async () => {
      const provider = new CredentialsProvider({
        prompt: () => {
          throw new Error('must not ask');
        },
        fetch: () => {
          throw new Error('must not fetch');
        }
      });
      expect(await provider.get(settingsFor('anonymous'))).toBeNull();
    });
  });

  describe('settings mode', () => {
    it('gives the keys of the settings', async () => {
      const provider = new CredentialsProvider();
      const credentials = await provider.get(
        settingsFor('settings', {
          accessKeyId: 'AKIDSETTINGS',
          secretAccessKey: SECRET,
          sessionToken: TOKEN
        })
      );
      expect(credentials).toEqual({
        accessKeyId: 'AKIDSETTINGS',
        secretAccessKey: SECRET,
        sessionToken: TOKEN
      });
    });

    it('leaves an empty session token out', async () => {
      const provider = new CredentialsProvider();
      const credentials = await provider.get(
        settingsFor('settings', {
          accessKeyId: 'AKIDSETTINGS',
          secretAccessKey: SECRET
        })
      );
      expect(credentials!.sessionToken).toBeUndefined();
    });

    it.each([
      ['no access key id', { secretAccessKey: SECRET }],
      ['no secret', { accessKeyId: 'AKIDSETTINGS', sessionToken: TOKEN }],
      ['nothing', {}]
    ])('refuses %s, without quoting the keys', async (_, keys) => {
      const provider = new CredentialsProvider();
      const error = await failure(provider.get(settingsFor('settings', keys)));
      expect(error.code).toBe('NotConfigured');
      expect(detailOf(error).reason).toBe('settings-keys-missing');
      expect(error.message).not.toContain('AKIDSETTINGS');
      expectNoSecret(error);
    });
  });

  describe('session mode', () => {
    const session = settingsFor('session');
    const entered: ICredentials = {
      accessKeyId: 'AKIDSESSION',
      secretAccessKey: SECRET,
      sessionToken: TOKEN
    };

    it('asks once, then keeps the answer', async () => {
      let asked = 0;
      const provider = new CredentialsProvider({
        prompt: async () => {
          asked++;
          return entered;
        }
      });
      expect(await provider.get(session)).toEqual(entered);
      expect(await provider.get(session)).toEqual(entered);
      expect(asked).toBe(1);
      expect(provider.hasSessionCredentials).toBe(true);
    });

    it('shares one prompt between callers that ask at once', async () => {
      const answer = deferred<ICredentials | null>();
      let asked = 0;
      const provider = new CredentialsProvider({
        prompt: () => {
          asked++;
          return answer.promise;
        }
      });
      const callers = Array.from({ length: 5 }, () => provider.get(session));
      await Promise.resolve();
      expect(asked).toBe(1);
      answer.resolve(entered);
      expect(await Promise.all(callers)).toEqual(Array(5).fill(entered));
      expect(asked).toBe(1);
    });

    it('fails every waiting caller with Cancelled when the person cancels, and asks again next time', async () => {
      const answers = [deferred<ICredentials | null>(), deferred<any>()];
      let asked = 0;
      const provider = new CredentialsProvider({
        prompt: () => answers[asked++].promise
      });
      const first = provider.get(session);
      const second = provider.get(session);
      answers[0].resolve(null);
      for (const error of [await failure(first), await failure(second)]) {
        expect(error.code).toBe('Cancelled');
        expect(detailOf(error).reason).toBe('credentials-cancelled');
      }
      expect(provider.hasSessionCredentials).toBe(false);

      const third = provider.get(session);
      expect(asked).toBe(2);
      answers[1].resolve(entered);
      expect(await third).toEqual(entered);
    });

    it('passes a failing prompt on and asks again next time', async () => {
      let asked = 0;
      const provider = new CredentialsProvider({
        prompt: async () => {
          asked++;
          if (asked === 1) {
            throw new Error('dialog failed');
          }
          return entered;
        }
      });
      await expect(provider.get(session)).rejects.toThrow('dialog failed');
      expect(await provider.get(session)).toEqual(entered);
      expect(asked).toBe(2);
    });

    it('forgets on "forget": the next use asks again', async () => {
      let asked = 0;
      const provider = new CredentialsProvider({
        prompt: async () => {
          asked++;
          return { ...entered, accessKeyId: `AKID${asked}` };
        }
      });
      expect((await provider.get(session))!.accessKeyId).toBe('AKID1');
      provider.forget();
      expect(provider.hasSessionCredentials).toBe(false);
      expect((await provider.get(session))!.accessKeyId).toBe('AKID2');
      expect(asked).toBe(2);
    });

    it('does not keep an answer given after "forget" was chosen', async () => {
      const answer = deferred<ICredentials | null>();
      const provider = new CredentialsProvider({
        prompt: () => answer.promise
      });
      const pending = provider.get(session);
      provider.forget();
      answer.resolve(entered);
      // The caller that asked gets them, but they are not kept.
      expect(await pending).toEqual(entered);
      expect(provider.hasSessionCredentials).toBe(false);
    });

    it('does not ask when asking is not allowed (the info checks)', async () => {
      let asked = 0;
      const provider = new CredentialsProvider({
        prompt: async () => {
          asked++;
          return entered;
        }
      });
      const error = await failure(provider.get(session, { prompt: false }));
      expect(error.code).toBe('NotConfigured');
      expect(detailOf(error).reason).toBe('session-empty');
      expect(asked).toBe(0);
      await provider.get(session);
      expect(await provider.get(session, { prompt: false })).toEqual(entered);
    });

    it('without a dialog, says that nothing is set', async () => {
      const error = await failure(new CredentialsProvider().get(session));
      expect(error.code).toBe('NotConfigured');
    });

    it('drops session keys that the S3 service refused', async () => {
      let asked = 0;
      const provider = new CredentialsProvider({
        prompt: async () => {
          asked++;
          return entered;
        }
      });
      await provider.get(session);
      provider.invalidate(session);
      await provider.get(session);
      expect(asked).toBe(2);
    });

    it('setSessionCredentials sets and clears them', async () => {
      const provider = new CredentialsProvider();
      provider.setSessionCredentials(entered);
      expect(await provider.get(session)).toEqual(entered);
      provider.setSessionCredentials(null);
      expect(provider.hasSessionCredentials).toBe(false);
    });
  });

  describe('endpoint mode', () => {
    const URL_PATH = '/bookshelf/credentials';
    const endpoint = settingsFor('endpoint', { endpoint: URL_PATH });
    const T0 = Date.parse('2026-11-22T10:00:00Z');

    /**
     * A credentials service: answers JSON, counts requests, on a clock the
     * test moves.
     */
    function service(
      answer: (count: number, now: number) => Response | Promise<Response>
    ) {
      const state = { now: T0, requests: [] as string[] };
      const provider = new CredentialsProvider({
        now: () => state.now,
        fetch: async url => {
          state.requests.push(url);
          return answer(state.requests.length, state.now);
        }
      });
      return { state, provider };
    }

    function json(body: unknown, status = 200): Response {
      return new Response(JSON.stringify(body), {
        status,
        headers: { 'Content-Type': 'application/json' }
      });
    }

    function stsAnswer(count: number, now: number, lifetimeMs: number) {
      return json({
        AccessKeyId: `ASIA${count}`,
        SecretAccessKey: `${SECRET}-${count}`,
        SessionToken: `${TOKEN}-${count}`,
        Expiration: new Date(now + lifetimeMs).toISOString()
      });
    }

    it('reads AccessKeyId, SecretAccessKey, SessionToken and Expiration', async () => {
      const { provider, state } = service((count, now) =>
        stsAnswer(count, now, 3600_000)
      );
      const credentials = await provider.get(endpoint);
      expect(credentials).toEqual({
        accessKeyId: 'ASIA1',
        secretAccessKey: `${SECRET}-1`,
        sessionToken: `${TOKEN}-1`,
        expiration: new Date(T0 + 3600_000)
      });
      expect(state.requests).toEqual([URL_PATH]);
    });

    it('reuses them until shortly before they expire, then fetches new ones', async () => {
      const { provider, state } = service((count, now) =>
        stsAnswer(count, now, 3600_000)
      );
      expect((await provider.get(endpoint))!.accessKeyId).toBe('ASIA1');
      state.now = T0 + 3600_000 - REFRESH_MARGIN_MS - 1;
      expect((await provider.get(endpoint))!.accessKeyId).toBe('ASIA1');
      expect(state.requests).toHaveLength(1);
      // Within the margin: refreshed before they expire.
      state.now = T0 + 3600_000 - REFRESH_MARGIN_MS + 1;
      expect((await provider.get(endpoint))!.accessKeyId).toBe('ASIA2');
      expect(state.requests).toHaveLength(2);
    });

    it('refreshes short-lived credentials after three quarters of their life', async () => {
      const { provider, state } = service((count, now) =>
        stsAnswer(count, now, 8000)
      );
      await provider.get(endpoint);
      state.now = T0 + 5999;
      expect((await provider.get(endpoint))!.accessKeyId).toBe('ASIA1');
      state.now = T0 + 6000;
      expect((await provider.get(endpoint))!.accessKeyId).toBe('ASIA2');
    });

    it('keeps credentials without an Expiration', async () => {
      const { provider, state } = service(count =>
        json({ AccessKeyId: `AKID${count}`, SecretAccessKey: SECRET })
      );
      await provider.get(endpoint);
      state.now = T0 + 365 * 24 * 3600_000;
      expect((await provider.get(endpoint))!.accessKeyId).toBe('AKID1');
      expect(state.requests).toHaveLength(1);
    });

    it('uses credentials that arrive expired once, without keeping them', async () => {
      const { provider, state } = service((count, now) =>
        stsAnswer(count, now, -1000)
      );
      expect((await provider.get(endpoint))!.accessKeyId).toBe('ASIA1');
      expect((await provider.get(endpoint))!.accessKeyId).toBe('ASIA2');
      expect(state.requests).toHaveLength(2);
    });

    it('shares one request between callers that ask at once', async () => {
      const answer = deferred<Response>();
      const { provider, state } = service(() => answer.promise);
      const callers = Array.from({ length: 4 }, () => provider.get(endpoint));
      await Promise.resolve();
      answer.resolve(stsAnswer(1, T0, 3600_000));
      const results = await Promise.all(callers);
      expect(results.map(c => c!.accessKeyId)).toEqual(Array(4).fill('ASIA1'));
      expect(state.requests).toHaveLength(1);
    });

    it('fetches again after "forget" and after the S3 service refused them', async () => {
      const { provider, state } = service((count, now) =>
        stsAnswer(count, now, 3600_000)
      );
      await provider.get(endpoint);
      provider.forget();
      expect((await provider.get(endpoint))!.accessKeyId).toBe('ASIA2');
      provider.invalidate(endpoint);
      expect((await provider.get(endpoint))!.accessKeyId).toBe('ASIA3');
      expect(state.requests).toHaveLength(3);
    });

    it('fetches again when the URL changes', async () => {
      const { provider, state } = service((count, now) =>
        stsAnswer(count, now, 3600_000)
      );
      await provider.get(endpoint);
      await provider.get(settingsFor('endpoint', { endpoint: '/other' }));
      expect(state.requests).toEqual([URL_PATH, '/other']);
    });

    it('needs a URL', async () => {
      const error = await failure(
        new CredentialsProvider().get(settingsFor('endpoint'))
      );
      expect(error.code).toBe('NotConfigured');
      expect(detailOf(error).reason).toBe('endpoint-missing');
    });

    // The URL may carry a query (an admin's mistake) with a secret in it:
    // errors name the URL without it.
    const LEAKY_URL = `/creds?token=${SECRET}#${TOKEN}`;
    const leaky = settingsFor('endpoint', { endpoint: LEAKY_URL });

    it.each([
      [
        'an HTTP error',
        () => json({ message: `no ${SECRET}` }, 403),
        'endpoint-status',
        'answered HTTP 403'
      ],
      [
        'a page that is not JSON',
        () => new Response(`<html>${SECRET}</html>`, { status: 200 }),
        'endpoint-not-json',
        'did not answer JSON'
      ],
      [
        'JSON without the keys',
        () => json({ AccessKeyId: 'ASIA', Secret: SECRET, Token: TOKEN }),
        'endpoint-fields',
        'without AccessKeyId and SecretAccessKey'
      ],
      [
        'an Expiration that is not a date',
        () =>
          json({
            AccessKeyId: 'ASIA',
            SecretAccessKey: SECRET,
            SessionToken: TOKEN,
            Expiration: 'soon'
          }),
        'endpoint-expiration',
        'not a date'
      ],
      [
        'a network failure',
        () => {
          throw new TypeError('Failed to fetch');
        },
        'endpoint-unreachable',
        'could not be reached'
      ]
    ])(
      'turns %s into an error that names the URL but no secret',
      async (_, answer, reason, text) => {
        const { provider } = service(answer);
        const error = await failure(provider.get(leaky));
        expect(error.code).toBe('InvalidCredentials');
        expect(detailOf(error).reason).toBe(reason);
        expect(detailOf(error).url).toBe('/creds');
        expect(error.message).toContain('/creds');
        expect(error.message).toContain(text);
        expectNoSecret(error);
      }
    );

    it('names an absolute URL without user name and password', async () => {
      const { provider } = service(() => json({}, 500));
      const error = await failure(
        provider.get(
          settingsFor('endpoint', {
            endpoint: `https://admin:${SECRET}@jupyter.example.org/creds?x=${TOKEN}`
          })
        )
      );
      expect(detailOf(error).url).toBe('https://jupyter.example.org/creds');
      expect(detailOf(error).status).toBe(500);
      expectNoSecret(error);
    });

    it('passes on a BookshelfError of the fetch (a URL on another origin)', async () => {
      const refusal = new BookshelfError({
        code: 'NotConfigured',
        detail: { reason: 'endpoint-cross-origin', url: 'https://elsewhere/c' }
      });
      const provider = new CredentialsProvider({
        fetch: async () => {
          throw refusal;
        }
      });
      expect(await failure(provider.get(endpoint))).toBe(refusal);
    });

    it('tries again after a failure', async () => {
      const { provider, state } = service((count, now) =>
        count === 1 ? json({}, 502) : stsAnswer(count, now, 3600_000)
      );
      await failure(provider.get(endpoint));
      expect((await provider.get(endpoint))!.accessKeyId).toBe('ASIA2');
      expect(state.requests).toHaveLength(2);
    });
  });
});
