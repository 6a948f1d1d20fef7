/**
 * Saving a file's bytes through the Jupyter contents API (the writer's
 * temporary file): in one save, or in chunks as they arrive, within the
 * body size limit of a proxy in front of the server; and the errors of
 * those saves, said as `SaveFailed`.
 */

import type { Contents } from '@jupyterlab/services';
import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';
import { TRANSLATION_DOMAIN } from '../package';
import {
  BookshelfError,
  throwIfAborted,
  unlessAborted
} from '../errors/errors';
import type { ITransferProgress } from '../tokens';
import { bytesToBase64, decodeUtf8, type IFileData } from './content';
import { utf8Length } from '../s3/names';
import { fixedChunks } from '../transfer/bytes';

/**
 * What the writer needs of a contents manager; `app.serviceManager.contents`
 * fits it.
 */
export interface IContentsWriter {
  get(path: string, options?: Contents.IFetchOptions): Promise<Contents.IModel>;
  save(
    path: string,
    options?: Partial<Contents.IModel>
  ): Promise<Contents.IModel>;
  rename(path: string, newPath: string): Promise<Contents.IModel>;
  delete(path: string): Promise<void>;
}

/**
 * Options of `saveToContents`.
 */
export interface ISaveOptions {
  signal?: AbortSignal;
  /** Bytes saved so far. */
  onProgress?: (progress: ITransferProgress) => void;
  /**
   * Larger files are uploaded in chunks of this many bytes (binary) or
   * characters (text); smaller ones in one save. Default: 8 MiB of binary:
   * each chunk is a request, and fewer requests save a large file faster;
   * 8 MiB of base64 is still small. Text: 64 Mi characters, which a
   * single save takes faster than any chunks (no base64 on either side)
   * and which stays well below the server's request size limit
   * (`ServerApp.max_body_size`, 512 MiB by default) even when escaped.
   */
  chunkSize?: number;
  /** Translates the error messages; default: English. */
  trans?: TranslationBundle;
  /**
   * Checks of the data that the save does not need, run while the server
   * works on the last save (the page would otherwise sit idle): when one
   * throws, the caller removes the file.
   */
  verify?: () => void | Promise<void>;
}

const DEFAULT_CHUNK_SIZE = 8 * 1024 * 1024;

const DEFAULT_TEXT_CHUNK_SIZE = 64 * 1024 * 1024;

/**
 * A save the server may still be working on.
 */
export interface IInFlight {
  save: Promise<unknown> | null;
}

/**
 * Bytes that arrive in pieces (a download's body), written while they
 * arrive: the page holds at most one chunk of them (`chunkSize`), never the
 * whole file. The file is saved as base64 chunks, so its bytes are written
 * exactly, text or not; or, with `text`, as text chunks while they are
 * UTF-8.
 */
export interface IByteStream {
  /** The pieces, in order; read once. */
  stream: AsyncIterable<Uint8Array>;
  /** The expected size (Content-Length), for progress; may be absent. */
  total?: number;
  /**
   * Called with each chunk before it is sent, and with the bytes counted
   * so far: incremental hashing, the size limit. A throw stops the write
   * (the temporary file is removed). The chunk is reused afterwards: copy
   * what must be kept.
   */
  onChunk?: (chunk: Uint8Array, loaded: number) => void;
  /**
   * The bytes should be UTF-8 text (a notebook): each chunk is saved as
   * text, cut between characters, which the server takes faster than
   * base64 (no decoding there, a smaller body: 0.6 s against 0.8 s for
   * 50 MB of notebook in chunks of 8 MiB). From a chunk that is not UTF-8
   * on, chunks are base64, so the bytes are still written exactly (for the
   * caller's checks to refuse them).
   */
  text?: boolean;
}

function isByteStream(data: IFileData | IByteStream): data is IByteStream {
  return (data as IByteStream).stream !== undefined;
}

/**
 * Save `data` at `path` (in `folder`) through the contents API: text or
 * bytes the page holds in one save (in chunks above `chunkSize`), bytes
 * that arrive in chunks as they come. `inFlight` holds the save the server
 * is working on, for the caller's clean-up. Rejects with the contents
 * API's error (see `asSaveFailed`), `Cancelled`, or `verify`'s.
 */
