import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { fileUploadIcon } from '@jupyterlab/ui-components';

import type { IPublishContext } from '../actions/publish';
import { CommandIDs, describedBy, PALETTE_CATEGORY } from '../commands';
import { TRANSLATION_DOMAIN } from '../package';
import { IBookshelf, PACKAGE_NAME } from '../tokens';

/**
 * The name Notebook 7's application gives itself (JupyterLab's is
 * 'JupyterLab').
 */
const NOTEBOOK_APP_NAME = 'Jupyter Notebook';

/**
 * Publish a notebook to the publish bucket: the command in the file
 * browser's context menu (schema/publish.json), the File menu, the palette
 * and, in Notebook 7, the tree view's buttons for the selection.
 */
export const publishPlugin: JupyterFrontEndPlugin<void> = {
  id: `${PACKAGE_NAME}:publish`,
  description:
    'Adds "Publish": puts a notebook in the publish bucket and gives a link to share.',
  autoStart: true,
  requires: [IBookshelf],
  optional: [
    ITranslator,
    ICommandPalette,
    IDefaultFileBrowser,
    INotebookTracker,
    IDocumentManager
  ],
  activate: (
    app: JupyterFrontEnd,
    bookshelf: IBookshelf,
    translator: ITranslator | null,
    palette: ICommandPalette | null,
    browser: IDefaultFileBrowser | null,
    notebooks: INotebookTracker | null,
    docManager: IDocumentManager | null
  ) => {
    const trans = (translator ?? nullTranslator).load(TRANSLATION_DOMAIN);
    const context: IPublishContext = {
      app,
      bookshelf,
      trans,
      docManager,
      openSettings: () =>
        void app.commands.execute('settingeditor:open', { query: 'Bookshelf' })
    };

    // The notebook the command is about: the one given, the file browser's
    // selection (context menu), or the current notebook.
    const targetPath = (args: { [key: string]: unknown }): string | null => {
      if (typeof args.path === 'string' && args.path) {
        return args.path;
      }
      if (args.fromFileBrowser && browser) {
        // One notebook at a time: never silently the first of several.
        const selected = [...browser.selectedItems()];
        return selected.length === 1 && selected[0].type === 'notebook'
          ? selected[0].path
          : null;
      }
      const current = notebooks?.currentWidget;
      return current ? current.context.path : null;
    };

    // Notebook 7's tree view shows buttons for the selection in its file
    // browser's toolbar (Open, Download, …, declared as toolbar items of
    // the FileBrowser factory); Publish is one of them there, shown while
    // a notebook is selected. Lab's file browser toolbar has no such
    // buttons, so there it stays hidden.
    const selectionButtons = app.name === NOTEBOOK_APP_NAME;
    const notebookSelected = () =>
      !!browser &&
      [...browser.selectedItems()].some(item => item.type === 'notebook');

    app.commands.addCommand(CommandIDs.publish, {
      label: args =>
        args.fromFileBrowser
          ? browser && [...browser.selectedItems()].length > 1
            ? trans.__('Publish (one notebook at a time)')
            : trans.__('Publish')
          : trans.__('Publish Notebook…'),
      caption: trans.__(
        'Put the notebook in the publish bucket and get a link to share'
      ),
      // A text button among Notebook 7's selection buttons, as theirs are.
      icon: args =>
        args.isPalette || args.toolbar ? undefined : fileUploadIcon,
      isEnabled: args => targetPath(args) !== null,
      isVisible: args =>
        !args.toolbar || (selectionButtons && notebookSelected()),
      describedBy: describedBy(CommandIDs.publish),
      execute: async args => {
        const path = targetPath(args);
        if (!path) {
          return null;
        }
        const { executePublish } = await import('../actions/publish');
        return executePublish(context, path);
      }
    });
    palette?.addItem({
      command: CommandIDs.publish,
      category: PALETTE_CATEGORY
    });
    notebooks?.currentChanged.connect(() => {
      app.commands.notifyCommandChanged(CommandIDs.publish);
    });
    browser?.selectionChanged.connect(() => {
      app.commands.notifyCommandChanged(CommandIDs.publish);
    });
  }
};
