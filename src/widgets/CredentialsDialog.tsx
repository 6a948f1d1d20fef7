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
    const accessKeyId = this._values.accessKeyId.trim();
    const secretAccessKey = this._values.secretAccessKey.trim();
    if (!accessKeyId || !secretAccessKey) {
      return null;
    }
    return {
      accessKeyId,
      secretAccessKey,
      sessionToken: this._values.sessionToken.trim() || undefined
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
        {this._fields().map(field => (
          <label className="jp-Bookshelf-field" key={field.name}>
            <span>{field.label}</span>
            <input
              className="jp-mod-styled"
              name={field.name}
              type={field.secret ? 'password' : 'text'}
              autoFocus={field.name === 'accessKeyId'}
              spellCheck={false}
              onChange={event => {
                this._values[field.name] = event.target.value;
              }}
            />
          </label>
        ))}
      </form>
    );
  }

  private _fields(): {
    name: keyof CredentialsForm['_values'];
    label: string;
    secret: boolean;
  }[] {
    const trans = this._trans;
    return [
      { name: 'accessKeyId', label: trans.__('Access key id'), secret: false },
      {
        name: 'secretAccessKey',
        label: trans.__('Secret access key'),
        secret: true
      },
      {
        name: 'sessionToken',
        label: trans.__('Session token (optional)'),
        secret: true
      }
    ];
  }

  private _values = { accessKeyId: '', secretAccessKey: '', sessionToken: '' };
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
