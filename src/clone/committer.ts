/**
 * The server extension's commit path: the one place where a new file gets
 * its name atomically, for every writer of the server (other browsers,
 * other users, plain saves). Without it, the writer falls back on a rename
 * serialized by the browser's own locks.
 */

import { URLExt } from '@jupyterlab/coreutils';
import { Contents, ServerConnection } from '@jupyterlab/services';
import { BookshelfError } from '../errors/errors';
import { isOtherDrive, joinPath } from './naming';
import { byteSize } from '../transfer/bytes';

/**
 * Moves a temporary file to the first free name of the wanted one.
 */
export interface ICommitter {
  /**
   * Move `temporaryPath` to `name` in `folder`, or the first free increment
   * of it, atomically. Resolves to the new file's model (without content),
   * or null when the server has no commit path (no server extension, or an
   * older one). Rejects with the server's refusal as a
   * `ServerConnection.ResponseError` (409: no free name, 404: the temporary
   * file is missing, 400: refused), or with a network error when no answer
   * came (the commit may have happened: asking again gives its answer).
   */
  commit(
    temporaryPath: string,
    folder: string,
    name: string
  ): Promise<Contents.IModel | null>;

  /**
   * Check the saved temporary file as a notebook on the server, which reads
   * it in pieces: a notebook streamed to the server is never whole in the
   * page. Resolves to true when it passed, false when the server cannot
   * check it (no server extension, an older one, files not on its disk);
   * rejects with `NotANotebook` saying why it is not one.
   */
  checkNotebook?(temporaryPath: string): Promise<boolean>;

  /** True once `create` answered that the server cannot. */
  readonly createUnavailable?: boolean;

  /**
   * The smallest body `create` was refused for as too large (413: a proxy
   * in front of the server, such as an ingress with a body limit), once
   * one was; larger bodies are saved the other way.
   */
  readonly createRefusedFrom?: number;

  /**
   * Save `bytes` as `temporaryPath` and commit it to `name` in `folder` (as
   * `commit` does) in one request, on the server, which writes the bytes as
   * they arrive: a clone's save and commit without the contents API's JSON
   * (text or base64) and without a second request. The server compares the
   * bytes' MD5 with `md5` (hex) and, with `notebook`, checks them with the
   * clone's notebook rules and drops a leading byte order mark; nothing is
   * written unless all passes. Resolves to the new file's model, or null
   * when the server cannot (no server extension, an older one, files not on
   * its disk, or a proxy on the way refused the body as too large: 413):
   * then save and commit. Rejects as `commit` does, and with
   * `Corrupted` (`detail.reason` 'checksum') or `NotANotebook` saying why.
   */
  create?(
    temporaryPath: string,
    folder: string,
    name: string,
    bytes: Uint8Array | Blob,
    options: ICreateOptions
  ): Promise<Contents.IModel | null>;
}

/**
 * What the server checks of the bytes of `ICommitter.create`.
 */
export interface ICreateOptions {
  /** The object's MD5 (hex), when its ETag is one. */
  md5?: string;
  /** Check them as a notebook, and drop a leading byte order mark. */
  notebook: boolean;
  /** Called as the bytes go, with how many went. */
  onSent?: (loaded: number) => void;
  /**
   * Aborts the request while its bytes are still going (the server keeps
   * nothing of a body cut off); once they all went, it runs to its answer
   * (its commit cannot be stopped).
   */
  stopUpload?: AbortSignal;
}

/**
 * The statuses with which a server without the commit path answers: a
 * Jupyter server without the extension (404), a static host such as
 * JupyterLite's (404, 405, or 501 for an unknown method; 200 from a host
 * that answers every path with its start page).
 */
const NO_COMMIT_PATH = [200, 404, 405, 501];

/**
 * `POST {baseUrl}api/bookshelf/commit`.
 *
 * The path is tried rather than announced in `GET /api/bookshelf`: an
 * older server extension, or none, answers the POST itself with a 404 that
 * carries no Bookshelf error code, so no extra request is needed and no
 * announcement can be stale.
 */
export class ServerCommitter implements ICommitter {
  /**
   * `send` sends the create path's request (`sendWithProgress` by
   * default, which says how far the upload came).
   */
  constructor(
    private readonly _settings: ServerConnection.ISettings,
    private readonly _send: CreateRequestSender = sendWithProgress
  ) {}

  checkNotebook(temporaryPath: string): Promise<boolean> {
    if (isOtherDrive(temporaryPath)) {
      return Promise.resolve(false);
    }
    return checkOnServer(this._settings, temporaryPath).then(
      checked => checked !== null
    );
  }

  async commit(
    temporaryPath: string,
    folder: string,
    name: string
  ): Promise<Contents.IModel | null> {
    if (isOtherDrive(folder)) {
      return null;
    }
    const url = URLExt.join(
      this._settings.baseUrl,
      'api',
      'bookshelf',
      'commit'
    );
    const response = await ServerConnection.makeRequest(
      url,
      {
        method: 'POST',
        body: JSON.stringify({
          path: temporaryPath,
          target: joinPath(folder, name)
        })
      },
      this._settings
    );
    return createdModel(response);
  }

