/**
 * Clone one object from an S3 service into the Jupyter file tree.
 */

import type { Contents } from '@jupyterlab/services';
import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';
import { TRANSLATION_DOMAIN } from '../package';
import {
  BookshelfError,
  isBookshelfError,
  throwIfAborted
} from '../errors/errors';
import type { ICloneRequest, ITransferProgress } from '../tokens';
import type { IObjectData, IObjectStore } from '../s3/types';
import {
  DOWNLOAD_ATTEMPTS,
  isChecksumMismatch,
  retryDamaged
} from '../s3/retry';
import {
  checkNotebook,
  checkSize,
  classifyObject,
  sizeLimitBytes,
  type IClassifiedObject,
  type IFileData,
  type NotebookPurpose
} from './content';
import type { ICommitter } from './committer';
import type { IFolderLocks } from './locks';
import { resolveTarget, type ICloneTarget } from './naming';
import { keyBaseName } from '../s3/names';
import { Md5 } from '../s3/md5';
import { blobPieces } from '../transfer/bytes';
import { checkCloneRequest, checkFileName } from './request';
import {
  asSaveFailed,
  hasResponseStatus,
  type IByteStream,
  type IContentsWriter
} from './contentsSave';
import { createNewFile, writeNewFile } from './writer';

export { ServerCommitter } from './committer';

/**
 * What a clone works with.
 */
export interface ICloneDependencies {
  store: IObjectStore;
  contents: IContentsWriter;
  /**
   * The server extension's atomic commit; without it (or without the
   * server extension) the temporary file is renamed under `locks`.
   */
  committer?: ICommitter;
  /** Default: Web Locks, or page-wide in-memory locks without them. */
  locks?: IFolderLocks;
  /**
   * Whether a request to S3 now would ask the person nothing (no prompt
   * for keys): then the download starts while the target folder is
   * checked, instead of after. Default: it might ask.
   */
  asksNothing?: () => boolean;
}

/**
 * Progress of a clone: the download, then the save.
 */
export interface ICloneProgress extends ITransferProgress {
  phase: 'download' | 'save';
}

/**
 * Options of `cloneObject`.
 */
export interface ICloneObjectOptions {
  /** The folder for requests without a target_path; default: the root. */
  defaultFolder?: string;
  /** The `maxObjectSizeMB` setting. */
  maxObjectSizeMB: number;
  signal?: AbortSignal;
  onProgress?: (progress: ICloneProgress) => void;
  /** Passed to the writer; default: 8 MiB. */
  chunkSize?: number;
  /**
   * Objects larger than this many bytes are saved while they download;
   * default: `STREAM_ABOVE_BYTES`.
   */
  streamAbove?: number;
  /** Translates the error messages; default: English. */
  trans?: TranslationBundle;
  /**
   * The file tree is JupyterLite's: no Jupyter server reads its notebooks,
   * so a version 3 notebook, which a server converts when it opens it, is
   * refused (JupyterLab would show it empty, and its next save would write
   * an empty notebook over the clone).
   */
  jupyterLite?: boolean;
  /**
   * Create the target folder and its missing parents (a link's
   * target_path may name a folder that does not exist yet, as a teacher's
   * links do). They are made once the object is downloaded and checked,
   * and removed again if the clone fails. Default: a missing folder is an
   * `InvalidRequest`.
   */
  createFolders?: boolean;
}

/**
 * Clone an object into the file tree and resolve to the new file's model.
 *
 * Throws `BookshelfError`s: `InvalidRequest` (with the field in `detail`)
 * for a bad request or a missing folder, the store's errors (`NoSuchKey`,
 * `AccessDenied`, …), `TooLarge`, `NotANotebook`, `Cancelled`, `Conflict`
 * when no free name is found, `SaveFailed` when the contents API fails
 * while saving (with its HTTP status in `detail.status`).
 * Nothing is written unless the whole clone succeeds.
 *
 * Does not check the `allowedBuckets` setting, which restricts links only:
 * the caller does, with `isBucketAllowed`.
 */