export async function saveToContents(
  contents: IContentsWriter,
  folder: string,
  path: string,
  data: IFileData | IByteStream,
  options: ISaveOptions,
  inFlight: IInFlight
): Promise<void> {
  const save = (model: IChunkModel) =>
    saveWithinBodyLimit(contents, model, piece =>
      saveUnlessAborted(
        contents.save(path, { type: 'file', ...piece }).catch(error => {
          throw ownSaveError(error, folder, options.trans);
        }),
        inFlight,
        options.signal
      )
    );
  if (isByteStream(data)) {
    await uploadStream(save, data, options);
    return;
  }
  const total = data.bytes.length;
  if (data.format === 'text') {
    // Text is saved as text, as it came: no base64 on either side.
    const text = data.text ?? decodeUtf8(data.bytes);
    const pieces = textChunks(
      text,
      Math.max(2, options.chunkSize ?? DEFAULT_TEXT_CHUNK_SIZE)
    );
    let loaded = 0;
    for (const [index, piece] of pieces.entries()) {
      throwIfAborted(options.signal);
      const last = index === pieces.length - 1;
      await saveThenVerify(
        save({
          format: 'text',
          content: piece,
          ...(pieces.length > 1 ? { chunk: last ? -1 : index + 1 } : {})
        }),
        last ? options.verify : undefined
      );
      loaded = last ? total : loaded + utf8Length(piece);
      options.onProgress?.({ loaded, total });
    }
    return;
  }
  const chunkSize = Math.max(1, options.chunkSize ?? DEFAULT_CHUNK_SIZE);
  // Chunk 1 creates the file, later ones append, -1 marks the last; a file
  // that fits in one chunk (an empty one too) is one plain save.
  let start = 0;
  let chunk = 1;
  do {
    throwIfAborted(options.signal);
    const end = Math.min(start + chunkSize, total);
    const last = end === total;
    await saveThenVerify(
      save({
        format: 'base64',
        content: bytesToBase64(data.bytes.subarray(start, end)),
        ...(chunk === 1 && last ? {} : { chunk: last ? -1 : chunk })
      }),
      last ? options.verify : undefined
    );
    start = end;
    chunk++;
    options.onProgress?.({ loaded: end, total });
  } while (start < total);
}

/**
 * Save a stream chunk by chunk as it arrives. A full chunk is sent only
 * when the next piece shows that more follows, so the last chunk can be
 * marked -1 (the server's chunked save needs to know which one ends the
 * file); a stream that fits in one chunk is one plain save.
 *
 * While a chunk is being saved, the next one is read and encoded: the
 * download and the saves overlap instead of taking turns (a 50 MB clone
 * took about the sum of both). The saves themselves go one at a time, in
 * order, since the server appends each chunk to what it has. The page holds
 * one chunk of bytes and the text or base64 of at most two chunks.
 */
async function uploadStream(
  save: (model: IChunkModel) => Promise<void>,
  data: IByteStream,
  options: ISaveOptions
): Promise<void> {
  const chunkSize = Math.max(1, options.chunkSize ?? DEFAULT_CHUNK_SIZE);
  let loaded = 0;
  let chunk = 1;
  // Text: the bytes of a character cut off at the end of a chunk.
  const text: { carry: Uint8Array | null } | null = data.text
    ? { carry: new Uint8Array(0) }
    : null;
  // The save on its way, if any.
  let saving: Promise<void> | null = null;
  // Each chunk's buffer is filled again once its text or base64 is made.
  for await (const { bytes, last } of fixedChunks(data.stream, chunkSize)) {
    throwIfAborted(options.signal);
    loaded += bytes.length;
    data.onChunk?.(bytes, loaded);
    const content = text
      ? textOrBase64(text, bytes, last)
      : { format: 'base64' as const, content: bytesToBase64(bytes) };
    const number = chunk++;
    const end = loaded;
    if (saving) {
      await saving;
      throwIfAborted(options.signal);
    }
    const sent = save({
      ...content,
      ...(number === 1 && last ? {} : { chunk: last ? -1 : number })
    });
    saving = sent.then(() =>
      options.onProgress?.({ loaded: end, total: data.total ?? end })
    );
    // Its failure is thrown where it is awaited: before the next save, at
    // the end, or by the clean-up when reading fails first.
    saving.catch(() => undefined);
    if (last) {
      await saveThenVerify(saving, options.verify);
    }
  }
}

/**
 * A text chunk of a stream (see `IByteStream.text`): `carry`'s bytes and
 * `bytes` up to the last whole character, decoded; the bytes after it are
 * carried over to the next chunk. When they are not UTF-8, all of them as
 * base64, and the stream is no longer read as text (`carry` becomes null).
 */
function textOrBase64(
  state: { carry: Uint8Array | null },
  bytes: Uint8Array,
  last: boolean
): { format: 'text' | 'base64'; content: string } {
  let joined = bytes;
  if (state.carry?.length) {
    joined = new Uint8Array(state.carry.length + bytes.length);
    joined.set(state.carry);
    joined.set(bytes, state.carry.length);
  }
  if (state.carry) {
    const end = last ? joined.length : characterBoundary(joined);
    try {
      const content = decodeUtf8(joined.subarray(0, end));
      // A copy: the chunk's buffer is filled again.
      state.carry = joined.slice(end);
      return { format: 'text', content };
    } catch {
      state.carry = null;
    }
  }
  return { format: 'base64', content: bytesToBase64(joined) };
}

