/**
 * How a downloaded object is saved: a checked notebook, text, or binary.
 */

import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';

import { TRANSLATION_DOMAIN } from '../package';
import { BookshelfError } from '../errors/errors';

/**
 * Bytes to write into a file, and how a single save should send them.
 */
export interface IFileData {
  /** The file's bytes, written exactly. */
  bytes: Uint8Array;
  /** 'text' when the bytes are UTF-8 text, else 'base64'. */
  format: 'text' | 'base64';
  /**
   * The bytes decoded, when the format is 'text' and they were decoded
   * already: a large text is decoded only once.
   */
  text?: string;
}

/**
 * An object classified for saving.
 */
export interface IClassifiedObject extends IFileData {
  kind: 'notebook' | 'text' | 'binary';
  /**
   * For a notebook: throw `NotANotebook` unless the text is an nbformat 3
   * or 4 notebook. Left to the caller, which runs it while the file is on its
   * way to the server (the save does not need its result).
   */
  check?: () => void;
}

const BYTES_PER_MB = 1024 * 1024;

/**
 * The deepest nesting of lists and objects a notebook may have. Jupyter
 * reads notebooks recursively and cannot open one nested some hundreds of
 * levels deep (RecursionError); real notebooks stay far below this.
 */
export const MAX_NOTEBOOK_DEPTH = 200;

/**
 * The size limit in bytes for the `maxObjectSizeMB` setting (1 MB is
 * 1024 × 1024 bytes here).
 */
export function sizeLimitBytes(maxObjectSizeMB: number): number {
  if (!(maxObjectSizeMB > 0)) {
    return 0;
  }
  return Math.floor(maxObjectSizeMB * BYTES_PER_MB);
}

/**
 * Throw `TooLarge` when an object is over the limit.
 */
export function checkSize(size: number, maxObjectSizeMB: number): void {
  if (size > sizeLimitBytes(maxObjectSizeMB)) {
    throw new BookshelfError({
      code: 'TooLarge',
      detail: { size, limitMB: maxObjectSizeMB }
    });
  }
}

/**
 * What a notebook is checked for: a clone into a Jupyter server's file
 * tree (versions 3 and 4: the server converts 3 when it opens it), a clone
 * into JupyterLite's (4 only: nothing converts 3 there, and JupyterLab
 * shows it as an empty notebook, which its next save writes over the
 * clone), or a publish (4 only: what others will clone).
 */
export type NotebookPurpose = 'clone' | 'clone-lite' | 'publish';

/**
 * Decide how an object is saved under `name`. A name ending in `.ipynb`
 * must be UTF-8 text (else `NotANotebook`) and hold an nbformat 3 or 4
 * notebook,
 * which the result's `check` tells; its bytes are kept as they came, except
 * a leading byte order mark, which Jupyter cannot read. Other objects are
 * text when they are UTF-8 without NUL bytes, else binary.
 */
export function classifyObject(
  name: string,
  bytes: Uint8Array,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN),
  purpose: 'clone' | 'clone-lite' = 'clone'
): IClassifiedObject {
  if (name.endsWith('.ipynb')) {
    const start = hasByteOrderMark(bytes) ? 3 : 0;
    const notebookBytes = start ? bytes.subarray(start) : bytes;
    const text = decodeNotebook(notebookBytes, trans);
    return {
      kind: 'notebook',
      format: 'text',
      bytes: notebookBytes,
      text,
      check: () => checkNotebookText(text, trans, purpose)
    };
  }
  const text = utf8Text(bytes);
  if (text !== null) {
    return { kind: 'text', format: 'text', bytes, text };
  }
  return { kind: 'binary', format: 'base64', bytes };
}

/**
 * Throw `NotANotebook` unless the bytes are a JSON notebook Jupyter opens:
 * `nbformat` 4 (or 3 for a clone, which Jupyter converts when it reads
 * it), an integer `nbformat_minor`, a `metadata` object and a `cells`
 * list (version 3: `worksheets`, each with a `cells` list). The parsed value is dropped on return, so no second copy
 * of a large notebook stays in memory.
 *
 * The message is translated with `trans`; `detail.problem` holds the
 * reason alone, and `purpose` says what only version 4 notebooks can be,
 * so that publishing can say it in its own sentence.
 */
