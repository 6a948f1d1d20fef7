import { Dialog, ReactWidget, showDialog } from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';
import * as React from 'react';

import '../../style/widgets.css';

import type { ICredentials } from '../s3/credentials';

/**
 * The form of the session credentials dialog. Values live in the form's
 * memory only until the dialog closes.
 */
class CredentialsForm
  extends ReactWidget
  implements Dialog.IBodyWidget<ICredentials | null>
{
  constructor(private readonly _trans: TranslationBundle) {
    super();
    this.addClass('jp-Bookshelf-credentialsForm');
  }

  getValue(): ICredentials | null {
    const accessKeyId = this._accessKeyId.trim();
    const secretAccessKey = this._secretAccessKey.trim();
    if (!accessKeyId || !secretAccessKey) {
      return null;
    }
    return {
      accessKeyId,
      secretAccessKey,
      sessionToken: this._sessionToken.trim() || undefined
    };
  }

  protected render(): JSX.Element {
    const trans = this._trans;
    return (
      <form
        className="jp-Bookshelf-form"
        autoComplete="off"
        onSubmit={event => event.preventDefault()}
      >
        <p>
          {trans.__(
            'Bookshelf keeps these credentials in this browser tab only, until you reload it or run "Forget S3 Credentials".'
          )}
        </p>
        <label className="jp-Bookshelf-field">
          <span>{trans.__('Access key id')}</span>
          <input
            className="jp-mod-styled"
            name="accessKeyId"
            autoFocus
            spellCheck={false}
            onChange={event => {
              this._accessKeyId = event.target.value;
            }}
          />
        </label>
        <label className="jp-Bookshelf-field">
          <span>{trans.__('Secret access key')}</span>
          <input
            className="jp-mod-styled"
            name="secretAccessKey"
            type="password"
            spellCheck={false}
            onChange={event => {
              this._secretAccessKey = event.target.value;
            }}
          />
        </label>
        <label className="jp-Bookshelf-field">
          <span>{trans.__('Session token (optional)')}</span>
          <input
            className="jp-mod-styled"
            name="sessionToken"
            type="password"
            spellCheck={false}
            onChange={event => {
              this._sessionToken = event.target.value;
            }}
          />
        </label>
      </form>
    );
  }

  private _accessKeyId = '';
  private _secretAccessKey = '';
  private _sessionToken = '';
}

/**
 * Ask the person for S3 credentials; null when they cancel.
 */
export async function askForCredentials(
  trans: TranslationBundle
): Promise<ICredentials | null> {
  const result = await showDialog({
    title: trans.__('S3 Credentials'),
    body: new CredentialsForm(trans),
    buttons: [
      Dialog.cancelButton({ label: trans.__('Cancel') }),
      Dialog.okButton({ label: trans.__('Use for This Tab') })
    ],
    focusNodeSelector: 'input[name="accessKeyId"]'
  });
  return result.button.accept ? result.value : null;
}
