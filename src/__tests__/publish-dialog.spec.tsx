/**
 * The publish dialog as a person meets it: the destination, what is there
 * already, and the button that says what a click will do.
 */
import '@testing-library/jest-dom';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { nullTranslator } from '@jupyterlab/translation';
import * as React from 'react';

import { BookshelfError } from '../errors/errors';
import { TRANSLATION_DOMAIN } from '../package';
import type { IPublishTargetInfo, OverwritePolicy } from '../tokens';
import {
  type IPublishChoice,
  PublishForm,
  showPublishDialog
} from '../widgets/PublishDialog';
import { shownDialog } from './shownDialog';

const trans = nullTranslator.load(TRANSLATION_DOMAIN);

const BUCKET = 'published';
const PREFIX = 'course/';

/**
 * A publish bucket that holds `objects` (destination → ETag), as the
 * dialog's look-up finds them.
 */
function lookUpIn(objects: { [destination: string]: string }) {
  return jest.fn(async (destination: string): Promise<IPublishTargetInfo> => {
    const key = `${PREFIX}${destination}`;
    const etag = objects[destination];
    return {
      bucket: BUCKET,
      key,
      s3_path: `s3://${BUCKET}/${key}`,
      existing:
        etag === undefined
          ? null
          : { etag, lastModified: new Date('2026-11-02T10:00:00Z') }
    };
  });
}

function renderForm(
  options: {
    objects?: { [destination: string]: string };
    policy?: OverwritePolicy;
    lookUp?: (destination: string) => Promise<IPublishTargetInfo>;
  } = {}
) {
  const onChange = jest.fn<void, [IPublishChoice | null]>();
  const lookUp = options.lookUp ?? lookUpIn(options.objects ?? {});
  render(
    <PublishForm
      trans={trans}
      bucket={BUCKET}
      prefix={PREFIX}
      path="week1/q3.ipynb"
      policy={options.policy ?? 'confirm'}
      lookUp={lookUp}
      onChange={onChange}
    />
  );
  const lastChoice = () =>
    onChange.mock.calls[onChange.mock.calls.length - 1][0];
  return { user: userEvent.setup(), onChange, lookUp, lastChoice };
}

const destination = () => screen.getByRole('textbox', { name: 'Publish to' });

describe('PublishForm', () => {
  it('offers the notebook path below the fixed bucket and prefix', () => {
    renderForm();
    expect(destination()).toHaveValue('week1/q3.ipynb');
    expect(destination()).toHaveFocus();
    expect(destination()).toHaveAccessibleDescription(
      /^s3:\/\/published\/course\//
    );
  });

  it('looks at the destination, then says publishing creates it', async () => {
    const { lookUp, lastChoice } = renderForm();
    expect(destination()).toHaveAccessibleDescription(
      /Looking at the destination/
    );
    expect(lastChoice()).toBeNull();
    await waitFor(() =>
      expect(destination()).toHaveAccessibleDescription(
        /Nothing is there yet: publishing creates it\./
      )
    );
    expect(lookUp).toHaveBeenCalledWith('week1/q3.ipynb');
    expect(lastChoice()).toEqual({
      destination: 'week1/q3.ipynb',
      overwrite: false,
      ifMatch: undefined
    });
  });

  it('says a notebook is there, and offers to replace exactly that version', async () => {
    const { lastChoice } = renderForm({
      objects: { 'week1/q3.ipynb': '"etag-1"' }
    });
    await waitFor(() =>
      expect(destination()).toHaveAccessibleDescription(
        /A notebook is there already .*Publishing replaces that version/
      )
    );
    expect(lastChoice()).toEqual({
      destination: 'week1/q3.ipynb',
      overwrite: true,
      ifMatch: '"etag-1"'
    });
  });

  it('looks again at a destination the person types', async () => {
    const { user, lookUp, lastChoice } = renderForm({
      objects: { 'week1/q3.ipynb': '"etag-1"' }
    });
    await waitFor(() => expect(lastChoice()?.overwrite).toBe(true));
    await user.clear(destination());
    await user.type(destination(), 'week1/q3-v2.ipynb');
    await waitFor(() =>
      expect(lastChoice()).toEqual({
        destination: 'week1/q3-v2.ipynb',
        overwrite: false,
        ifMatch: undefined
      })
    );
    // Typing waits for a pause: not one look-up per key.
    expect((lookUp as jest.Mock).mock.calls.length).toBeLessThan(5);
  });

  it('refuses an existing destination when the policy is never', async () => {
    const { lastChoice } = renderForm({
      objects: { 'week1/q3.ipynb': '"etag-1"' },
      policy: 'never'
    });
    await waitFor(() =>
      expect(destination()).toHaveAccessibleDescription(
        /the overwrite policy is "never": choose another path/
      )
    );
    expect(lastChoice()).toBeNull();
  });

  it('says what to do when the look-up fails', async () => {
    const { lastChoice } = renderForm({
      lookUp: async () => {
        throw new BookshelfError({
          code: 'NoSuchBucket',
          detail: { bucket: BUCKET }
        });
      }
    });
    await waitFor(() =>
      expect(destination()).toHaveAccessibleDescription(
        's3://published/course/ The bucket "published" does not exist. Check the bucket name, and the S3 endpoint in the Bookshelf settings.'
      )
    );
    expect(lastChoice()).toBeNull();
  });
});

