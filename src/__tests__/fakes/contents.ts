/**
 * An in-memory contents manager that behaves like jupyter_server's
 * (AsyncLargeFileManager behind /api/contents), for unit tests.
 *
 * - `save` always writes (create or overwrite, like PUT); hidden names are
 *   refused with 400; chunked saves follow LargeFileManager: chunk 1 creates
 *   or truncates, any other chunk (2, 3, …, -1) appends.
 * - `rename` answers 409 when the new path exists, 404 when the old one is
 *   missing. With `renameRace`, it checks, yields to the event loop, then
 *   moves, replacing whatever is there by then, like the real server whose
 *   check and move are separate steps.
 * - `get` answers 404 for a missing path; types follow the server
 *   (directory, notebook for `.ipynb`, else file).
 *
 * - `FakeCommitter` is the server extension's commit path on it: it checks
 *   and moves in one step and answers a second commit of one temporary
 *   file with the file it made.
 *
 * Errors are real `ServerConnection.ResponseError`s.
 */

import { Buffer } from 'buffer';
import { Contents, ServerConnection } from '@jupyterlab/services';
import type {
  ICommitter,
  ICreateOptions,
  IServerCheck
} from '../../clone/committer';
import { BookshelfError } from '../../errors/errors';
import type { ISavedFile } from '../../publish/publish';
import { checkNotebook } from '../../clone/content';
import { blobBytes } from './bytes';
import { etagOf, multipartEtag } from './store';
import { candidateNames, joinPath } from '../../clone/naming';

type SaveOptions = Partial<Contents.IModel>;

/**
 * Options of the fake.
 */
export interface IFakeContentsOptions {
  /** Milliseconds each call waits before acting (0: one macrotask). */
  latency?: number;
  /**
   * Answer `get` of a notebook with the parsed notebook, even when asked
   * for it as a file (`type: 'file'`), as some contents managers do.
   */
  ignoresFileType?: boolean;
  /** Reproduce the server's check-then-move race on rename. */
  renameRace?: boolean;
  /** Milliseconds between a rename's check and its move (default 0). */
  renameRaceDelay?: number;
  /** Fail the save with this chunk number (0: a save without chunk). */
  failOnSaveChunk?: number;
  /**
   * Refuse a save whose request body (the model as JSON, as Lab's drive
   * sends it) is longer than this many bytes with 413, before it does
   * anything: a proxy in front of the server with a body size limit.
   */
  bodyLimit?: number;
  /**
   * Decode every chunk of a chunked save as base64, whatever its format,
   * with `atob` (which throws `InvalidCharacterError` on text), as
   * JupyterLite's browser storage does; the last chunk's format says how
   * the file is kept, which does not change its bytes.
   */
  base64Chunks?: boolean;
  /** Fail every rename with a 500. */
  failOnRename?: boolean;
  /** Accept hidden names, like `ContentsManager.allow_hidden`. */
  allowHidden?: boolean;
  /** Called after the latency and before a save acts; may throw. */
  beforeSave?: (path: string, options: SaveOptions) => void | Promise<void>;
  /** Called after the latency and before a rename acts; may throw. */
  beforeRename?: (path: string, newPath: string) => void | Promise<void>;
}

/**
 * One call made to the fake.
 */
export interface IFakeContentsCall {
  method: 'get' | 'save' | 'rename' | 'delete';
  path: string;
  newPath?: string;
  chunk?: number;
  format?: Contents.FileFormat;
  type?: string;
  /** A save's body length in bytes, where `bodyLimit` is set. */
  bodyLength?: number;
  /** Refused for `bodyLimit` (413). */
  refused?: boolean;
}

interface IEntry {
  kind: 'file' | 'directory';
  bytes: Uint8Array;
  created: string;
  lastModified: string;
}

/**
 * A contents API error with an HTTP status, as the real contents manager
 * throws it.
 */
export function responseError(
  status: number,
  message: string
): ServerConnection.ResponseError {
  return new ServerConnection.ResponseError(
    new Response(null, { status }),
    message
  );
}

export class FakeContentsManager {
  constructor(readonly options: IFakeContentsOptions = {}) {
    this._entries.set('', this._entry('directory'));
  }

  /** Every call, in order. */
  readonly calls: IFakeContentsCall[] = [];

  /** Create a folder and its parents. */
  addDirectory(path: string): void {
    const parts = path.split('/').filter(part => part);
    for (let i = 1; i <= parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (!this._entries.has(folder)) {
        this._entries.set(folder, this._entry('directory'));
      }
    }
  }

