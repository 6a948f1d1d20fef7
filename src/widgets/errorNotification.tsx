import {
  Clipboard,
  Dialog,
  Notification,
  showDialog
} from '@jupyterlab/apputils';
import type { TranslationBundle } from '@jupyterlab/translation';
import * as React from 'react';

import { describeError, IErrorDescription } from '../errors/describe';

/**
 * The whole description of an error: message, fix and the CORS rule to add.
 */
export function ErrorDetails(props: {
  description: IErrorDescription;
  trans: TranslationBundle;
}): JSX.Element {
  const { description, trans } = props;
  return (
    <div className="jp-Bookshelf-errorDetails">
      <p className="jp-Bookshelf-error-message">{description.message}</p>
      {description.fix && (
        <p className="jp-Bookshelf-error-fix">
          <strong>{trans.__('Fix:')}</strong> {description.fix}
        </p>
      )}
      {description.rule && (
        <pre className="jp-Bookshelf-error-rule">{description.rule}</pre>
      )}
      {description.requestId && (
        <p className="jp-Bookshelf-error-requestId">
          {trans.__('S3 request id (for the administrator of the S3 service):')}{' '}
          <code>{description.requestId}</code>
        </p>
      )}
    </div>
  );
}

/**
 * Show an error as a notification that stays, with the message and the fix.
 * Lab shortens a notification's text to 140 characters, so a "Show Details"
 * action opens the whole description (and the CORS rule, with a copy
 * button) in a dialog; `actions` offer what can be done instead.
 */
export function notifyError(
  error: unknown,
  trans: TranslationBundle,
  actions: Notification.IAction[] = []
): IErrorDescription {
  const description = describeError(error, trans);
  const showDetails = () => {
    const buttons = [Dialog.okButton({ label: trans.__('Close') })];
    if (description.rule) {
      buttons.unshift(
        Dialog.createButton({
          label: trans.__('Copy Rule'),
          actions: ['copy-rule']
        })
      );
    }
    void showDialog({
      title: description.title,
      body: <ErrorDetails description={description} trans={trans} />,
      buttons
    }).then(result => {
      if (result.button.actions.includes('copy-rule') && description.rule) {
        // The browser's copy command, as CopyButton does (navigator.clipboard
        // is missing outside secure contexts).
        Clipboard.copyToSystem(description.rule);
      }
    });
  };
  Notification.error(
    [description.message, description.fix].filter(Boolean).join(' '),
    {
      autoClose: false,
      actions: [
        {
          label: trans.__('Show Details'),
          callback: event => {
            event.preventDefault();
            showDetails();
          },
          displayType: 'link'
        },
        ...actions
      ]
    }
  );
  return description;
}
