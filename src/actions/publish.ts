/**
 * What the publish command does: unsaved changes, the dialog, the upload
 * with its notification, and the result. Loaded on first use.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import {
  Clipboard,
  Dialog,
  Notification,
  showDialog
} from '@jupyterlab/apputils';
import type { IDocumentManager } from '@jupyterlab/docmanager';
import type { TranslationBundle } from '@jupyterlab/translation';

import { describeError } from '../errors/describe';
import {
  BookshelfError,
  isBookshelfError,
  isCancelled,
  publishNotConfigured
} from '../errors/errors';
import type { IBookshelf, IPublishResult } from '../tokens';
import { showPublishDialog } from '../widgets/PublishDialog';
import {
  IServerPublishOptions,
  isCorsRefusal,
  publishOnServer,
  serverAccess,
  withServerNotification
} from './serverSide';
import { notifyError } from '../widgets/errorNotification';
import { withTransferNotification } from '../widgets/transferNotification';

/**
 * What the publish action works with.
 */
export interface IPublishContext {
  app: JupyterFrontEnd;
  bookshelf: IBookshelf;
  trans: TranslationBundle;
  docManager: IDocumentManager | null;
  openSettings: () => void;
}

/**
 * Tell the person that publishing is not set up (in the error's words),
 * with a way to fix it.
 */
async function showNotConfigured(
  context: IPublishContext,
  error: BookshelfError<'PublishNotConfigured'> = publishNotConfigured()
): Promise<void> {
  const { trans } = context;
  // The message says what to set (the rule's words, as the server's).
  const { title, message } = describeError(error, trans);
  const result = await showDialog({
    title,
    body: message,
    buttons: [
      Dialog.cancelButton({ label: trans.__('Close') }),
      Dialog.okButton({ label: trans.__('Open Settings') })
    ]
  });
  if (result.button.accept) {
    context.openSettings();
  }
}

/**
 * With unsaved changes, ask: save and publish, publish the saved version,
 * or cancel. Resolves to false when the person cancels.
 */
async function settleUnsavedChanges(
  context: IPublishContext,
  path: string
): Promise<boolean> {
  const { docManager, trans } = context;
  const widget = docManager?.findWidget(path);
  const documentContext = widget ? docManager?.contextForWidget(widget) : null;
  if (!documentContext || !documentContext.model.dirty) {
    return true;
  }
  const saveButton = Dialog.okButton({
    label: trans.__('Save and Publish'),
    caption: trans.__('Save the notebook, then publish it')
  });
  const savedButton = Dialog.warnButton({
    label: trans.__('Publish Saved Version'),
    caption: trans.__('Publish the notebook as it was last saved')
  });
  const result = await showDialog({
    title: trans.__('Unsaved changes'),
    body: trans.__(
      '"%1" has changes that are not saved. Publish publishes the saved notebook.',
      path
    ),
    buttons: [
      Dialog.cancelButton({ label: trans.__('Cancel') }),
      savedButton,
      saveButton
    ],
    defaultButton: 2
  });
  if (result.button.label === saveButton.label) {
    try {
      await documentContext.save();
    } catch {
      // The document context has shown the server's error already.
      Notification.error(
        trans.__(
          '"%1" could not be saved, so nothing was published. Save it, then publish again.',
          path
        ),
        { autoClose: false }
      );
      return false;
    }
    return true;
  }
  return result.button.label === savedButton.label;
}

/**
 * Show what was published, with actions to copy the link and the path.
 */
