/**
 * The clone form as a person meets it: its labelled fields, what typing
 * does, the problems it shows and the destination it promises.
 */
import '@testing-library/jest-dom';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { nullTranslator } from '@jupyterlab/translation';
import * as React from 'react';

import { TRANSLATION_DOMAIN } from '../package';
import {
  CloneForm,
  inDialogWords,
  type ICloneFormValues,
  showCloneDialog
} from '../widgets/CloneDialog';
import { shownDialog } from './shownDialog';

const trans = nullTranslator.load(TRANSLATION_DOMAIN);

const EMPTY: ICloneFormValues = {
  bucket: '',
  key: '',
  versionId: '',
  folder: '',
  name: ''
};

/**
 * Render the form; `taken` are the names the folder holds already, as the
 * dialog's probe finds them.
 */
function renderForm(
  options: {
    initial?: Partial<ICloneFormValues>;
    fromLink?: boolean;
    showAllProblems?: boolean;
    allowedBuckets?: string[];
    taken?: string[];
  } = {}
) {
  const onChange = jest.fn();
  const probeName = jest.fn(async (folder: string, name: string) => {
    const taken = new Set(options.taken ?? []);
    if (!taken.has(name)) {
      return name;
    }
    const dot = name.indexOf('.');
    const [stem, rest] =
      dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    for (let i = 1; ; i++) {
      if (!taken.has(`${stem}-${i}${rest}`)) {
        return `${stem}-${i}${rest}`;
      }
    }
  });
  const user = userEvent.setup();
  render(
    <CloneForm
      initial={{ ...EMPTY, ...options.initial }}
      trans={trans}
      fromLink={options.fromLink ?? false}
      showAllProblems={options.showAllProblems}
      allowedBuckets={options.allowedBuckets ?? []}
      probeName={probeName}
      onChange={onChange}
    />
  );
  const lastChange = () => onChange.mock.calls[onChange.mock.calls.length - 1];
  return { user, onChange, probeName, lastChange };
}

const preview = () =>
  screen.getByText((_, element) =>
    element!.classList.contains('jp-Bookshelf-clone-destination')
  );

