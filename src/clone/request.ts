/**
 * Validation and helpers for clone requests and clone links.
 *
 * The rules are those of `docs/clone-request-rules.md`; the server shim
 * implements the same ones, so keep both in step.
 */

import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';

import { TRANSLATION_DOMAIN } from '../package';
import { BookshelfError } from '../errors/errors';
import type { ICloneRequest } from '../tokens';

/**
 * The fields of a clone request, in the order links list them.
 */
export const CLONE_FIELDS = [
  's3_bucket',
  's3_key',
  'target_path',
  's3_version_id'
] as const;

/**
 * The name of one clone request field.
 */
export type CloneField = (typeof CLONE_FIELDS)[number];

/**
 * One problem of a clone request.
 */
export interface ICloneProblem {
  /** The field at fault, or `request` when the request is not an object. */
  field: CloneField | 'request';
  /**
   * A sentence that starts with the field name and states the rule, in the
   * language of the bundle the rules were given.
   */
  message: string;
}

/**
 * The most bytes a key, a target path and a version id may have.
 */
const MAX_PATH_BYTES = 1024;

/**
 * The most bytes of one file or folder name (the usual file system limit).
 */
const MAX_NAME_BYTES = 255;

// Matching control characters is the point of this expression.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
const BIDI_CHARACTER = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const BUCKET_CHARACTER = /[a-z0-9.-]/;
const IPV4_LIKE = /^\d{1,3}(\.\d{1,3}){3}$/;
const VERSION_ID = /^[A-Za-z0-9._\-+/=]+$/;
const VERSION_ID_CHARACTER = /[A-Za-z0-9._\-+/=]/;

const BUCKET_PREFIXES = ['xn--', 'sthree-', 'amzn-s3-demo-'];
const BUCKET_SUFFIXES = [
  '-s3alias',
  '--ol-s3',
  '.mrap',
  '--x-s3',
  '--table-s3'
];

/**
 * Check a clone request (a POST body, or the parameters of a link read with
 * `readCloneQuery`). Reports at most one problem per field: the first rule
 * it breaks. An empty list means the request is valid. The messages are
 * translated with `trans`; the field names are not, as they are the API's.
 */
export function validateCloneRequest(
  request: Partial<ICloneRequest> | unknown,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): ICloneProblem[] {
  if (
    typeof request !== 'object' ||
    request === null ||
    Array.isArray(request)
  ) {
    return [
      {
        field: 'request',
        message: trans.__(
          'request: a clone request is an object with s3_bucket and s3_key'
        )
      }
    ];
  }
  const fields = request as { [name: string]: unknown };
  const problems: ICloneProblem[] = [];
  const report = (field: CloneField, message: string | null) => {
    if (message !== null) {
      problems.push({ field, message: trans.__('%1: %2', field, message) });
    }
  };

  const bucket = readField(fields, 's3_bucket', trans);
  const key = readField(fields, 's3_key', trans);
  const targetPath = readField(fields, 'target_path', trans);
  const versionId = readField(fields, 's3_version_id', trans);

  report(
    's3_bucket',
    bucket.problem ??
      (bucket.value ? null : trans.__('a bucket name is required')) ??
      checkBucket(bucket.value!, trans)
  );
  const keyProblem =
    key.problem ??
    (key.value ? null : trans.__('an object key is required')) ??
    checkKey(key.value!, trans);
  report('s3_key', keyProblem);
  const targetProblem =
    targetPath.problem ??
    (targetPath.value ? checkTargetPath(targetPath.value, trans) : null);
  report('target_path', targetProblem);
  report(
    's3_version_id',
    versionId.problem ??
      (versionId.value ? checkVersionId(versionId.value, trans) : null)
  );

  // The file name comes from the key unless target_path names a file; the
  // target_path segment rules already cover a name taken from there.
  const nameFromKey = !targetPath.value || targetPath.value.endsWith('/');
  if (nameFromKey && keyProblem === null && targetProblem === null) {
    report('s3_key', checkFileName(keyBaseName(key.value!), 's3_key', trans));
  }
  return problems;
}

