/**
 * Publishing a notebook of the file tree to the publish bucket.
 */

import type { Contents } from '@jupyterlab/services';
import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';
import { checkNotebook } from '../clone/content';
import type { LinkForm } from '../settings/deployment';
import { hasResponseStatus } from '../clone/contentsSave';
import { TRANSLATION_DOMAIN } from '../package';
import {
  BookshelfError,
  isBookshelfError,
  publishNotConfigured,
  throwIfAborted
} from '../errors/errors';
import publishRules from '../rules/publish.json';
import { ruleMessage } from '../rules/translate';
import { sha256Digest } from '../s3/integrity';
import { fromHex, Md5, md5, toHex } from '../s3/md5';
import type { IObjectHead, IObjectStore, IPutObjectResult } from '../s3/types';
import type { IServerCheck } from '../clone/committer';
import type {
  IBookshelfSettings,
  IPublishBody,
  IPublishOptions,
  IPublishResult
} from '../tokens';
import {
  checkPublishBucket,
  checkPublishDestination,
  cloneUrl,
  NOTEBOOK_EXTENSION,
  publishKey,
  s3Path
} from './destination';
import {
  conditionsIgnored,
  type IConditionalWrites,
  requiredCondition
} from './conditional';
import {
  MULTIPART_ABOVE,
  PART_SIZE,
  PartDigests,
  uploadInParts
} from './multipart';
import { decideOverwrite, type PutCondition } from './overwrite';
import { byteSize } from '../transfer/bytes';

// Loaded with this module on first publish, not at start-up.
export { checkOnServer } from '../clone/committer';
export { probeConditionalCompletes } from './conditional';

/**
 * The media type of a published notebook.
 */
export const NOTEBOOK_CONTENT_TYPE = publishRules.contentType;

/**
 * Above this size, a saved notebook is checked and hashed by the Jupyter
 * server, and its bytes go to S3 as a Blob the page never reads: reading
 * and checking 10 MB in the page costs more than the server's check, which
 * runs while the browser fetches the file.
 */
export const CHECK_ON_SERVER_ABOVE = publishRules.checkOnServer.above;

/**
 * What publishing needs: the S3 service and a contents manager
 * (`app.serviceManager.contents` fits).
 */
export interface IPublishDeps {
  store: IObjectStore;
  contents: { get: Contents.IManager['get'] };
  /**
   * Open a saved file's bytes as they are on disk (the server's `/files/`
   * path): faster than a contents model, whose JSON wraps and escapes the
   * text, and readable as it arrives. Resolves to null for a missing file.
   * Without it, the contents manager is used.
   */
  openSaved?: (path: string) => Promise<ISavedFile | null>;
  /**
   * Check the saved notebook at `path` on the server (memory flat in its
   * size), answering its size, its parts' MD5 digests and its ETag when
   * uploaded in parts of `partSize` (see `checkOnServer`); null when the
   * server cannot. `onPart` is given each whole part's digest (hex) as
   * soon as the server has it, while the check goes on. A notebook larger
   * than `multipart.above` is published in parts only when the server can
   * check it and give its parts.
   */
  checkSaved?: (
    path: string,
    partSize: number,
    onPart?: (index: number, md5Hex: string) => void
  ) => Promise<IServerCheck | null>;
  /**
   * The saved file's bytes from `start` to `end` (excluded), as a Blob the
   * page need not read; null when the server does not give them so (it
   * ignores ranges, or the file is shorter now).
   */
  readSavedRange?: (
    path: string,
    start: number,
    end: number
  ) => Promise<Uint8Array | Blob | null>;
  /**
   * As `conditionalWrites`, for the completion of a multipart upload.
   */
  conditionalCompletes?: (bucket: string) => Promise<IConditionalWrites>;
  /**
   * Above which size, and in parts of which size, a saved notebook is
   * published in parts. Default: `MULTIPART_ABOVE` and `PART_SIZE`.
   */
  multipart?: { above: number; partSize: number };
  /**
   * Above which size a saved notebook is checked by the server instead of
   * read into the page. Default: `CHECK_ON_SERVER_ABOVE`.
   */
  checkOnServerAbove?: number;
  /**
   * Whether the S3 service honours conditional writes in `bucket` (see
   * `probeConditionalWrites`; the model remembers the answer for the
   * session). Asked before a put whose protection depends on them.
   */
  conditionalWrites: (bucket: string) => Promise<IConditionalWrites>;
  /**
   * Whether a request to S3 now would ask the person nothing (no prompt
   * for keys): then what is at the destination is asked while the
   * notebook is read and checked, instead of after. Default: it might ask.
   */
  asksNothing?: () => boolean;
}