describe('showPublishDialog', () => {
  const open = (
    objects: { [destination: string]: string },
    policy: OverwritePolicy = 'confirm'
  ) =>
    showPublishDialog({
      trans,
      bucket: BUCKET,
      prefix: PREFIX,
      path: 'week1/q3.ipynb',
      policy,
      lookUp: lookUpIn(objects)
    });

  afterEach(() => {
    document.body.innerHTML = '';
  });

  it('offers nothing to publish before it has looked at the destination', async () => {
    const user = userEvent.setup();
    const result = showPublishDialog({
      trans,
      bucket: BUCKET,
      prefix: PREFIX,
      path: 'week1/q3.ipynb',
      policy: 'confirm',
      lookUp: () => new Promise(() => undefined)
    });
    const dialog = await shownDialog('Publish Notebook');
    expect(
      within(dialog).getByRole('button', { name: 'Publish' })
    ).toBeDisabled();
    await user.keyboard('{Enter}');
    await expect(result).resolves.toBeNull();
  });

  it('publishes a new destination with Publish', async () => {
    const user = userEvent.setup();
    const result = open({});
    const dialog = await shownDialog('Publish Notebook');
    const accept = () =>
      within(dialog).getByRole('button', { name: /Publish|Replace/ });
    await waitFor(() => expect(accept()).toBeEnabled());
    expect(accept()).toHaveAccessibleName('Publish');
    expect(accept()).not.toHaveClass('jp-mod-warn');
    // Enter in the destination publishes, as the button would.
    await user.type(
      within(dialog).getByRole('textbox', { name: 'Publish to' }),
      '{Enter}'
    );
    await expect(result).resolves.toEqual({
      destination: 'week1/q3.ipynb',
      overwrite: false,
      ifMatch: undefined
    });
  });

  it('turns the button into a warning Replace when something is there', async () => {
    const user = userEvent.setup();
    const result = open({ 'week1/q3.ipynb': '"etag-1"' });
    const dialog = await shownDialog('Publish Notebook');
    const replace = await within(dialog).findByRole('button', {
      name: 'Replace'
    });
    expect(replace).toBeEnabled();
    expect(replace).toHaveClass('jp-mod-warn');
    // Another destination, free: the button says Publish again.
    const input = within(dialog).getByRole('textbox', { name: 'Publish to' });
    await user.clear(input);
    await user.type(input, 'elsewhere.ipynb');
    const publish = await within(dialog).findByRole('button', {
      name: 'Publish'
    });
    await waitFor(() => expect(publish).toBeEnabled());
    expect(publish).not.toHaveClass('jp-mod-warn');
    await user.keyboard('{Escape}');
    await expect(result).resolves.toBeNull();
  });

  it('keeps Publish disabled while the policy forbids replacing', async () => {
    const result = open({ 'week1/q3.ipynb': '"etag-1"' }, 'never');
    const dialog = await shownDialog('Publish Notebook');
    await within(dialog).findByText(/choose another path/);
    const accept = within(dialog).getByRole('button', { name: 'Publish' });
    expect(accept).toBeDisabled();
    expect(accept).not.toHaveClass('jp-mod-warn');
    await userEvent.setup().keyboard('{Escape}');
    await expect(result).resolves.toBeNull();
  });
});
