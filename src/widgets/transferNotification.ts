import { Notification } from '@jupyterlab/apputils';
import { formatFileSize } from '@jupyterlab/filebrowser';
import { TranslationBundle } from '@jupyterlab/translation';

import '../../style/widgets.css';

import type { ITransferProgress } from '../tokens';

/**
 * Bytes as a person reads them, as the file browser shows file sizes.
 */
export function formatBytes(bytes: number): string {
  return formatFileSize(bytes, 1, 1024);
}

/**
 * The class of the progress bar a transfer notification shows.
 */
const PROGRESS_CLASS = 'jp-Bookshelf-transfer-progress';

/**
 * Show a transfer's progress in the toast of notification `id`: its text
 * (`text`, the bytes moved) and a progress bar under it, or update those
 * there. JupyterLab keeps a notification's `progress` but its toasts do
 * not draw it (they hide react-toastify's bar and show a message as text
 * only), so the bar is an accessible <progress> element put into the
 * toast, which react-toastify gives the notification's id. The text is
 * written into the toast too, not sent as `Notification.update`: JupyterLab
 * hands an update to react-toastify, which applies it two timer turns
 * later, so a dismiss that comes in between (a transfer that ends just
 * after its last progress) is undone by it, and the toast stays, saying
 * "Cloning … (5.6 MB of 5.6 MB)" with Cancel, for as long as the page is
 * open. Drawn this way, the notification itself never changes until it is
 * dismissed. The toast appears a moment after it is emitted: until then
 * this does nothing. `fraction` undefined: an indeterminate bar (the size
 * is not known).
 */
export function showProgress(
  id: string,
  label: string,
  text: string,
  fraction: number | undefined
): void {
  const toast = document.getElementById(id);
  const message = toast?.querySelector('.jp-toast-message');
  if (!toast || !message) {
    return;
  }
  if (message.textContent !== text) {
    message.textContent = text;
  }
  let bar = toast.querySelector<HTMLProgressElement>(`.${PROGRESS_CLASS}`);
  if (!bar) {
    bar = document.createElement('progress');
    bar.className = PROGRESS_CLASS;
    bar.max = 1;
    message.insertAdjacentElement('afterend', bar);
  }
  bar.setAttribute('aria-label', label);
  if (fraction === undefined) {
    bar.removeAttribute('value');
  } else {
    bar.value = Math.min(Math.max(fraction, 0), 1);
  }
}

/**
 * Run a transfer with an in-progress notification that shows the bytes
 * moved and offers Cancel. The notification is shown only when the transfer
 * takes a moment, so quick ones do not flash. Resolves or rejects as the
 * task does; the caller shows the outcome.
 */
export async function withTransferNotification<T>(
  trans: TranslationBundle,
  label: string,
  task: (
    signal: AbortSignal,
    onProgress: (progress: ITransferProgress) => void
  ) => Promise<T>
): Promise<T> {
  const controller = new AbortController();
  let id: string | null = null;
  let latest: ITransferProgress = { loaded: 0 };
  const message = () =>
    latest.total
      ? trans.__(
          '%1 (%2 of %3)',
          label,
          formatBytes(latest.loaded),
          formatBytes(latest.total)
        )
      : latest.loaded
        ? trans.__('%1 (%2)', label, formatBytes(latest.loaded))
        : label;
  const actions: Notification.IAction[] = [
    {
      label: trans.__('Cancel'),
      caption: trans.__('Stop the transfer; nothing is written'),
      callback: () => controller.abort()
    }
  ];
  const fraction = () =>
    latest.total ? latest.loaded / latest.total : undefined;
  const draw = () => {
    if (id !== null) {
      showProgress(id, label, message(), fraction());
    }
  };
  // The toast is drawn a moment after the notification is emitted, and its
  // text and bar follow the bytes a few times a second (each draw costs a
  // layout, not a React render).
  let redraw: ReturnType<typeof setInterval> | null = null;
  const show = setTimeout(() => {
    id = Notification.emit(message(), 'in-progress', {
      autoClose: false,
      progress: fraction(),
      actions
    });
    redraw = setInterval(draw, 250);
  }, 400);
  const onProgress = (progress: ITransferProgress) => {
    latest = progress;
  };
  try {
    return await task(controller.signal, onProgress);
  } finally {
    clearTimeout(show);
    if (redraw !== null) {
      clearInterval(redraw);
    }
    if (id !== null) {
      Notification.dismiss(id);
    }
  }
}