/**
 * A saved file being read.
 */
export interface ISavedFile {
  /** Its size, when the server announced it. */
  size?: number;
  /** Its bytes, whole; `onChunk` is given them as they arrive. */
  bytes(onChunk?: (chunk: Uint8Array) => void): Promise<Uint8Array>;
  /** Let go of it unread. */
  release(): void;
}

/**
 * Options of `publishNotebook`: the API's options, plus the settings and
 * the server's address for the clone link.
 */
export interface IPublishNotebookOptions extends IPublishOptions {
  settings: IBookshelfSettings;
  /** The Jupyter server's origin, e.g. `https://hub.example.org`. */
  serverOrigin: string;
  /** The server's base URL, e.g. `/` or `/user/ana/`. */
  baseUrl: string;
  /** The clone link's form (see `cloneUrl`); default: 'server'. */
  linkForm?: LinkForm;
  /** Translates the error messages; default: English. */
  trans?: TranslationBundle;
}

/**
 * Where a notebook would be published, and what is there now.
 */
export interface IPublishTarget {
  bucket: string;
  key: string;
  s3_path: string;
  /** The current object (its ETag, last modified, …), or null. */
  existing: IObjectHead | null;
}

/**
 * Where `path` would be published and what exists there, without
 * uploading: what the publish dialog shows before the user confirms. Pass
 * `existing.etag` back as `ifMatch` so that only that version is replaced.
 *
 * Throws `PublishNotConfigured`, `NotANotebook` (not an `.ipynb` path),
 * `InvalidRequest` (a destination that is not a valid key), or the
 * store's errors.
 */
export async function readPublishTarget(
  deps: Pick<IPublishDeps, 'store'>,
  path: string,
  settings: IBookshelfSettings,
  destination?: string,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): Promise<IPublishTarget> {
  const { bucket, key } = resolveDestination(
    path,
    settings,
    destination,
    trans
  );
  const existing = await deps.store.headObject(bucket, key);
  return { bucket, key, s3_path: s3Path(bucket, key), existing };
}

/**
 * Publish the notebook at `path` (a Jupyter path) to the publish bucket,
 * at `<publishPrefix><destination ?? path>`.
 *
 * The bytes are the saved file's, unchanged, or `options.body` serialized
 * the way Jupyter saves notebooks; either must be an nbformat 4 notebook.
 * Whether an existing object is replaced follows the overwrite policy (see
 * `decideOverwrite`); every put is conditional where it can be, so a
 * version another publisher wrote meanwhile is never lost. A saved
 * notebook above `checkOnServerAbove` bytes is checked by the server and
 * put whole without being read into the page (see `publishCheckedOnServer`),
 * above `multipart.above` bytes uploaded in parts read from the server (see
 * `publishInParts`), where the server and the S3 service allow it; anything
 * else is read, checked here and put whole.
 *
 * Throws `BookshelfError`s: `PublishNotConfigured`, `NotANotebook`,
 * `InvalidRequest`, `Conflict` (the object exists and may not be replaced,
 * or changed meanwhile; nothing was written), `ReadFailed` (also: saved
 * again during the publish), `Cancelled`, or the store's.
 */
