/**
 * Where the browser's S3 credentials come from, by the settings' mode.
 * Secrets stay in memory here and are never logged or put in an error: an
 * error names the credentials URL without its query, fragment, user name or
 * password, and never quotes what the URL answered.
 */
import { BookshelfError, cancelled } from '../errors/errors';
import { displayUrl } from './urls';
import type { IBookshelfSettings } from '../tokens';

/**
 * A set of S3 credentials.
 */
export interface ICredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/**
 * Asks the person for credentials (session mode); resolves to null when
 * they cancel.
 */
export type CredentialsPrompt = () => Promise<ICredentials | null>;

/**
 * Fetches a same-origin URL (endpoint mode); the Jupyter server connection's
 * fetch, so the request carries the user's Jupyter authentication. May throw
 * a BookshelfError (e.g. for a URL on another origin).
 */
export type CredentialsFetch = (url: string) => Promise<Response>;

/**
 * Refresh endpoint credentials this long before they expire, at most...
 */
export const REFRESH_MARGIN_MS = 5 * 60 * 1000;
/**
 * ...and at most this part of their lifetime, so that short-lived
 * credentials (minutes, or seconds in tests) are still reused a while.
 */
export const REFRESH_MARGIN_PART = 0.25;

/**
 * Options of `CredentialsProvider.get`.
 */
export interface ICredentialsRequest {
  /**
   * In session mode, ask the person when no credentials are held (default
   * true). With false, a missing session answers `NotConfigured` with
   * `reason: 'session-empty'` instead.
   */
  prompt?: boolean;
}

interface IEndpointCache {
  url: string;
  credentials: ICredentials;
  /** When to fetch new ones (ms since the epoch); Infinity: never. */
  refreshAt: number;
}

/**
 * Provides credentials for the current settings.
 */
export class CredentialsProvider {
  constructor(
    private readonly _options: {
      prompt?: CredentialsPrompt;
      fetch?: CredentialsFetch;
      /** The clock, in ms since the epoch (default Date.now). */
      now?: () => number;
    } = {}
  ) {}

  /**
   * Credentials for the settings, or null for unsigned requests.
   */
  async get(
    settings: IBookshelfSettings,
    request: ICredentialsRequest = {}
  ): Promise<ICredentials | null> {
    const credentials = settings.credentials;
    switch (credentials.mode) {
      case 'anonymous':
        return null;
      case 'settings':
        if (!credentials.accessKeyId || !credentials.secretAccessKey) {
          throw new BookshelfError({
            code: 'NotConfigured',
            detail: { reason: 'settings-keys-missing' }
          });
        }
        return {
          accessKeyId: credentials.accessKeyId,
          secretAccessKey: credentials.secretAccessKey,
          sessionToken: credentials.sessionToken || undefined
        };
      case 'session':
        return this._sessionCredentials(request.prompt !== false);
      case 'endpoint':
        return this._endpointCredentials(credentials.endpoint);
    }
  }

  /**
   * Whether session credentials are held.
   */
  get hasSessionCredentials(): boolean {
    return this._session !== null;
  }

  /**
   * Set the session credentials (session mode), e.g. from a dialog.
   */
  setSessionCredentials(credentials: ICredentials | null): void {
    this._session = credentials;
    this._pendingPrompt = null;
  }

  /**
   * Forget every credential held in memory: the next use asks again
   * (session mode) or fetches again (endpoint mode).
   */
  forget(): void {
    this._generation++;
    this._session = null;
    this._pendingPrompt = null;
    this._endpointCache = null;
    this._pendingFetch = null;
  }

  /**
   * Drop the credentials of the settings' mode after the S3 service refused
   * them, so that the next use gets new ones. Settings-mode keys stay: they
   * are the administrator's.
   */
  invalidate(settings: IBookshelfSettings): void {
    if (settings.credentials.mode === 'session') {
      this._session = null;
    } else if (settings.credentials.mode === 'endpoint') {
      this._endpointCache = null;
    }
  }