  /** Create a file (and its folders) with text or bytes. */
  addFile(path: string, content: string | Uint8Array): void {
    this.addDirectory(parentOf(path));
    const bytes =
      typeof content === 'string' ? new TextEncoder().encode(content) : content;
    this._entries.set(path, { ...this._entry('file'), bytes: copy(bytes) });
  }

  /** Whether a path exists. */
  has(path: string): boolean {
    return this._entries.has(path);
  }

  /** The bytes of a file. */
  readBytes(path: string): Uint8Array {
    const entry = this._entries.get(path);
    if (!entry || entry.kind !== 'file') {
      throw new Error(`No file at ${path}`);
    }
    return copy(entry.bytes);
  }

  /** The text of a file. */
  readText(path: string): string {
    return new TextDecoder().decode(this.readBytes(path));
  }

  /** The paths of all files, sorted. */
  files(): string[] {
    return [...this._entries]
      .filter(([, entry]) => entry.kind === 'file')
      .map(([path]) => path)
      .sort();
  }

  async get(
    path: string,
    options: Contents.IFetchOptions = {}
  ): Promise<Contents.IModel> {
    this.calls.push({ method: 'get', path });
    await this._wait();
    return this._model(path, options.content !== false, options);
  }

  async save(
    path: string,
    options: SaveOptions = {}
  ): Promise<Contents.IModel> {
    const call: IFakeContentsCall = {
      method: 'save',
      path,
      chunk: options.chunk,
      format: options.format,
      type: options.type
    };
    this.calls.push(call);
    await this._wait();
    const { bodyLimit } = this.options;
    if (bodyLimit !== undefined) {
      call.bodyLength = new TextEncoder().encode(
        JSON.stringify(options)
      ).length;
      if (call.bodyLength > bodyLimit) {
        call.refused = true;
        throw responseError(413, '413 Request Entity Too Large');
      }
    }
    if ((this.options.failOnSaveChunk ?? null) === (options.chunk ?? 0)) {
      throw responseError(500, `Unexpected error while saving file: ${path}`);
    }
    await this.options.beforeSave?.(path, options);
    this._checkVisible(path);
    const parent = this._entries.get(parentOf(path));
    if (!parent || parent.kind !== 'directory') {
      throw responseError(500, `Unexpected error while saving file: ${path}`);
    }
    if (!options.type) {
      throw responseError(400, 'No file type provided');
    }
    if (options.type === 'directory') {
      if (!this._entries.has(path)) {
        this._entries.set(path, this._entry('directory'));
      }
      return this._model(path, false);
    }
    if (options.content === undefined) {
      throw responseError(400, 'No file content provided');
    }
    const existing = this._entries.get(path);
    if (existing?.kind === 'directory') {
      throw responseError(400, `${path} is a directory`);
    }
    let bytes: Uint8Array;
    if (options.chunk !== undefined) {
      if (options.type !== 'file') {
        throw responseError(
          400,
          `File type "${options.type}" is not supported for large file transfer`
        );
      }
      const chunk = this.options.base64Chunks
        ? decodeBase64(String(options.content))
        : decodeContent(options.content, options.format);
      // Chunk 1 truncates; every other chunk appends (opening with 'ab').
      bytes =
        options.chunk === 1 || !existing
          ? chunk
          : concat(existing.bytes, chunk);
    } else if (options.type === 'notebook') {
      bytes = new TextEncoder().encode(
        JSON.stringify(options.content, null, 1) + '\n'
      );
    } else {
      bytes = decodeContent(options.content, options.format);
    }
    const now = new Date().toISOString();
    this._entries.set(path, {
      kind: 'file',
      bytes,
      created: existing?.created ?? now,
      lastModified: now
    });
    return this._model(path, false);
  }

  async rename(path: string, newPath: string): Promise<Contents.IModel> {
    this.calls.push({ method: 'rename', path, newPath });
    await this._wait();
    if (this.options.failOnRename) {
      throw responseError(500, `Unknown error renaming file: ${path}`);
    }
    await this.options.beforeRename?.(path, newPath);
    if (newPath === path) {
      return this._model(path, false);
    }
    this._checkVisible(path);
    this._checkVisible(newPath);
    if (this._entries.has(newPath)) {
      throw responseError(409, `File already exists: ${newPath}`);
    }
    if (this.options.renameRace) {
      // The real server's move runs in a thread after the check.
      await delay(this.options.renameRaceDelay ?? 0);
    }
    const entry = this._entries.get(path);
    if (!entry) {
      throw responseError(404, `File or directory does not exist: ${path}`);
    }
    const parent = this._entries.get(parentOf(newPath));
    if (!parent || parent.kind !== 'directory') {
      throw responseError(500, `Unknown error renaming file: ${path}`);
    }
    for (const [oldPath, moved] of [...this._entries]) {
      if (oldPath === path || oldPath.startsWith(`${path}/`)) {
        this._entries.delete(oldPath);
        this._entries.set(newPath + oldPath.slice(path.length), moved);
      }
    }
    return this._model(newPath, false);
  }