export async function publishNotebook(
  deps: IPublishDeps,
  path: string,
  options: IPublishNotebookOptions
): Promise<IPublishResult> {
  const { settings, signal } = options;
  const trans = options.trans ?? nullTranslator.load(TRANSLATION_DOMAIN);
  const { bucket, key } = resolveDestination(
    path,
    settings,
    options.destination,
    trans
  );
  const where = s3Path(bucket, key);
  throwIfAborted(signal);
  const multipart = deps.multipart ?? {
    above: MULTIPART_ABOVE,
    partSize: PART_SIZE
  };

  // What is at the destination, asked at once where that asks the person
  // nothing; a notebook that cannot be published is still refused first.
  const existing = deps.asksNothing?.()
    ? deps.store.headObject(bucket, key)
    : undefined;
  existing?.catch(() => undefined); // awaited in decideWrite

  // A large saved notebook is checked on the server and sent from the
  // server's bytes (in parts, the largest); anything else is read whole and
  // checked here.
  let saved: ISavedFile | null = null;
  let whole: IWholeNotebook | null = null;
  if (options.body) {
    whole = wholeNotebook(notebookBodyBytes(path, options.body, trans));
  } else {
    saved = await openSavedFile(deps, path, trans);
    if (
      !saved ||
      saved.size === undefined ||
      saved.size <= (deps.checkOnServerAbove ?? CHECK_ON_SERVER_ABOVE) ||
      !deps.checkSaved ||
      !deps.readSavedRange
    ) {
      whole = await readWhole(deps, path, saved, trans);
    }
  }
  const decision = await decideWrite(
    deps,
    {
      path,
      bucket,
      key,
      where,
      options,
      trans,
      existing,
      inParts:
        !whole && saved!.size! > multipart.above && !!deps.conditionalCompletes
    },
    whole
  ).catch(error => {
    saved?.release();
    throw error;
  });
  throwIfAborted(signal);

  const write: IWrite = {
    store: deps.store,
    bucket,
    key,
    where,
    condition: decision.condition,
    replaceAnyway: settings.overwritePolicy === 'always',
    trans
  };
  let result: IPutObjectResult | null = null;
  if (!whole && decision.inParts) {
    result = await publishInParts(deps, path, saved!, write, {
      partSize: multipart.partSize,
      signal,
      onProgress: options.onProgress
    });
    if (!result) {
      // Not in parts, then in one put, whose condition must be honoured.
      await refuseIgnoredCondition(deps, write, decision.needed);
    }
  }
  if (!whole && !result) {
    result = await publishCheckedOnServer(deps, path, saved!, write, {
      signal,
      onProgress: options.onProgress
    });
  }
  if (!result) {
    if (!whole) {
      // The server could not check it: whole, then.
      whole = await readWhole(deps, path, undefined, trans);
      checkPublishable(path, whole.bytes, trans);
      await refuseIgnoredCondition(deps, write, decision.needed);
    }
    result = await putWhole(write, whole, {
      signal,
      onProgress: options.onProgress
    });
  }

  const published: IPublishResult = {
    s3_path: where,
    clone_url: cloneUrl(
      options.serverOrigin,
      options.baseUrl,
      { s3_bucket: bucket, s3_key: key, s3_version_id: result.versionId },
      options.linkForm
    )
  };
  if (result.versionId) {
    published.version_id = result.versionId;
  }
  if (result.etag) {
    published.etag = result.etag;
  }
  return published;
}

/**
 * The checks before a publish writes: the notebook (when whole), the
 * overwrite policy against what is there, and whether the S3 service
 * honours the condition the policy relies on. Returns the write's
 * condition, and whether the upload in parts can keep it (else the
 * notebook goes in one put).
 */
async function decideWrite(
  deps: IPublishDeps,
  target: {
    path: string;
    bucket: string;
    key: string;
    where: string;
    options: IPublishNotebookOptions;
    trans: TranslationBundle;
    /** The destination's head, asked already. */
    existing?: Promise<IObjectHead | null>;
    /** The saved notebook is to be uploaded in parts. */
    inParts: boolean;
  },
  whole: IWholeNotebook | null
): Promise<{
  condition: PutCondition;
  needed: 'ifMatch' | 'ifNoneMatch' | null;
  inParts: boolean;
}> {
  const { path, bucket, key, where, options, trans } = target;
  const { settings, signal } = options;
  if (whole) {
    checkPublishable(path, whole.bytes, trans);
  }
  throwIfAborted(signal);

  const existing = await (target.existing ??
    deps.store.headObject(bucket, key));
  const decision = decideOverwrite(
    settings.overwritePolicy,
    existing,
    options,
    where,
    trans
  );
  if (decision.action === 'refuse') {
    throw new BookshelfError({
      code: decision.code,
      detail: {
        reason: decision.reason,
        message: decision.message,
        bucket,
        key,
        etag: existing?.etag,
        lastModified: existing?.lastModified?.toISOString()
      }
    });
  }

  // A server that ignores the condition would overwrite silently: refuse,
  // or, where only the completion of an upload in parts ignores it, put
  // the notebook whole.
  const needed = requiredCondition(
    settings.overwritePolicy,
    decision.condition
  );
  let inParts = target.inParts;
  if (
    inParts &&
    needed &&
    !(await deps.conditionalCompletes!(bucket))[needed]
  ) {
    inParts = false;
  }
  if (!inParts) {
    await refuseIgnoredCondition(deps, { bucket, key, trans }, needed);
  }
  throwIfAborted(signal);
  return { condition: decision.condition, needed, inParts };
}

