/**
 * The Bookshelf service's working part, loaded on first use (see
 * `./service.ts`): the model with its S3 credentials.
 */
import { PageConfig, URLExt } from '@jupyterlab/coreutils';
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
  /**
   * The page is a JupyterLite site (see `IBookshelfModelOptions`); default:
   * as the page config's `appName` says. Read here, on first use, rather
   * than at start-up.
   */
  jupyterLite?: boolean;
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
  return new BookshelfModel({
    ...options,
    credentials,
    jupyterLite:
      options.jupyterLite ?? isJupyterLite(PageConfig.getOption('appName'))
  });
}

/**
 * Whether the page is a JupyterLite site, as its page config's `appName`
 * says: no Jupyter server behind it, its file tree lives in the browser.
 * Here rather than beside the hub's page config in
 * `../settings/deployment.ts`: only the clone needs it, not the start-up.
 */
export function isJupyterLite(appName: string): boolean {
  return appName === 'JupyterLite';
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
