/**
 * Running a clone or a publish on the Jupyter server instead of in the page.
 *
 * A bucket whose CORS rules do not allow this page cannot be reached from
 * the browser at all; the server is not bound by CORS. When the
 * administrator turned server-side mode on (`c.Bookshelf.server_access`,
 * reported by `GET api/bookshelf`), a clone or publish refused for CORS is
 * offered to run there, through the same HTTP API scripts use. The default
 * stays the browser.
 */
import { Notification } from '@jupyterlab/apputils';
import { URLExt } from '@jupyterlab/coreutils';
import type { Contents, ServerConnection } from '@jupyterlab/services';

import { requestAPI } from '../service/serverApi';
import type { ICloneRequest, IPublishResult } from '../tokens';

/**
 * Whether an error is a refusal by the bucket's CORS rules.
 */
export function isCorsRefusal(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === 'CorsRefused'
  );
}

/**
 * Whether the server does clones and publishes itself (server-side mode).
 * A server without the extension, or one that cannot say, does not.
 */
export async function serverAccess(
  serverSettings: ServerConnection.ISettings
): Promise<boolean> {
  try {
    const info = await requestAPI<{ server_access?: unknown }>(
      '',
      { cache: 'no-store' },
      serverSettings
    );
    return info.server_access === true;
  } catch {
    return false;
  }
}

/**
 * The message of a failed request to the server's API: the server's own
 * `{code, message}`, or the HTTP failure.
 */
export function serverErrorMessage(error: unknown): string {
  const message = (error as { message?: unknown })?.message;
  return typeof message === 'string' && message
    ? message
    : String(error ?? 'The Jupyter server did not answer.');
}

/**
 * Clone on the server: `POST api/bookshelf/clone`, answering the new
 * file's contents model.
 */
export function cloneOnServer(
  request: ICloneRequest,
  serverSettings: ServerConnection.ISettings
): Promise<Contents.IModel> {
  return requestAPI<Contents.IModel>(
    'clone',
    { method: 'POST', body: JSON.stringify(request) },
    serverSettings
  );
}

/**
 * What a publish on the server takes: the dialog's choices.
 */
export interface IServerPublishOptions {
  destination?: string;
  overwrite?: boolean;
  ifMatch?: string;
}

/**
 * Publish the saved notebook at `path` on the server:
 * `PUT api/bookshelf/published/<path>`.
 */
export function publishOnServer(
  path: string,
  options: IServerPublishOptions,
  serverSettings: ServerConnection.ISettings
): Promise<IPublishResult> {
  const body: { [name: string]: string | boolean } = {};
  if (options.destination) {
    body.to = options.destination;
  }
  if (options.overwrite) {
    body.overwrite = true;
  }
  if (options.ifMatch) {
    body.if_match = options.ifMatch;
  }
  return requestAPI<IPublishResult>(
    URLExt.join('published', URLExt.encodeParts(path)),
    { method: 'PUT', body: JSON.stringify(body) },
    serverSettings
  );
}

/**
 * Run `work` (a request to the server and what follows it) under a
 * notification that says it runs on the server; a failure dismisses it and
 * shows `failed(the server's message)`. Answers null after a failure.
 */
export async function withServerNotification<T>(
  pending: string,
  failed: (reason: string) => string,
  work: () => Promise<T>
): Promise<T | null> {
  const id = Notification.emit(pending, 'in-progress', { autoClose: false });
  try {
    const result = await work();
    Notification.dismiss(id);
    return result;
  } catch (error) {
    // A new notification, not an update of the pending one: JupyterLab's
    // toasts draw a notification a moment after it is emitted, and an
    // update that comes first (a server that fails within milliseconds) is
    // lost, leaving "… on the Jupyter server" running for good.
    Notification.dismiss(id);
    Notification.error(failed(serverErrorMessage(error)), {
      autoClose: false
    });
    return null;
  }
}