/**
 * Refuse a put whose needed condition the S3 service ignores.
 */
async function refuseIgnoredCondition(
  deps: IPublishDeps,
  write: Pick<IWrite, 'bucket' | 'key' | 'trans'>,
  needed: 'ifMatch' | 'ifNoneMatch' | null
): Promise<void> {
  if (needed && !(await deps.conditionalWrites(write.bucket))[needed]) {
    throw conditionsIgnored(needed, write.bucket, write.key, write.trans);
  }
}

/**
 * A notebook's bytes, whole, with the digests started while it was read.
 */
interface IWholeNotebook {
  bytes: Uint8Array;
  md5?: Uint8Array;
  /** Web Crypto hashes on another thread while the notebook is checked. */
  sha256: Promise<Uint8Array | null>;
}

function wholeNotebook(bytes: Uint8Array, hash?: Md5): IWholeNotebook {
  return {
    bytes,
    md5: hash && hash.bytesHashed === bytes.length ? hash.digest() : undefined,
    sha256: sha256Digest(bytes)
  };
}

/**
 * Where and how a publish writes.
 */
interface IWrite {
  store: IObjectStore;
  bucket: string;
  key: string;
  where: string;
  condition: PutCondition;
  /** The policy is 'always': an object created meanwhile is replaced. */
  replaceAnyway: boolean;
  trans: TranslationBundle;
}

interface ITransferOptions {
  signal?: AbortSignal;
  onProgress?: IPublishOptions['onProgress'];
}

/**
 * Put the notebook in one request.
 */
function putWhole(
  write: IWrite,
  whole: IWholeNotebook,
  options: ITransferOptions
): Promise<IPutObjectResult> {
  const { onProgress, signal } = options;
  return writeOnCondition(
    write,
    condition =>
      write.store.putObject(write.bucket, write.key, whole.bytes, {
        ...condition,
        md5: whole.md5,
        sha256: whole.sha256,
        contentType: NOTEBOOK_CONTENT_TYPE,
        signal,
        onProgress: onProgress
          ? (loaded, total) => onProgress({ loaded, total })
          : undefined
      }),
    () => `"${toHex(whole.md5 ?? md5(whole.bytes))}"`
  );
}

/**
 * Put the saved notebook in one request, once the server has checked it:
 * the server reads, checks and hashes the file while the browser fetches
 * it as a Blob the page never reads, and the put carries the server's MD5
 * as its Content-MD5, so that S3 stores only the bytes that were checked
 * (a file saved again in between is refused: 400 BadDigest). Where the
 * S3 service ignores Content-MD5, the ETag it answers shows which bytes
 * it stored. Null when the server cannot check the file or give its
 * bytes: nothing was published, and the caller reads it and puts it whole.
 */
