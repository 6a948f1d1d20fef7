/**
 * Validation and helpers for clone requests and clone links.
 *
 * The rules are those of `docs/clone-request-rules.md`, as data in
 * `src/rules/link.json` (the fields, as links list them),
 * `src/rules/clone.json` (the request's messages) and
 * `src/rules/names.json` (the naming rules, applied by `../s3/names`); the
 * server extension applies the same data (`jupyterlab_bookshelf/validation.py`).
 */

import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';

import { TRANSLATION_DOMAIN } from '../package';
import { BookshelfError } from '../errors/errors';
import clone from '../rules/clone.json';
import link from '../rules/link.json';
import { ruleMessage } from '../rules/translate';
import {
  checkBucket,
  checkCharacters,
  checkKey,
  checkVersionId,
  keyBaseName,
  NAME_LIMITS,
  NAME_MESSAGES,
  utf8Length
} from '../s3/names';
import type { ICloneRequest } from '../tokens';

/**
 * The name of one clone request field.
 */
export type CloneField =
  's3_bucket' | 's3_key' | 'target_path' | 's3_version_id';

/**
 * The fields of a clone request, in the order links list them.
 */
export const CLONE_FIELDS = link.fields as readonly CloneField[];

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

const MESSAGES = clone.messages;
const { maxPathBytes: MAX_PATH_BYTES, maxNameBytes: MAX_NAME_BYTES } =
  NAME_LIMITS;

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
        message: ruleMessage(trans, MESSAGES.notAnObject)
      }
    ];
  }
  const fields = request as { [name: string]: unknown };
  const problems: ICloneProblem[] = [];
  const report = (field: CloneField, message: string | null) => {
    if (message !== null) {
      problems.push({
        field,
        message: ruleMessage(trans, MESSAGES.fieldProblem, field, message)
      });
    }
  };

  const bucket = readField(fields, 's3_bucket', trans);
  const key = readField(fields, 's3_key', trans);
  const targetPath = readField(fields, 'target_path', trans);
  const versionId = readField(fields, 's3_version_id', trans);

  report(
    's3_bucket',
    bucket.problem ??
      (bucket.value ? null : ruleMessage(trans, MESSAGES.bucketRequired)) ??
      checkBucket(bucket.value!, trans)
  );
  const keyProblem =
    key.problem ??
    (key.value ? null : ruleMessage(trans, MESSAGES.keyRequired)) ??
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
  const m = NAME_MESSAGES;
  const fromKey = source === 's3_key';
  if (name.startsWith('.')) {
    return ruleMessage(
      trans,
      fromKey ? m.objectNameHidden : m.fileNameHidden,
      name
    );
  }
  const bytes = utf8Length(name);
  if (bytes > MAX_NAME_BYTES) {
    return fromKey
      ? ruleMessage(trans, m.objectNameBytes, bytes, MAX_NAME_BYTES)
      : ruleMessage(trans, m.fileNameBytes, MAX_NAME_BYTES, bytes);
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
    throw new BookshelfError({
      code: 'InvalidRequest',
      detail: {
        message: `${problems.map(problem => problem.message).join('; ')}.`,
        field: problems[0].field
      }
    });
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
    return { problem: ruleMessage(trans, MESSAGES.givenTwice) };
  }
  if (typeof value !== 'string') {
    // JavaScript's name of the type, as an API caller would write it.
    return {
      problem: Array.isArray(value)
        ? ruleMessage(trans, MESSAGES.notTextList)
        : ruleMessage(trans, MESSAGES.notText, typeof value)
    };
  }
  return { value };
}

function checkTargetPath(
  path: string,
  trans: TranslationBundle
): string | null {
  const m = NAME_MESSAGES;
  if (path.startsWith('/')) {
    return ruleMessage(trans, m.pathAbsolute);
  }
  if (path.includes('\\')) {
    return ruleMessage(trans, m.pathBackslash);
  }
  const characters = checkCharacters(path, 'path', trans);
  if (characters) {
    return characters;
  }
  const bytes = utf8Length(path);
  if (bytes > MAX_PATH_BYTES) {
    return ruleMessage(trans, m.pathBytes, MAX_PATH_BYTES, bytes);
  }
  // A single trailing '/' means "this folder".
  const segments = (path.endsWith('/') ? path.slice(0, -1) : path).split('/');
  for (const segment of segments) {
    if (segment === '') {
      return ruleMessage(trans, m.pathEmptySegment);
    }
    if (segment === '..') {
      return ruleMessage(trans, m.pathParent);
    }
    if (/^\.+$/.test(segment)) {
      return ruleMessage(trans, m.pathDotsOnly, segment);
    }
    if (segment.startsWith('.')) {
      return ruleMessage(trans, m.pathHidden, segment);
    }
    const segmentBytes = utf8Length(segment);
    if (segmentBytes > MAX_NAME_BYTES) {
      return ruleMessage(
        trans,
        m.pathSegmentBytes,
        MAX_NAME_BYTES,
        segmentBytes
      );
    }
  }
  return null;
}
