/**
 * What the info command does: open the info panel, or bring the open one
 * to the front. Loaded on first use, with the panel.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { MainAreaWidget, type WidgetTracker } from '@jupyterlab/apputils';
import type { TranslationBundle } from '@jupyterlab/translation';
import { infoIcon } from '@jupyterlab/ui-components';
import { TabPanel, type Widget } from '@lumino/widgets';

import { VERSION } from '../package';
import type { IBookshelf } from '../tokens';
import { InfoPanel } from '../widgets/InfoPanel';

/**
 * What the info action works with.
 */
export interface IInfoContext {
  app: JupyterFrontEnd;
  bookshelf: IBookshelf;
  trans: TranslationBundle;
  /** The open panel, if any (the layout restorer reopens it). */
  tracker: WidgetTracker<MainAreaWidget<InfoPanel>>;
}

/**
 * Open the info panel, or bring the open one to the front.
 */
export function openInfoPanel(
  context: IInfoContext
): MainAreaWidget<InfoPanel> {
  const { app, bookshelf, trans, tracker } = context;
  if (tracker.currentWidget && !tracker.currentWidget.isDisposed) {
    activate(app, tracker.currentWidget);
    return tracker.currentWidget;
  }
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
