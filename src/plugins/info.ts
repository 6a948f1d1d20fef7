import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import {
  ICommandPalette,
  type MainAreaWidget,
  WidgetTracker
} from '@jupyterlab/apputils';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { infoIcon } from '@jupyterlab/ui-components';

import type { IInfoContext } from '../actions/info';
import { CommandIDs, describedBy, PALETTE_CATEGORY } from '../commands';
import { TRANSLATION_DOMAIN } from '../package';
import { IBookshelf, PACKAGE_NAME } from '../tokens';
import type { InfoPanel } from '../widgets/InfoPanel';

/**
 * The info panel: version, settings in effect and live checks.
 */
export const infoPlugin: JupyterFrontEndPlugin<void> = {
  id: `${PACKAGE_NAME}:info`,
  description: 'Adds the Bookshelf info panel and its command.',
  autoStart: true,
  requires: [IBookshelf],
  optional: [ITranslator, ICommandPalette, ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    bookshelf: IBookshelf,
    translator: ITranslator | null,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null
  ) => {
    const trans = (translator ?? nullTranslator).load(TRANSLATION_DOMAIN);
    // Here, not with the panel: the layout restorer needs it at start-up.
    const tracker = new WidgetTracker<MainAreaWidget<InfoPanel>>({
      namespace: 'bookshelf-info'
    });
    const context: IInfoContext = { app, bookshelf, trans, tracker };

    app.commands.addCommand(CommandIDs.info, {
      label: trans.__('Bookshelf Info'),
      caption: trans.__(
        'Show the Bookshelf version, the settings in effect and whether they work'
      ),
      icon: args => (args.isPalette ? undefined : infoIcon),
      describedBy: describedBy(CommandIDs.info),
      // The panel's code loads when it is first opened.
      execute: async () =>
        (await import('../actions/info')).openInfoPanel(context)
    });
    palette?.addItem({ command: CommandIDs.info, category: PALETTE_CATEGORY });

    if (restorer) {
      void restorer.restore(tracker, {
        command: CommandIDs.info,
        name: () => 'bookshelf-info'
      });
    }
  }
};
