import { Dialog, showDialog } from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';
import * as React from 'react';

import '../../style/widgets.css';

import { FocusTrappingBody } from './focusTrap';

import {
  CLONE_FIELDS,
  type CloneField,
  validateCloneRequest
} from '../clone/request';
import { describeError } from '../errors/describe';
import { BookshelfError } from '../errors/errors';
import { isBucketAllowed, keyBaseName, parseS3Url } from '../s3/names';
import type { ICloneRequest } from '../tokens';

/**
 * What the clone dialog edits.
 */
export interface ICloneFormValues {
  bucket: string;
  key: string;
  versionId: string;
  folder: string;
  name: string;
}

/**
 * Properties of the clone form.
 */
export interface ICloneFormProps {
  initial: ICloneFormValues;
  trans: TranslationBundle;
  /** The dialog was opened by a link: allowedBuckets applies. */
  fromLink: boolean;
  allowedBuckets: string[];
  /**
   * Show every problem from the start, also of the fields left empty (the
   * person tried to clone already).
   */
  showAllProblems?: boolean;
  /** The name the file will really get in the folder (first free one). */
  probeName: (folder: string, name: string) => Promise<string | null>;
  onChange: (values: ICloneFormValues, valid: boolean) => void;
}

/**
 * The request a form's values make.
 */
export function requestFromValues(values: ICloneFormValues): ICloneRequest {
  const folder = values.folder.replace(/^\/+|\/+$/g, '');
  const request: ICloneRequest = {
    s3_bucket: values.bucket,
    s3_key: values.key
  };
  const name = values.name || keyBaseName(values.key);
  request.target_path = folder ? `${folder}/${name}` : name;
  if (values.versionId) {
    request.s3_version_id = values.versionId;
  }
  return request;
}

/**
 * The labels of the form's inputs, as the person sees them.
 */
export function inputLabels(trans: TranslationBundle): {
  [input in keyof ICloneFormValues]: string;
} {
  return {
    bucket: trans.__('Bucket'),
    key: trans.__('Key'),
    versionId: trans.__('Version (optional)'),
    folder: trans.__('Folder'),
    name: trans.__('File name')
  };
}

const FIELD_NAMES = new RegExp(`\\b(?:${CLONE_FIELDS.join('|')})\\b`, 'g');

/**
 * A shared rule's message in the dialog's words. The rules name the
 * request's fields (`s3_bucket: …`, `give a target_path`), as the server's
 * JSON errors do; the person sees inputs with labels, so each field name
 * becomes the label of the input where the problem shows (the folder or
 * the file name for a target_path), quoted inside a sentence.
 */
export function inDialogWords(
  message: string,
  input: keyof ICloneFormValues,
  trans: TranslationBundle
): string {
  const labels = inputLabels(trans);
  const byField: { [field in CloneField]: string } = {
    s3_bucket: labels.bucket,
    s3_key: labels.key,
    s3_version_id: labels.versionId,
    target_path: input === 'folder' ? labels.folder : labels.name
  };
  return message.replace(FIELD_NAMES, (field: string, offset: number) => {
    const label = byField[field as CloneField];
    return offset === 0 ? label : trans.__('"%1"', label);
  });
}

/**
 * The problems of the form's values, by input, in the dialog's words. The folder and the name are
 * checked apart so that each problem shows at its own input.
 */
export function formProblems(
  values: ICloneFormValues,
  options: { fromLink: boolean; allowedBuckets: string[] },
  trans: TranslationBundle
): { [input in keyof ICloneFormValues]?: string } {
  const problems: { [input in keyof ICloneFormValues]?: string } = {};
  const source = requestFromValues(values);
  const name = values.name || keyBaseName(values.key);
  const folder = values.folder.replace(/^\/+|\/+$/g, '');
  const checks: [keyof ICloneFormValues, string, ICloneRequest][] = [
    ['bucket', 's3_bucket', source],
    ['key', 's3_key', { ...source, target_path: name }],
    ['versionId', 's3_version_id', source],
    ['name', 'target_path', { ...source, target_path: name }],
    ['folder', 'target_path', { ...source, target_path: `${folder}/` }]
  ];
  for (const [input, field, request] of checks) {
    if (input === 'folder' && !folder) {
      continue;
    }
    const problem = validateCloneRequest(request, trans).find(
      item => item.field === field
    );
    if (problem) {
      problems[input] = inDialogWords(problem.message, input, trans);
    }
  }
  if (!problems.name && name.includes('/')) {
    problems.name = trans.__(
      'A file name has no "/": give the folders in the Folder field.'
    );
  }
  if (
    !problems.bucket &&
    options.fromLink &&
    !isBucketAllowed(values.bucket, options.allowedBuckets)
  ) {
    // The dialog refuses the bucket before any request exists; the words
    // are those of the error (the server's landing page answers it).
    const { message, fix } = describeError(
      new BookshelfError({
        code: 'BucketNotAllowed',
        detail: { bucket: values.bucket }
      }),
      trans
    );
    problems.bucket = `${message} ${fix}`;
  }
  return problems;
}

