/**
 * What the clone commands do: the dialog, the transfer with its
 * notification, and what follows. Loaded on first use by the clone plugin.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { PathExt } from '@jupyterlab/coreutils';
import {
  formatFileSize,
  type IDefaultFileBrowser
} from '@jupyterlab/filebrowser';
import type { Contents } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';

import { sizeLimitBytes } from '../clone/content';
import { candidateNames } from '../clone/naming';
import { readCloneQuery, validateCloneRequest } from '../clone/request';
import { dialogTarget, treeFolder } from '../clone/target';
import { CommandIDs } from '../commands';
import { isCancelled } from '../errors/errors';
import { keyBaseName } from '../s3/names';
import type { IBookshelf, ICloneRequest } from '../tokens';
import { showCloneDialog } from '../widgets/CloneDialog';
import { notifyError } from '../widgets/errorNotification';
import {
  cloneOnServer,
  isCorsRefusal,
  serverAccess,
  withServerNotification
} from './serverSide';
import { withTransferNotification } from '../widgets/transferNotification';

/**
 * What the clone actions work with.
 */
export interface ICloneContext {
  app: JupyterFrontEnd;
  bookshelf: IBookshelf;
  trans: TranslationBundle;
  browser: IDefaultFileBrowser | null;
  /** The folder or file of a /lab/tree/… address, which Lab opens. */
  tree?: JupyterFrontEnd.ITreeResolver | null;
}

/**
 * The first free name for a file in a folder, as the clone will pick it;
 * null when the folder does not exist.
 */
export async function probeFreeName(
  contents: Contents.IManager,
  folder: string,
  name: string
): Promise<string | null> {
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
}

/**
 * Clone with progress, then select and open the file; errors are shown.
 */
export async function runClone(
  context: ICloneContext,
  request: ICloneRequest
): Promise<Contents.IModel | null> {
  const { app, bookshelf, trans } = context;
  const label = trans.__(
    'Cloning s3://%1/%2',
    request.s3_bucket,
    request.s3_key
  );
  try {
    const model = await withTransferNotification(
      trans,
      label,
      // The dialog showed where the file goes: its folder is made if need be.
      (signal, onProgress) =>
        bookshelf.clone(request, { signal, onProgress, createFolders: true })
    );
    await finishClone(context, request, model);
    return model;
  } catch (error) {
    if (isCancelled(error)) {
      Notification.info(
        trans.__('The clone was cancelled; nothing was written.'),
        { autoClose: 5000 }
      );
      return null;
    }
    // A bucket whose CORS rules refuse this page: the server, when the
    // administrator lets it, can clone without them.
    if (
      isCorsRefusal(error) &&
      (await serverAccess(app.serviceManager.serverSettings))
    ) {
      notifyError(error, trans, [
        {
          label: trans.__('Clone on the Server'),
          caption: trans.__(
            "Let the Jupyter server clone s3://%1/%2: it is not bound by the bucket's CORS rules",
            request.s3_bucket,
            request.s3_key
          ),
          callback: event => {
            event.preventDefault();
            void runCloneOnServer(context, request);
          }
        }
      ]);
      return null;
    }
    notifyError(error, trans);
    return null;
  }
}

/**
 * Clone on the Jupyter server (server-side mode), then as a clone in the
 * page ends: the file shown, opened and announced.
 */
export async function runCloneOnServer(
  context: ICloneContext,
  request: ICloneRequest
): Promise<Contents.IModel | null> {
  const { app, trans } = context;
  return withServerNotification(
    trans.__(
      'Cloning s3://%1/%2 on the Jupyter server',
      request.s3_bucket,
      request.s3_key
    ),
    reason =>
      trans.__(
        'The Jupyter server could not clone s3://%1/%2: %3',
        request.s3_bucket,
        request.s3_key,
        reason
      ),
    async () => {
      const model = await cloneOnServer(
        request,
        app.serviceManager.serverSettings
      );
      await finishClone(context, request, model);
      return model;
    }
  );
}

/**
 * What follows a clone: the file selected in the file browser, opened
 * (unless it is large) and announced.
 */