export async function cloneObject(
  deps: ICloneDependencies,
  request: ICloneRequest,
  options: ICloneObjectOptions
): Promise<Contents.IModel> {
  const { signal } = options;
  const trans = options.trans ?? nullTranslator.load(TRANSLATION_DOMAIN);
  const checked = checkCloneRequest(request, trans);
  throwIfAborted(signal);

  // Where the file goes is settled before the download is used: a
  // refusal (a missing folder) comes first. The download starts at once
  // where it asks the person nothing, else once the target is settled (a
  // clone into a missing folder must not ask for keys first).
  let early = deps.asksNothing?.()
    ? startDownload(deps, checked, options)
    : null;
  let target: ICloneTarget & { missing?: string[] };
  try {
    target = await findTarget(
      deps.contents,
      checked,
      options.defaultFolder ?? '',
      trans,
      !!options.createFolders
    );
    throwIfAborted(signal);
  } catch (error) {
    early?.stop();
    throw error;
  }

  // A download damaged on the way is found by its checksum only while the
  // save is in flight (see `saveObject`): then the clone starts again.
  return retryDamaged(
    DOWNLOAD_ATTEMPTS,
    signal,
    () => {
      const download = early ?? startDownload(deps, checked, options);
      early = null;
      return saveObject(deps, checked, target, download.object, options, trans);
    },
    error => isChecksumMismatch(error) || streamsCutOff.has(error as object)
  );
}

/**
 * A download started, and how to stop it when it is not used.
 */
interface IDownload {
  object: Promise<IObjectData>;
  stop: () => void;
}

function startDownload(
  deps: ICloneDependencies,
  request: ICloneRequest,
  options: ICloneObjectOptions
): IDownload {
  const controller = new AbortController();
  const { signal, onProgress } = options;
  const stop = () => controller.abort();
  // For the whole clone: a streamed body is read after the answer came.
  signal?.addEventListener('abort', stop, { once: true });
  const object = deps.store.getObject(request.s3_bucket, request.s3_key, {
    versionId: request.s3_version_id,
    signal: controller.signal,
    maxBytes: sizeLimitBytes(options.maxObjectSizeMB),
    deferChecksum: true,
    streamAbove: options.streamAbove ?? streamAbove(deps.committer),
    // The create path sends a Blob: gathered as one, the page holds a part.
    gatherAsBlob: canCreate(deps.committer),
    onProgress: (loaded, total) =>
      onProgress?.({ phase: 'download', loaded, total })
  });
  // A download stopped because the target was refused is not reported.
  object.catch(() => undefined);
  // Aborting also ends a body being read (the fetch's own signal).
  return { object, stop };
}

/**
 * Streamed downloads cut off half-way (the connection lost, the server
 * stopped): the store reads a whole download again itself, but a streamed
 * one has been handed out piece by piece already, so the clone starts over.
 */
const streamsCutOff = new WeakSet<object>();

/**
 * Download the object and save it at the target. The checks the save does
 * not need (the checksum, the notebook's structure) run while the server
 * saves: checking first would leave the page busy and the server idle, and
 * the other way round. A failed check removes the saved file.
 */
async function saveObject(
  deps: ICloneDependencies,
  request: ICloneRequest,
  target: ICloneTarget & { missing?: string[] },
  download: Promise<IObjectData>,
  options: ICloneObjectOptions,
  trans: TranslationBundle
): Promise<Contents.IModel> {
  const { signal } = options;
  const object = await download;
  if (object.pieces) {
    // The checksum was computed while the pieces arrived.
    return saveStreamed(
      deps,
      target,
      object.pieces,
      object.head.contentLength,
      () => object.verify?.(),
      options,
      trans
    );
  }
  // The store refuses early when it knows the size; this covers the rest.
  checkSize(object.blob?.size ?? object.bytes.length, options.maxObjectSizeMB);
  throwIfAborted(signal);

  const created = await createAtTarget(deps, target, object, options, trans);
  if (created) {
    return created;
  }
  const { blob } = object;
  if (blob && blob.size > STREAM_ABOVE_BYTES) {
    // Gathered for a create path the server turned out not to have (an
    // older server extension, files not on its disk): saved in chunks from
    // the Blob, hashed as they are read, never whole in the page.
    const hash = object.md5 ? new Md5() : undefined;
    return saveStreamed(
      deps,
      target,
      blobPieces(blob, piece => hash?.update(piece)),
      blob.size,
      () => object.verify?.(undefined, hash?.digest()),
      options,
      trans
    );
  }

  const bytes = await objectBytes(object);
  let data: IClassifiedObject;
  try {
    data = classifyObject(target.name, bytes, trans, clonePurpose(options));
  } catch (error) {
    // Damaged bytes may not decode: that is not the object's fault.
    object.verify?.(bytes);
    throw error;
  }
  return writeAtTarget(
    deps,
    target,
    data,
    () => {
      // The checksum first: damaged bytes are not a bad notebook.
      object.verify?.(bytes);
      data.check?.();
    },
    options,
    trans
  );
}

