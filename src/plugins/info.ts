import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import {
  ICommandPalette,
  MainAreaWidget,
  WidgetTracker
} from '@jupyterlab/apputils';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { infoIcon } from '@jupyterlab/ui-components';
import { TabPanel, Widget } from '@lumino/widgets';

import { CommandIDs, PALETTE_CATEGORY } from '../commands';
import { TRANSLATION_DOMAIN, VERSION } from '../package';
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
    const tracker = new WidgetTracker<MainAreaWidget<InfoPanel>>({
      namespace: 'bookshelf-info'
    });

    app.commands.addCommand(CommandIDs.info, {
      label: trans.__('Bookshelf Info'),
      caption: trans.__(
        'Show the Bookshelf version, the settings in effect and whether they work'
      ),
      icon: args => (args.isPalette ? undefined : infoIcon),
      describedBy: { args: { type: 'object', properties: {} } },
      execute: async () => {
        if (tracker.currentWidget && !tracker.currentWidget.isDisposed) {
          activate(app, tracker.currentWidget);
          return tracker.currentWidget;
        }
        // The panel's code loads when it is first opened.
        const { InfoPanel } = await import('../widgets/InfoPanel');
        const content = new InfoPanel({
          bookshelf,
          trans,
          version: VERSION,
          openSettings: () =>
            void app.commands.execute('settingeditor:open', {
              query: 'Bookshelf'
            })
        });
        const widget = new MainAreaWidget({ content });
        widget.id = 'jp-bookshelf-info';
        widget.title.label = trans.__('Bookshelf');
        widget.title.icon = infoIcon;
        widget.title.closable = true;
        void tracker.add(widget);
        addToShell(app, widget);
        return widget;
      }
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

/**
 * Show a panel in the main area. Notebook 7 keeps a single widget there
 * (the tree view's tabs, or the open document) and ignores a second one:
 * the panel then becomes one of the tree view's tabs, as Notebook's own
 * settings editor does, or a side panel beside a document.
 */
function addToShell(app: JupyterFrontEnd, widget: Widget): void {
  app.shell.add(widget, 'main');
  if (!Array.from(app.shell.widgets('main')).includes(widget)) {
    const main = app.shell.currentWidget;
    if (main instanceof TabPanel) {
      main.addWidget(widget);
      main.currentWidget = widget;
      return;
    }
    app.shell.add(widget, 'right', { rank: 1000 });
  }
  activate(app, widget);
}

/**
 * Bring a panel to the front, also when it is a tab of Notebook 7's tree
 * view, which the shell does not know about.
 */
function activate(app: JupyterFrontEnd, widget: Widget): void {
  const tabs = widget.parent?.parent;
  if (tabs instanceof TabPanel) {
    tabs.currentWidget = widget;
    return;
  }
  app.shell.activateById(widget.id);
}
