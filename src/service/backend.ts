/**
 * The Bookshelf service's working part, loaded on first use (see
 * `./service.ts`): the model with its S3 credentials and the S3 SDK.
 */
import { PageConfig } from '@jupyterlab/coreutils';
import { Contents, ServerConnection } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';

import { BookshelfModel } from './model';
import { isJupyterLite, resolveServerUrl } from './page';
import { createObjectStore } from '../s3/client';
import { CredentialsProvider } from '../s3/credentials';
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
    createObjectStore,
    jupyterLite:
      options.jupyterLite ?? isJupyterLite(PageConfig.getOption('appName'))
  });
}
