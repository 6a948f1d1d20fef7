/**
 * Writing a new file through the Jupyter contents API without ever
 * overwriting one and without a partial file at the target path.
 *
 * The contents API has no "create only if absent": a save always writes.
 * So the bytes go to a temporary file first, which the server extension's
 * commit path then moves to the first free name atomically. Without the
 * server extension (JupyterLite) the temporary file is renamed to the first
 * free name instead: a rename onto an existing path answers 409, and the
 * browser's locks keep its own clones from racing the rename's check.
 * Bytes the page holds whole go to the server extension's create path
 * instead where it answers (`createNewFile`): saved and committed in one
 * request, without the contents API's JSON.
 */

import type { Contents } from '@jupyterlab/services';
import { Random } from '@lumino/coreutils';
import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';
import { TRANSLATION_DOMAIN } from '../package';
import {
  BookshelfError,
  cancelled,
  isBookshelfError,
  throwIfAborted,
  unlessAborted
} from '../errors/errors';
import type { ITransferProgress } from '../tokens';
import type { ICommitter, ICreateOptions } from './committer';
import {
  hasResponseStatus,
  responseStatus,
  saveToContents,
  type IByteStream,
  type IContentsWriter,
  type IInFlight,
  type ISaveOptions
} from './contentsSave';
import type { IFileData } from './content';
import { defaultFolderLocks, type IFolderLocks } from './locks';
import { candidateNames, joinPath } from './naming';
import { utf8Length } from '../s3/names';
import { byteSize } from '../transfer/bytes';

/**
 * Options of `writeNewFile`.
 */
export interface IWriteOptions extends ISaveOptions {
  /**
   * The server extension's atomic commit; without it, or when the server
   * has no commit path, the rename under `locks`.
   */
  committer?: ICommitter;
  /** Serialize the rename per folder; default: `defaultFolderLocks()`. */
  locks?: IFolderLocks;
  /** How many names to try before giving up. Default: 10000. */
  maxAttempts?: number;
  /**
   * A check of the saved temporary file, after the last save and before
   * the commit (a streamed notebook's, which the page never held whole):
   * when it throws, the temporary file is removed and nothing is renamed.
   */
  checkSaved?: (temporaryPath: string) => Promise<void>;
}

/**
 * The suffix of temporary files: not a type Lab opens as a document.
 */
export const PARTIAL_SUFFIX = '.bookshelf-partial';

const DEFAULT_MAX_ATTEMPTS = 10000;

/**
 * Write `data` as a new file in `folder` named `name`, or the first free
 * increment of it (`q3.ipynb`, `q3-1.ipynb`, …). Resolves to the new
 * file's model (without content).
 *
 * Nothing existing is overwritten, the target path never shows a partial
 * file, and a failed or cancelled write leaves nothing behind: the error is
 * rethrown after the temporary file is deleted (a cancellation as a
 * `Cancelled` error).
 */
export async function writeNewFile(
  contents: IContentsWriter,
  folder: string,
  name: string,
  data: IFileData | IByteStream,
  options: IWriteOptions = {}
): Promise<Contents.IModel> {
  const { signal } = options;
  throwIfAborted(signal);
  const temporaryPath = joinPath(folder, temporaryName(name));
  const inFlight: IInFlight = { save: null };
  let renamed = false;
  try {
    await saveToContents(
      contents,
      folder,
      temporaryPath,
      data,
      options,
      inFlight
    );
    throwIfAborted(signal);
    if (options.checkSaved) {
      await options.checkSaved(temporaryPath);
      throwIfAborted(signal);
    }
    // Once sent, a commit is not cancelled: it is quick, and a cancel
    // cannot know whether it happened (the same holds for the rename).
    const committed = options.committer
      ? await commitOnServer(
          options.committer,
          temporaryPath,
          folder,
          name,
          options
        )
      : null;
    if (committed) {
      renamed = true;
      return await completeModel(contents, committed.path, committed);
    }
    const locks = options.locks ?? defaultFolderLocks();
    // Only naming and renaming hold the lock: uploads run in parallel.
    const model = await locks.run(
      folder,
      async () => {
        const result = await renameToFreeName(
          contents,
          temporaryPath,
          folder,
          name,
          options
        );
        renamed = true;
        return result;
      },
      signal
    );
    return await completeModel(contents, model.path, model.answer);
  } catch (error) {
    if (!renamed) {
      const pending = inFlight.save;
      if (pending) {
        // The server is still saving: remove the temporary file once that
        // save is over. A cancelled clone says so at once; a failed check
        // waits, so that nothing is left when its error is shown.
        const cleanUp = pending
          .catch(() => undefined)
          .then(() => deleteQuietly(contents, temporaryPath));
        if (!signal?.aborted) {
          await cleanUp;
        }
      } else {
        await deleteQuietly(contents, temporaryPath);
      }
    }
    throw signal?.aborted && !renamed ? cancelled({ cause: error }) : error;
  }
}