  async create(
    temporaryPath: string,
    folder: string,
    name: string,
    bytes: Uint8Array | Blob,
    options: ICreateOptions
  ): Promise<Contents.IModel | null> {
    if (isOtherDrive(folder) || this.createUnavailable) {
      return null;
    }
    const query = new URLSearchParams({
      path: temporaryPath,
      target: joinPath(folder, name)
    });
    if (options.md5) {
      query.set('md5', options.md5);
    }
    if (options.notebook) {
      query.set('check', 'notebook');
    }
    const url =
      URLExt.join(this._settings.baseUrl, 'api', 'bookshelf', 'create') +
      `?${query}`;
    const size = byteSize(bytes);
    const response = await this._send(
      url,
      // As a Blob, which Chromium sends several times faster than the same
      // bytes as a Uint8Array (see `blobBody` in s3/client.ts).
      bytes instanceof Blob ? bytes : new Blob([bytes as BlobPart]),
      this._settings,
      options.onSent,
      options.stopUpload
    );
    if (response.status === 413) {
      // Too large for something on the way (the server extension takes
      // every size): saved the other way, in chunks, which pass.
      this.createRefusedFrom = Math.min(this.createRefusedFrom ?? size, size);
      return null;
    }
    const model = await createdModel(response, ['NotConfigured'], body => {
      if (body?.code === 'Corrupted') {
        return new BookshelfError({
          code: 'Corrupted',
          detail: {
            reason: 'checksum',
            expected: String(body.expected ?? options.md5 ?? ''),
            actual: String(body.actual ?? '')
          }
        });
      }
      if (body?.code === 'NotANotebook') {
        // The server's words: the rules are the browser's (src/rules).
        return new BookshelfError({
          code: 'NotANotebook',
          detail: { message: String(body.message) }
        });
      }
      return null;
    });
    if (model === null) {
      // Not asked again on this page: the body would be sent in vain.
      this.createUnavailable = true;
    }
    return model;
  }

  createUnavailable = false;
  createRefusedFrom: number | undefined = undefined;
}

/**
 * Sends `body` to `url` in a POST with the Jupyter server's credentials;
 * `onSent` is called as the bytes go, and `stopUpload` aborts the request
 * while they are still going (see `ICreateOptions`). Resolves to the
 * answer, or rejects with `ServerConnection.NetworkError` when none came.
 */
export type CreateRequestSender = (
  url: string,
  body: Blob,
  settings: ServerConnection.ISettings,
  onSent?: (loaded: number) => void,
  stopUpload?: AbortSignal
) => Promise<Response>;

/**
 * `CreateRequestSender` through `ServerConnection.makeRequest` (its
 * `fetch`), which cannot say how far an upload came, nor when it ended: it
 * is not stopped.
 */
export const sendWithFetch: CreateRequestSender = (url, body, settings) =>
  ServerConnection.makeRequest(
    url,
    {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/octet-stream' }
    },
    settings
  );

/**
 * `CreateRequestSender` through an `XMLHttpRequest`, whose upload events
 * say how far the bytes came (`fetch` has none): a large clone's save to a
 * distant server shows its progress. The credentials are those
 * `ServerConnection.makeRequest` adds: the token, when there is one, and
 * the XSRF cookie's value (a server that authenticates by cookie, as
 * JupyterHub's single-user servers do, asks for it). Where there is no
 * `XMLHttpRequest`, or the settings bring their own `fetch`, that is used.
 */
export const sendWithProgress: CreateRequestSender = (
  url,
  body,
  settings,
  onSent,
  stopUpload
) => {
  if (
    typeof XMLHttpRequest === 'undefined' ||
    settings.fetch !== globalThis.fetch
  ) {
    return sendWithFetch(url, body, settings, onSent);
  }
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    request.setRequestHeader('Content-Type', 'application/octet-stream');
    if (settings.token) {
      request.setRequestHeader('Authorization', `token ${settings.token}`);
    }
    const xsrf = /\b_xsrf=([^;]*)/.exec(document.cookie)?.[1];
    if (xsrf !== undefined) {
      request.setRequestHeader('X-XSRFToken', xsrf);
    }
    let sent = false;
    const stop = () => {
      if (!sent) {
        request.abort();
      }
    };
    const settle = () => stopUpload?.removeEventListener('abort', stop);
    request.upload.onprogress = event => onSent?.(event.loaded);
    request.upload.onload = () => {
      sent = true;
    };
    request.onload = () => {
      settle();
      resolve(
        new Response(request.responseText, {
          status: request.status,
          headers: {
            'Content-Type':
              request.getResponseHeader('Content-Type') ?? 'application/json'
          }
        })
      );
    };
    request.onerror =
      request.onabort =
      request.ontimeout =
        () => {
          settle();
          reject(
            new ServerConnection.NetworkError(new TypeError('network error'))
          );
        };
    stopUpload?.addEventListener('abort', stop, { once: true });
    request.send(body);
    if (stopUpload?.aborted) {
      stop();
    }
  });
};

