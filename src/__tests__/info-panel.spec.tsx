/**
 * The info panel as a person meets it: the version, the settings in
 * effect without a secret, the checks with their fixes, and its buttons.
 */
import '@testing-library/jest-dom';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Clipboard } from '@jupyterlab/apputils';
import { nullTranslator } from '@jupyterlab/translation';
import { PromiseDelegate } from '@lumino/coreutils';
import { Signal } from '@lumino/signaling';
import * as React from 'react';

import { TRANSLATION_DOMAIN } from '../package';
import { DEFAULT_SETTINGS } from '../settings/parse';
import type {
  IBookshelf,
  IBookshelfInfo,
  IBookshelfSettings,
  IInfoCheck,
  IInfoOptions
} from '../tokens';
import { InfoPanelComponent } from '../widgets/InfoPanel';

const trans = nullTranslator.load(TRANSLATION_DOMAIN);

const SECRET = 'secret-INFO-PANEL-5k1';

const PASS: IInfoCheck = {
  id: 'endpoint',
  label: 'S3 endpoint',
  ok: true,
  state: 'pass',
  message: 'The S3 service answers.',
  fix: ''
};

const CORS_FAIL: IInfoCheck = {
  id: 'cors-publish',
  label: 'CORS of the publish bucket',
  ok: false,
  state: 'fail',
  message: 'The bucket "published" does not allow this page.',
  fix: "Add this rule to the bucket's CORS configuration.",
  rule: '{"AllowedOrigins": ["http://localhost:8888"]}'
};

const NEEDS_CREDENTIALS: IInfoCheck = {
  id: 'credentials',
  label: 'Credentials',
  ok: false,
  state: 'skip',
  message: 'No session credentials yet.',
  fix: '',
  action: 'enter-credentials'
};

/**
 * A Bookshelf service whose info answers are given one at a time, so that
 * a test sees the panel while it checks.
 */
class FakeBookshelf {
  settings: IBookshelfSettings = {
    ...DEFAULT_SETTINGS,
    publishBucket: 'published',
    credentials: {
      ...DEFAULT_SETTINGS.credentials,
      mode: 'settings',
      accessKeyId: 'AKIDINFOPANEL',
      secretAccessKey: SECRET
    }
  };
  readonly settingsChanged = new Signal<this, void>(this);
  readonly calls: IInfoOptions[] = [];
  private _pending: PromiseDelegate<IBookshelfInfo>[] = [];

  info(options: IInfoOptions = {}): Promise<IBookshelfInfo> {
    this.calls.push(options);
    const answer = new PromiseDelegate<IBookshelfInfo>();
    this._pending.push(answer);
    return answer.promise;
  }

  /** Answer the oldest check still running. */
  answer(checks: IInfoCheck[]): void {
    this._pending.shift()!.resolve({ release: '0.1.0', features: {}, checks });
  }

  fail(error: Error): void {
    this._pending.shift()!.reject(error);
  }
}

function renderPanel() {
  const bookshelf = new FakeBookshelf();
  const openSettings = jest.fn();
  render(
    <InfoPanelComponent
      bookshelf={bookshelf as unknown as IBookshelf}
      trans={trans}
      version="0.1.0"
      openSettings={openSettings}
    />
  );
  return { bookshelf, openSettings, user: userEvent.setup() };
}

const checks = () =>
  screen.getByRole('heading', { name: 'Checks' })
    .nextElementSibling as HTMLElement;