  /**
   * The commit path's work: move `temporaryPath` to the first free name of
   * `name` in `folder` in one step (nothing else runs in between).
   */
  commitNow(
    temporaryPath: string,
    folder: string,
    name: string,
    maxAttempts = 10000
  ): Contents.IModel {
    const entry = this._entries.get(temporaryPath);
    if (!entry) {
      const committed = this._committed.get(temporaryPath);
      if (committed && this._entries.has(committed)) {
        return this._model(committed, false);
      }
      throw responseError(404, 'path: the temporary file does not exist.');
    }
    let attempts = 0;
    for (const candidate of candidateNames(name)) {
      if (attempts++ >= maxAttempts) {
        break;
      }
      const path = joinPath(folder, candidate);
      if (!this._entries.has(path)) {
        this._entries.delete(temporaryPath);
        this._entries.set(path, entry);
        this._committed.set(temporaryPath, path);
        return this._model(path, false);
      }
    }
    throw responseError(409, 'No free name was found.');
  }

  async delete(path: string): Promise<void> {
    this.calls.push({ method: 'delete', path });
    await this._wait();
    if (!this._entries.has(path) || path === '') {
      throw responseError(404, `File or directory does not exist: ${path}`);
    }
    for (const existing of [...this._entries.keys()]) {
      if (existing === path || existing.startsWith(`${path}/`)) {
        this._entries.delete(existing);
      }
    }
  }

  private _model(
    path: string,
    withContent: boolean,
    asked: Contents.IFetchOptions = {}
  ): Contents.IModel {
    const entry = this._entries.get(path);
    if (!entry) {
      throw responseError(404, `No such file or directory: ${path}`);
    }
    const base = {
      name: path.slice(path.lastIndexOf('/') + 1),
      path,
      created: entry.created,
      last_modified: entry.lastModified,
      writable: true,
      hash: undefined,
      hash_algorithm: undefined
    };
    if (entry.kind === 'directory') {
      return {
        ...base,
        type: 'directory',
        size: undefined,
        mimetype: '',
        format: withContent ? 'json' : null,
        content: withContent ? this._children(path) : null
      } as unknown as Contents.IModel;
    }
    const size = entry.bytes.length;
    // Like the server: a file read as a file, in the format asked for.
    const asFile = asked.type === 'file' && !this.options.ignoresFileType;
    if (path.endsWith('.ipynb') && !asFile) {
      return {
        ...base,
        type: 'notebook',
        size,
        mimetype: null,
        format: withContent ? 'json' : null,
        content: withContent
          ? JSON.parse(new TextDecoder().decode(entry.bytes))
          : null
      } as unknown as Contents.IModel;
    }
    let format: Contents.FileFormat = null;
    let content: string | null = null;
    if (withContent && asked.format === 'base64') {
      content = encodeBase64(entry.bytes);
      format = 'base64';
    } else if (withContent) {
      // Like the server: text when it decodes as UTF-8, else base64.
      try {
        content = new TextDecoder('utf-8', { fatal: true }).decode(entry.bytes);
        format = 'text';
      } catch {
        content = encodeBase64(entry.bytes);
        format = 'base64';
      }
    }
    return {
      ...base,
      type: 'file',
      size,
      mimetype: withContent
        ? format === 'text'
          ? 'text/plain'
          : 'application/octet-stream'
        : null,
      format,
      content
    } as unknown as Contents.IModel;
  }

  private _children(folder: string): Contents.IModel[] {
    return [...this._entries.keys()]
      .filter(path => path !== '' && parentOf(path) === folder)
      .sort()
      .map(path => this._model(path, false));
  }

  private _checkVisible(path: string): void {
    if (
      !this.options.allowHidden &&
      path.split('/').some(part => part.startsWith('.'))
    ) {
      throw responseError(400, `Cannot create file or directory '${path}'`);
    }
  }

  private _entry(kind: 'file' | 'directory'): IEntry {
    const now = new Date().toISOString();
    return { kind, bytes: new Uint8Array(0), created: now, lastModified: now };
  }

  private _wait(): Promise<void> {
    return delay(this.options.latency ?? 0);
  }

  private _entries = new Map<string, IEntry>();
  private _committed = new Map<string, string>();
}

/**
 * Options of `FakeCommitter`.
 */