/**
 * The clone options form.
 */
export function CloneForm(props: ICloneFormProps): JSX.Element {
  const { trans } = props;
  const labels = inputLabels(trans);
  const [values, setValues] = React.useState(props.initial);
  const [nameEdited, setNameEdited] = React.useState(!!props.initial.name);
  const [finalName, setFinalName] = React.useState<string | null>(null);
  // A problem shows once the person typed in its field; a value given to
  // the dialog (a link's, or the one Enter refused) shows its problem at
  // once, but an empty form opened from a menu is not red before anyone
  // typed.
  const [shown, setShown] = React.useState<Set<keyof ICloneFormValues>>(
    () =>
      new Set(
        (Object.keys(props.initial) as (keyof ICloneFormValues)[]).filter(
          input =>
            props.showAllProblems || props.fromLink || props.initial[input]
        )
      )
  );
  const problems = formProblems(values, props, trans);
  const valid = Object.keys(problems).length === 0;
  const shownProblem = (input: keyof ICloneFormValues) =>
    shown.has(input) ? problems[input] : undefined;
  const name = values.name || keyBaseName(values.key);

  React.useEffect(() => {
    props.onChange(values, valid);
  }, [values, valid]);

  // The name the file will really get, once the user stops typing.
  React.useEffect(() => {
    if (!valid) {
      setFinalName(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      void props.probeName(values.folder, name).then(found => {
        if (current) {
          setFinalName(found);
        }
      });
    }, 200);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [values.folder, name, valid]);

  const update = (patch: Partial<ICloneFormValues>) => {
    const typed = Object.keys(patch) as (keyof ICloneFormValues)[];
    // The name follows the key until it is edited: its problems are the
    // key's doing.
    if (!nameEdited && patch.key !== undefined) {
      typed.push('name');
    }
    setShown(previous => new Set([...previous, ...typed]));
    setValues(previous => {
      const next = { ...previous, ...patch };
      if (!nameEdited && patch.key !== undefined) {
        next.name = keyBaseName(next.key);
      }
      return next;
    });
  };

  // An s3://bucket/key address pasted in either source field is split.
  const onSourceChange = (input: 'bucket' | 'key', text: string) => {
    const parsed = parseS3Url(text.trim());
    if (parsed) {
      update({ bucket: parsed.s3_bucket, key: parsed.s3_key });
    } else {
      update({ [input]: text });
    }
  };

  const field = (
    input: keyof ICloneFormValues,
    label: string,
    element: JSX.Element
  ) => (
    // The label holds only its words, so that they alone name the input; the
    // problem is its description.
    <div className="jp-Bookshelf-field">
      <label htmlFor={`jp-bookshelf-clone-${input}`}>{label}</label>
      {element}
      {shownProblem(input) ? (
        <span
          className="jp-Bookshelf-field-error"
          id={`jp-bookshelf-clone-${input}-error`}
          role="alert"
        >
          {shownProblem(input)}
        </span>
      ) : null}
    </div>
  );

  const inputProps = (input: keyof ICloneFormValues) => ({
    id: `jp-bookshelf-clone-${input}`,
    name: input,
    className: shownProblem(input)
      ? 'jp-mod-styled jp-Bookshelf-input jp-mod-invalid'
      : 'jp-mod-styled jp-Bookshelf-input',
    'aria-invalid': shownProblem(input) ? true : undefined,
    'aria-describedby': shownProblem(input)
      ? `jp-bookshelf-clone-${input}-error`
      : undefined,
    spellCheck: false,
    autoComplete: 'off'
  });

  const destination = values.folder
    ? `${values.folder.replace(/^\/+|\/+$/g, '')}/${finalName ?? name}`
    : (finalName ?? name);

  return (
    <form
      className="jp-Bookshelf-form jp-Bookshelf-cloneForm"
      onSubmit={event => event.preventDefault()}
    >
      <fieldset className="jp-Bookshelf-fieldset">
        <legend>{trans.__('From S3')}</legend>
        {field(
          'bucket',
          labels.bucket,
          <input
            {...inputProps('bucket')}
            value={values.bucket}
            autoFocus
            placeholder={trans.__('bucket, or paste s3://bucket/key')}
            onChange={event => onSourceChange('bucket', event.target.value)}
          />
        )}
        {field(
          'key',
          labels.key,
          <input
            {...inputProps('key')}
            value={values.key}
            placeholder={trans.__('folder/notebook.ipynb')}
            onChange={event => onSourceChange('key', event.target.value)}
          />
        )}
        {field(
          'versionId',
          labels.versionId,
          <input
            {...inputProps('versionId')}
            value={values.versionId}
            placeholder={trans.__('latest')}
            onChange={event => update({ versionId: event.target.value })}
          />
        )}
      </fieldset>
      <fieldset className="jp-Bookshelf-fieldset">
        <legend>{trans.__('To')}</legend>
        {field(
          'folder',
          labels.folder,
          <input
            {...inputProps('folder')}
            value={values.folder}
            placeholder={trans.__('(the root folder)')}
            onChange={event => update({ folder: event.target.value })}
          />
        )}
        {field(
          'name',
          labels.name,
          <input
            {...inputProps('name')}
            value={values.name}
            onChange={event => {
              setNameEdited(true);
              update({ name: event.target.value });
            }}
          />
        )}
      </fieldset>
      <p className="jp-Bookshelf-clone-destination" aria-live="polite">
        {valid
          ? finalName && finalName !== name
            ? trans.__(
                '"%1" exists already: the copy will be saved as "%2".',
                name,
                destination
              )
            : trans.__('Will be saved as "%1".', destination)
          : ''}
      </p>
      <p className="jp-Bookshelf-clone-trust">
        {trans.__(
          'Clone only from sources you trust. A cloned notebook is not trusted: its outputs run no script until you trust it.'
        )}
      </p>
    </form>
  );
}

/**
 * The body of the clone dialog.
 */
class CloneDialogBody
  extends FocusTrappingBody
  implements Dialog.IBodyWidget<ICloneFormValues>
{
  constructor(private readonly _props: Omit<ICloneFormProps, 'onChange'>) {
    super();
    this.addClass('jp-Bookshelf-cloneDialog');
    this._values = _props.initial;
  }

  getValue(): ICloneFormValues {
    return this._values;
  }

  protected render(): JSX.Element {
    return (
      <CloneForm
        {...this._props}
        onChange={(values, valid) => {
          this._values = values;
          this._setAcceptEnabled(valid);
        }}
      />
    );
  }

  // The form enables the button itself. It marks problems with
  // `jp-mod-invalid`, not `jp-mod-error`: the dialog's own check reads that
  // class at each 'input' event, before React has re-rendered, and would
  // then refuse Enter on values that are valid by now.
  private _setAcceptEnabled(enabled: boolean): void {
    const dialog = this.node.closest('.jp-Dialog');
    const accept = dialog?.querySelector<HTMLButtonElement>(
      '.jp-Dialog-button.jp-mod-accept'
    );
    if (accept) {
      accept.disabled = !enabled;
    }
  }

  private _values: ICloneFormValues;
}

/**
 * Show the clone dialog until the values are valid or the user cancels;
 * resolves to the request to clone, or null.
 */
export async function showCloneDialog(
  props: Omit<ICloneFormProps, 'onChange'>
): Promise<ICloneRequest | null> {
  const { trans } = props;
  let initial = props.initial;
  let showAllProblems = props.showAllProblems;
  for (;;) {
    const result = await showDialog({
      title: trans.__('Clone from S3'),
      body: new CloneDialogBody({ ...props, initial, showAllProblems }),
      buttons: [
        Dialog.cancelButton({ label: trans.__('Cancel') }),
        Dialog.okButton({ label: trans.__('Clone') })
      ],
      focusNodeSelector: 'input[name="bucket"]'
    });
    if (!result.button.accept || !result.value) {
      return null;
    }
    initial = result.value;
    // Enter on an incomplete form: now every problem is the person's to see.
    showAllProblems = true;
    // Enter confirms even when the button is disabled: check again.
    if (Object.keys(formProblems(initial, props, trans)).length === 0) {
      return requestFromValues(initial);
    }
  }
}
