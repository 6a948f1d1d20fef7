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
 * Show a progress bar in the notification `id`, under its text, or update
 * the one there. JupyterLab keeps a notification's `progress` but its
 * toasts do not draw it (they hide react-toastify's bar and show a
 * message as text only), so the bar is an accessible <progress> element
 * put into the toast, which react-toastify gives the notification's id.
 * The toast appears a moment after it is emitted and its content is
 * rendered anew on updates: each update puts the bar back if need be.
 * `fraction` undefined: an indeterminate bar (the size is not known).
 */
export function showProgressBar(
  id: string,
  label: string,
  fraction: number | undefined
): void {
  const toast = document.getElementById(id);
  const message = toast?.querySelector('.jp-toast-message');
  if (!toast || !message) {
    return;
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
  // The toast is drawn a moment after the notification is emitted.
  let drawBar: ReturnType<typeof setInterval> | null = null;
  const show = setTimeout(() => {
    id = Notification.emit(message(), 'in-progress', {
      autoClose: false,
      progress: fraction(),
      actions
    });
    drawBar = setInterval(() => {
      if (id !== null) {
        showProgressBar(id, label, fraction());
      }
    }, 250);
  }, 400);
  let lastUpdate = 0;
  const onProgress = (progress: ITransferProgress) => {
    latest = progress;
    const now = Date.now();
    // Updating the notification costs a React render: a few per second.
    if (id !== null && now - lastUpdate > 250) {
      lastUpdate = now;
      Notification.update({
        id,
        message: message(),
        type: 'in-progress',
        actions,
        progress: fraction()
      });
    }
  };
  try {
    return await task(controller.signal, onProgress);
  } finally {
    clearTimeout(show);
    if (drawBar !== null) {
      clearInterval(drawBar);
    }
    if (id !== null) {
      Notification.dismiss(id);
    }
  }
}