export interface IFakeCommitterOptions {
  /** Answer as a server without the commit path does (null). */
  absent?: boolean;
  /** Lose the answers of this many commits, after they happened. */
  loseAnswers?: number;
  /** Called after the latency and before the commit acts; may throw. */
  beforeCommit?: (temporaryPath: string) => void | Promise<void>;
  /** Names to try, like the server's limit. */
  maxAttempts?: number;
  /** No check path (an older server extension): `checkNotebook` is false. */
  noCheck?: boolean;
  /**
   * Offer the create path (`create`), as the server extension does since
   * it has one; without, `create` answers null as an older one.
   */
  create?: boolean;
  /**
   * Refuse create bodies larger than this many bytes as a proxy in front
   * of the server does (413), after reading them.
   */
  createLimit?: number;
}

/**
 * The server extension's commit path on a fake contents manager.
 */
export class FakeCommitter implements ICommitter {
  constructor(
    private readonly _contents: FakeContentsManager,
    readonly options: IFakeCommitterOptions = {}
  ) {}

  /** Every call, in order. */
  readonly calls: { temporaryPath: string; folder: string; name: string }[] =
    [];

  /** The files `checkNotebook` was asked to check, in order. */
  readonly checked: string[] = [];

  /**
   * The server's check of a saved file, with the browser's rules (the
   * server applies the same, from src/rules): it reads the file as saved.
   */
  async checkNotebook(temporaryPath: string): Promise<boolean> {
    this.checked.push(temporaryPath);
    await delay(this._contents.options.latency ?? 0);
    if (this.options.absent || this.options.noCheck) {
      return false;
    }
    checkNotebook(this._contents.readBytes(temporaryPath));
    return true;
  }

  createUnavailable = false;
  createRefusedFrom: number | undefined = undefined;
  /** The create requests stopped while their bytes went. */
  stoppedUploads = 0;

  /** The create requests, in order. */
  readonly creates: {
    temporaryPath: string;
    folder: string;
    name: string;
    options: ICreateOptions;
    /** The body came as a Blob (as the page sends it), not as an array. */
    asBlob: boolean;
  }[] = [];

  /**
   * The server's create path: the bytes written to the temporary file,
   * their MD5 compared, a notebook checked with the browser's rules (which
   * the server applies too) and its byte order mark dropped, then the
   * commit; nothing is left when one fails.
   */
  async create(
    temporaryPath: string,
    folder: string,
    name: string,
    body: Uint8Array | Blob,
    options: ICreateOptions
  ): Promise<Contents.IModel | null> {
    this.creates.push({
      temporaryPath,
      folder,
      name,
      options,
      asBlob: body instanceof Blob
    });
    await delay(this._contents.options.latency ?? 0);
    const bytes = body instanceof Blob ? await blobBytes(body) : body;
    // As an upload's events: half of it, then all; stopped in between as
    // the real request is (nothing kept: no answer came).
    options.onSent?.(Math.floor(bytes.length / 2));
    if (options.stopUpload?.aborted) {
      this.stoppedUploads++;
      throw new ServerConnection.NetworkError(new TypeError('network error'));
    }
    options.onSent?.(bytes.length);
    if (this.options.absent || !this.options.create) {
      // As the server's committer: not asked again.
      this.createUnavailable = true;
      return null;
    }
    if (bytes.length > (this.options.createLimit ?? Infinity)) {
      // As the server's committer given a 413: not asked again that large.
      this.createRefusedFrom = Math.min(
        this.createRefusedFrom ?? bytes.length,
        bytes.length
      );
      return null;
    }
    const actual = etagOf(bytes).slice(1, -1);
    if (options.md5 !== undefined && actual !== options.md5) {
      throw new BookshelfError({
        code: 'Corrupted',
        detail: { reason: 'checksum', expected: options.md5, actual }
      });
    }
    let kept = bytes;
    if (options.notebook) {
      const mark = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
      kept = mark ? bytes.subarray(3) : bytes;
      checkNotebook(kept);
    }
    this._contents.addFile(temporaryPath, kept);
    try {
      return await this.commit(temporaryPath, folder, name);
    } catch (error) {
      if (!(error instanceof ServerConnection.NetworkError)) {
        await this._contents.delete(temporaryPath).catch(() => undefined);
      }
      throw error;
    }
  }

