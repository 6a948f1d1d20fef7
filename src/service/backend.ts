/**
 * The Bookshelf service's working part, loaded on first use (see
 * `./service.ts`): the model with its S3 credentials.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { Contents, ServerConnection } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';

import { BookshelfError } from '../errors/errors';
import { BookshelfModel } from './model';
import { CredentialsProvider } from '../s3/credentials';
import { displayUrl } from '../s3/urls';
import type { IHub } from '../settings/deployment';

/**
 * What the model is made of.
 */
export interface IBackendOptions {
  contents: Contents.IManager;
  serverSettings: ServerConnection.ISettings;
  version: string;
  trans: TranslationBundle;
  /** The JupyterHub this server belongs to, or null. */
  hub?: IHub | null;
}

/**
 * Create the model, with credentials that ask the person (session mode)
 * or the server (endpoint mode).
 */
export function createModel(options: IBackendOptions): BookshelfModel {
  const { serverSettings, trans } = options;
  const credentials = new CredentialsProvider({
    // The dialog's code loads when it is first needed.
    prompt: async () =>
      (await import('../widgets/CredentialsDialog')).askForCredentials(trans),
    // Same-origin credentials URL: relative ones are below the base URL,
    // and the request carries the user's Jupyter authentication.
    fetch: url =>
      ServerConnection.makeRequest(
        resolveServerUrl(url, serverSettings.baseUrl),
        { cache: 'no-store' },
        serverSettings
      )
  });
  return new BookshelfModel({ ...options, credentials });
}

/**
 * Resolve a same-origin URL from the settings: an absolute URL or path
 * stays, a relative one is below the server's base URL, another origin is
 * refused.
 */
export function resolveServerUrl(url: string, baseUrl: string): string {
  const base = new URL(baseUrl, window.location.href);
  const absolute =
    /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(url) || url.startsWith('//');
  const resolved = absolute
    ? new URL(url, base.origin)
    : url.startsWith('/')
      ? new URL(url, base.origin)
      : new URL(URLExt.join(base.pathname, url), base.origin);
  if (resolved.origin !== base.origin) {
    throw new BookshelfError({
      code: 'NotConfigured',
      detail: { reason: 'endpoint-cross-origin', url: displayUrl(url) }
    });
  }
  return resolved.href;
}