function notifyPublished(
  trans: TranslationBundle,
  result: IPublishResult
): void {
  const message = result.version_id
    ? trans.__('Published version %1 to %2.', result.version_id, result.s3_path)
    : trans.__('Published to %1.', result.s3_path);
  // Each button says when it has copied, as the person cannot see the
  // clipboard.
  const copyLink = (event: Event) => {
    event.preventDefault();
    Clipboard.copyToSystem(result.clone_url);
    show('link');
  };
  const actions = (copied: 'link' | 'path' | null): Notification.IAction[] => [
    // The label says the link's form: a hub link opens in the server of
    // whoever follows it, a server link only in this one.
    result.link_form === 'hub'
      ? {
          label:
            copied === 'link'
              ? trans.__('Hub Link Copied')
              : trans.__('Copy Hub Link'),
          caption: trans.__(
            'Copy a JupyterHub link that opens the clone dialog for this notebook in the server of whoever follows it'
          ),
          callback: copyLink
        }
      : {
          label:
            copied === 'link' ? trans.__('Link Copied') : trans.__('Copy Link'),
          caption:
            result.link_form === 'lite'
              ? trans.__(
                  'Copy a link to this JupyterLite site that opens the clone dialog for this notebook'
                )
              : trans.__(
                  'Copy a link to this Jupyter server that opens the clone dialog for this notebook'
                ),
          callback: copyLink
        },
    {
      label:
        copied === 'path'
          ? trans.__('S3 Path Copied')
          : trans.__('Copy S3 Path'),
      caption: result.s3_path,
      callback: event => {
        event.preventDefault();
        Clipboard.copyToSystem(result.s3_path);
        show('path');
      }
    }
  ];
  const id = Notification.success(message, {
    autoClose: false,
    actions: actions(null)
  });
  const show = (copied: 'link' | 'path') =>
    Notification.update({
      id,
      message,
      type: 'success',
      autoClose: false,
      actions: actions(copied)
    });
}

/**
 * Publish the notebook at `path`: the dialog, then the upload.
 */
export async function executePublish(
  context: IPublishContext,
  path: string
): Promise<IPublishResult | null> {
  const { bookshelf, trans } = context;
  const settings = bookshelf.settings;
  if (!settings.publishBucket) {
    await showNotConfigured(context);
    return null;
  }
  if (!(await settleUnsavedChanges(context, path))) {
    return null;
  }
  const choice = await showPublishDialog({
    trans,
    bucket: settings.publishBucket,
    prefix: settings.publishPrefix,
    path,
    policy: settings.overwritePolicy,
    lookUp: destination => bookshelf.publishTarget(path, destination)
  });
  if (!choice) {
    return null;
  }
  try {
    const result = await withTransferNotification(
      trans,
      trans.__('Publishing %1', path),
      (signal, onProgress) =>
        bookshelf.publish(path, {
          destination: choice.destination,
          overwrite: choice.overwrite,
          ifMatch: choice.ifMatch,
          signal,
          onProgress
        })
    );
    notifyPublished(trans, result);
    return result;
  } catch (error) {
    if (isCancelled(error)) {
      Notification.info(trans.__('Publishing was cancelled.'), {
        autoClose: 5000
      });
      return null;
    }
    if (isBookshelfError(error, 'PublishNotConfigured')) {
      await showNotConfigured(context, error);
      return null;
    }
    // A bucket whose CORS rules refuse this page: the server, when the
    // administrator lets it, can publish without them.
    if (
      isCorsRefusal(error) &&
      (await serverAccess(context.app.serviceManager.serverSettings))
    ) {
      notifyError(error, trans, [
        {
          label: trans.__('Publish on the Server'),
          caption: trans.__(
            "Let the Jupyter server publish %1: it is not bound by the bucket's CORS rules",
            path
          ),
          callback: event => {
            event.preventDefault();
            void runPublishOnServer(context, path, choice);
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
 * Publish the saved notebook on the Jupyter server (server-side mode) with
 * the choices of the dialog, then show the result as a publish in the page
 * does.
 */
export async function runPublishOnServer(
  context: IPublishContext,
  path: string,
  choice: IServerPublishOptions
): Promise<IPublishResult | null> {
  const { trans } = context;
  return withServerNotification(
    trans.__('Publishing %1 on the Jupyter server', path),
    reason =>
      trans.__('The Jupyter server could not publish %1: %2', path, reason),
    async () => {
      const result = await publishOnServer(
        path,
        choice,
        context.app.serviceManager.serverSettings
      );
      notifyPublished(trans, result);
      return result;
    }
  );
}
