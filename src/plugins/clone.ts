import {
  IRouter,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { PathExt } from '@jupyterlab/coreutils';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { downloadIcon } from '@jupyterlab/ui-components';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';

import { candidateNames } from '../clone/naming';
import { keyBaseName, readCloneQuery } from '../clone/request';
import { CommandIDs, PALETTE_CATEGORY, TRANSLATION_DOMAIN } from '../commands';
import { isCancelled } from '../errors';
import { describeError } from '../messages';
import { IBookshelf, ICloneRequest, PACKAGE_NAME } from '../tokens';
import { showCloneDialog } from '../widgets/CloneDialog';
import { withTransferNotification } from '../widgets/transferNotification';

/**
 * The query parameter that marks an in-app clone link.
 */
const LINK_PARAMETER = 'bookshelf-clone';

/**
 * Clone from S3: the command, its dialog and the in-app link.
 */
export const clonePlugin: JupyterFrontEndPlugin<void> = {
  id: `${PACKAGE_NAME}:clone`,
  description:
    'Adds "Clone from S3…": the clone dialog, opened from the palette or by a link.',
  autoStart: true,
  requires: [IBookshelf],
  optional: [ITranslator, ICommandPalette, IDefaultFileBrowser, IRouter],
  activate: (
    app: JupyterFrontEnd,
    bookshelf: IBookshelf,
    translator: ITranslator | null,
    palette: ICommandPalette | null,
    browser: IDefaultFileBrowser | null,
    router: IRouter | null
  ) => {
    const trans = (translator ?? nullTranslator).load(TRANSLATION_DOMAIN);
    const contents = app.serviceManager.contents;

    // The first free name for a file in a folder, as the clone will pick it.
    const probeName = async (
      folder: string,
      name: string
    ): Promise<string | null> => {
      const base = folder.replace(/^\/+|\/+$/g, '');
      try {
        const listing = await contents.get(base, { content: true });
        if (listing.type !== 'directory') {
          return null;
        }
        const taken = new Set<string>(
          (listing.content as { name: string }[]).map(item => item.name)
        );
        for (const candidate of candidateNames(name)) {
          if (!taken.has(candidate)) {
            return candidate;
          }
        }
      } catch {
        // A folder that does not exist: the clone will say so.
      }
      return null;
    };

    const runClone = async (request: ICloneRequest) => {
      const label = trans.__(
        'Cloning s3://%1/%2',
        request.s3_bucket,
        request.s3_key
      );
      try {
        const model = await withTransferNotification(
          trans,
          label,
          (signal, onProgress) =>
            bookshelf.clone(request, { signal, onProgress })
        );
        if (browser) {
          const folder = PathExt.dirname(model.path);
          await browser.model.cd(`/${folder}`);
          await browser.selectItemByName(model.name);
        }
        if (bookshelf.settings.openAfterClone) {
          await app.commands.execute('docmanager:open', { path: model.path });
        }
        Notification.success(
          trans.__(
            'Cloned s3://%1/%2 to %3.',
            request.s3_bucket,
            request.s3_key,
            model.path
          ),
          { autoClose: 5000 }
        );
        return model;
      } catch (error) {
        if (isCancelled(error)) {
          Notification.info(
            trans.__('The clone was cancelled; nothing was written.'),
            { autoClose: 5000 }
          );
          return null;
        }
        const description = describeError(error, trans);
        Notification.error(
          [description.message, description.fix].filter(Boolean).join(' '),
          { autoClose: false }
        );
        return null;
      }
    };

    app.commands.addCommand(CommandIDs.clone, {
      label: trans.__('Clone from S3…'),
      caption: trans.__(
        'Copy a notebook or file from S3 into the file browser, under a name that overwrites nothing'
      ),
      icon: args => (args.isPalette ? undefined : downloadIcon),
      describedBy: {
        args: {
          type: 'object',
          properties: {
            s3_bucket: { type: 'string', description: 'The bucket' },
            s3_key: { type: 'string', description: 'The object key' },
            target_path: {
              type: 'string',
              description: 'The folder (ending in /) or file path to clone to'
            },
            s3_version_id: {
              type: 'string',
              description: 'The version to clone (default: the latest)'
            },
            fromLink: {
              type: 'boolean',
              description: 'Opened by a link: only allowed buckets'
            }
          }
        }
      },
      execute: async args => {
        const text = (name: string) =>
          typeof args[name] === 'string' ? (args[name] as string) : '';
        const targetPath = text('target_path');
        const currentFolder = browser?.model.path ?? '';
        let folder = currentFolder;
        let name = '';
        if (targetPath) {
          if (targetPath.endsWith('/')) {
            folder = targetPath.replace(/\/+$/, '');
          } else {
            folder = PathExt.dirname(targetPath);
            name = PathExt.basename(targetPath);
          }
        }
        const request = await showCloneDialog({
          initial: {
            bucket: text('s3_bucket'),
            key: text('s3_key'),
            versionId: text('s3_version_id'),
            folder: folder === '.' ? '' : folder,
            name: name || keyBaseName(text('s3_key'))
          },
          trans,
          fromLink: args.fromLink === true,
          allowedBuckets: bookshelf.settings.allowedBuckets,
          probeName
        });
        if (!request) {
          return null;
        }
        return runClone(request);
      }
    });
    palette?.addItem({ command: CommandIDs.clone, category: PALETTE_CATEGORY });

    // The in-app link: {base_url}lab?bookshelf-clone&s3_bucket=…&s3_key=…
    app.commands.addCommand(CommandIDs.openCloneLink, {
      label: trans.__('Open Clone Link'),
      execute: args => {
        const search = (args as IRouter.ILocation).search ?? '';
        const query = readCloneQuery(search);
        removeLinkParameters();
        // Not awaited: Lab finishes restoring only after the routed commands
        // return, and the dialog belongs on top of the restored layout.
        void app.restored.then(() => openLink(query));
      }
    });
    const openLink = (query: ReturnType<typeof readCloneQuery>) => {
      const value = (field: keyof typeof query) => {
        const given = query[field];
        // A repeated parameter: show its first value; the dialog's check
        // does not see repetitions, so refuse them here.
        return Array.isArray(given) ? given[0] : (given ?? '');
      };
      const repeated = Object.entries(query)
        .filter(([, given]) => Array.isArray(given))
        .map(([field]) => field);
      if (repeated.length) {
        Notification.error(
          trans.__(
            'This clone link gives %1 more than once; ask for a corrected link.',
            repeated.join(', ')
          ),
          { autoClose: false }
        );
        return;
      }
      const commandArgs: ReadonlyPartialJSONObject = {
        s3_bucket: value('s3_bucket'),
        s3_key: value('s3_key'),
        target_path: value('target_path'),
        s3_version_id: value('s3_version_id'),
        fromLink: true
      };
      return app.commands.execute(CommandIDs.clone, commandArgs);
    };
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
  let changed = false;
  for (const name of [
    LINK_PARAMETER,
    's3_bucket',
    's3_key',
    'target_path',
    's3_version_id'
  ]) {
    if (url.searchParams.has(name)) {
      url.searchParams.delete(name);
      changed = true;
    }
  }
  if (changed) {
    window.history.replaceState(window.history.state, '', url.href);
  }
}
