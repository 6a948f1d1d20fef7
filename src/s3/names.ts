/**
 * The naming rules of S3: bucket names, object keys, version ids, and the
 * `s3://` addresses and `allowedBuckets` patterns that name them. Used by
 * clone requests, publish destinations and the settings checks; imports
 * none of them.
 *
 * The rules are data (`src/rules/names.json`), applied alike by the server
 * extension (`jupyterlab_bookshelf/validation.py`).
 */

import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';

import { TRANSLATION_DOMAIN } from '../package';
import names from '../rules/names.json';
import { ruleMessage } from '../rules/translate';

/**
 * The lengths the naming rules allow.
 */
export const NAME_LIMITS = names.limits;

/**
 * The naming rules' messages (translatable templates).
 */
export const NAME_MESSAGES = names.messages;

const CONTROL_CHARACTER = new RegExp(names.characters.control);
const BIDI_CHARACTER = new RegExp(names.characters.bidi);
const BLANK_CHARACTER = new RegExp(names.characters.blank);
const BUCKET_CHARACTER = new RegExp(`^${names.characters.bucket}$`);
const BUCKET_END = new RegExp(`^${names.characters.bucketEnd}$`);
const IPV4_LIKE = new RegExp(`^(?:${names.ipv4Like})$`);
const VERSION_ID_CHARACTER = new RegExp(`^${names.characters.versionId}$`);

const defaultBundle = () => nullTranslator.load(TRANSLATION_DOMAIN);

/**
 * The S3 bucket naming rule a name breaks, or null; the same texts as the
 * server extension's `check_bucket`. Also used for the publishBucket
 * setting.
 */
export function checkBucket(
  bucket: string,
  trans: TranslationBundle = defaultBundle()
): string | null {
  const m = names.messages;
  const { bucketMinLength, bucketMaxLength } = names.limits;
  if (bucket.length < bucketMinLength || bucket.length > bucketMaxLength) {
    return ruleMessage(
      trans,
      m.bucketLength,
      bucketMinLength,
      bucketMaxLength,
      bucket.length
    );
  }
  for (const character of bucket) {
    if (!BUCKET_CHARACTER.test(character)) {
      return ruleMessage(
        trans,
        m.bucketCharacter,
        describeCharacter(character)
      );
    }
  }
  if (
    !BUCKET_END.test(bucket[0]) ||
    !BUCKET_END.test(bucket[bucket.length - 1])
  ) {
    return ruleMessage(trans, m.bucketEnds);
  }
  if (bucket.includes('..')) {
    return ruleMessage(trans, m.bucketAdjacentDots);
  }
  if (IPV4_LIKE.test(bucket)) {
    return ruleMessage(trans, m.bucketIpAddress);
  }
  const prefix = names.bucketPrefixes.find(prefix => bucket.startsWith(prefix));
  if (prefix) {
    return ruleMessage(trans, m.bucketPrefix, prefix);
  }
  const suffix = names.bucketSuffixes.find(suffix => bucket.endsWith(suffix));
  if (suffix) {
    return ruleMessage(trans, m.bucketSuffix, suffix);
  }
  return null;
}

/**
 * The rule a non-empty object key breaks (without the field prefix), or null.
 */
export function checkKey(
  key: string,
  trans: TranslationBundle = defaultBundle()
): string | null {
  const m = names.messages;
  const bytes = utf8Length(key);
  if (bytes > names.limits.maxPathBytes) {
    return ruleMessage(trans, m.keyBytes, names.limits.maxPathBytes, bytes);
  }
  const characters = checkCharacters(key, 'key', trans);
  if (characters) {
    return characters;
  }
  if (key.endsWith('/')) {
    return ruleMessage(trans, m.keyFolder);
  }
  const baseName = keyBaseName(key);
  if (baseName === '.' || baseName === '..') {
    return ruleMessage(trans, m.keyLastSegment, baseName);
  }
  // A browser resolves '.' and '..' in a request's path (also written as
  // %2E), so the request would read another object, even of another bucket.
  if (key.split('/').some(segment => segment === '.' || segment === '..')) {
    return ruleMessage(trans, m.keyDotSegment);
  }
  return null;
}

/**
 * The rule a non-empty version id breaks (without the field prefix), or
 * null.
 */
export function checkVersionId(
  versionId: string,
  trans: TranslationBundle = defaultBundle()
): string | null {
  const m = names.messages;
  if (versionId.length > names.limits.maxPathBytes) {
    return ruleMessage(
      trans,
      m.versionIdLength,
      names.limits.maxPathBytes,
      versionId.length
    );
  }
  const bad = [...versionId].find(
    character => !VERSION_ID_CHARACTER.test(character)
  );
  if (bad !== undefined) {
    return ruleMessage(trans, m.versionIdCharacter, describeCharacter(bad));
  }
  return null;
}

/**
 * The control and bidirectional formatting characters rules, for a key or
 * a path (one sentence each, so that translations need no pieces).
 */
export function checkCharacters(
  text: string,
  what: 'key' | 'path',
  trans: TranslationBundle = defaultBundle()
): string | null {
  const m = names.messages;
  const control = CONTROL_CHARACTER.exec(text);
  if (control) {
    const found = describeCharacter(control[0]);
    return ruleMessage(
      trans,
      what === 'key' ? m.keyControl : m.pathControl,
      found
    );
  }
  const bidi = BIDI_CHARACTER.exec(text);
  if (bidi) {
    const found = describeCharacter(bidi[0]);
    return ruleMessage(trans, what === 'key' ? m.keyBidi : m.pathBidi, found);
  }
  return null;
}

/**
 * A character as a message may show it: quoted when printable, else its
 * code point, so that the message itself cannot be garbled.
 */
export function describeCharacter(character: string): string {
  const code = character.codePointAt(0)!;
  if (
    CONTROL_CHARACTER.test(character) ||
    BIDI_CHARACTER.test(character) ||
    BLANK_CHARACTER.test(character)
  ) {
    return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `'${character}'`;
}

/**
 * The last segment of a key: the name its clone gets by default.
 */
export function keyBaseName(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

/**
 * The number of bytes of a string encoded as UTF-8; a lone surrogate counts
 * as the three bytes of U+FFFD, which the encoder puts in its place.
 */
export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * Split an `s3://bucket/key` address. Returns null for anything else,
 * including an address without a key. The key is taken as written (these
 * addresses are not percent-encoded).
 */
export function parseS3Url(
  text: string
): { s3_bucket: string; s3_key: string } | null {
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

function wildcardToRegExp(pattern: string): RegExp {
  const source = pattern
    .split('*')
    .map(part => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's');
}