async function finishClone(
  context: ICloneContext,
  request: ICloneRequest,
  model: Contents.IModel
): Promise<void> {
  const { app, bookshelf, trans, browser } = context;
  if (browser) {
    // Not awaited: selecting waits for the file browser's next refresh,
    // which a poll may hold back for seconds; the file is there already.
    void revealInFileBrowser(browser, model);
  }
  const { openAfterClone, openAfterCloneMaxMB } = bookshelf.settings;
  // Opening a very large notebook keeps the tab busy for long: ask first.
  const large =
    typeof model.size === 'number' &&
    model.size > sizeLimitBytes(openAfterCloneMaxMB);
  if (openAfterClone && !large) {
    await app.commands.execute('docmanager:open', { path: model.path });
  }
  const cloned = trans.__(
    'Cloned s3://%1/%2 to %3.',
    request.s3_bucket,
    request.s3_key,
    model.path
  );
  Notification.success(
    openAfterClone && large
      ? trans.__(
          '%1 It is %2, so it was not opened by itself: opening it can keep this tab busy for a while.',
          cloned,
          formatFileSize(model.size!, 1, 1024)
        )
      : cloned,
    {
      autoClose: openAfterClone && large ? false : 5000,
      // Also for Notebook 7, which opens documents in a new browser tab
      // that a popup blocker may have stopped.
      actions: [
        {
          label: trans.__('Open'),
          caption: trans.__('Open %1', model.path),
          callback: () =>
            void app.commands.execute('docmanager:open', {
              path: model.path
            })
        }
      ]
    }
  );
}

/**
 * Show the new file in the file browser: its folder, with the file selected.
 * Only once Lab has restored the browser's folder: its restore goes to the
 * root, then to the saved folder by a relative path, so a folder shown in
 * between would be joined to it ("Directory not found: …", and the browser
 * back at the root; a clone from a link can end that early).
 */
async function revealInFileBrowser(
  browser: IDefaultFileBrowser,
  model: Contents.IModel
): Promise<void> {
  try {
    await browser.model.restored;
    await browser.model.cd(`/${PathExt.dirname(model.path)}`);
    await browser.selectItemByName(model.name);
  } catch {
    // The person may have moved on (another folder, the file renamed): the
    // clone itself succeeded.
  }
}

/**
 * The folder the file browser shows. A link opens the dialog during
 * start-up: the browser's folder is the one Lab restores from the workspace
 * (the model starts at the root), so wait for that restore first. A
 * /lab/tree/… address names the folder (or a file in it) that Lab opens
 * after that restore: that folder.
 */
async function shownFolder(
  context: ICloneContext,
  fromLink: boolean
): Promise<string> {
  const { app, browser, tree } = context;
  if (!browser) {
    return '';
  }
  // The address Lab was opened at: a link's, not the one of a later clone.
  const paths = fromLink ? await tree?.paths : null;
  const folder = await treeFolder(paths ?? null, async path => {
    const model = await app.serviceManager.contents.get(path, {
      content: false
    });
    return model.type === 'directory';
  });
  if (folder !== null) {
    return folder;
  }
  await browser.model.restored;
  return browser.model.path;
}

/**
 * The clone command: the dialog, prefilled from the arguments, then the
 * clone.
 */
export async function executeClone(
  context: ICloneContext,
  args: ReadonlyPartialJSONObject
): Promise<Contents.IModel | null> {
  const { app, bookshelf, trans } = context;
  const text = (name: string) =>
    typeof args[name] === 'string' ? (args[name] as string) : '';
  const { folder, name } = await dialogTarget({
    targetPath: text('target_path'),
    cwd: typeof args.cwd === 'string' ? args.cwd : undefined,
    browserFolder: () => shownFolder(context, args.fromLink === true)
  });
  // The person reads the dialog meanwhile: the clone's code and the S3 SDK
  // load now (about 300 KB the first time), not after their click.
  bookshelf.prepareClone();
  const request = await showCloneDialog({
    initial: {
      bucket: text('s3_bucket'),
      key: text('s3_key'),
      versionId: text('s3_version_id'),
      folder,
      name: name || keyBaseName(text('s3_key'))
    },
    trans,
    fromLink: args.fromLink === true,
    allowedBuckets: bookshelf.settings.allowedBuckets,
    probeName: (f, n) => probeFreeName(app.serviceManager.contents, f, n)
  });
  if (!request) {
    return null;
  }
  return runClone(context, request);
}

/**
 * Open the clone dialog for a link's query string. A link only ever opens
 * the dialog; the user's click clones.
 */
export async function openCloneLink(
  context: ICloneContext,
  search: string
): Promise<unknown> {
  const { app, trans } = context;
  const query = readCloneQuery(search);
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
  // The dialog shows a target_path split into folder and name, which
  // would hide some of its problems: a link's must be valid as it is.
  const targetProblem = validateCloneRequest(query, trans).find(
    problem => problem.field === 'target_path'
  );
  if (targetProblem) {
    Notification.error(
      trans.__(
        'This clone link is not valid (%1); ask for a corrected link.',
        targetProblem.message
      ),
      { autoClose: false }
    );
    return;
  }
  const value = (field: keyof typeof query) => (query[field] as string) ?? '';
  return app.commands.execute(CommandIDs.clone, {
    s3_bucket: value('s3_bucket'),
    s3_key: value('s3_key'),
    target_path: value('target_path'),
    s3_version_id: value('s3_version_id'),
    fromLink: true
  });
}