/**
 * Where the last whole UTF-8 character of `bytes` ends: before a lead byte
 * among the last three whose character is cut off, else the end.
 */
export function characterBoundary(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) {
      continue; // a continuation byte: look further back
    }
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/**
 * Wait for a save that was sent, running `verify` meanwhile. The save's
 * request is on its way once `save` returned (the contents manager builds
 * the body before it returns); one turn of the event loop lets any
 * contents manager that does more first send it before `verify` takes the
 * page's thread.
 */
async function saveThenVerify(
  sent: Promise<void>,
  verify: (() => void | Promise<void>) | undefined
): Promise<void> {
  if (verify) {
    // A save that fails while `verify` runs is thrown below, once it is
    // over; until then it is not an unhandled rejection.
    sent.catch(() => undefined);
    // The clean-up waits for the save (see `writeNewFile`) when `verify`
    // throws.
    await new Promise(resolve => setTimeout(resolve, 0));
    await verify();
  }
  await sent;
}

/**
 * A save's content, and its place in a chunked save: absent for a whole
 * file in one save, 1 for the first chunk (it creates the file), -1 for
 * the last, any other number for one between (appended).
 */
interface IChunkModel {
  format: 'text' | 'base64';
  content: string;
  chunk?: number;
}

/**
 * The smallest content (characters) a save refused as too large was, per
 * contents manager: something between the page and the Jupyter server (an
 * ingress or a reverse proxy with a body size limit, nginx's
 * `client_max_body_size`) answered 413. Later saves through the manager
 * are cut below it from the start.
 */
const refusedContentLength = new WeakMap<IContentsWriter, number>();

/**
 * Below this many characters a save refused as too large is not cut any
 * further: a proxy that refuses such bodies refuses JupyterLab's own
 * uploads (1 MiB chunks) too, and its limit is for its administrator to
 * raise.
 */
export const SMALLEST_SAVE_PIECE = 256 * 1024;

/**
 * Save `model` with `send`, in pieces small enough for what sits between
 * the page and the server: a save refused with 413 is sent again in
 * halves, and halves of those, down to `SMALLEST_SAVE_PIECE`. The refused
 * body never reached the server, so nothing of it was written; the pieces
 * are chunks of the same chunked save (the first keeps the model's place
 * at the start, the last its place at the end), so the file is the same.
 */
async function saveWithinBodyLimit(
  contents: IContentsWriter,
  model: IChunkModel,
  send: (piece: IChunkModel) => Promise<void>
): Promise<void> {
  const refused = refusedContentLength.get(contents);
  const pieces =
    refused !== undefined && model.content.length >= refused
      ? contentPieces(model, Math.floor(refused / 2))
      : [model.content];
  for (const [index, content] of pieces.entries()) {
    const piece: IChunkModel = {
      format: model.format,
      content,
      ...chunkOfPiece(model.chunk, index, pieces.length)
    };
    try {
      await send(piece);
    } catch (error) {
      if (
        !hasResponseStatus(error, 413) ||
        content.length <= SMALLEST_SAVE_PIECE
      ) {
        throw error;
      }
      refusedContentLength.set(
        contents,
        Math.min(refused ?? content.length, content.length)
      );
      await saveWithinBodyLimit(contents, piece, send);
    }
  }
}

/**
 * A model's content in pieces of at most `size` characters (at least
 * `SMALLEST_SAVE_PIECE / 2`): base64 cut at a multiple of four characters,
 * so that each piece decodes to its own bytes; text between characters.
 */
function contentPieces(model: IChunkModel, size: number): string[] {
  const length = Math.max(size, SMALLEST_SAVE_PIECE / 2);
  if (model.format === 'text') {
    return textChunks(model.content, length);
  }
  const step = Math.max(4, length - (length % 4));
  const pieces: string[] = [];
  for (let start = 0; start < model.content.length; start += step) {
    pieces.push(model.content.slice(start, start + step));
  }
  return pieces;
}

/**
 * The chunk number of piece `index` of `count` of a save whose own number
 * is `chunk` (see `IChunkModel`).
 */
function chunkOfPiece(
  chunk: number | undefined,
  index: number,
  count: number
): { chunk?: number } {
  if (count === 1) {
    return chunk === undefined ? {} : { chunk };
  }
  const between = chunk !== undefined && chunk > 1 ? chunk : 2;
  if (index === 0) {
    return { chunk: chunk === undefined || chunk === 1 ? 1 : between };
  }
  if (index === count - 1) {
    return { chunk: chunk === undefined || chunk === -1 ? -1 : between };
  }
  return { chunk: between };
}

