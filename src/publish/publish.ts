/**
 * Publishing a notebook of the file tree to the publish bucket.
 */

import type { Contents } from '@jupyterlab/services';
import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';
import { checkNotebook } from '../clone/content';
import { hasResponseStatus } from '../clone/writer';
import { TRANSLATION_DOMAIN } from '../package';
import {
  BookshelfError,
  isBookshelfError,
  publishNotConfigured,
  throwIfAborted
} from '../errors/errors';
import publishRules from '../rules/publish.json';
import { ruleMessage } from '../rules/translate';
import { etagMd5, sha256Digest } from '../s3/integrity';
import { Md5, md5, toHex } from '../s3/md5';
import type { IObjectHead, IObjectStore, IPutObjectResult } from '../s3/types';
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
import { decideOverwrite, type PutCondition } from './overwrite';

/**
 * The media type of a published notebook.
 */
export const NOTEBOOK_CONTENT_TYPE = publishRules.contentType;

/**
 * What publishing needs: the S3 service and a contents manager
 * (`app.serviceManager.contents` fits).
 */
export interface IPublishDeps {
  store: IObjectStore;
  contents: { get: Contents.IManager['get'] };
  /**
   * Read a saved file's bytes as they are on disk (the server's `/files/`
   * path): faster than a contents model, whose JSON wraps and escapes the
   * text. Resolves to null for a missing file. Without it, the contents
   * manager is used. `onChunk` is given the bytes as they arrive, to hash
   * them meanwhile.
   */
  readBytes?: (
    path: string,
    onChunk?: (chunk: Uint8Array) => void
  ) => Promise<Uint8Array | null>;
  /**
   * Whether the S3 service honours conditional writes in `bucket` (see
   * `probeConditionalWrites`; the model remembers the answer for the
   * session). Asked before a put whose protection depends on them.
   */
  conditionalWrites: (bucket: string) => Promise<IConditionalWrites>;
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
 * version another publisher wrote meanwhile is never lost.
 *
 * Throws `BookshelfError`s: `PublishNotConfigured`, `NotANotebook`,
 * `InvalidRequest`, `Conflict` (the object exists and may not be replaced,
 * or changed meanwhile; nothing was written), `Cancelled`, or the store's.
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

  // The MD5 of a saved file is computed while it arrives.
  const hash = new Md5();
  const bytes = options.body
    ? notebookBodyBytes(path, options.body, trans)
    : await readSavedNotebook(deps, path, hash, trans);
  throwIfAborted(signal);
  const digests = {
    md5: hash.bytesHashed === bytes.length ? hash.digest() : undefined,
    // Web Crypto hashes on another thread while the notebook is checked.
    sha256: sha256Digest(bytes)
  };
  checkPublishable(path, bytes, trans);
  throwIfAborted(signal);

  const existing = await deps.store.headObject(bucket, key);
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

  // A server that ignores the condition would overwrite silently: refuse.
  const needed = requiredCondition(
    settings.overwritePolicy,
    decision.condition
  );
  if (needed && !(await deps.conditionalWrites(bucket))[needed]) {
    throw conditionsIgnored(needed, bucket, key, trans);
  }
  throwIfAborted(signal);

  const put = (condition: PutCondition) =>
    deps.store.putObject(bucket, key, bytes, {
      ...condition,
      ...digests,
      contentType: NOTEBOOK_CONTENT_TYPE,
      signal,
      onProgress: options.onProgress
        ? (loaded, total) => options.onProgress!({ loaded, total })
        : undefined
    });

  let result: IPutObjectResult;
  try {
    result = await put(decision.condition);
  } catch (error) {
    if (!isChangedMeanwhile(error, decision.condition)) {
      throw error;
    }
    // A put whose answer was lost is sent again (by the SDK or the
    // browser), and then fails its own condition: if the object holds
    // exactly these bytes, this publish wrote it.
    const own = await ownObject(deps.store, bucket, key, bytes);
    if (own) {
      result = own;
    } else if (
      settings.overwritePolicy === 'always' &&
      decision.condition.ifNoneMatch
    ) {
      // Someone created the object after we looked; 'always' replaces it.
      result = await put({});
    } else {
      throw changedMeanwhile(
        where,
        bucket,
        key,
        decision.condition,
        trans,
        error
      );
    }
  }

  const published: IPublishResult = {
    s3_path: where,
    clone_url: cloneUrl(options.serverOrigin, options.baseUrl, {
      s3_bucket: bucket,
      s3_key: key,
      s3_version_id: result.versionId
    })
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
 * The current object's ETag and version when it holds exactly `bytes`
 * (its ETag is their MD5), else null.
 */
async function ownObject(
  store: IObjectStore,
  bucket: string,
  key: string,
  bytes: Uint8Array
): Promise<IPutObjectResult | null> {
  let head: IObjectHead | null;
  try {
    head = await store.headObject(bucket, key);
  } catch {
    return null;
  }
  const expected = head ? etagMd5(head) : null;
  if (!head || expected === null || expected !== toHex(md5(bytes))) {
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
 * The saved file's bytes, not checked yet. Read as text (not as a
 * notebook) so the server sends the file as it is, without parsing and
 * re-serializing it. `hash` is fed the bytes read from `/files/`.
 */
async function readSavedNotebook(
  deps: IPublishDeps,
  path: string,
  hash: Md5,
  trans: TranslationBundle
): Promise<Uint8Array> {
  const { contents, readBytes } = deps;
  if (readBytes) {
    let bytes: Uint8Array | null;
    try {
      bytes = await readBytes(path, chunk => hash.update(chunk));
    } catch (error) {
      throw couldNotRead(path, error, trans);
    }
    if (bytes === null) {
      throw noSuchFile(path, trans);
    }
    return bytes;
  }
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
