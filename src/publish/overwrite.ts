/**
 * Whether a publish may write its object, and on which condition, given the
 * overwrite policy and what exists at the destination.
 */

import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';

import { TRANSLATION_DOMAIN } from '../package';
import publish from '../rules/publish.json';
import { ruleMessage } from '../rules/translate';
import type { OverwritePolicy } from '../tokens';

const MESSAGES = publish.messages;

/**
 * The condition a put is sent with: create only (`If-None-Match: *`),
 * replace only this ETag (`If-Match`), or none.
 */
export type PutCondition =
  | { ifNoneMatch: '*'; ifMatch?: undefined }
  | { ifMatch: string; ifNoneMatch?: undefined }
  | { ifMatch?: undefined; ifNoneMatch?: undefined };

/**
 * Why a publish was refused before anything was sent: the policy forbids
 * replacing the object, or the user has not confirmed replacing it.
 */
export type RefusalReason = 'policy-never' | 'needs-confirmation';

/**
 * The outcome of `decideOverwrite`.
 */
export type OverwriteDecision =
  | { action: 'put'; condition: PutCondition }
  | {
      action: 'refuse';
      code: 'Conflict';
      reason: RefusalReason;
      message: string;
    };

/**
 * What the caller asked for (the fields of `IPublishOptions`).
 */
export interface IOverwriteOptions {
  /** The user confirmed replacing the existing object. */
  overwrite?: boolean;
  /** The ETag of the object the user saw. */
  ifMatch?: string;
}

/**
 * Decide how to write a published object.
 *
 * - Nothing exists: create only, whatever the policy, so that a publisher
 *   who creates it meanwhile is detected rather than overwritten.
 * - `never`: refuse.
 * - `always`: replace without condition, unless the caller gave the ETag
 *   it saw (then replace only that version).
 * - `confirm`: refuse until the user confirms (`overwrite`); then replace
 *   only the version the user saw (`ifMatch`), else the one just found,
 *   so a version written meanwhile is never lost. When neither ETag is
 *   known (a store or CORS rule that hides it) the confirmed put has no
 *   condition.
 *
 * `where` names the object in messages (its `s3://` path); the messages are
 * translated with `trans`.
 */
export function decideOverwrite(
  policy: OverwritePolicy,
  existing: { etag?: string } | null,
  options: IOverwriteOptions = {},
  where?: string,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): OverwriteDecision {
  if (!existing) {
    return { action: 'put', condition: { ifNoneMatch: '*' } };
  }
  if (policy === 'never') {
    return {
      action: 'refuse',
      code: 'Conflict',
      reason: 'policy-never',
      message: where
        ? ruleMessage(trans, MESSAGES.policyNever, where)
        : ruleMessage(trans, MESSAGES.policyNeverNowhere)
    };
  }
  if (policy === 'always') {
    return {
      action: 'put',
      condition: options.ifMatch ? { ifMatch: options.ifMatch } : {}
    };
  }
  if (!options.overwrite) {
    return {
      action: 'refuse',
      code: 'Conflict',
      reason: 'needs-confirmation',
      message: where
        ? ruleMessage(trans, MESSAGES.needsConfirmation, where)
        : ruleMessage(trans, MESSAGES.needsConfirmationNowhere)
    };
  }
  const etag = options.ifMatch || existing.etag;
  return { action: 'put', condition: etag ? { ifMatch: etag } : {} };
}