  async commit(
    temporaryPath: string,
    folder: string,
    name: string
  ): Promise<Contents.IModel | null> {
    this.calls.push({ temporaryPath, folder, name });
    await delay(this._contents.options.latency ?? 0);
    if (this.options.absent) {
      return null;
    }
    await this.options.beforeCommit?.(temporaryPath);
    const model = this._contents.commitNow(
      temporaryPath,
      folder,
      name,
      this.options.maxAttempts
    );
    if ((this.options.loseAnswers ?? 0) > 0) {
      this.options.loseAnswers!--;
      throw new ServerConnection.NetworkError(new TypeError('Failed to fetch'));
    }
    return model;
  }
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

function decodeContent(
  content: unknown,
  format: Contents.FileFormat | undefined
): Uint8Array {
  if (typeof content !== 'string') {
    throw responseError(400, 'File content must be a string');
  }
  if (format === 'text') {
    // The server encodes text with Python's strict UTF-8 codec, which
    // refuses half a surrogate pair (TextEncoder would replace it).
    if (LONE_SURROGATE.test(content)) {
      throw responseError(
        400,
        'Encoding error saving file: surrogates not allowed'
      );
    }
    return new TextEncoder().encode(content);
  }
  if (format === 'base64') {
    try {
      return decodeBase64(content);
    } catch {
      throw responseError(400, 'Encoding error saving file');
    }
  }
  throw responseError(
    400,
    "Must specify format of file contents as 'text' or 'base64'"
  );
}

const LONE_SURROGATE =
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) {
    bytes[i] = binary.charCodeAt(i);
  }
  return bytes;
}

function encodeBase64(bytes: Uint8Array): string {
  // A byte at a time into a string made megabytes of garbage per model.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString(
    'base64'
  );
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(first.length + second.length);
  bytes.set(first, 0);
  bytes.set(second, first.length);
  return bytes;
}

function copy(bytes: Uint8Array): Uint8Array {
  const result = new Uint8Array(bytes.length);
  result.set(bytes);
  return result;
}

/**
 * Wait `ms` milliseconds; 0 still yields to the event loop.
 */
export function delay(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/**
 * A publish's `openSaved` over the fake's files, as the server's `/files/`
 * path gives them: the size announced (unless `announceSize` is false),
 * the bytes in pieces of `pieceSize`. `released` counts files let go of
 * unread.
 */
export function savedFiles(
  contents: FakeContentsManager,
  options: { pieceSize?: number; announceSize?: boolean } = {}
): { open: (path: string) => Promise<ISavedFile | null>; released: number } {
  const pieceSize = options.pieceSize ?? 7;
  const opener = {
    released: 0,
    open: async (path: string): Promise<ISavedFile | null> => {
      await delay(0);
      if (!contents.has(path)) {
        return null;
      }
      const bytes = contents.readBytes(path);
      return {
        size: options.announceSize === false ? undefined : bytes.length,
        bytes: async onChunk => {
          for (let start = 0; start < bytes.length; start += pieceSize) {
            await delay(0);
            onChunk?.(bytes.slice(start, start + pieceSize));
          }
          return bytes;
        },
        release: () => {
          opener.released++;
        }
      };
    }
  };
  return opener;
}

/**
 * A publish's `readSavedRange` as the server's `/files/` path answers a
 * range: the file's bytes as they are now, null past its end.
 */
export function savedRanges(
  contents: FakeContentsManager
): (path: string, start: number, end: number) => Promise<Uint8Array | null> {
  return async (path, start, end) => {
    await delay(0);
    if (!contents.has(path)) {
      return null;
    }
    const bytes = contents.readBytes(path);
    return end <= bytes.length ? bytes.slice(start, end) : null;
  };
}

/**
 * A publish's `checkSaved` as the server extension answers it: the
 * publish's notebook check of the file as it is now, with its size, its
 * parts' MD5 digests and its multipart ETag for `partSize`.
 */
export function serverChecks(
  contents: FakeContentsManager
): (
  path: string,
  partSize: number,
  onPart?: (index: number, md5Hex: string) => void
) => Promise<IServerCheck | null> {
  return async (path, partSize, onPart) => {
    await delay(0);
    const bytes = contents.readBytes(path);
    const parts: string[] = [];
    for (let start = 0; start < bytes.length || !parts.length;) {
      parts.push(etagOf(bytes.subarray(start, start + partSize)));
      start += partSize;
      // As the server: each whole part's digest as soon as it is hashed,
      // the notebook's verdict once the whole file was read.
      if (start <= bytes.length && onPart) {
        onPart(parts.length - 1, parts[parts.length - 1].replace(/"/g, ''));
        await delay(0);
      }
    }
    checkNotebook(bytes, undefined, 'publish');
    return {
      size: bytes.length,
      etag: multipartEtag(parts),
      partMd5s: parts.map(etag => etag.replace(/"/g, ''))
    };
  };
}
