import { Notification } from '@jupyterlab/apputils';
import { formatFileSize } from '@jupyterlab/filebrowser';
import { TranslationBundle } from '@jupyterlab/translation';

import type { ITransferProgress } from '../tokens';

/**
 * Bytes as a person reads them, as the file browser shows file sizes.
 */
export function formatBytes(bytes: number): string {
  return formatFileSize(bytes, 1, 1024);
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
  const show = setTimeout(() => {
    id = Notification.emit(message(), 'in-progress', {
      autoClose: false,
      progress: latest.total ? latest.loaded / latest.total : undefined,
      actions
    });
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
        progress: progress.total ? progress.loaded / progress.total : undefined
      });
    }
  };
  try {
    return await task(controller.signal, onProgress);
  } finally {
    clearTimeout(show);
    if (id !== null) {
      Notification.dismiss(id);
    }
  }
}