export function checkNotebook(
  bytes: Uint8Array,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN),
  purpose: NotebookPurpose = 'clone'
): void {
  checkNotebookText(decodeNotebook(bytes, trans), trans, purpose);
}

/**
 * Why a notebook of version `nbformat` (`found`: as JSON) cannot serve
 * `purpose`.
 */
function unreadableVersion(
  purpose: NotebookPurpose,
  nbformat: unknown,
  found: string,
  trans: TranslationBundle
): string {
  if (purpose === 'clone') {
    return trans.__(
      "'nbformat' is %1; only version 3 and 4 notebooks can be cloned.",
      found
    );
  }
  if (purpose === 'clone-lite') {
    return nbformat === 3
      ? trans.__(
          "'nbformat' is 3, and JupyterLite opens only version 4 notebooks (a Jupyter server converts version 3 when it opens one; JupyterLite would show it empty). Convert it with 'jupyter nbconvert --to notebook --nbformat 4', or clone it into JupyterLab or Jupyter Notebook with a Jupyter server."
        )
      : trans.__(
          "'nbformat' is %1; only version 4 notebooks can be cloned into JupyterLite.",
          found
        );
  }
  return nbformat === 3
    ? trans.__(
        "'nbformat' is 3; open the notebook in Jupyter and save it, which converts it to version 4, then publish it."
      )
    : trans.__(
        "'nbformat' is %1; only version 4 notebooks can be published.",
        found
      );
}

/**
 * The text of a notebook's bytes; `NotANotebook` when they are not UTF-8.
 */
function decodeNotebook(bytes: Uint8Array, trans: TranslationBundle): string {
  try {
    return decodeUtf8(bytes);
  } catch {
    throw notANotebook(
      isUtf16(bytes)
        ? trans.__(
            'it is UTF-16 text (it starts with a UTF-16 byte order mark), which Jupyter cannot read: save it as UTF-8.'
          )
        : trans.__('it is not UTF-8 text.'),
      trans
    );
  }
}

/**
 * `checkNotebook` for text decoded already.
 */
export function checkNotebookText(
  text: string,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN),
  purpose: NotebookPurpose = 'clone'
): void {
  if (text.charCodeAt(0) === BYTE_ORDER_MARK) {
    // A clone drops the mark before its check (`classifyObject`); a saved
    // file that starts with one is a notebook Jupyter cannot open.
    throw notANotebook(
      trans.__(
        'it starts with a byte order mark (U+FEFF), which Jupyter cannot read: save it as UTF-8 without one.'
      ),
      trans
    );
  }
  const depth = jsonDepth(text, MAX_NOTEBOOK_DEPTH);
  if (depth > MAX_NOTEBOOK_DEPTH) {
    throw notANotebook(
      trans.__(
        'its JSON is nested more than %1 levels deep, which Jupyter cannot open.',
        MAX_NOTEBOOK_DEPTH
      ),
      trans
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // The parser's message may quote the content: give only where it is,
    // and keep the parser's error out of the cause (logs show causes).
    const position = /position (\d+)/.exec(String(error))?.[1];
    if (position === undefined) {
      throw notANotebook(trans.__('it is not valid JSON.'), trans);
    }
    const [line, column] = lineAndColumn(text, Number(position));
    throw notANotebook(
      trans.__(
        'it is not valid JSON (error at line %1, column %2).',
        line,
        column
      ),
      trans
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw notANotebook(trans.__('it is JSON, but not an object.'), trans);
  }
  const notebook = value as { [key: string]: unknown };
  for (const field of ['nbformat', 'nbformat_minor', 'metadata']) {
    if (!(field in notebook)) {
      throw notANotebook(trans.__("'%1' is missing.", field), trans);
    }
  }
  // Version 3 is what Jupyter reads and converts to 4 when it opens a file
  // (nbformat's own converter); a clone keeps it as it came. Publishing
  // writes what others will clone: version 4 only.
  const readable = purpose === 'clone' ? [3, 4] : [4];
  if (!readable.includes(notebook.nbformat as number)) {
    const found = String(JSON.stringify(notebook.nbformat)?.slice(0, 20));
    throw notANotebook(
      unreadableVersion(purpose, notebook.nbformat, found, trans),
      trans
    );
  }
  if (!Number.isInteger(notebook.nbformat_minor)) {
    throw notANotebook(trans.__("'nbformat_minor' is not an integer."), trans);
  }
  if (!isPlainObject(notebook.metadata)) {
    throw notANotebook(trans.__("'metadata' is not an object."), trans);
  }
  if (notebook.nbformat === 3) {
    // Version 3 keeps its cells in worksheets.
    if (!('worksheets' in notebook)) {
      throw notANotebook(trans.__("'%1' is missing.", 'worksheets'), trans);
    }
    const worksheets = notebook.worksheets;
    if (
      !Array.isArray(worksheets) ||
      !worksheets.every(
        sheet => isPlainObject(sheet) && Array.isArray(sheet.cells)
      )
    ) {
      throw notANotebook(
        trans.__("'worksheets' is not a list of worksheets with cells."),
        trans
      );
    }
    return;
  }
  if (!('cells' in notebook)) {
    throw notANotebook(trans.__("'%1' is missing.", 'cells'), trans);
  }
  if (!Array.isArray(notebook.cells)) {
    throw notANotebook(trans.__("'cells' is not a list."), trans);
  }
}

function isPlainObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * How deep lists and objects nest in JSON text, counted without parsing
 * it; stops counting once past `limit`. Brackets inside strings do not
 * count. For text that is not JSON the result means nothing.
 */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      // Most of a notebook is inside strings: jump from quote to quote
      // (indexOf is much faster than a loop over the characters). A quote
      // after an odd number of backslashes is escaped.
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end === -1) {
          return deepest;
        }
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) {
          backslashes++;
        }
        i = end;
        if (backslashes % 2 === 0) {
          break;
        }
      }
    } else if (code === 0x5b || code === 0x7b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) {
          return deepest;
        }
      }
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return deepest;
}