/**
 * A name for the temporary file next to the target: visible (Jupyter
 * refuses hidden names), unique, and not opened as a notebook by Lab.
 */
export function temporaryName(name: string): string {
  // Keep the whole name within the usual 255-byte limit.
  let stem = '';
  for (const character of name) {
    if (utf8Length(stem + character) > 200) {
      break;
    }
    stem += character;
  }
  return `${stem}.${randomHex(8)}${PARTIAL_SUFFIX}`;
}

async function renameToFreeName(
  contents: IContentsWriter,
  temporaryPath: string,
  folder: string,
  name: string,
  options: IWriteOptions
): Promise<{ path: string; answer: Contents.IModel | undefined }> {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let attempts = 0;
  for (const candidate of candidateNames(name)) {
    if (attempts++ >= maxAttempts) {
      break;
    }
    throwIfAborted(options.signal);
    const path = joinPath(folder, candidate);
    // The rename's own 409 is checked before its move, which another
    // browser may race; checking first too narrows that window.
    if (await exists(contents, path)) {
      continue;
    }
    try {
      return { path, answer: await contents.rename(temporaryPath, path) };
    } catch (error) {
      if (hasResponseStatus(error, 409)) {
        continue;
      }
      // The move may have happened with its answer lost.
      if (await renamedAnyway(contents, temporaryPath, path)) {
        return { path, answer: undefined };
      }
      throw error;
    }
  }
  throw noFreeName(folder, name, maxAttempts, options.trans);
}

/**
 * The commit on the server. Its answer may be lost after the server
 * committed (a network failure, a proxy's 502-504): the server answers a
 * second commit of the same temporary file with the file it made, or
 * commits it now, so asking again is safe. Null: no commit path.
 */
async function commitOnServer(
  committer: ICommitter,
  temporaryPath: string,
  folder: string,
  name: string,
  options: IWriteOptions
): Promise<Contents.IModel | null> {
  const refusal = (error: unknown) =>
    commitRefusal(error, folder, name, options.trans);
  try {
    return await committer.commit(temporaryPath, folder, name);
  } catch (error) {
    if (!answerLost(error)) {
      throw refusal(error);
    }
    let again: Contents.IModel | null;
    try {
      again = await committer.commit(temporaryPath, folder, name);
    } catch (secondError) {
      throw refusal(secondError);
    }
    if (!again) {
      throw error;
    }
    return again;
  }
}

/**
 * Options of `createNewFile`.
 */
export interface ICreateNewFileOptions extends ICreateOptions {
  signal?: AbortSignal;
  onProgress?: (progress: ITransferProgress) => void;
  trans?: TranslationBundle;
}

/**
 * Write `bytes` (or a Blob of them) as a new file in `folder` named `name`,
 * or the first free increment of it, through the server's create path
 * (`ICommitter.create`):
 * saved and committed in one request, with the same guarantees as
 * `writeNewFile`. Resolves to null when the server has no create path, so
 * that the caller writes with `writeNewFile` instead.
 *
 * A clone cancelled while the bytes go stops the request (where the
 * committer can); once they all went the request is not cancelled (its
 * commit cannot be), and the file it made is removed when the answer comes.
 */
export async function createNewFile(
  contents: IContentsWriter,
  committer: ICommitter,
  folder: string,
  name: string,
  bytes: Uint8Array | Blob,
  options: ICreateNewFileOptions
): Promise<Contents.IModel | null> {
  const { signal } = options;
  if (!committer.create) {
    return null;
  }
  throwIfAborted(signal);
  const temporaryPath = joinPath(folder, temporaryName(name));
  const total = byteSize(bytes);
  options.onProgress?.({ loaded: 0, total });
  const created = createOnce(committer, temporaryPath, folder, name, bytes, {
    ...options,
    signal: undefined,
    onSent: loaded => options.onProgress?.({ loaded, total }),
    stopUpload: signal
  });
  // A cancel is said at once. The request stops if its bytes are still
  // going; else it goes on (its commit cannot be stopped), and the file it
  // made is removed when its answer comes.
  let model: Contents.IModel | null;
  try {
    model = await unlessAborted(created, signal);
  } catch (error) {
    if (signal?.aborted) {
      void created
        .then(made => made && deleteQuietly(contents, made.path))
        .catch(() => undefined);
    }
    throw error;
  }
  if (model === null) {
    return null;
  }
  options.onProgress?.({ loaded: total, total });
  return completeModel(contents, model.path, model);
}

