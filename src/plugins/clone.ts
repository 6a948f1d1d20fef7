import {
  IRouter,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { ILauncher } from '@jupyterlab/launcher';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { downloadIcon } from '@jupyterlab/ui-components';

import type { ICloneContext } from '../actions/clone';
import { CommandIDs, describedBy, PALETTE_CATEGORY } from '../commands';
import { TRANSLATION_DOMAIN } from '../package';
import link from '../rules/link.json';
import { IBookshelf, PACKAGE_NAME } from '../tokens';

/**
 * The query parameter that marks an in-app clone link.
 */
const LINK_PARAMETER = link.deepLinkParameter;

/**
 * The query parameters of a clone link.
 */
const LINK_PARAMETERS = [LINK_PARAMETER, ...link.fields];

/**
 * Clone from S3: the command, its dialog and the in-app link.
 */
export const clonePlugin: JupyterFrontEndPlugin<void> = {
  id: `${PACKAGE_NAME}:clone`,
  description:
    'Adds "Clone from S3…": the clone dialog, opened from the palette or by a link.',
  autoStart: true,
  requires: [IBookshelf],
  optional: [
    ITranslator,
    ICommandPalette,
    IDefaultFileBrowser,
    IRouter,
    ILauncher,
    JupyterFrontEnd.ITreeResolver
  ],
  activate: (
    app: JupyterFrontEnd,
    bookshelf: IBookshelf,
    translator: ITranslator | null,
    palette: ICommandPalette | null,
    browser: IDefaultFileBrowser | null,
    router: IRouter | null,
    launcher: ILauncher | null,
    tree: JupyterFrontEnd.ITreeResolver | null
  ) => {
    const trans = (translator ?? nullTranslator).load(TRANSLATION_DOMAIN);
    const context: ICloneContext = { app, bookshelf, trans, browser, tree };
    // The dialog and the clone code load on first use.
    const actions = () => import('../actions/clone');

    app.commands.addCommand(CommandIDs.clone, {
      // A launcher card names what it makes, as Lab's own do ("Text File").
      label: args =>
        args.isLauncher
          ? trans.__('Clone from S3')
          : trans.__('Clone from S3…'),
      caption: trans.__(
        'Copy a notebook or file from S3 into the file browser, under a name that overwrites nothing'
      ),
      icon: args => (args.isPalette ? undefined : downloadIcon),
      describedBy: describedBy(CommandIDs.clone),
      execute: async args => (await actions()).executeClone(context, args)
    });
    palette?.addItem({ command: CommandIDs.clone, category: PALETTE_CATEGORY });
    // Lab's launcher takes its cards in code only (there is no schema key
    // for them, unlike menus and toolbars). In "Other", beside the new
    // files, under Lab's own translation of the category's name.
    launcher?.add({
      command: CommandIDs.clone,
      category: (translator ?? nullTranslator).load('jupyterlab').__('Other'),
      rank: 50
    });

    // The in-app link: {base_url}lab?bookshelf-clone&s3_bucket=…&s3_key=…
    app.commands.addCommand(CommandIDs.openCloneLink, {
      label: trans.__('Open Clone Link'),
      describedBy: describedBy(CommandIDs.openCloneLink),
      execute: args => {
        const search = (args as IRouter.ILocation).search ?? '';
        removeLinkParameters();
        // Not awaited: Lab finishes restoring only after the routed commands
        // return, and the dialog belongs on top of the restored layout.
        void app.restored
          .then(actions)
          .then(module => module.openCloneLink(context, search));
      }
    });
    router?.register({
      command: CommandIDs.openCloneLink,
      pattern: new RegExp(`[?&]${LINK_PARAMETER}(?:[=&]|$)`),
      rank: 20
    });
  }
};

/**
 * Take the clone parameters out of the address bar, so that a reload does
 * not open the dialog again.
 */
function removeLinkParameters(): void {
  const url = new URL(window.location.href);
  const before = url.search;
  for (const name of LINK_PARAMETERS) {
    url.searchParams.delete(name);
  }
  if (url.search !== before) {
    window.history.replaceState(window.history.state, '', url.href);
  }
}
