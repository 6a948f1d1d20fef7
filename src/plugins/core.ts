import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { CommandIDs, PALETTE_CATEGORY, TRANSLATION_DOMAIN } from '../commands';
// The service is provided at activation: these load with the plugin.
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { BookshelfModel } from '../model';
import { BookshelfError } from '../errors';
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { CredentialsProvider } from '../s3/credentials';
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { displayUrl, parseSettings } from '../settings';
import { CORE_PLUGIN_ID, IBookshelf } from '../tokens';
import { VERSION } from '../version';

/**
 * Loads the settings and provides the Bookshelf service.
 */
export const corePlugin: JupyterFrontEndPlugin<IBookshelf> = {
  id: CORE_PLUGIN_ID,
  description:
    'Provides the Bookshelf service: settings, S3 credentials, clone and publish.',
  autoStart: true,
  provides: IBookshelf,
  requires: [ISettingRegistry],
  optional: [ITranslator, ICommandPalette],
  activate: async (
    app: JupyterFrontEnd,
    settingRegistry: ISettingRegistry,
    translator: ITranslator | null,
    palette: ICommandPalette | null
  ): Promise<IBookshelf> => {
    const trans = (translator ?? nullTranslator).load(TRANSLATION_DOMAIN);
    const serverSettings = app.serviceManager.serverSettings;
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
    const model = new BookshelfModel({
      contents: app.serviceManager.contents,
      serverSettings,
      credentials,
      version: VERSION,
      trans
    });

    try {
      const settings = await settingRegistry.load(CORE_PLUGIN_ID);
      const update = () => {
        // Settings of another mode may hold credentials we must not keep.
        const next = parseSettings(settings.composite);
        if (next.credentials.mode !== model.settings.credentials.mode) {
          credentials.forget();
        }
        model.updateSettings(next);
      };
      update();
      settings.changed.connect(update);
    } catch (reason) {
      console.error('Bookshelf: the settings could not be loaded.', reason);
    }

    app.commands.addCommand(CommandIDs.forgetCredentials, {
      label: trans.__('Forget S3 Credentials'),
      caption: trans.__(
        'Forget the S3 credentials this tab holds in memory (session and endpoint modes).'
      ),
      describedBy: { args: { type: 'object', properties: {} } },
      execute: () => {
        credentials.forget();
        Notification.info(
          trans.__(
            'Bookshelf forgot the S3 credentials of this tab; it asks for them (or fetches them) again on next use.'
          ),
          { autoClose: 5000 }
        );
      }
    });
    palette?.addItem({
      command: CommandIDs.forgetCredentials,
      category: PALETTE_CATEGORY
    });
    return model;
  }
};

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
    throw new BookshelfError(
      'NotConfigured',
      'The credentials URL must be on the Jupyter server.',
      { reason: 'endpoint-cross-origin', url: displayUrl(url) }
    );
  }
  return resolved.href;
}
