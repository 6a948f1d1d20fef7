/**
 * Reading a bucket policy for explicit denials of an action, so that the
 * info panel can tell that uploads would be refused without uploading. Only
 * what can be decided from the policy alone: who "we" are is not known to
 * the browser, so a Deny for named principals or under conditions is
 * reported as "may deny".
 */

/**
 * What the policy says about an action on a resource.
 * - `denied`: a Deny statement for everyone, without conditions, covers it;
 * - `maybe`: a Deny statement covers it for some principals or conditions;
 * - `none`: no Deny statement covers it.
 */
export type PolicyVerdict = 'denied' | 'maybe' | 'none';

function list(value: unknown): string[] {
  if (typeof value === 'string') {
    return [value];
  }
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

function globMatch(pattern: string, value: string, ignoreCase: boolean) {
  const escaped = pattern
    .split('')
    .map(c =>
      c === '*'
        ? '.*'
        : c === '?'
          ? '.'
          : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
    )
    .join('');
  return new RegExp(`^${escaped}$`, ignoreCase ? 'i' : '').test(value);
}

function isEveryone(principal: unknown): boolean {
  if (principal === '*') {
    return true;
  }
  if (principal && typeof principal === 'object') {
    return list((principal as { [key: string]: unknown }).AWS).includes('*');
  }
  return false;
}

/**
 * Whether the policy (JSON text) explicitly denies `action` on `resource`.
 * A policy that cannot be read as JSON says nothing (`none`).
 */
export function policyDenies(
  policy: string,
  action: string,
  resource: string
): PolicyVerdict {
  let document: any;
  try {
    document = JSON.parse(policy);
  } catch {
    return 'none';
  }
  const statements: any[] = Array.isArray(document?.Statement)
    ? document.Statement
    : document?.Statement
      ? [document.Statement]
      : [];
  let verdict: PolicyVerdict = 'none';
  for (const statement of statements) {
    if (statement?.Effect !== 'Deny') {
      continue;
    }
    const actionCovered =
      statement.NotAction !== undefined
        ? !list(statement.NotAction).some(a => globMatch(a, action, true))
        : list(statement.Action).some(a => globMatch(a, action, true));
    const resourceCovered =
      statement.NotResource !== undefined
        ? !list(statement.NotResource).some(r => globMatch(r, resource, false))
        : list(statement.Resource).some(r => globMatch(r, resource, false));
    if (!actionCovered || !resourceCovered) {
      continue;
    }
    const forEveryone =
      statement.NotPrincipal === undefined && isEveryone(statement.Principal);
    if (forEveryone && statement.Condition === undefined) {
      return 'denied';
    }
    verdict = 'maybe';
  }
  return verdict;
}
