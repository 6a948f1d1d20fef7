import { Dialog, showDialog } from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';
import type { Message } from '@lumino/messaging';
import * as React from 'react';

import '../../style/widgets.css';

import { FocusTrappingBody } from './focusTrap';

import { describeError } from '../errors/describe';
import type { IPublishTargetInfo, OverwritePolicy } from '../tokens';

/**
 * What the publish dialog returns.
 */
export interface IPublishChoice {
  /** The path below the publish prefix. */
  destination: string;
  /** Replace the object that was shown. */
  overwrite: boolean;
  /** The ETag of the object that was shown, for a compare-and-swap. */
  ifMatch?: string;
}

/**
 * Properties of the publish form.
 */
export interface IPublishFormProps {
  trans: TranslationBundle;
  bucket: string;
  prefix: string;
  /** The notebook's path, the default destination. */
  path: string;
  policy: OverwritePolicy;
  /** Where a destination would go and what is there. */
  lookUp: (destination: string) => Promise<IPublishTargetInfo>;
  onChange: (choice: IPublishChoice | null) => void;
}

type LookUpState =
  | { state: 'checking' }
  | { state: 'done'; target: IPublishTargetInfo }
  | { state: 'failed'; message: string };

/**
 * The publish form: the destination, editable, and what is there now.
 */
export function PublishForm(props: IPublishFormProps): JSX.Element {
  const { trans, policy } = props;
  const [destination, setDestination] = React.useState(props.path);
  const [lookUp, setLookUp] = React.useState<LookUpState>({
    state: 'checking'
  });

  React.useEffect(() => {
    let current = true;
    setLookUp({ state: 'checking' });
    const timer = setTimeout(() => {
      props.lookUp(destination).then(
        target => current && setLookUp({ state: 'done', target }),
        error => {
          if (current) {
            const description = describeError(error, trans);
            setLookUp({
              state: 'failed',
              message: [description.message, description.fix]
                .filter(Boolean)
                .join(' ')
            });
          }
        }
      );
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [destination]);

  const existing = lookUp.state === 'done' ? lookUp.target.existing : null;
  const blocked =
    lookUp.state !== 'done' || (existing !== null && policy === 'never');
  React.useEffect(() => {
    props.onChange(
      blocked
        ? null
        : {
            destination,
            overwrite: existing !== null,
            ifMatch: existing?.etag
          }
    );
  }, [blocked, destination, existing]);

  let status: string;
  if (lookUp.state === 'checking') {
    status = trans.__('Looking at the destination…');
  } else if (lookUp.state === 'failed') {
    status = lookUp.message;
  } else if (!existing) {
    status = trans.__('Nothing is there yet: publishing creates it.');
  } else {
    const when = existing.lastModified
      ? new Date(existing.lastModified).toLocaleString()
      : trans.__('an unknown time');
    status =
      policy === 'never'
        ? trans.__(
            'A notebook is there already (last modified %1), and the overwrite policy is "never": choose another path.',
            when
          )
        : policy === 'always'
          ? trans.__(
              'A notebook is there already (last modified %1): publishing replaces it.',
              when
            )
          : trans.__(
              'A notebook is there already (last modified %1). Publishing replaces that version; if someone publishes another meanwhile, nothing is replaced and you are told.',
              when
            );
  }
  const failed =
    lookUp.state === 'failed' || (existing !== null && policy === 'never');

  return (
    <form
      className="jp-Bookshelf-form jp-Bookshelf-publishForm"
      onSubmit={event => event.preventDefault()}
    >
      {/* The label holds only its words; the fixed part of the address
          and what is there describe the input. */}
      <div className="jp-Bookshelf-field">
        <label htmlFor="jp-bookshelf-publish-path">
          {trans.__('Publish to')}
        </label>
        <span className="jp-Bookshelf-publish-destination">
          <code
            className="jp-Bookshelf-publish-prefix"
            id="jp-bookshelf-publish-prefix"
          >
            {`s3://${props.bucket}/${props.prefix}`}
          </code>
          <input
            id="jp-bookshelf-publish-path"
            name="destination"
            className="jp-mod-styled jp-Bookshelf-input"
            value={destination}
            autoFocus
            spellCheck={false}
            autoComplete="off"
            aria-describedby="jp-bookshelf-publish-prefix jp-bookshelf-publish-status"
            onChange={event => setDestination(event.target.value)}
          />
        </span>
      </div>
      <p
        id="jp-bookshelf-publish-status"
        className={
          failed
            ? 'jp-Bookshelf-publish-status jp-mod-invalid'
            : 'jp-Bookshelf-publish-status'
        }
        data-state={
          lookUp.state === 'done' ? (existing ? 'exists' : 'new') : lookUp.state
        }
        aria-live="polite"
      >
        {status}
      </p>
    </form>
  );
}

/**
 * The body of the publish dialog.
 */
class PublishDialogBody
  extends FocusTrappingBody
  implements Dialog.IBodyWidget<IPublishChoice | null>
{
  constructor(private readonly _props: Omit<IPublishFormProps, 'onChange'>) {
    super();
    this.addClass('jp-Bookshelf-publishDialog');
  }

  getValue(): IPublishChoice | null {
    return this._choice;
  }

  protected render(): JSX.Element {
    return (
      <PublishForm
        {...this._props}
        onChange={choice => {
          this._choice = choice;
          const accept = this._acceptButton();
          if (accept) {
            const replace =
              !!choice?.overwrite && this._props.policy !== 'never';
            accept.disabled = choice === null;
            accept.textContent = replace
              ? this._props.trans.__('Replace')
              : this._props.trans.__('Publish');
            // JupyterLab's style for an action that replaces something.
            accept.classList.toggle('jp-mod-warn', replace);
          }
        }}
      />
    );
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    // Nothing to accept until the form has looked at the destination (it
    // renders a frame later): Enter or a click before would publish nothing.
    const accept = this._acceptButton();
    if (accept && this._choice === null) {
      accept.disabled = true;
    }
  }

  private _acceptButton(): HTMLButtonElement | null {
    return (
      this.node
        .closest('.jp-Dialog')
        ?.querySelector<HTMLButtonElement>('.jp-Dialog-button.jp-mod-accept') ??
      null
    );
  }

  private _choice: IPublishChoice | null = null;
}

/**
 * Show the publish dialog; resolves to the choice, or null when cancelled.
 */
export async function showPublishDialog(
  props: Omit<IPublishFormProps, 'onChange'>
): Promise<IPublishChoice | null> {
  const { trans } = props;
  const result = await showDialog({
    title: trans.__('Publish Notebook'),
    body: new PublishDialogBody(props),
    buttons: [
      Dialog.cancelButton({ label: trans.__('Cancel') }),
      Dialog.okButton({ label: trans.__('Publish') })
    ],
    focusNodeSelector: 'input[name="destination"]'
  });
  // Enter confirms even while the button is disabled: the value says.
  return result.button.accept ? result.value : null;
}