/**
 * Check the name a clone's file gets: not hidden, not too long. Returns the
 * rule broken (without the field prefix), or null. `source` says where the
 * name came from, so the advice fits.
 */
export function checkFileName(
  name: string,
  source: 's3_key' | 'target_path',
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): string | null {
  if (name.startsWith('.')) {
    return source === 's3_key'
      ? trans.__(
          "the object's name '%1' starts with a dot, which Jupyter hides; give a target_path",
          name
        )
      : trans.__(
          "the file name '%1' starts with a dot, which Jupyter hides; choose another name",
          name
        );
  }
  const bytes = utf8Length(name);
  if (bytes > MAX_NAME_BYTES) {
    return source === 's3_key'
      ? trans.__(
          "the object's name has %1 bytes of UTF-8, more than the %2 a file name may have; give a target_path",
          bytes,
          MAX_NAME_BYTES
        )
      : trans.__(
          'a file name has at most %1 bytes of UTF-8 (got %2)',
          MAX_NAME_BYTES,
          bytes
        );
  }
  return null;
}

/**
 * Validate a request and return it normalized; throws an `InvalidRequest`
 * error whose message lists every problem, translated with `trans`.
 */
export function checkCloneRequest(
  request: Partial<ICloneRequest> | unknown,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): ICloneRequest {
  const problems = validateCloneRequest(request, trans);
  if (problems.length > 0) {
    throw new BookshelfError(
      'InvalidRequest',
      `${problems.map(problem => problem.message).join('; ')}.`,
      { field: problems[0].field }
    );
  }
  return normalizeCloneRequest(request as Partial<ICloneRequest>);
}

/**
 * Keep only the clone fields, and drop optional ones given as empty strings
 * (which the rules count as not given). Trims nothing: a space is part of a
 * key. Call it on a request that `validateCloneRequest` accepted.
 */
export function normalizeCloneRequest(
  request: Partial<ICloneRequest>
): ICloneRequest {
  const normalized: ICloneRequest = {
    s3_bucket: request.s3_bucket ?? '',
    s3_key: request.s3_key ?? ''
  };
  if (request.target_path) {
    normalized.target_path = request.target_path;
  }
  if (request.s3_version_id) {
    normalized.s3_version_id = request.s3_version_id;
  }
  return normalized;
}

/**
 * Read the clone parameters of a link's query string (with or without the
 * leading `?`). A parameter given more than once is kept as a list, which
 * `validateCloneRequest` reports; other parameters are ignored.
 */
export function readCloneQuery(query: string | URLSearchParams): {
  [field in CloneField]?: string | string[];
} {
  const params = typeof query === 'string' ? new URLSearchParams(query) : query;
  const request: { [field in CloneField]?: string | string[] } = {};
  for (const field of CLONE_FIELDS) {
    const values = params.getAll(field);
    if (values.length === 1) {
      request[field] = values[0];
    } else if (values.length > 1) {
      request[field] = values;
    }
  }
  return request;
}

/**
 * The query string of a clone link (without `?`): the fields in a fixed
 * order, optional ones only when set.
 */
export function cloneLinkQuery(request: ICloneRequest): string {
  return CLONE_FIELDS.filter(field => !!request[field])
    .map(field => `${field}=${encodeURIComponent(request[field]!)}`)
    .join('&');
}

/**
 * Split an `s3://bucket/key` address. Returns null for anything else,
 * including an address without a key. The key is taken as written (these
 * addresses are not percent-encoded).
 */
export function parseS3Url(
  text: string
): Pick<ICloneRequest, 's3_bucket' | 's3_key'> | null {
  const match = /^s3:\/\/([^/]+)\/(.+)$/i.exec(text);
  if (!match) {
    return null;
  }
  return { s3_bucket: match[1], s3_key: match[2] };
}