/**
 * Save bytes arriving in pieces in chunks as they come; `verify` (their
 * checksum) runs before the commit. A notebook is checked once saved,
 * before its commit: by the server, which reads it in pieces, or else by
 * the page. A cut-off is marked as one to try again (see `streamsCutOff`).
 */
async function saveStreamed(
  deps: ICloneDependencies,
  target: ICloneTarget & { missing?: string[] },
  pieces: AsyncIterable<Uint8Array>,
  total: number | undefined,
  verify: () => void,
  options: ICloneObjectOptions,
  trans: TranslationBundle
): Promise<Contents.IModel> {
  const notebook = isNotebookName(target.name);
  try {
    return await writeAtTarget(
      deps,
      target,
      {
        stream: notebook ? withoutByteOrderMark(pieces) : pieces,
        total,
        // A notebook must be UTF-8: saved as text, which is faster, where
        // the server's create path answers (then the server is a Jupyter
        // server whose contents manager keeps files on disk, and its chunked
        // save takes text). Elsewhere as base64: JupyterLite's chunked save
        // decodes every chunk as base64, whatever its format says.
        text: notebook && canCreate(deps.committer)
      },
      verify,
      options,
      trans,
      notebook
        ? temporaryPath =>
            checkSavedNotebook(
              deps,
              temporaryPath,
              trans,
              clonePurpose(options)
            )
        : undefined
    );
  } catch (error) {
    if (isBookshelfError(error, 'Interrupted')) {
      streamsCutOff.add(error);
    }
    throw error;
  }
}

/**
 * A downloaded object's bytes, read back from its Blob where it was
 * gathered as one (for the create path, which the server did not have).
 */
async function objectBytes(object: IObjectData): Promise<Uint8Array> {
  return object.blob
    ? new Uint8Array(await object.blob.arrayBuffer())
    : object.bytes;
}

/**
 * Objects larger than this many bytes (by their Content-Length) are saved
 * while they download, so that the page holds one chunk of them at a time
 * instead of the whole object (and its base64 or text) at once. Smaller
 * ones are gathered and saved in one request: that is one save, as text
 * when they are text (no base64 on either side), which is faster for a
 * small clone than a chunked save, and their memory does not matter.
 * 8 MiB is the writer's default chunk: up to it a streamed save would be
 * one request too. A streamed notebook is checked once saved
 * (`checkSavedNotebook`); a smaller one in the page, while it is saved.
 */
export const STREAM_ABOVE_BYTES = 8 * 1024 * 1024;

/**
 * The size above which a download is saved while it arrives, for a clone
 * through `committer`. Where the server's create path takes the bytes
 * (`ICommitter.create`), none is: the download is gathered into a Blob as
 * it comes, a part at a time (no text, no base64, no JSON), and the Blob
 * sent in one request, which the server writes to disk as it arrives and
 * checks there. The page holds one part whatever the size (the Blob's
 * bytes are the browser's, kept outside the tab), and it is twice as fast
 * as the streamed save's base64 chunks or more. Measured at 50 MB: 0.18×
 * the object in heap and ArrayBuffers, 1.1× in renderer memory (1.02× and
 * 3.2× gathered into one buffer); at 200 MB, 1.8 s against 4.0 s and
 * 60 MiB of renderer memory against 397 MiB.
 */
export function streamAbove(committer: ICommitter | undefined): number {
  if (!canCreate(committer)) {
    return STREAM_ABOVE_BYTES;
  }
  // Below what a proxy refused as too large, if one did.
  const refused = committer?.createRefusedFrom;
  return refused === undefined
    ? Number.POSITIVE_INFINITY
    : Math.max(STREAM_ABOVE_BYTES, refused - 1);
}

/**
 * Whether a clone through `committer` may take the server's create path.
 */
function canCreate(committer: ICommitter | undefined): boolean {
  return !!committer?.create && !committer.createUnavailable;
}

/**
 * What a cloned notebook is checked for (see `NotebookPurpose`).
 */
function clonePurpose(options: ICloneObjectOptions): 'clone' | 'clone-lite' {
  return options.jupyterLite ? 'clone-lite' : 'clone';
}

function isNotebookName(name: string): boolean {
  return name.endsWith('.ipynb');
}

/**
 * The pieces without a leading UTF-8 byte order mark, which Jupyter's
 * notebook reader refuses (a small notebook loses it in `classifyObject`).
 */
