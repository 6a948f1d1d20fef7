import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { PageConfig } from '@jupyterlab/coreutils';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { CommandIDs, describedBy, PALETTE_CATEGORY } from '../commands';
import { TRANSLATION_DOMAIN, VERSION } from '../package';
// The service is provided at activation: these load with the plugin. They
// are small; the model behind the service loads on first use.
import { BookshelfService } from '../service/service';
import { readHub, resolveDeploymentSettings } from '../settings/deployment';
import { parseSettings } from '../settings/parse';
import { CORE_PLUGIN_ID, IBookshelf } from '../tokens';

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
    // Under a JupyterHub, links go through the hub and `{username}` in the
    // publish prefix is the hub user.
    const hub = readHub({
      hubPrefix: PageConfig.getOption('hubPrefix'),
      hubHost: PageConfig.getOption('hubHost'),
      hubUser: PageConfig.getOption('hubUser')
    });
    const service = new BookshelfService(async () =>
      (await import('../service/backend')).createModel({
        contents: app.serviceManager.contents,
        serverSettings: app.serviceManager.serverSettings,
        version: VERSION,
        trans,
        hub
      })
    );

    try {
      const settings = await settingRegistry.load(CORE_PLUGIN_ID);
      const update = () =>
        service.updateSettings(
          resolveDeploymentSettings(parseSettings(settings.composite), hub)
        );
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
      describedBy: describedBy(CommandIDs.forgetCredentials),
      execute: () => {
        service.forgetCredentials();
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
    return service;
  }
};
