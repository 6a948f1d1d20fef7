/**
 * What a browser's CORS check of S3 would decide, worked out from a bucket's
 * CORS rules without sending the request: the info panel uses it to tell
 * whether uploads (PUT) from this page would pass, without uploading. S3
 * uses the first rule whose origin, method and requested headers all match
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html).
 */
import corsDefinition from '../rules/cors.json';

/**
 * One CORS rule of a bucket (GetBucketCors).
 */
export interface ICorsRule {
  /** The rule's name (S3's `ID`), if it has one. */
  id?: string;
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds?: number;
}

import { type IS3CorsRule, requiredCorsRule } from '../rules/corsRule';

export {
  type IS3CorsRule,
  REQUIRED_CORS_RULE,
  requiredCorsRule
} from '../rules/corsRule';

/**
 * The methods a bucket people only clone from must allow.
 */
export const CLONE_METHODS: string[] = [...corsDefinition.cloneMethods];

/**
 * The request headers the S3 SDK sends from the browser on a signed
 * request (besides the CORS-safelisted ones). `x-amz-security-token`
 * only with a session token.
 */
export const SDK_HEADERS: string[] = [...corsDefinition.sdkHeaders];

/**
 * The methods a publish in parts uses besides PUT (to start and complete
 * the upload); without them a large notebook is uploaded whole.
 */
export const PARTS_METHODS: string[] = ['POST'];

/**
 * What the extension does from the browser, and what it must read back:
 * each method of the rule, with the SDK's headers and the method's own,
 * and every exposed header. Only the required ones (`requiredMethods`) are
 * checked unless others are asked for.
 */
export const NEEDED_ACCESS: {
  method: string;
  headers: string[];
  expose: string[];
}[] = corsDefinition.AllowedMethods.map(method => ({
  method,
  headers: [
    ...SDK_HEADERS,
    ...corsDefinition.extraHeaders[
      method as keyof typeof corsDefinition.extraHeaders
    ]
  ],
  expose: [...corsDefinition.ExposeHeaders]
}));

function wildcardMatch(
  pattern: string,
  value: string,
  ignoreCase: boolean
): boolean {
  const escaped = pattern
    .split('*')
    .map(part => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${escaped}$`, ignoreCase ? 'i' : '').test(value);
}

/**
 * The rule S3 would apply to a request, or null when none allows it.
 */
export function matchingRule(
  rules: ICorsRule[],
  origin: string,
  method: string,
  headers: string[]
): ICorsRule | null {
  for (const rule of rules) {
    if (!rule.allowedOrigins.some(o => wildcardMatch(o, origin, false))) {
      continue;
    }
    if (!rule.allowedMethods.some(m => m.toUpperCase() === method)) {
      continue;
    }
    const allHeaders = headers.every(header =>
      rule.allowedHeaders.some(allowed => wildcardMatch(allowed, header, true))
    );
    if (allHeaders) {
      return rule;
    }
  }
  return null;
}

/**
 * What the rules leave out for this origin.
 */
export interface ICorsVerdict {
  /** Methods no rule allows (with the SDK's headers). */
  refusedMethods: string[];
  /** Headers the page could not read, by method, as "GET: ETag". */
  hiddenHeaders: string[];
}

/**
 * Check the rules against what the extension does from `origin`: every
 * required method, or only `methods` (e.g. `CLONE_METHODS`).
 */
export function checkCorsRules(
  rules: ICorsRule[],
  origin: string,
  methods?: string[]
): ICorsVerdict {
  const verdict: ICorsVerdict = { refusedMethods: [], hiddenHeaders: [] };
  const asked = methods ?? corsDefinition.requiredMethods;
  const needs = NEEDED_ACCESS.filter(need => asked.includes(need.method));
  for (const need of needs) {
    const rule = matchingRule(rules, origin, need.method, need.headers);
    if (!rule) {
      verdict.refusedMethods.push(need.method);
      continue;
    }
    for (const header of need.expose) {
      const exposed = rule.exposeHeaders.some(
        name => name.toLowerCase() === header.toLowerCase()
      );
      if (!exposed) {
        verdict.hiddenHeaders.push(`${need.method}: ${header}`);
      }
    }
  }
  return verdict;
}

/**
 * A rule as S3's console and API spell it; absent fields stay absent.
 */
export function toS3CorsRule(rule: ICorsRule): IS3CorsRule {
  return {
    ...(rule.id !== undefined ? { ID: rule.id } : {}),
    AllowedOrigins: [...rule.allowedOrigins],
    AllowedMethods: [...rule.allowedMethods],
    AllowedHeaders: [...rule.allowedHeaders],
    ExposeHeaders: [...rule.exposeHeaders],
    ...(rule.maxAgeSeconds !== undefined
      ? { MaxAgeSeconds: rule.maxAgeSeconds }
      : {})
  };
}

/** `names` and then those of `more` it lacks, compared without case. */
function union(names: string[], more: string[]): string[] {
  const seen = new Set(names.map(name => name.toLowerCase()));
  return [...names, ...more.filter(name => !seen.has(name.toLowerCase()))];
}

/**
 * The bucket's CORS configuration with what the page at `origin` needs,
 * changing nothing for other origins: the rules that name `origin` (not
 * by a wildcard) lose it, a rule left without origins goes, and one rule
 * for `origin` goes first (S3 applies the first rule that matches), with
 * everything those rules allowed it plus the required rule. Rules for
 * other origins, wildcard rules included, are kept as they are.
 */
export function mergeCorsRules(
  rules: ICorsRule[],
  origin: string
): IS3CorsRule[] {
  const required = requiredCorsRule(origin);
  const mine = rules.filter(rule => rule.allowedOrigins.includes(origin));
  const merged: IS3CorsRule = { ...required };
  for (const rule of mine) {
    merged.AllowedMethods = union(rule.allowedMethods, merged.AllowedMethods);
    merged.ExposeHeaders = union(rule.exposeHeaders, merged.ExposeHeaders);
    merged.AllowedHeaders = merged.AllowedHeaders.includes('*')
      ? ['*']
      : union(rule.allowedHeaders, merged.AllowedHeaders);
  }
  // A rule that was this origin's alone keeps its name and cache time.
  const own = mine.find(rule => rule.allowedOrigins.length === 1);
  if (own?.id !== undefined) {
    merged.ID = own.id;
  }
  if (own?.maxAgeSeconds !== undefined) {
    merged.MaxAgeSeconds = own.maxAgeSeconds;
  }
  const others = rules
    .map(rule =>
      rule.allowedOrigins.includes(origin)
        ? {
            ...rule,
            allowedOrigins: rule.allowedOrigins.filter(o => o !== origin)
          }
        : rule
    )
    .filter(rule => rule.allowedOrigins.length > 0)
    .map(toS3CorsRule);
  const ordered: IS3CorsRule = {
    ...(merged.ID !== undefined ? { ID: merged.ID } : {}),
    AllowedOrigins: merged.AllowedOrigins,
    AllowedMethods: merged.AllowedMethods,
    AllowedHeaders: merged.AllowedHeaders,
    ExposeHeaders: merged.ExposeHeaders,
    MaxAgeSeconds: merged.MaxAgeSeconds
  };
  return [ordered, ...others];
}