describe('InfoPanelComponent', () => {
  it('shows the version and the settings in effect, never a secret', () => {
    renderPanel();
    expect(screen.getByRole('heading', { name: 'Bookshelf' })).toBeVisible();
    expect(screen.getByText('Version 0.1.0')).toBeVisible();
    const settings = screen.getByRole('table');
    expect(
      within(settings).getByRole('rowheader', { name: 'Publish bucket' })
        .nextElementSibling
    ).toHaveTextContent('published');
    expect(
      within(settings).getByRole('rowheader', { name: 'S3 endpoint' })
        .nextElementSibling
    ).toHaveTextContent('Amazon S3 (default)');
    expect(
      within(settings).getByRole('rowheader', { name: 'Credentials mode' })
        .nextElementSibling
    ).toHaveTextContent('settings');
    expect(document.body).not.toHaveTextContent(SECRET);
    expect(document.body).not.toHaveTextContent('AKIDINFOPANEL');
  });

  it('checks at once, and says so while it checks', async () => {
    const { bookshelf } = renderPanel();
    expect(bookshelf.calls).toEqual([{ live: true, askCredentials: false }]);
    expect(checks()).toHaveAttribute('aria-busy', 'true');
    expect(screen.getByRole('button', { name: 'Checking…' })).toBeDisabled();
    act(() => bookshelf.answer([PASS]));
    await screen.findByRole('button', { name: 'Check again' });
    expect(checks()).toHaveAttribute('aria-busy', 'false');
    const item = within(checks()).getByRole('listitem');
    expect(item).toHaveTextContent('Pass S3 endpoint: The S3 service answers.');
  });

  it('shows a failed check with its fix and the rule to copy', async () => {
    const { bookshelf, user } = renderPanel();
    // The copy itself: copy-button.spec.tsx.
    const copy = jest
      .spyOn(Clipboard, 'copyToSystem')
      .mockImplementation(() => undefined);
    act(() => bookshelf.answer([PASS, CORS_FAIL]));
    const failed = (
      await within(checks()).findByText(/does not allow this page/)
    ).closest('li')!;
    expect(failed).toHaveTextContent(
      'Fail CORS of the publish bucket: The bucket "published" does not allow this page.'
    );
    expect(failed).toHaveTextContent(
      "Fix: Add this rule to the bucket's CORS configuration."
    );
    await user.click(within(failed).getByRole('button', { name: 'Copy Rule' }));
    expect(copy).toHaveBeenCalledWith(CORS_FAIL.rule);
    expect(
      within(failed).getByRole('button', { name: 'Rule Copied' })
    ).toBeVisible();
    copy.mockRestore();
  });

  it('runs the checks again on Check again, and asks for credentials on its button', async () => {
    const { bookshelf, user } = renderPanel();
    act(() => bookshelf.answer([NEEDS_CREDENTIALS]));
    const item = await within(checks()).findByText(/No session credentials/);
    expect(item.closest('li')).toHaveTextContent(
      'Not checked Credentials: No session credentials yet.'
    );
    await user.click(screen.getByRole('button', { name: 'Check again' }));
    expect(bookshelf.calls[1]).toEqual({ live: true, askCredentials: false });
    act(() => bookshelf.answer([NEEDS_CREDENTIALS]));
    await user.click(
      await screen.findByRole('button', { name: 'Enter S3 Credentials…' })
    );
    expect(bookshelf.calls[2]).toEqual({ live: true, askCredentials: true });
    // While it checks, neither button starts another run.
    expect(
      screen.getByRole('button', { name: 'Enter S3 Credentials…' })
    ).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Checking…' })).toBeDisabled();
    act(() => bookshelf.answer([PASS]));
    await screen.findByRole('button', { name: 'Check again' });
    expect(
      screen.queryByRole('button', { name: 'Enter S3 Credentials…' })
    ).toBeNull();
  });

  it('opens the settings', async () => {
    const { openSettings, user } = renderPanel();
    await user.click(screen.getByRole('button', { name: 'Open settings' }));
    expect(openSettings).toHaveBeenCalledTimes(1);
  });

  it('says why when the checks cannot run', async () => {
    const { bookshelf } = renderPanel();
    act(() => bookshelf.fail(new Error('boom')));
    await screen.findByRole('button', { name: 'Check again' });
    expect(within(checks()).getByRole('listitem')).not.toHaveTextContent(
      'Checking…'
    );
    expect(within(checks()).getAllByRole('listitem')).toHaveLength(1);
  });

  it('shows new settings and checks again when the settings change', async () => {
    const { bookshelf } = renderPanel();
    bookshelf.settings = { ...bookshelf.settings, publishBucket: 'other' };
    act(() => bookshelf.settingsChanged.emit());
    await waitFor(() =>
      expect(
        screen.getByRole('rowheader', { name: 'Publish bucket' })
          .nextElementSibling
      ).toHaveTextContent('other')
    );
    expect(bookshelf.calls).toHaveLength(2);
    // Only the latest run's answer shows: the first, late, is dropped.
    act(() => bookshelf.answer([CORS_FAIL]));
    act(() => bookshelf.answer([PASS]));
    await screen.findByRole('button', { name: 'Check again' });
    expect(within(checks()).getAllByRole('listitem')).toHaveLength(1);
    expect(checks()).toHaveTextContent('The S3 service answers.');
  });
});
