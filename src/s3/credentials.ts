/**
 * Where the browser's S3 credentials come from, by the settings' mode.
 * Secrets stay in memory here and are never logged or put in an error.
 */
import { BookshelfError } from '../errors';
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
 * fetch, so the request carries the user's Jupyter authentication.
 */
export type CredentialsFetch = (url: string) => Promise<Response>;

/**
 * Refresh endpoint credentials this long before they expire.
 */
const REFRESH_MARGIN_MS = 5 * 60 * 1000;

/**
 * Provides credentials for the current settings.
 */
export class CredentialsProvider {
  constructor(
    private readonly _options: {
      prompt?: CredentialsPrompt;
      fetch?: CredentialsFetch;
      now?: () => number;
    } = {}
  ) {}

  /**
   * Credentials for the settings, or null for unsigned requests.
   */
  async get(settings: IBookshelfSettings): Promise<ICredentials | null> {
    const credentials = settings.credentials;
    switch (credentials.mode) {
      case 'anonymous':
        return null;
      case 'settings':
        if (!credentials.accessKeyId || !credentials.secretAccessKey) {
          throw new BookshelfError(
            'NotConfigured',
            "The credentials mode is 'settings' but the access key id or the secret access key is empty."
          );
        }
        return {
          accessKeyId: credentials.accessKeyId,
          secretAccessKey: credentials.secretAccessKey,
          sessionToken: credentials.sessionToken || undefined
        };
      case 'session':
        return this._sessionCredentials();
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
   * Forget every credential held in memory.
   */
  forget(): void {
    this._session = null;
    this._pendingPrompt = null;
    this._endpointCache = null;
  }

  private async _sessionCredentials(): Promise<ICredentials> {
    if (this._session) {
      return this._session;
    }
    if (!this._options.prompt) {
      throw new BookshelfError(
        'NotConfigured',
        'No S3 credentials are set for this session.'
      );
    }
    // Several requests at once share one prompt.
    if (!this._pendingPrompt) {
      this._pendingPrompt = this._options.prompt().finally(() => {
        this._pendingPrompt = null;
      });
    }
    const credentials = await this._pendingPrompt;
    if (!credentials) {
      throw new BookshelfError('Cancelled', 'No S3 credentials were given.');
    }
    this._session = credentials;
    return credentials;
  }

  private async _endpointCredentials(url: string): Promise<ICredentials> {
    if (!url) {
      throw new BookshelfError(
        'NotConfigured',
        "The credentials mode is 'endpoint' but no credentials URL is set."
      );
    }
    const now = this._options.now ?? Date.now;
    const cached = this._endpointCache;
    if (
      cached &&
      cached.url === url &&
      (!cached.credentials.expiration ||
        cached.credentials.expiration.getTime() - REFRESH_MARGIN_MS > now())
    ) {
      return cached.credentials;
    }
    const fetchImpl = this._options.fetch ?? ((u: string) => fetch(u));
    let response: Response;
    try {
      response = await fetchImpl(url);
    } catch {
      throw new BookshelfError(
        'InvalidCredentials',
        `The credentials URL ${url} could not be reached.`,
        { url }
      );
    }
    if (!response.ok) {
      throw new BookshelfError(
        'InvalidCredentials',
        `The credentials URL ${url} answered HTTP ${response.status}.`,
        { url, status: response.status }
      );
    }
    let body: any;
    try {
      body = await response.json();
    } catch {
      throw new BookshelfError(
        'InvalidCredentials',
        `The credentials URL ${url} did not answer JSON.`,
        { url }
      );
    }
    const accessKeyId = body?.AccessKeyId;
    const secretAccessKey = body?.SecretAccessKey;
    if (
      typeof accessKeyId !== 'string' ||
      typeof secretAccessKey !== 'string'
    ) {
      throw new BookshelfError(
        'InvalidCredentials',
        `The credentials URL ${url} answered without AccessKeyId and SecretAccessKey.`,
        { url }
      );
    }
    const expiration = body?.Expiration ? new Date(body.Expiration) : undefined;
    const credentials: ICredentials = {
      accessKeyId,
      secretAccessKey,
      sessionToken:
        typeof body?.SessionToken === 'string' ? body.SessionToken : undefined,
      expiration:
        expiration && !isNaN(expiration.getTime()) ? expiration : undefined
    };
    this._endpointCache = { url, credentials };
    return credentials;
  }

  private _session: ICredentials | null = null;
  private _pendingPrompt: Promise<ICredentials | null> | null = null;
  private _endpointCache: { url: string; credentials: ICredentials } | null =
    null;
}