/**
 * The new file's model from the answer of the commit or create path; null
 * when the server has no such path (or answers one of the `unable` codes);
 * the error of `refusal(body)` or a `ResponseError` for a refusal.
 */
async function createdModel(
  response: Response,
  unable: string[] = [],
  refusal: (body: any) => Error | null = () => null
): Promise<Contents.IModel | null> {
  const body = await response.json().catch(() => null);
  if (response.status === 201) {
    if (isModel(body)) {
      return body;
    }
    // Committed, but the answer did not arrive whole: lost, as a body
    // cut off in the browser ('network error'); the writer asks again.
    throw new ServerConnection.NetworkError(new TypeError('network error'));
  }
  // The commit path's own errors carry a code; anything else is not it.
  const code = typeof body?.code === 'string' ? body.code : null;
  if (
    (code === null || unable.includes(code)) &&
    NO_COMMIT_PATH.includes(response.status)
  ) {
    return null;
  }
  throw (
    refusal(body) ??
    new ServerConnection.ResponseError(
      response,
      typeof body?.message === 'string' ? body.message : undefined
    )
  );
}

/**
 * `POST {baseUrl}api/bookshelf/check`: the same server extension's check of
 * a saved temporary file, before its commit.
 */
/**
 * What the server's check of a saved file answers: for a publish's check,
 * the file's size and its ETag when uploaded in parts of the size given.
 */
export interface IServerCheck {
  size?: number;
  etag?: string;
  /** Each part's MD5 digest, in hex. */
  partMd5s?: string[];
}

/**
 * `POST {baseUrl}api/bookshelf/check`: check the file at `path` as a
 * notebook on the server, which reads it in pieces. With `partSize`, the
 * path is a saved notebook to publish (the publish's rules), and the
 * answer has its size, each part's MD5 and its multipart ETag; with
 * `onPart` too, the server sends each whole part's MD5 as soon as it has
 * hashed it (JSON lines), and `onPart(index, md5)` is called with it while
 * the check goes on, so that the part can be sent meanwhile. Resolves to
 * null when the server cannot check it (no server extension, an older one,
 * files not on its disk); rejects with `NotANotebook` saying why it is not
 * one.
 */
export async function checkOnServer(
  settings: ServerConnection.ISettings,
  path: string,
  partSize?: number,
  onPart?: (index: number, md5: string) => void
): Promise<IServerCheck | null> {
  const url = URLExt.join(settings.baseUrl, 'api', 'bookshelf', 'check');
  const request =
    partSize === undefined
      ? { path, check: 'notebook' }
      : {
          path,
          check: 'notebook',
          purpose: 'publish',
          part_size: partSize,
          ...(onPart ? { stream: true } : {})
        };
  const response = await ServerConnection.makeRequest(
    url,
    { method: 'POST', body: JSON.stringify(request) },
    settings
  );
  const streamed =
    response.status === 200 &&
    (response.headers.get('Content-Type') ?? '').startsWith(
      'application/x-ndjson'
    );
  const body = streamed
    ? await answerOfLines(response, line => {
        if (isMd5Hex(line.md5)) {
          onPart?.(line.part - 1, line.md5);
        }
      })
    : await response.json().catch(() => null);
  if (response.status === 200 && body?.checked === 'notebook') {
    if (partSize === undefined) {
      return {};
    }
    // An older server checks without answering these: as if it could not.
    const partMd5s = body.part_md5s;
    return typeof body.size === 'number' &&
      typeof body.etag === 'string' &&
      Array.isArray(partMd5s) &&
      partMd5s.every(isMd5Hex)
      ? { size: body.size, etag: body.etag, partMd5s }
      : null;
  }
  const error = streamed ? body?.error : response.status === 400 && body;
  if (error?.code === 'NotANotebook') {
    // The server's words: the rules and their messages are the browser's
    // (src/rules), in English.
    throw new BookshelfError({
      code: 'NotANotebook',
      detail: { message: String(error.message) }
    });
  }
  return null;
}

function isMd5Hex(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{32}$/.test(value);
}

/**
 * Read an answer of JSON lines as they arrive: each line with a `part`
 * number goes to `onPart` at once; resolves to the other one, the answer
 * (null when the answer was cut off before its end, or is not JSON lines).
 */
async function answerOfLines(
  response: Response,
  onPart: (line: any) => void
): Promise<any> {
  const reader = response.body?.getReader();
  if (!reader) {
    return null;
  }
  const decoder = new TextDecoder();
  let text = '';
  let answer: any = null;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        break;
      }
      text += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = text.indexOf('\n')) !== -1) {
        const line = JSON.parse(text.slice(0, end));
        text = text.slice(end + 1);
        if (typeof line?.part === 'number') {
          onPart(line);
        } else {
          answer = line;
        }
      }
    }
  } catch {
    // Cut off, or not JSON: as if the server could not check.
    return null;
  }
  return text.trim() ? null : answer;
}

function isModel(body: unknown): body is Contents.IModel {
  const model = body as Partial<Contents.IModel> | null;
  return typeof model?.path === 'string' && typeof model.name === 'string';
}