  private async _sessionCredentials(prompt: boolean): Promise<ICredentials> {
    if (this._session) {
      return this._session;
    }
    if (!this._options.prompt || !prompt) {
      throw new BookshelfError({
        code: 'NotConfigured',
        detail: { reason: 'session-empty' }
      });
    }
    // Several requests at once share one prompt.
    if (!this._pendingPrompt) {
      const generation = this._generation;
      const pending = this._options.prompt().then(
        credentials => {
          if (this._pendingPrompt === pending) {
            this._pendingPrompt = null;
          }
          // Kept unless the person chose "Forget" while the dialog was open.
          if (credentials && generation === this._generation) {
            this._session = credentials;
          }
          return credentials;
        },
        error => {
          if (this._pendingPrompt === pending) {
            this._pendingPrompt = null;
          }
          throw error;
        }
      );
      this._pendingPrompt = pending;
    }
    const credentials = await this._pendingPrompt;
    if (!credentials) {
      throw cancelled({ reason: 'credentials-cancelled' });
    }
    return credentials;
  }

  private async _endpointCredentials(url: string): Promise<ICredentials> {
    if (!url) {
      throw new BookshelfError({
        code: 'NotConfigured',
        detail: { reason: 'endpoint-missing' }
      });
    }
    const now = this._options.now ?? Date.now;
    const cached = this._endpointCache;
    if (cached && cached.url === url && now() < cached.refreshAt) {
      return cached.credentials;
    }
    // Several requests at once share one fetch.
    if (this._pendingFetch && this._pendingFetch.url === url) {
      return this._pendingFetch.promise;
    }
    const generation = this._generation;
    const promise = this._fetchEndpoint(url, now).then(
      entry => {
        if (this._pendingFetch?.promise === promise) {
          this._pendingFetch = null;
        }
        if (generation === this._generation && entry.refreshAt > now()) {
          this._endpointCache = entry;
        }
        return entry.credentials;
      },
      error => {
        if (this._pendingFetch?.promise === promise) {
          this._pendingFetch = null;
        }
        throw error;
      }
    );
    this._pendingFetch = { url, promise };
    return promise;
  }

  private async _fetchEndpoint(
    url: string,
    now: () => number
  ): Promise<IEndpointCache> {
    const shown = displayUrl(url);
    const fail = (
      reason:
        | 'endpoint-unreachable'
        | 'endpoint-status'
        | 'endpoint-not-json'
        | 'endpoint-fields'
        | 'endpoint-expiration',
      options: { status?: number; cause?: unknown } = {}
    ) =>
      new BookshelfError(
        {
          code: 'InvalidCredentials',
          detail: { reason, url: shown, status: options.status }
        },
        { cause: options.cause }
      );
    const fetchImpl =
      this._options.fetch ??
      ((u: string) =>
        fetch(u, { cache: 'no-store', credentials: 'same-origin' }));
    let response: Response;
    try {
      response = await fetchImpl(url);
    } catch (error) {
      if (error instanceof BookshelfError) {
        throw error;
      }
      throw fail('endpoint-unreachable', { cause: error });
    }
    if (!response.ok) {
      throw fail('endpoint-status', { status: response.status });
    }
    let body: any;
    try {
      body = await response.json();
    } catch (error) {
      throw fail('endpoint-not-json', { cause: error });
    }
    const text = (value: unknown) =>
      typeof value === 'string' && value.trim() ? value.trim() : undefined;
    const accessKeyId = text(body?.AccessKeyId);
    const secretAccessKey = text(body?.SecretAccessKey);
    if (!accessKeyId || !secretAccessKey) {
      throw fail('endpoint-fields');
    }
    let expiration: Date | undefined;
    if (body?.Expiration !== undefined && body?.Expiration !== null) {
      expiration = new Date(body.Expiration);
      if (
        !['string', 'number'].includes(typeof body.Expiration) ||
        isNaN(expiration.getTime())
      ) {
        throw fail('endpoint-expiration');
      }
    }
    const fetchedAt = now();
    let refreshAt = Infinity;
    if (expiration) {
      const lifetime = expiration.getTime() - fetchedAt;
      const margin = Math.min(
        REFRESH_MARGIN_MS,
        Math.max(0, lifetime) * REFRESH_MARGIN_PART
      );
      // Credentials that arrive expired are used once (the clocks may
      // differ; S3 has the last word) and not kept.
      refreshAt = expiration.getTime() - margin;
    }
    return {
      url,
      refreshAt,
      credentials: {
        accessKeyId,
        secretAccessKey,
        sessionToken: text(body?.SessionToken),
        expiration
      }
    };
  }

  private _session: ICredentials | null = null;
  private _pendingPrompt: Promise<ICredentials | null> | null = null;
  private _endpointCache: IEndpointCache | null = null;
  private _pendingFetch: {
    url: string;
    promise: Promise<ICredentials>;
  } | null = null;
  /** Bumped by forget(): answers that arrive later are not kept. */
  private _generation = 0;
}