export async function* withoutByteOrderMark(
  pieces: AsyncIterable<Uint8Array>
): AsyncIterable<Uint8Array> {
  let head = new Uint8Array(0);
  let started = false;
  for await (const piece of pieces) {
    if (started) {
      yield piece;
      continue;
    }
    // The first three bytes may come in more than one piece.
    const joined = new Uint8Array(head.length + piece.length);
    joined.set(head);
    joined.set(piece, head.length);
    if (joined.length < 3) {
      head = joined;
      continue;
    }
    started = true;
    const mark = joined[0] === 0xef && joined[1] === 0xbb && joined[2] === 0xbf;
    yield mark ? joined.subarray(3) : joined;
  }
  if (!started && head.length > 0) {
    yield head;
  }
}

/**
 * Check a streamed notebook's saved temporary file: on the server when it
 * can (it reads the file in pieces), else here, read back whole (as in
 * JupyterLite, whose files live in the page anyway).
 */
async function checkSavedNotebook(
  deps: ICloneDependencies,
  temporaryPath: string,
  trans: TranslationBundle,
  purpose: NotebookPurpose
): Promise<void> {
  if (await deps.committer?.checkNotebook?.(temporaryPath)) {
    return;
  }
  const model = await deps.contents.get(temporaryPath, {
    type: 'file',
    format: 'base64',
    content: true
  });
  checkNotebook(base64ToBytes(String(model.content ?? '')), trans, purpose);
}

function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64.replace(/\s/g, ''));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) {
    bytes[i] = binary.charCodeAt(i);
  }
  return bytes;
}

/**
 * Write the bytes (gathered, or arriving in pieces: saved in chunks as they
 * come, text for a notebook, else base64) at the target, creating its missing folders; `verify` runs
 * before the commit (see `writeNewFile`). A failure removes the folders
 * this created.
 */
async function writeAtTarget(
  deps: ICloneDependencies,
  target: ICloneTarget & { missing?: string[] },
  data: IFileData | IByteStream,
  verify: () => void,
  options: ICloneObjectOptions,
  trans: TranslationBundle,
  checkSaved?: (temporaryPath: string) => Promise<void>
): Promise<Contents.IModel> {
  const created = await createFolders(deps.contents, target.missing ?? []);
  try {
    return await writeNewFile(deps.contents, target.folder, target.name, data, {
      signal: options.signal,
      committer: deps.committer,
      locks: deps.locks,
      chunkSize: options.chunkSize,
      onProgress: progress =>
        options.onProgress?.({ phase: 'save', ...progress }),
      verify,
      checkSaved,
      trans
    });
  } catch (error) {
    await removeEmptyFolders(deps.contents, created);
    throw asSaveFailed(error, target.folder, trans);
  }
}

/**
 * Save and commit the bytes in one request, through the server's create
 * path, which checks them as they arrive (their MD5, a notebook's
 * structure); creates the target's missing folders first and removes them
 * if that fails. Resolves to null where the server has no create path
 * (see `createNewFile`).
 */
async function createAtTarget(
  deps: ICloneDependencies,
  target: ICloneTarget & { missing?: string[] },
  object: IObjectData,
  options: ICloneObjectOptions,
  trans: TranslationBundle
): Promise<Contents.IModel | null> {
  const { committer, contents } = deps;
  if (!committer?.create) {
    return null;
  }
  const created = await createFolders(contents, target.missing ?? []);
  let model: Contents.IModel | null;
  try {
    model = await createNewFile(
      contents,
      committer,
      target.folder,
      target.name,
      object.blob ?? object.bytes,
      {
        md5: object.md5,
        notebook: isNotebookName(target.name),
        signal: options.signal,
        onProgress: progress =>
          options.onProgress?.({ phase: 'save', ...progress }),
        trans
      }
    );
  } catch (error) {
    await removeEmptyFolders(contents, created);
    if (
      isBookshelfError(error, 'NotANotebook') &&
      (object.blob?.size ?? 0) <= STREAM_ABOVE_BYTES
    ) {
      // The page's own check says it in the person's language; a larger
      // object is not read into the page for that, the server's words do.
      classifyObject(target.name, await objectBytes(object), trans).check?.();
    }
    throw asSaveFailed(error, target.folder, trans);
  }
  if (!model) {
    // Written the other way, which makes them again.
    await removeEmptyFolders(contents, created);
  }
  return model;
}

/**
 * Create folders, parents first; resolves to those this call created. A
 * folder another writer made meanwhile is fine (saving a folder that
 * exists changes nothing).
 */