async function publishCheckedOnServer(
  deps: IPublishDeps,
  path: string,
  saved: ISavedFile,
  write: IWrite,
  options: ITransferOptions
): Promise<IPutObjectResult | null> {
  const { trans, store, bucket, key } = write;
  const size = saved.size!;
  // The bytes are fetched again as a Blob, not read from this answer.
  saved.release();
  const [check, body] = await Promise.all([
    checkWholeOnServer(deps, path, trans),
    deps.readSavedRange!(path, 0, size).catch(error => {
      throw couldNotRead(path, error, trans);
    })
  ]);
  if (!check || !body) {
    return null;
  }
  if (check.size !== size || byteSize(body) !== size) {
    throw savedMeanwhile(path);
  }
  const { md5Hex } = check;
  const { signal, onProgress } = options;
  let result: IPutObjectResult;
  try {
    result = await writeOnCondition(
      write,
      condition =>
        store.putObject(bucket, key, body, {
          ...condition,
          md5: fromHex(md5Hex),
          contentType: NOTEBOOK_CONTENT_TYPE,
          signal,
          onProgress: onProgress
            ? (loaded, total) => onProgress({ loaded, total })
            : undefined
        }),
      () => `"${md5Hex}"`
    );
  } catch (error) {
    // S3 refused the bytes, attempt after attempt, as not those hashed:
    // damaged on the way, or saved again since the check.
    if (
      isBookshelfError(error, 'Corrupted') &&
      (await checkWholeOnServer(deps, path, trans).catch(() => null))
        ?.md5Hex !== md5Hex
    ) {
      throw savedMeanwhile(path);
    }
    throw error;
  }
  const stored = result.etag?.replace(/"/g, '').toLowerCase();
  if (stored && /^[0-9a-f]{32}$/.test(stored) && stored !== md5Hex) {
    // A plain MD5 (not KMS's, nor an upload in parts'), of other bytes.
    throw new BookshelfError({
      code: 'ReadFailed',
      detail: { path, reason: 'saved-unchecked' }
    });
  }
  return result;
}

/**
 * S3's largest part and single put: a part size under which a file is one
 * part, whose MD5 is the file's.
 */
const WHOLE_FILE_PART = 5 * 1024 ** 3;

/**
 * The server's check of the saved notebook at `path`, with its size and
 * MD5; null when the server cannot check it. Rejects with the publish's
 * error (`NotANotebook`, `ReadFailed`).
 */
async function checkWholeOnServer(
  deps: IPublishDeps,
  path: string,
  trans: TranslationBundle
): Promise<{ size: number; md5Hex: string } | null> {
  let check: IServerCheck | null;
  try {
    check = await deps.checkSaved!(path, WHOLE_FILE_PART);
  } catch (error) {
    throw serverCheckFailed(path, error, trans);
  }
  if (check?.size === undefined || check.partMd5s?.length !== 1) {
    return null;
  }
  return { size: check.size, md5Hex: check.partMd5s[0] };
}

/**
 * The publish's error for a failed check on the server.
 */
function serverCheckFailed(
  path: string,
  error: unknown,
  trans: TranslationBundle
): BookshelfError {
  return isBookshelfError(error, 'NotANotebook')
    ? notPublishable(path, error.detail.message, trans, error)
    : couldNotRead(path, error, trans);
}

/**
 * Upload the saved notebook in parts as it is read, while the server
 * checks the same file: each part goes as soon as the server has hashed it
 * (its MD5 is the part's Content-MD5), and the upload is completed only
 * when the check passed and saw the bytes that were sent (else it is
 * aborted and nothing is published). Null when the upload in parts could
 * not start (the bucket's CORS rule does not allow it) or the server could
 * not check the file or give its parts: nothing was published, and the
 * caller publishes it whole.
 */
async function publishInParts(
  deps: IPublishDeps,
  path: string,
  saved: ISavedFile,
  write: IWrite,
  options: ITransferOptions & { partSize: number }
): Promise<IPutObjectResult | null> {
  const { trans, store, bucket, key } = write;
  // The parts are read from the server one at a time, not from this answer.
  saved.release();
  const digests = new PartDigests();
  const checked = checkWhileUploading(
    deps,
    path,
    options.partSize,
    digests,
    trans
  );
  let uploadId: string;
  try {
    uploadId = await store.createMultipartUpload(bucket, key, {
      contentType: NOTEBOOK_CONTENT_TYPE,
      signal: options.signal
    });
  } catch (error) {
    if (isBookshelfError(error, 'Unreachable', 'CorsRefused')) {
      // A bucket whose CORS rule predates uploads in parts (no POST): put
      // it whole, which the rule allows. (Where S3 is unreachable, the put
      // fails as well, and says so.)
      return null;
    }
    throw error;
  }
  const onProgress = options.onProgress;
  try {
    return await uploadInParts(
      store,
      bucket,
      key,
      uploadId,
      {
        // The size the server announced when the page opened the file; a
        // check that finds another one (saved meanwhile) completes nothing.
        size: saved.size!,
        md5: index => digests.get(index),
        read: async (start, end) => {
          let part: Uint8Array | Blob | null;
          try {
            part = await deps.readSavedRange!(path, start, end);
          } catch (error) {
            throw couldNotRead(path, error, trans);
          }
          if (part === null) {
            throw new NotInParts();
          }
          return part;
        }
      },
      {
        partSize: options.partSize,
        signal: options.signal,
        onProgress: onProgress
          ? (loaded, total) => onProgress({ loaded, total })
          : undefined,
        changed: () => savedMeanwhile(path),
        complete: async (uploadId, parts, sent) => {
          const check = await checked;
          if (check.size !== sent.size || check.etag !== sent.etag) {
            throw savedMeanwhile(path);
          }
          return writeOnCondition(
            write,
            condition =>
              store.completeMultipartUpload(bucket, key, uploadId, parts, {
                ...condition,
                signal: options.signal
              }),
            () => sent.etag
          );
        }
      }
    );
  } catch (error) {
    if (error instanceof NotInParts) {
      return null;
    }
    throw error;
  }
}

/**
 * Start the server's check of the saved notebook for an upload in parts:
 * each part's digest goes to `digests` as soon as the server has hashed
 * it. Resolves to the check's answer; rejects with the publish's error
 * (`NotANotebook`, `ReadFailed`), or `NotInParts` when the server cannot
 * check the file, and then the parts still waiting for a digest fail too.
 */
function checkWhileUploading(
  deps: IPublishDeps,
  path: string,
  partSize: number,
  digests: PartDigests,
  trans: TranslationBundle
): Promise<IServerCheck & { size: number; etag: string }> {
  const checked = deps.checkSaved!(path, partSize, (index, md5Hex) =>
    digests.set(index, fromHex(md5Hex))
  ).then(
    check => {
      if (!check?.partMd5s || check.size === undefined || !check.etag) {
        throw new NotInParts();
      }
      check.partMd5s.forEach((md5Hex, index) =>
        digests.set(index, fromHex(md5Hex))
      );
      // Parts beyond the file the server read: it was saved meanwhile.
      digests.end(savedMeanwhile(path));
      return check as IServerCheck & { size: number; etag: string };
    },
    error => {
      throw serverCheckFailed(path, error, trans);
    }
  );
  checked.catch(error => digests.end(error));
  return checked;
}

/**
 * The file was saved again while it was being published.
 */
function savedMeanwhile(path: string): BookshelfError {
  return new BookshelfError({
    code: 'ReadFailed',
    detail: { path, reason: 'saved-meanwhile' }
  });
}

/**
 * The server did not give a part of the saved file as asked (it ignores
 * ranges, or the file is shorter now): nothing was published, and the
 * notebook is read and published whole instead.
 */
class NotInParts extends Error {}

/**
 * Write the object with `write`, under the publish's condition, and tell
 * apart a refusal of our own retry from someone else's change.
 */
async function writeOnCondition(
  write: IWrite,
  send: (condition: PutCondition) => Promise<IPutObjectResult>,
  ownEtag: () => string
): Promise<IPutObjectResult> {
  const { condition, bucket, key } = write;
  try {
    return await send(condition);
  } catch (error) {
    // No answer to any try (a connection lost, or a fetch failed before
    // its cause is diagnosed): the body may have gone whole and been
    // stored, only the answers lost.
    const noAnswer =
      isBookshelfError(error, 'Interrupted') ||
      (isBookshelfError(error, 'Unreachable') &&
        error.detail.reason === 'network');
    if (!noAnswer && !isChangedMeanwhile(error, condition)) {
      throw error;
    }
    // A write whose answer was lost is sent again (by the SDK or the
    // browser), and then fails its own condition: if the object has the
    // ETag of these bytes, this publish wrote it.
    const own = await ownObject(write.store, bucket, key, ownEtag());
    if (own) {
      return own;
    }
    if (noAnswer) {
      throw error;
    }
    if (write.replaceAnyway && condition.ifNoneMatch) {
      // Someone created the object after we looked; 'always' replaces it.
      return send({});
    }
    throw changedMeanwhile(
      write.where,
      bucket,
      key,
      condition,
      write.trans,
      error
    );
  }
}

/**
 * The current object's ETag and version when its ETag is `etag` (the
 * bytes this publish sent), else null.
 */
async function ownObject(
  store: IObjectStore,
  bucket: string,
  key: string,
  etag: string
): Promise<IPutObjectResult | null> {
  let head;
  try {
    head = await store.headObject(bucket, key);
  } catch {
    return null;
  }
  const bare = (value: string) => value.replace(/"/g, '').toLowerCase();
  if (!head?.etag || bare(head.etag) !== bare(etag)) {
    return null;
  }
  return { etag: head.etag, versionId: head.versionId };
}

/**
 * The bucket and key for `path`, checked.
 */
function resolveDestination(
  path: string,
  settings: IBookshelfSettings,
  destination: string | undefined,
  trans: TranslationBundle
): { bucket: string; key: string } {
  if (typeof path !== 'string' || !path) {
    throw new BookshelfError({
      code: 'InvalidRequest',
      detail: {
        message: ruleMessage(trans, publishRules.messages.pathNotText)
      }
    });
  }
  if (
    destination !== undefined &&
    destination !== null &&
    typeof destination !== 'string'
  ) {
    throw new BookshelfError({
      code: 'InvalidRequest',
      detail: {
        message: ruleMessage(trans, publishRules.messages.destinationNotText)
      }
    });
  }
  const bucket = settings.publishBucket;
  if (!bucket) {
    throw publishNotConfigured();
  }
  const bucketProblem = checkPublishBucket(bucket, trans);
  if (bucketProblem) {
    throw publishNotConfigured(bucketProblem);
  }
  if (!path.endsWith(NOTEBOOK_EXTENSION)) {
    throw new BookshelfError({
      code: 'NotANotebook',
      detail: {
        message: ruleMessage(
          trans,
          publishRules.messages.pathNotNotebook,
          path,
          NOTEBOOK_EXTENSION
        ),
        path
      }
    });
  }
  const key = publishKey(settings.publishPrefix, destination ?? path);
  const problem = checkPublishDestination(bucket, key, trans);
  if (problem) {
    throw new BookshelfError({
      code: 'InvalidRequest',
      detail: { message: problem, bucket }
    });
  }
  return { bucket, key };
}

/**
 * The bytes of a notebook given as a request body, written as Jupyter
 * writes notebooks (one-space indent, final newline).
 */
function notebookBodyBytes(
  path: string,
  body: IPublishBody,
  trans: TranslationBundle
): Uint8Array {
  if (
    typeof body !== 'object' ||
    body === null ||
    body.type !== 'notebook' ||
    typeof body.content !== 'object' ||
    body.content === null ||
    Array.isArray(body.content)
  ) {
    throw new BookshelfError({
      code: 'InvalidRequest',
      detail: {
        message: trans.__(
          "The publish body must be {type: 'notebook', content: <the notebook as an object>}."
        ),
        path
      }
    });
  }
  let text: string;
  try {
    text = JSON.stringify(body.content, null, 1) + '\n';
  } catch (error) {
    const message = trans.__(
      "The notebook given for '%1' cannot be written as JSON, so it was not published.",
      path
    );
    throw new BookshelfError(
      { code: 'NotANotebook', detail: { message, path } },
      { cause: error }
    );
  }
  return new TextEncoder().encode(text);
}

/**
 * The saved file, opened to be read; null without `openSaved`, or when the
 * server's file path does not have it (the contents manager is read
 * instead, and says whether the file exists: in JupyterLite files live in
 * the browser, and `/files/` has them only while Lite's service worker
 * runs).
 */
async function openSavedFile(
  deps: IPublishDeps,
  path: string,
  trans: TranslationBundle
): Promise<ISavedFile | null> {
  if (!deps.openSaved) {
    return null;
  }
  let saved: ISavedFile | null;
  try {
    saved = await deps.openSaved(path);
  } catch (error) {
    throw couldNotRead(path, error, trans);
  }
  return saved;
}

/**
 * The notebook's bytes, whole and not checked yet: from `saved` (opened
 * and not read; null when there is nothing to open, see `openSavedFile`:
 * then through the contents manager), or, `undefined`, opened again. The
 * MD5 is computed while they arrive.
 */
async function readWhole(
  deps: IPublishDeps,
  path: string,
  saved: ISavedFile | null | undefined,
  trans: TranslationBundle
): Promise<IWholeNotebook> {
  if (saved === undefined) {
    saved = await openSavedFile(deps, path, trans);
  }
  if (!saved) {
    return wholeNotebook(await readThroughContents(deps, path, trans));
  }
  const hash = new Md5();
  let bytes: Uint8Array;
  try {
    bytes = await saved.bytes(chunk => hash.update(chunk));
  } catch (error) {
    throw couldNotRead(path, error, trans);
  }
  return wholeNotebook(bytes, hash);
}

/**
 * The saved file's bytes through the contents manager. Read as text (not
 * as a notebook) so the server sends the file as it is, without parsing
 * and re-serializing it.
 */
async function readThroughContents(
  deps: IPublishDeps,
  path: string,
  trans: TranslationBundle
): Promise<Uint8Array> {
  const { contents } = deps;
  let model: Contents.IModel;
  try {
    model = await contents.get(path, {
      type: 'file',
      format: 'text',
      content: true
    });
  } catch (error) {
    if (hasResponseStatus(error, 404)) {
      throw noSuchFile(path, trans, error);
    }
    if (hasResponseStatus(error, 400)) {
      // The server refuses text it cannot decode as UTF-8, and folders.
      throw notPublishable(
        path,
        trans.__('the server cannot read it as UTF-8 text.'),
        trans,
        error
      );
    }
    throw couldNotRead(path, error, trans);
  }
  if (
    model.type === 'notebook' &&
    typeof model.content === 'object' &&
    model.content !== null
  ) {
    // A contents manager that ignored `type: 'file'` sent the parsed
    // notebook: publish it as Jupyter would write it.
    return notebookBodyBytes(
      path,
      {
        type: 'notebook',
        content: model.content
      },
      trans
    );
  }
  if (typeof model.content !== 'string') {
    throw notPublishable(path, trans.__('it is not a file of text.'), trans);
  }
  return new TextEncoder().encode(model.content);
}

function noSuchFile(
  path: string,
  trans: TranslationBundle,
  cause?: unknown
): BookshelfError {
  const message = trans.__(
    "There is no file '%1' in the file tree: save the notebook first, or check its path.",
    path
  );
  return new BookshelfError(
    { code: 'InvalidRequest', detail: { message, path } },
    { cause }
  );
}

/**
 * The Jupyter server failed to give a saved file's bytes.
 */
function couldNotRead(
  path: string,
  error: unknown,
  trans: TranslationBundle
): BookshelfError {
  const status = (error as { response?: { status?: unknown } } | null)?.response
    ?.status;
  const code = typeof status === 'number' ? status : undefined;
  return new BookshelfError(
    { code: 'ReadFailed', detail: { path, jupyterStatus: code } },
    { cause: error }
  );
}

/**
 * `checkNotebook`, with a message about publishing rather than cloning.
 */
function checkPublishable(
  path: string,
  bytes: Uint8Array,
  trans: TranslationBundle
): void {
  try {
    checkNotebook(bytes, trans, 'publish');
  } catch (error) {
    if (isBookshelfError(error, 'NotANotebook')) {
      // The reason alone (translated), to be said in this sentence.
      throw notPublishable(path, String(error.detail.problem), trans, error);
    }
    throw error;
  }
}

function notPublishable(
  path: string,
  reason: string,
  trans: TranslationBundle,
  cause?: unknown
): BookshelfError {
  const message = trans.__(
    "'%1' is not a valid Jupyter notebook, so it was not published: %2",
    path,
    reason
  );
  return new BookshelfError(
    { code: 'NotANotebook', detail: { message, path } },
    { cause }
  );
}

/**
 * Whether a conditional put failed because the object is no longer what
 * we saw: a 412, or S3's 404 for an `If-Match` on an object deleted
 * meanwhile.
 */
function isChangedMeanwhile(error: unknown, condition: PutCondition): boolean {
  if (!(error instanceof BookshelfError)) {
    return false;
  }
  if (error.code === 'PreconditionFailed') {
    return !!(condition.ifMatch || condition.ifNoneMatch);
  }
  return error.code === 'NoSuchKey' && !!condition.ifMatch;
}

function changedMeanwhile(
  where: string,
  bucket: string,
  key: string,
  condition: PutCondition,
  trans: TranslationBundle,
  cause: unknown
): BookshelfError {
  const message = condition.ifNoneMatch
    ? trans.__(
        '%1 was created by someone else while you were publishing; nothing was overwritten. Look at their version, then publish again.',
        where
      )
    : trans.__(
        '%1 was changed by someone else since you looked; nothing was overwritten. Look at the newer version, then publish again.',
        where
      );
  return new BookshelfError(
    { code: 'Conflict', detail: { reason: 'changed', message, bucket, key } },
    { cause }
  );
}