/**
 * Whether a link may clone from a bucket: the name must match one of the
 * patterns as a whole, where `*` stands for any characters; matching is
 * case-sensitive. An empty list allows every bucket.
 */
export function isBucketAllowed(bucket: string, patterns: string[]): boolean {
  if (patterns.length === 0) {
    return true;
  }
  return patterns.some(pattern => wildcardToRegExp(pattern).test(bucket));
}

/**
 * The last segment of a key: the name its clone gets by default.
 */
export function keyBaseName(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

/**
 * The number of bytes of a string encoded as UTF-8.
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      bytes += 1;
    } else if (code < 0x800) {
      bytes += 2;
    } else if (
      code >= 0xd800 &&
      code <= 0xdbff &&
      i + 1 < text.length &&
      isLowSurrogate(text.charCodeAt(i + 1))
    ) {
      // A surrogate pair is one code point of four bytes.
      bytes += 4;
      i++;
    } else {
      // Lone surrogates count as the three bytes of U+FFFD.
      bytes += 3;
    }
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * A field's value: a string, or absent; anything else is a problem.
 */
function readField(
  fields: { [name: string]: unknown },
  field: CloneField,
  trans: TranslationBundle
): { value?: string; problem?: string } {
  const value = fields[field];
  if (value === undefined || value === null) {
    return {};
  }
  if (Array.isArray(value) && value.length > 1) {
    return { problem: trans.__('given more than once') };
  }
  if (typeof value !== 'string') {
    // JavaScript's name of the type, as an API caller would write it.
    return {
      problem: Array.isArray(value)
        ? trans.__('must be text (got a list)')
        : trans.__('must be text (got %1)', typeof value)
    };
  }
  return { value };
}

/**
 * The S3 bucket naming rule a name breaks, or null; the same texts as the
 * shim's `check_bucket` (untranslated). Also used for the publishBucket
 * setting.
 */
export function checkBucket(
  bucket: string,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): string | null {
  if (bucket.length < 3 || bucket.length > 63) {
    return trans.__(
      'a bucket name has 3 to 63 characters (got %1)',
      bucket.length
    );
  }
  for (const character of bucket) {
    if (!BUCKET_CHARACTER.test(character)) {
      return trans.__(
        'a bucket name has only lowercase letters a-z, digits, dots and hyphens (found %1)',
        describeCharacter(character)
      );
    }
  }
  if (!/^[a-z0-9]/.test(bucket) || !/[a-z0-9]$/.test(bucket)) {
    return trans.__('a bucket name starts and ends with a letter or digit');
  }
  if (bucket.includes('..')) {
    return trans.__('a bucket name has no two adjacent dots');
  }
  if (IPV4_LIKE.test(bucket)) {
    return trans.__(
      'a bucket name must not be formatted like an IP address (e.g. 192.168.5.4)'
    );
  }
  const prefix = BUCKET_PREFIXES.find(prefix => bucket.startsWith(prefix));
  if (prefix) {
    return trans.__("a bucket name must not start with '%1'", prefix);
  }
  const suffix = BUCKET_SUFFIXES.find(suffix => bucket.endsWith(suffix));
  if (suffix) {
    return trans.__("a bucket name must not end with '%1'", suffix);
  }
  return null;
}

/**
 * The rule a non-empty object key breaks (without the field prefix), or null.
 */
export function checkKey(
  key: string,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): string | null {
  const bytes = utf8Length(key);
  if (bytes > MAX_PATH_BYTES) {
    return trans.__(
      'a key has 1 to %1 bytes of UTF-8 (got %2)',
      MAX_PATH_BYTES,
      bytes
    );
  }
  const characters = checkCharacters(key, 'key', trans);
  if (characters) {
    return characters;
  }
  if (key.endsWith('/')) {
    return trans.__(
      "the key ends with '/', which names a folder, not an object"
    );
  }
  const baseName = keyBaseName(key);
  if (baseName === '.' || baseName === '..') {
    return trans.__("the key's last segment must not be '%1'", baseName);
  }
  // A browser resolves '.' and '..' in a request's path (also written as
  // %2E), so the request would read another object, even of another bucket.
  if (key.split('/').some(segment => segment === '.' || segment === '..')) {
    return trans.__(
      "a key has no '.' or '..' segment: a browser would resolve it and read another object"
    );
  }
  return null;
}

function checkTargetPath(
  path: string,
  trans: TranslationBundle
): string | null {
  if (path.startsWith('/')) {
    return trans.__(
      "a path is relative to the Jupyter root: remove the leading '/'"
    );
  }
  if (path.includes('\\')) {
    return trans.__("a path separates folders with '/', not '\\'");
  }
  const characters = checkCharacters(path, 'path', trans);
  if (characters) {
    return characters;
  }
  const bytes = utf8Length(path);
  if (bytes > MAX_PATH_BYTES) {
    return trans.__(
      'a path has at most %1 bytes of UTF-8 (got %2)',
      MAX_PATH_BYTES,
      bytes
    );
  }
  // A single trailing '/' means "this folder".
  const segments = (path.endsWith('/') ? path.slice(0, -1) : path).split('/');
  for (const segment of segments) {
    if (segment === '') {
      return trans.__("a path has no empty segment ('//')");
    }
    if (segment === '..') {
      return trans.__("a path must not contain '..'");
    }
    if (/^\.+$/.test(segment)) {
      return trans.__(
        "a path has no segment made only of dots (found '%1')",
        segment
      );
    }
    if (segment.startsWith('.')) {
      return trans.__(
        "'%1' starts with a dot, which Jupyter hides; choose another name",
        segment
      );
    }
    const segmentBytes = utf8Length(segment);
    if (segmentBytes > MAX_NAME_BYTES) {
      return trans.__(
        'each name in a path has at most %1 bytes of UTF-8 (got %2)',
        MAX_NAME_BYTES,
        segmentBytes
      );
    }
  }
  return null;
}

function checkVersionId(
  versionId: string,
  trans: TranslationBundle
): string | null {
  if (versionId.length > MAX_PATH_BYTES) {
    return trans.__(
      'a version id has 1 to %1 characters (got %2)',
      MAX_PATH_BYTES,
      versionId.length
    );
  }
  if (!VERSION_ID.test(versionId)) {
    const bad = [...versionId].find(
      character => !VERSION_ID_CHARACTER.test(character)
    )!;
    return trans.__(
      'a version id has only letters, digits and . _ - + / = (found %1)',
      describeCharacter(bad)
    );
  }
  return null;
}

/**
 * The control and bidirectional formatting characters rules, for a key or
 * a path (one sentence each, so that translations need no pieces).
 */
function checkCharacters(
  text: string,
  what: 'key' | 'path',
  trans: TranslationBundle
): string | null {
  const control = CONTROL_CHARACTER.exec(text);
  if (control) {
    const found = describeCharacter(control[0]);
    return what === 'key'
      ? trans.__('a key has no control characters (found %1)', found)
      : trans.__('a path has no control characters (found %1)', found);
  }
  const bidi = BIDI_CHARACTER.exec(text);
  if (bidi) {
    const found = describeCharacter(bidi[0]);
    return what === 'key'
      ? trans.__(
          "a key has no bidirectional formatting characters, which can disguise a file's type (found %1)",
          found
        )
      : trans.__(
          "a path has no bidirectional formatting characters, which can disguise a file's type (found %1)",
          found
        );
  }
  return null;
}

/**
 * A character as a message may show it: quoted when printable, else its
 * code point, so that the message itself cannot be garbled.
 */
function describeCharacter(character: string): string {
  const code = character.codePointAt(0)!;
  if (
    CONTROL_CHARACTER.test(character) ||
    BIDI_CHARACTER.test(character) ||
    character.trim() === ''
  ) {
    return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `'${character}'`;
}

function wildcardToRegExp(pattern: string): RegExp {
  const source = pattern
    .split('*')
    .map(part => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's');
}
