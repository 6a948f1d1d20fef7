/**
 * The transfer notification draws a progress bar, not only text.
 * JupyterLab's toasts (apputils-extension, not loaded in jest) draw a
 * notification as an element with the notification's id holding a
 * `.jp-toast-message`; the tests make that element as the toast would.
 */
import '@testing-library/jest-dom';
import { screen, waitFor } from '@testing-library/react';
import { Notification } from '@jupyterlab/apputils';
import { nullTranslator } from '@jupyterlab/translation';

import { TRANSLATION_DOMAIN } from '../package';
import {
  showProgress,
  withTransferNotification
} from '../widgets/transferNotification';

const trans = nullTranslator.load(TRANSLATION_DOMAIN);

/** The element a toast of notification `id` is drawn as. */
function drawToast(id: string, text: string): HTMLElement {
  const toast = document.createElement('div');
  toast.id = id;
  toast.innerHTML =
    '<div><div class="jp-toast-message"></div><div class="jp-toast-buttonBar"></div></div>';
  toast.querySelector('.jp-toast-message')!.textContent = text;
  document.body.appendChild(toast);
  return toast;
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('showProgress', () => {
  it('puts a labelled bar under the text, and moves it', () => {
    const toast = drawToast('n1', 'Cloning s3://examples/big.ipynb');
    showProgress(
      'n1',
      'Cloning s3://examples/big.ipynb',
      'Cloning s3://examples/big.ipynb (1 MB of 4 MB)',
      0.25
    );
    const bar = screen.getByRole('progressbar', {
      name: 'Cloning s3://examples/big.ipynb'
    });
    expect(bar).toHaveAttribute('max', '1');
    expect((bar as HTMLProgressElement).value).toBe(0.25);
    expect(toast.querySelector('.jp-toast-message')).toHaveTextContent(
      'Cloning s3://examples/big.ipynb (1 MB of 4 MB)'
    );
    showProgress(
      'n1',
      'Cloning s3://examples/big.ipynb',
      'Cloning s3://examples/big.ipynb (3 MB of 4 MB)',
      0.75
    );
    expect(screen.getAllByRole('progressbar')).toHaveLength(1);
    expect((bar as HTMLProgressElement).value).toBe(0.75);
    expect(toast.querySelector('.jp-toast-message')).toHaveTextContent(
      'Cloning s3://examples/big.ipynb (3 MB of 4 MB)'
    );
    // Under the text, above the buttons.
    expect(bar.previousElementSibling).toHaveClass('jp-toast-message');
  });

  it('is indeterminate while the size is not known', () => {
    drawToast('n2', 'Cloning');
    showProgress('n2', 'Cloning', 'Cloning (1 MB)', undefined);
    expect(screen.getByRole('progressbar')).not.toHaveAttribute('value');
  });

  it('waits for the toast to be drawn', () => {
    expect(() =>
      showProgress('none', 'Cloning', 'Cloning (1 MB)', 0.5)
    ).not.toThrow();
    expect(screen.queryByRole('progressbar')).toBeNull();
  });
});

describe('withTransferNotification', () => {
  it('shows text and a bar that follow the bytes, and goes with the notification, which never changes meanwhile', async () => {
    // Draw each notification as JupyterLab's toasts would.
    const changes: string[] = [];
    const drawn = (_: unknown, change: Notification.IChange) => {
      changes.push(change.type);
      if (change.type === 'added') {
        drawToast(change.notification.id, change.notification.message);
      }
    };
    Notification.manager.changed.connect(drawn);
    let report: (loaded: number) => void = () => undefined;
    let finish: () => void = () => undefined;
    const done = withTransferNotification(
      trans,
      'Cloning s3://examples/big.ipynb',
      (_signal, onProgress) => {
        report = loaded => onProgress({ loaded, total: 4000 });
        return new Promise<string>(resolve => {
          finish = () => resolve('cloned');
        });
      }
    );
    report(1000);
    const bar = (await screen.findByRole('progressbar', {
      name: 'Cloning s3://examples/big.ipynb'
    })) as HTMLProgressElement;
    expect(bar.value).toBe(0.25);
    await new Promise(resolve => setTimeout(resolve, 300));
    report(3000);
    await waitFor(() => expect(bar.value).toBe(0.75));
    const text = bar.previousElementSibling;
    expect(text).toHaveTextContent(
      'Cloning s3://examples/big.ipynb (2.9 KB of 3.9 KB)'
    );
    // The last bytes, and the end at once.
    report(4000);
    finish();
    await expect(done).resolves.toBe('cloned');
    Notification.manager.changed.disconnect(drawn);
    expect(Notification.manager.notifications).toHaveLength(0);
    // Shown, then dismissed, never updated: JupyterLab's toasts apply an
    // update two timer turns late, and one pending when the dismiss comes
    // shows the toast again for good.
    expect(changes).toEqual(['added', 'removed']);
  });
});
