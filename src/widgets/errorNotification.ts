import { Dialog, Notification, showDialog } from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import type { IErrorDescription } from '../messages';

/**
 * Tell the person that something failed: a notification with what happened
 * and what to do. Lab shortens long notifications, so a Details action
 * shows the whole text in a dialog.
 */
export function notifyFailure(
  trans: TranslationBundle,
  description: IErrorDescription
): string {
  return Notification.error(
    [description.message, description.fix].filter(Boolean).join(' '),
    {
      autoClose: false,
      actions: [
        {
          label: trans.__('Details'),
          caption: trans.__('What happened, and what to do'),
          callback: event => {
            // Keep the notification open.
            event.preventDefault();
            void showDialog({
              title: description.title,
              body: detailsBody(description),
              buttons: [Dialog.okButton({ label: trans.__('Close') })]
            });
          }
        }
      ]
    }
  );
}

/**
 * The dialog's body: the texts as text (never as HTML), lines kept.
 */
function detailsBody(description: IErrorDescription): Widget {
  const body = new Widget();
  body.addClass('jp-Bookshelf-errorDetails');
  for (const text of [description.message, description.fix]) {
    if (text) {
      const paragraph = document.createElement('p');
      paragraph.textContent = text;
      body.node.appendChild(paragraph);
    }
  }
  return body;
}