describe('CloneForm', () => {
  it('labels every field, and the bucket has the focus', () => {
    renderForm();
    expect(screen.getByRole('textbox', { name: 'Bucket' })).toHaveFocus();
    for (const label of ['Key', 'Version (optional)', 'Folder', 'File name']) {
      expect(screen.getByRole('textbox', { name: label })).toHaveValue('');
    }
    expect(screen.getByRole('group', { name: 'From S3' })).toBeVisible();
    expect(screen.getByRole('group', { name: 'To' })).toBeVisible();
    expect(screen.getByText(/A cloned notebook is not trusted/)).toBeVisible();
  });

  it('names the file after the key as the key is typed, until the name is edited', async () => {
    const { user } = renderForm();
    await user.type(screen.getByLabelText('Bucket'), 'examples');
    await user.type(screen.getByLabelText('Key'), 'course/week1/q3.ipynb');
    expect(screen.getByLabelText('File name')).toHaveValue('q3.ipynb');
    await user.clear(screen.getByLabelText('File name'));
    await user.type(screen.getByLabelText('File name'), 'mine.ipynb');
    await user.type(screen.getByLabelText('Key'), 'x');
    expect(screen.getByLabelText('File name')).toHaveValue('mine.ipynb');
  });

  it('splits an s3:// address pasted into the bucket field', async () => {
    const { user, lastChange } = renderForm();
    await user.click(screen.getByLabelText('Bucket'));
    await user.paste('s3://examples/course/intro.ipynb');
    expect(screen.getByLabelText('Bucket')).toHaveValue('examples');
    expect(screen.getByLabelText('Key')).toHaveValue('course/intro.ipynb');
    expect(screen.getByLabelText('File name')).toHaveValue('intro.ipynb');
    expect(lastChange()).toEqual([
      expect.objectContaining({
        bucket: 'examples',
        key: 'course/intro.ipynb'
      }),
      true
    ]);
  });

  it('previews the destination, with the name the clone will really get', async () => {
    const { probeName } = renderForm({
      initial: {
        bucket: 'examples',
        key: 'q3.ipynb',
        folder: 'work',
        name: 'q3.ipynb'
      },
      taken: ['q3.ipynb']
    });
    await waitFor(() =>
      expect(preview()).toHaveTextContent(
        '"q3.ipynb" exists already: the copy will be saved as "work/q3-1.ipynb".'
      )
    );
    expect(probeName).toHaveBeenLastCalledWith('work', 'q3.ipynb');
  });

  it('previews a free name as it is', async () => {
    const { user } = renderForm({
      initial: { bucket: 'examples', key: 'q3.ipynb', name: 'q3.ipynb' }
    });
    await waitFor(() =>
      expect(preview()).toHaveTextContent('Will be saved as "q3.ipynb".')
    );
    await user.type(screen.getByLabelText('Folder'), 'shared/');
    await waitFor(() =>
      expect(preview()).toHaveTextContent('Will be saved as "shared/q3.ipynb".')
    );
  });

  it('shows a problem at its field, marks the field, and reports the form invalid', async () => {
    const { user, lastChange } = renderForm({
      initial: { bucket: 'examples', key: 'q3.ipynb', name: 'q3.ipynb' }
    });
    expect(lastChange()[1]).toBe(true);
    const bucket = screen.getByRole('textbox', { name: 'Bucket' });
    await user.clear(bucket);
    await user.type(bucket, 'Bad_Bucket');
    expect(bucket).toHaveAccessibleDescription(/found 'B'/);
    expect(bucket).toBeInvalid();
    expect(screen.getByRole('alert')).toHaveTextContent(/found 'B'/);
    expect(lastChange()[1]).toBe(false);
    expect(preview()).toHaveTextContent('');
    await user.clear(bucket);
    await user.type(bucket, 'examples');
    expect(bucket).toBeValid();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(lastChange()[1]).toBe(true);
  });

  it('refuses a file name with a folder in it, at the file name', async () => {
    const { user } = renderForm({
      initial: { bucket: 'examples', key: 'q3.ipynb', name: 'q3.ipynb' }
    });
    const name = screen.getByLabelText('File name');
    await user.clear(name);
    await user.type(name, 'sub/q3.ipynb');
    expect(name).toHaveAccessibleDescription(
      'A file name has no "/": give the folders in the Folder field.'
    );
  });

  it('refuses, from a link, a bucket that allowedBuckets does not list', () => {
    renderForm({
      initial: { bucket: 'secret-reports', key: 'q3.ipynb', name: 'q3.ipynb' },
      fromLink: true,
      allowedBuckets: ['examples']
    });
    expect(screen.getByLabelText('Bucket')).toHaveAccessibleDescription(
      /allowedBuckets/
    );
  });

  it('lets the person clone from any bucket when no link opened it', () => {
    const { lastChange } = renderForm({
      initial: { bucket: 'secret-reports', key: 'q3.ipynb', name: 'q3.ipynb' },
      allowedBuckets: ['examples']
    });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(lastChange()[1]).toBe(true);
  });

  describe('before the person typed', () => {
    it('shows no problem on an empty form, but Clone waits', () => {
      const { lastChange } = renderForm({ initial: { folder: 'work' } });
      expect(screen.queryByRole('alert')).toBeNull();
      for (const input of screen.getAllByRole('textbox')) {
        expect(input).toBeValid();
      }
      expect(lastChange()[1]).toBe(false);
    });

    it('shows the problem of a field once it is typed in, and only its own', async () => {
      const { user } = renderForm();
      await user.type(screen.getByLabelText('Bucket'), 'ex');
      expect(screen.getByLabelText('Bucket')).toHaveAccessibleDescription(
        /3 to 63 characters \(got 2\)/
      );
      // The key is still empty and untouched: required, but not red yet.
      expect(screen.getByLabelText('Key')).toBeValid();
      expect(screen.getAllByRole('alert')).toHaveLength(1);
    });

    it('shows the problem of a field the person empties', async () => {
      const { user } = renderForm({
        initial: { bucket: 'examples', key: 'q3.ipynb', name: 'q3.ipynb' }
      });
      await user.clear(screen.getByLabelText('Key'));
      expect(screen.getByLabelText('Key')).toHaveAccessibleDescription(
        /an object key is required/
      );
    });

    it('shows the problem of a name that follows the key as the key is typed', async () => {
      const { user } = renderForm({ initial: { bucket: 'examples' } });
      await user.type(screen.getByLabelText('Key'), 'a/.env');
      expect(screen.getByLabelText('File name')).toHaveAccessibleDescription(
        /starts with a dot/
      );
    });

    it('shows at once the problem of a value given to the dialog', () => {
      renderForm({ initial: { bucket: 'Bad_Bucket' } });
      expect(screen.getByLabelText('Bucket')).toHaveAccessibleDescription(
        /found 'B'/
      );
      expect(screen.getByLabelText('Key')).toBeValid();
    });

    it('shows every problem of a link, also of the fields it left out', () => {
      renderForm({ initial: { bucket: 'examples' }, fromLink: true });
      expect(screen.getByLabelText('Key')).toHaveAccessibleDescription(
        /an object key is required/
      );
    });

    it('shows every problem once Enter was refused', () => {
      renderForm({ showAllProblems: true });
      expect(screen.getByLabelText('Bucket')).toHaveAccessibleDescription(
        /a bucket name is required/
      );
      expect(screen.getByLabelText('Key')).toHaveAccessibleDescription(
        /an object key is required/
      );
    });
  });

  describe('the words of a problem', () => {
    it.each([
      ['Bucket', 'ex', 'Bucket: a bucket name has 3 to 63 characters (got 2)'],
      ['Key', 'reports/', "Key: the key ends with '/'"],
      ['Version (optional)', '<b>', 'Version (optional): a version id has'],
      ['Folder', 'a/../..', "Folder: a path must not contain '..'"],
      ['File name', '.bashrc', "File name: '.bashrc' starts with a dot"]
    ])('name the field by its label: %s', async (label, value, words) => {
      const { user } = renderForm({
        initial: { bucket: 'examples', key: 'q3.ipynb', name: 'q3.ipynb' }
      });
      const input = screen.getByRole('textbox', { name: label });
      await user.clear(input);
      await user.type(input, value);
      const alert = screen.getByRole('alert');
      expect(alert.textContent!.startsWith(words)).toBe(true);
      expect(alert).not.toHaveTextContent(
        /s3_bucket|s3_key|s3_version_id|target_path/
      );
    });

    it('turn a field named inside a rule into the label, quoted', () => {
      expect(
        inDialogWords(
          "s3_key: the object's name '.env' starts with a dot, which Jupyter hides; give a target_path",
          'key',
          trans
        )
      ).toBe(
        "Key: the object's name '.env' starts with a dot, which Jupyter hides; give a \"File name\""
      );
      expect(
        inDialogWords(
          "target_path: a path must not contain '..'",
          'folder',
          trans
        )
      ).toBe("Folder: a path must not contain '..'");
    });

    it('leave words that only contain a field name alone', () => {
      expect(inDialogWords('my_s3_bucket_x is fine', 'bucket', trans)).toBe(
        'my_s3_bucket_x is fine'
      );
    });
  });
});