/**
 * The text of bytes that are UTF-8 without NUL bytes (which text files do
 * not have, and binary files usually do), decoded exactly (a byte order
 * mark is kept); null for other bytes.
 */
export function utf8Text(bytes: Uint8Array): string | null {
  if (bytes.indexOf(0) !== -1) {
    return null;
  }
  try {
    return decodeUtf8(bytes);
  } catch {
    return null;
  }
}

/**
 * Decode UTF-8 bytes exactly, keeping a byte order mark.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(
    bytes
  );
}

/**
 * Base64 of bytes, fast enough for tens of megabytes: the browser's own
 * encoder where there is one (`Uint8Array.prototype.toBase64`, about ten
 * times faster), else pieces of a multiple of 3 bytes, which encode to
 * base64 without padding, so they can be joined.
 */
export function bytesToBase64(bytes: Uint8Array): string {
  const native = (bytes as { toBase64?: () => string }).toBase64;
  if (typeof native === 'function') {
    return native.call(bytes);
  }
  const pieceSize = 3 * 8192;
  const pieces: string[] = [];
  for (let start = 0; start < bytes.length; start += pieceSize) {
    const piece = bytes.subarray(start, start + pieceSize);
    pieces.push(
      btoa(String.fromCharCode.apply(null, piece as unknown as number[]))
    );
  }
  return pieces.join('');
}

/**
 * The line and column (from 1) of a position in a text, as a person finds it
 * in an editor (and as Python's JSON errors say it, on the server).
 */
function lineAndColumn(text: string, position: number): [number, number] {
  const lineStart = text.lastIndexOf('\n', position - 1) + 1;
  let line = 1;
  for (
    let index = text.indexOf('\n');
    index !== -1 && index < lineStart;
    index = text.indexOf('\n', index + 1)
  ) {
    line++;
  }
  return [line, position - lineStart + 1];
}

/** Whether bytes start with a UTF-16 byte order mark (either byte order). */
function isUtf16(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) ||
      (bytes[0] === 0xfe && bytes[1] === 0xff))
  );
}

/** U+FEFF, which a UTF-8 file may start with and Jupyter's reader refuses. */
const BYTE_ORDER_MARK = 0xfeff;

function hasByteOrderMark(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 3 &&
    bytes[0] === 0xef &&
    bytes[1] === 0xbb &&
    bytes[2] === 0xbf
  );
}

function notANotebook(
  reason: string,
  trans: TranslationBundle
): BookshelfError {
  return new BookshelfError({
    code: 'NotANotebook',
    detail: {
      message: trans.__('The object is not a Jupyter notebook: %1', reason),
      problem: reason
    }
  });
}