async function createFolders(
  contents: IContentsWriter,
  folders: string[]
): Promise<string[]> {
  const created: string[] = [];
  try {
    for (const folder of folders) {
      await contents.save(folder, { type: 'directory' });
      created.push(folder);
    }
  } catch (error) {
    await removeEmptyFolders(contents, created);
    throw error;
  }
  return created;
}

/**
 * Remove folders a failed clone created, children first, unless something
 * was saved in them meanwhile.
 */
async function removeEmptyFolders(
  contents: IContentsWriter,
  folders: string[]
): Promise<void> {
  for (const folder of [...folders].reverse()) {
    try {
      const model = await contents.get(folder, { content: true });
      if (Array.isArray(model.content) && model.content.length === 0) {
        await contents.delete(folder);
      }
    } catch {
      // Best effort: the clone's own error is what the person needs.
    }
  }
}

/**
 * Resolve the target against the file tree: a target_path without a
 * trailing '/' that names an existing folder is that folder, and the
 * folder must exist.
 */
async function findTarget(
  contents: IContentsWriter,
  request: ICloneRequest,
  defaultFolder: string,
  trans: TranslationBundle,
  create: boolean
): Promise<ICloneTarget & { missing?: string[] }> {
  let target = resolveTarget(request, defaultFolder);
  const targetPath = request.target_path;
  if (targetPath && !targetPath.endsWith('/')) {
    // Only a folder there matters; any other answer (jupyter_server
    // answers 500 for a path below a file) leaves the folder check below
    // to say what is wrong.
    const existing = await getModel(contents, targetPath).catch(() => null);
    if (existing?.type === 'directory') {
      target = { folder: targetPath, name: keyBaseName(request.s3_key) };
      // The name now comes from the key, which validation did not check.
      const problem = checkFileName(target.name, 's3_key', trans);
      if (problem) {
        throw new BookshelfError({
          code: 'InvalidRequest',
          detail: {
            message: trans.__('%1: %2.', 's3_key', problem),
            field: 's3_key'
          }
        });
      }
      return target;
    }
  }
  if (target.folder !== '') {
    let folder: Contents.IModel | null;
    try {
      folder = await getModel(contents, target.folder);
    } catch (error) {
      throw asSaveFailed(error, target.folder, trans);
    }
    if (!folder && create) {
      return {
        ...target,
        missing: await missingFolders(contents, target.folder, trans)
      };
    }
    // Without a target_path the folder is the caller's default.
    if (!folder) {
      throw new BookshelfError({
        code: 'InvalidRequest',
        detail: {
          message: targetPath
            ? trans.__(
                "target_path: the folder '%1' does not exist; create it first or choose another folder.",
                target.folder
              )
            : trans.__(
                "The folder '%1' does not exist; create it first or choose another folder.",
                target.folder
              ),
          field: targetPath ? 'target_path' : undefined,
          folder: target.folder
        }
      });
    }
    if (folder.type !== 'directory') {
      throw new BookshelfError({
        code: 'InvalidRequest',
        detail: {
          message: targetPath
            ? trans.__(
                "target_path: the path '%1' is a file, not a folder; choose a folder.",
                target.folder
              )
            : trans.__(
                "The path '%1' is a file, not a folder; choose a folder.",
                target.folder
              ),
          field: targetPath ? 'target_path' : undefined,
          folder: target.folder
        }
      });
    }
  }
  return target;
}

/**
 * The folders to create for `folder`, parents first: those from the first
 * one that does not exist down. A file on the way cannot become a folder.
 */
async function missingFolders(
  contents: IContentsWriter,
  folder: string,
  trans: TranslationBundle
): Promise<string[]> {
  const parts = folder.split('/');
  const paths = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
  for (const [index, path] of paths.entries()) {
    let model: Contents.IModel | null;
    try {
      model = await getModel(contents, path);
    } catch (error) {
      throw asSaveFailed(error, path, trans);
    }
    if (!model) {
      return paths.slice(index);
    }
    if (model.type !== 'directory') {
      throw new BookshelfError({
        code: 'InvalidRequest',
        detail: {
          message: trans.__(
            "target_path: the path '%1' is a file, not a folder; choose a folder.",
            path
          ),
          field: 'target_path',
          folder: path
        }
      });
    }
  }
  return [];
}

/**
 * The model of a path without its content, or null when it does not exist.
 */
async function getModel(
  contents: IContentsWriter,
  path: string
): Promise<Contents.IModel | null> {
  try {
    return await contents.get(path, { content: false });
  } catch (error) {
    if (hasResponseStatus(error, 404)) {
      return null;
    }
    throw error;
  }
}