describe('showCloneDialog', () => {
  afterEach(() => {
    document.body.innerHTML = '';
  });

  it('keeps Tab and Shift+Tab inside the dialog', async () => {
    // Something on the page behind the dialog that Tab could reach.
    const behind = document.createElement('button');
    behind.textContent = 'Behind';
    document.body.appendChild(behind);
    const user = userEvent.setup();
    const result = showCloneDialog({
      initial: EMPTY,
      trans,
      fromLink: false,
      allowedBuckets: [],
      probeName: async (_folder, name) => name
    });
    const dialog = await shownDialog('Clone from S3');
    const bucket = await within(dialog).findByRole('textbox', {
      name: 'Bucket'
    });
    await waitFor(() => expect(bucket).toHaveFocus());
    // Clone waits for a bucket and a key: Cancel is the last stop.
    expect(
      within(dialog).getByRole('button', { name: 'Clone' })
    ).toBeDisabled();
    await user.tab({ shift: true });
    expect(
      within(dialog).getByRole('button', { name: 'Cancel' })
    ).toHaveFocus();
    await user.tab();
    expect(bucket).toHaveFocus();
    for (const shift of [false, true]) {
      for (let step = 0; step < 8; step++) {
        await user.tab({ shift });
        expect(dialog).toContainElement(document.activeElement as HTMLElement);
      }
    }
    expect(behind).not.toHaveFocus();
    await user.keyboard('{Escape}');
    await expect(result).resolves.toBeNull();
  });
});
