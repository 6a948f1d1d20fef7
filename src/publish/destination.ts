/**
 * Where a notebook is published: its object key, the checks on it, and the
 * addresses shown once it is there.
 */

import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';

import { checkFileName, cloneLinkQuery } from '../clone/request';
import { TRANSLATION_DOMAIN } from '../package';
import link from '../rules/link.json';
import publish from '../rules/publish.json';
import { ruleMessage } from '../rules/translate';
import { checkBucket, checkKey, keyBaseName } from '../s3/names';
import type { LinkForm } from '../settings/deployment';
import type { ICloneRequest } from '../tokens';

/**
 * The extension every published object key ends with.
 */
export const NOTEBOOK_EXTENSION = publish.notebookExtension;

const MESSAGES = publish.messages;

/**
 * The object key of a notebook published from `path`: `<prefix><path>`.
 *
 * `path` is a Jupyter path (relative to the root); one leading `/` is
 * dropped. The prefix is used exactly as given, without adding a `/`: the
 * prefix `notebooks/` gives `notebooks/a.ipynb`, and the prefix `team-`
 * gives `team-a.ipynb`. (The settings parser already strips the prefix's
 * leading slashes.)
 */
export function publishKey(prefix: string, path: string): string {
  return prefix + (path.startsWith('/') ? path.slice(1) : path);
}

/**
 * What is wrong with the publish bucket's name, or null. The fix is in
 * the settings, so the message says so.
 */
export function checkPublishBucket(
  bucket: string,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): string | null {
  if (!bucket) {
    return ruleMessage(trans, MESSAGES.noBucket);
  }
  // The clone rules for a bucket name.
  const rule = checkBucket(bucket, trans);
  if (rule) {
    return ruleMessage(trans, MESSAGES.badBucket, rule);
  }
  return null;
}

/**
 * What is wrong with a publish destination, or null when a notebook may be
 * published there. The key follows the clone rules for `s3_key` (so that
 * the clone link of the result works), must end in `.ipynb`, and must not
 * have `.` or `..` segments: a browser resolves those in the request URL,
 * which would address another object.
 */
export function checkPublishDestination(
  bucket: string,
  key: string,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): string | null {
  const bucketProblem = checkPublishBucket(bucket, trans);
  if (bucketProblem) {
    return bucketProblem;
  }
  if (!key) {
    return ruleMessage(trans, MESSAGES.emptyDestination);
  }
  const dotSegment = key
    .split('/')
    .find(segment => segment === '.' || segment === '..');
  if (dotSegment !== undefined) {
    return ruleMessage(trans, MESSAGES.dotSegment, dotSegment);
  }
  const keyProblem = checkKey(key, trans);
  if (keyProblem) {
    return ruleMessage(trans, MESSAGES.badKey, keyProblem);
  }
  if (!key.endsWith(NOTEBOOK_EXTENSION)) {
    return ruleMessage(trans, MESSAGES.notNotebook, NOTEBOOK_EXTENSION);
  }
  // The name a clone of the published notebook gets.
  const nameProblem = checkFileName(keyBaseName(key), 'target_path', trans);
  if (nameProblem) {
    return ruleMessage(trans, MESSAGES.badCloneName, nameProblem);
  }
  return null;
}

/**
 * The `s3://bucket/key` address of an object, as S3 tools write it.
 */
export function s3Path(bucket: string, key: string): string {
  return `s3://${bucket}/${key}`;
}

/**
 * The absolute link that opens the clone dialog for an object:
 * `<origin><baseUrl>bookshelf/clone?<query>`, the server's landing page;
 * for a JupyterLite site (`form` 'lite'), which has no server,
 * `<origin><baseUrl>lab/index.html?bookshelf-clone&<query>`, the in-app
 * link of its JupyterLab (named in full: a static host may not serve a
 * folder's index).
 *
 * `serverOrigin` is the Jupyter server's origin (`https://hub.example.org`,
 * a trailing `/` is dropped); `baseUrl` its base URL as the page config
 * gives it (`/` or `/user/ana/`, already URL-encoded), with or without the
 * slashes at either end.
 */
export function cloneUrl(
  serverOrigin: string,
  baseUrl: string,
  request: Pick<ICloneRequest, 's3_bucket' | 's3_key' | 's3_version_id'>,
  form: LinkForm = 'server'
): string {
  const origin = serverOrigin.replace(/\/+$/, '');
  const trimmedBase = baseUrl.replace(/^\/+|\/+$/g, '');
  const base = trimmedBase ? `/${trimmedBase}/` : '/';
  const query = cloneLinkQuery({
    s3_bucket: request.s3_bucket,
    s3_key: request.s3_key,
    s3_version_id: request.s3_version_id
  });
  return form === 'lite'
    ? `${origin}${base}lab/index.html?${link.deepLinkParameter}&${query}`
    : `${origin}${base}${link.landingPath}?${query}`;
}