/**
 * Text cut into pieces of at most `size` characters for chunked saves,
 * never between the two halves of a surrogate pair: the server encodes
 * each piece to UTF-8 by itself, and half a pair cannot be encoded.
 */
export function textChunks(text: string, size: number): string[] {
  if (text.length <= size) {
    return [text];
  }
  const pieces: string[] = [];
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + size, text.length);
    const before = text.charCodeAt(end - 1);
    if (end < text.length && before >= 0xd800 && before <= 0xdbff) {
      end--;
    }
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/**
 * Wait for a save, but give up waiting (`Cancelled`) when the signal
 * aborts: a slow server must not hold a cancelled clone. The save stays in
 * `inFlight` until it is over, so the clean-up can wait for it.
 */
async function saveUnlessAborted(
  save: Promise<Contents.IModel>,
  inFlight: IInFlight,
  signal?: AbortSignal
): Promise<void> {
  const tracked = save.finally(() => {
    if (inFlight.save === tracked) {
      inFlight.save = null;
    }
  });
  inFlight.save = tracked;
  await unlessAborted(tracked, signal);
}

/**
 * A contents API failure as a `SaveFailed` error that says what happened;
 * other errors are returned as they are.
 */
export function asSaveFailed(
  error: unknown,
  folder: string,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): unknown {
  if (error instanceof BookshelfError) {
    return error;
  }
  const failed = (message: string, status?: number) =>
    new BookshelfError(
      { code: 'SaveFailed', detail: { message, folder, status } },
      { cause: error }
    );
  const status = responseStatus(error);
  if (status === 413) {
    // Not the server's: it takes chunks of every size. Something on the
    // way refused even the smallest pieces (see `saveWithinBodyLimit`).
    return failed(
      trans.__(
        "A proxy between this page and the Jupyter server refused the file's upload as too large, even in pieces of %1 KiB (HTTP 413); nothing was written. Ask the administrator to raise the proxy's request size limit (with nginx: client_max_body_size; with ingress-nginx: the proxy-body-size annotation).",
        SMALLEST_SAVE_PIECE / 1024
      ),
      status
    );
  }
  if (status !== undefined) {
    const text = error instanceof Error ? error.message.trim() : '';
    // The server's own words, untranslated, after its status.
    const said = text && text.length <= 300 ? `${status}: ${text}` : status;
    return failed(
      folder
        ? trans.__(
            "The Jupyter server could not save the file in the folder '%1' (HTTP %2); nothing was written.",
            folder,
            said
          )
        : trans.__(
            'The Jupyter server could not save the file in the root folder (HTTP %1); nothing was written.',
            said
          ),
      status
    );
  }
  if (isNetworkFailure(error)) {
    return failed(
      folder
        ? trans.__(
            "The Jupyter server could not be reached to save the file in the folder '%1'; nothing was written.",
            folder
          )
        : trans.__(
            'The Jupyter server could not be reached to save the file in the root folder; nothing was written.'
          )
    );
  }
  return error;
}

/**
 * Whether a save failed for want of an answer (the browser's fetch
 * failure, as `ServerConnection.NetworkError` carries it).
 */
function isNetworkFailure(error: unknown): boolean {
  return error instanceof Error && /network|fetch/i.test(error.message);
}

/**
 * A contents manager's save error that is neither an HTTP answer nor a
 * network failure (`asSaveFailed` says those) as a `SaveFailed` error: a
 * contents manager in the page throws its own, as JupyterLite's does when
 * the browser's storage is full (QuotaExceededError). Left as it was, it
 * read as an S3 failure. Other errors are returned as they are.
 */
function ownSaveError(
  error: unknown,
  folder: string,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): unknown {
  if (
    !(error instanceof Error) ||
    error instanceof BookshelfError ||
    responseStatus(error) !== undefined ||
    isNetworkFailure(error)
  ) {
    return error;
  }
  const said = `${error.name}: ${error.message}`.slice(0, 300);
  return new BookshelfError(
    {
      code: 'SaveFailed',
      detail: {
        message: folder
          ? trans.__(
              "The file could not be saved in the folder '%1' (%2); nothing was written.",
              folder,
              said
            )
          : trans.__(
              'The file could not be saved in the root folder (%1); nothing was written.',
              said
            ),
        folder
      }
    },
    { cause: error }
  );
}

/**
 * Whether an error is a contents API answer with this HTTP status (a
 * `ServerConnection.ResponseError`, or anything shaped like one).
 */
export function hasResponseStatus(error: unknown, status: number): boolean {
  return responseStatus(error) === status;
}

/**
 * The HTTP status of a contents API answer, or undefined when no answer
 * came.
 */
export function responseStatus(error: unknown): number | undefined {
  const status = (error as { response?: { status?: unknown } } | null)?.response
    ?.status;
  return typeof status === 'number' ? status : undefined;
}
