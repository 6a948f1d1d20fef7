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
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders: string[];
  exposeHeaders: string[];
}

export { REQUIRED_CORS_RULE } from '../rules/corsRule';

/**
 * The request headers the S3 SDK sends from the browser on a signed
 * request (besides the CORS-safelisted ones). `x-amz-security-token`
 * only with a session token.
 */
export const SDK_HEADERS: string[] = [...corsDefinition.sdkHeaders];

/**
 * What the extension does from the browser, and what it must read back:
 * each required method of the rule (DELETE is proposed but optional), with
 * the SDK's headers and the method's own, and every exposed header.
 */
export const NEEDED_ACCESS: {
  method: string;
  headers: string[];
  expose: string[];
}[] = corsDefinition.requiredMethods.map(method => ({
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
 * Check the rules against what the extension does from `origin`.
 */
export function checkCorsRules(
  rules: ICorsRule[],
  origin: string
): ICorsVerdict {
  const verdict: ICorsVerdict = { refusedMethods: [], hiddenHeaders: [] };
  for (const need of NEEDED_ACCESS) {
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