/**
 * One request to the create path; an answer that may hide a commit (none
 * came, or the server or a proxy failed: 5xx) is asked of the commit path,
 * which gives the file made, or says that nothing was committed (the
 * server removes what it received when it fails).
 */
async function createOnce(
  committer: ICommitter,
  temporaryPath: string,
  folder: string,
  name: string,
  bytes: Uint8Array | Blob,
  options: ICreateNewFileOptions
): Promise<Contents.IModel | null> {
  try {
    return await committer.create!(temporaryPath, folder, name, bytes, {
      md5: options.md5,
      notebook: options.notebook,
      onSent: options.onSent,
      stopUpload: options.stopUpload
    });
  } catch (error) {
    const status = responseStatus(error);
    const mayHaveCommitted =
      !isBookshelfError(error) && (status === undefined || status >= 500);
    if (!mayHaveCommitted) {
      throw commitRefusal(error, folder, name, options.trans);
    }
    let again: Contents.IModel | null;
    try {
      again = await committer.commit(temporaryPath, folder, name);
    } catch {
      throw error;
    }
    if (!again) {
      throw error;
    }
    return again;
  }
}

/**
 * A refused commit as the error to show: no free name after the server's
 * attempts (409), else as it is.
 */
function commitRefusal(
  error: unknown,
  folder: string,
  name: string,
  trans?: TranslationBundle
): unknown {
  // The server's attempts are the writer's default number.
  return responseStatus(error) === 409
    ? noFreeName(folder, name, DEFAULT_MAX_ATTEMPTS, trans)
    : error;
}

/**
 * Whether a failed request may have been carried out: no answer came, or a
 * proxy answered for a server that did not.
 */
function answerLost(error: unknown): boolean {
  const status = responseStatus(error);
  return (
    status === undefined || status === 502 || status === 503 || status === 504
  );
}

function noFreeName(
  folder: string,
  name: string,
  attempts: number,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): BookshelfError {
  return new BookshelfError({
    code: 'Conflict',
    detail: {
      reason: 'no-free-name',
      message: folder
        ? trans._n(
            "No free name was found for '%2' in the folder '%3' after %1 attempt; choose another name or folder, or remove some copies.",
            "No free name was found for '%2' in the folder '%3' after %1 attempts; choose another name or folder, or remove some copies.",
            attempts,
            name,
            folder
          )
        : trans._n(
            "No free name was found for '%2' in the root folder after %1 attempt; choose another name or folder, or remove some copies.",
            "No free name was found for '%2' in the root folder after %1 attempts; choose another name or folder, or remove some copies.",
            attempts,
            name
          ),
      name,
      folder,
      attempts
    }
  });
}

/**
 * Whether a rename that failed did move the file: the temporary file is
 * gone and the target is there.
 */
async function renamedAnyway(
  contents: IContentsWriter,
  temporaryPath: string,
  path: string
): Promise<boolean> {
  try {
    return (
      !(await exists(contents, temporaryPath)) && (await exists(contents, path))
    );
  } catch {
    return false;
  }
}

async function exists(
  contents: IContentsWriter,
  path: string
): Promise<boolean> {
  try {
    await contents.get(path, { content: false });
    return true;
  } catch (error) {
    if (hasResponseStatus(error, 404)) {
      return false;
    }
    throw error;
  }
}

/**
 * The rename's answer is the new file's model; fetch it if a contents
 * manager answered less. The file exists by now, so a failure to fetch
 * its model is not a failed clone.
 */
async function completeModel(
  contents: IContentsWriter,
  path: string,
  answer: Contents.IModel | undefined
): Promise<Contents.IModel> {
  if (answer && answer.path && answer.name && answer.type) {
    return answer;
  }
  try {
    return await contents.get(path, { content: false });
  } catch {
    return {
      ...answer,
      path,
      name: path.slice(path.lastIndexOf('/') + 1)
    } as Contents.IModel;
  }
}

async function deleteQuietly(
  contents: IContentsWriter,
  path: string
): Promise<void> {
  try {
    await contents.delete(path);
  } catch {
    // Best effort: the file may not exist, and the original error matters.
  }
}

function randomHex(byteCount: number): string {
  const bytes = new Uint8Array(byteCount);
  Random.getRandomValues(bytes);
  return Array.from(bytes, byte => byte.toString(16).padStart(2, '0')).join('');
}
