/**
 * Turns what the S3 SDK and the browser throw into BookshelfErrors with a
 * cause. No SDK import: the SDK's errors are recognised by name and status.
 */
import { BookshelfError, cancelled, isBookshelfError } from '../errors/errors';
import type { BookshelfErrorCode, IS3Context } from '../errors/kinds';
import s3Answers from '../rules/s3answers.json';
import { displayUrl } from './urls';

/**
 * What was being accessed, for the message.
 */
export interface IAccessContext {
  bucket?: string;
  key?: string;
  versionId?: string;
  endpointUrl?: string;
}

/**
 * Whether an error is the browser's bare network failure (a CORS refusal, a
 * refused preflight and a closed port all look alike).
 */
export function isNetworkFailure(error: unknown): boolean {
  if (!(error instanceof Error)) {
    return false;
  }
  return (
    error.name === 'TypeError' &&
    /failed to fetch|networkerror|network error|load failed|network request failed/i.test(
      error.message
    )
  );
}

/**
 * Whether an error is the SDK's fetch handler's when a request's timeout
 * ended without an answer (`Unreachable` below).
 */
export function isAnswerTimeout(error: unknown): boolean {
  return (error as Error | undefined)?.name === 'TimeoutError';
}

/**
 * What the SDK's own errors (not an S3 service's answers) mean, by their
 * `name`.
 */
const SDK_ERROR_NAMES: { [name: string]: BookshelfErrorCode } = {
  CredentialsProviderError: 'InvalidCredentials',
  TimeoutError: 'Unreachable'
};

/** `table[key]` when the table itself holds it (not `toString` and its kind). */
function lookUp(
  table: { [key: string]: BookshelfErrorCode },
  key: string
): BookshelfErrorCode | undefined {
  return Object.prototype.hasOwnProperty.call(table, key)
    ? table[key]
    : undefined;
}

/**
 * What an S3 service's error answer means (`src/rules/s3answers.json`, which
 * the server extension reads too): by its error code (the SDK's error
 * `name`), then by its HTTP status; undefined when neither says.
 */
export function s3AnswerCode(
  name: string,
  status: number | undefined,
  context: { key?: string; versionId?: string }
): BookshelfErrorCode | undefined {
  if (name === s3Answers.versionIdRefused && context.versionId) {
    return 'NoSuchVersion';
  }
  const byCode = lookUp(
    s3Answers.codes as { [name: string]: BookshelfErrorCode },
    name
  );
  if (byCode) {
    return byCode;
  }
  if (s3Answers.notFoundCodes.includes(name) || status === 404) {
    // A HEAD answer has no body, hence no error code: only the status.
    return context.key ? 'NoSuchKey' : 'NoSuchBucket';
  }
  if (status === undefined) {
    return undefined;
  }
  const byStatus = lookUp(
    s3Answers.statuses as { [status: string]: BookshelfErrorCode },
    String(status)
  );
  return (
    byStatus ??
    (status >= s3Answers.serverErrorFrom ? 'ServerError' : undefined)
  );
}

/**
 * The S3 service's id of a request, from an SDK error.
 */
function requestIdOf(error: unknown): string | undefined {
  const id = (error as any)?.$metadata?.requestId;
  return typeof id === 'string' && id ? id : undefined;
}

/**
 * Map an SDK or fetch error to a BookshelfError that wraps it (`cause`).
 * The message is English for logs and API callers; `describeError`
 * (src/errors/describe.ts) gives the translated text from the same table.
 */
export function toBookshelfError(
  error: unknown,
  context: IAccessContext
): BookshelfError {
  if (error instanceof BookshelfError) {
    return error;
  }
  const cause = { cause: error };
  if (error instanceof Error && error.name === 'AbortError') {
    return cancelled(cause);
  }
  const jupyterStatus = (error as any)?.response?.status;
  if (typeof jupyterStatus === 'number' && !(error as any)?.$metadata) {
    // A Jupyter server's answer (ServerConnection.ResponseError), not S3's.
    const said = error instanceof Error ? error.message.trim() : '';
    return new BookshelfError(
      {
        code: 'Unknown',
        detail: {
          source: 'jupyter',
          status: jupyterStatus,
          said: said && said.length <= 300 ? said : undefined
        }
      },
      cause
    );
  }
  const s3: IS3Context = {
    bucket: context.bucket,
    key: context.key,
    versionId: context.versionId,
    endpoint: context.endpointUrl ? displayUrl(context.endpointUrl) : undefined,
    requestId: requestIdOf(error)
  };
  if (isNetworkFailure(error)) {
    return new BookshelfError(
      { code: 'Unreachable', detail: { ...s3, reason: 'network' } },
      cause
    );
  }
  const name: string = (error as any)?.name ?? (error as any)?.Code ?? '';
  const status: number | undefined = (error as any)?.$metadata?.httpStatusCode;
  const code =
    lookUp(SDK_ERROR_NAMES, name) ?? s3AnswerCode(name, status, context);
  switch (code) {
    case 'NoSuchBucket':
    case 'NoSuchKey':
    case 'NoSuchVersion':
    case 'AccessDenied':
    case 'ExpiredCredentials':
    case 'PreconditionFailed':
      return new BookshelfError({ code, detail: s3 }, cause);
    case 'InvalidCredentials':
      return new BookshelfError(
        {
          code,
          detail: {
            ...s3,
            reason: name === 'RequestTimeTooSkewed' ? 'clock-skew' : 'refused'
          }
        },
        cause
      );
    case 'Corrupted':
      return new BookshelfError(
        { code, detail: { ...s3, reason: 'upload' } },
        cause
      );
    case 'SlowDown':
    case 'ServerError':
      return new BookshelfError({ code, detail: { ...s3, status } }, cause);
    case 'Unreachable':
      return new BookshelfError(
        { code, detail: { ...s3, reason: 'timeout' } },
        cause
      );
  }
  return new BookshelfError(
    {
      code: 'Unknown',
      detail: { ...s3, source: 's3', status, name: name || undefined }
    },
    cause
  );
}

/**
 * How long the reachability probe may take.
 */
export const PROBE_TIMEOUT_MS = 5000;

/**
 * Whether anything answers HTTP at `url`: a no-cors request resolves (to an
 * opaque answer) when the server answers at all, whatever its CORS rules,
 * and rejects when nothing answers.
 */
export async function probeReachable(
  url: string,
  fetchImpl: typeof fetch = fetch,
  timeoutMs = PROBE_TIMEOUT_MS
): Promise<boolean> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    await fetchImpl(url, {
      mode: 'no-cors',
      cache: 'no-store',
      credentials: 'omit',
      signal: controller.signal
    });
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The names of Chromium's permission for a page to reach this computer and
 * the local network ("local network access", asked of the person since
 * Chrome 142): one name at first, then one for each; other browsers know
 * none of them.
 */
export const LOCAL_NETWORK_PERMISSIONS = [
  'local-network-access',
  'local-network',
  'loopback-network'
];

/**
 * Whether the browser refuses this page access to this computer or the
 * local network (a permission the person refused, or one a page that is
 * not a secure context cannot get). A request to an S3 service there then
 * fails as one to a service that does not answer.
 */
export async function localNetworkBlocked(
  permissions: Permissions | undefined = globalThis.navigator?.permissions
): Promise<boolean> {
  if (!permissions?.query) {
    return false;
  }
  const states = await Promise.all(
    LOCAL_NETWORK_PERMISSIONS.map(name =>
      permissions
        .query({ name: name as PermissionName })
        .then(status => status.state)
        .catch(() => 'unknown')
    )
  );
  return states.includes('denied');
}

/**
 * The URL of a bucket on an endpoint, path-style or virtual-hosted.
 */
export function bucketUrl(
  endpointUrl: string,
  bucket: string,
  forcePathStyle: boolean
): string {
  const url = new URL(endpointUrl);
  if (forcePathStyle) {
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/${encodeURIComponent(bucket)}/`;
  } else {
    url.hostname = `${bucket}.${url.hostname}`;
    url.pathname = '/';
  }
  url.search = '';
  return url.href;
}

/**
 * Tell apart, after a network failure, the three causes the browser hides
 * behind one `TypeError`:
 *
 * - a `no-cors` request to the endpoint fails: the service cannot be
 *   reached (`Unreachable`, unchanged);
 * - it answers, and a plain `cors` request to the bucket is allowed: the
 *   bucket's CORS rules let this page in, so the connection was lost during
 *   the transfer (`Interrupted`);
 * - it answers, but the bucket does not let this page in (`CorsRefused`).
 *
 * The bucket request is a simple unsigned GET (no preflight): S3 answers it
 * with an error, with the CORS headers when a rule allows the origin.
 */
export async function diagnoseNetworkFailure(
  error: BookshelfError,
  endpointUrl: string,
  fetchImpl: typeof fetch = fetch,
  forcePathStyle = true
): Promise<BookshelfError> {
  if (
    !isBookshelfError(error, 'Unreachable') ||
    error.detail.reason !== 'network'
  ) {
    return error;
  }
  if (!endpointUrl) {
    return error;
  }
  // Where the failure happened, without the undiagnosed `reason`.
  const s3: IS3Context = {
    bucket: error.detail.bucket,
    key: error.detail.key,
    versionId: error.detail.versionId,
    mode: error.detail.mode,
    endpoint: displayUrl(endpointUrl)
  };
  const cause = { cause: error };
  switch (
    await networkFailureCause(endpointUrl, s3.bucket, fetchImpl, forcePathStyle)
  ) {
    case 'unreachable':
      return new BookshelfError(
        { code: 'Unreachable', detail: { ...s3, reason: 'unreachable' } },
        cause
      );
    case 'local-network':
      return new BookshelfError(
        {
          code: 'Unreachable',
          detail: { ...s3, reason: 'local-network-blocked' }
        },
        cause
      );
    case 'interrupted':
      return new BookshelfError({ code: 'Interrupted', detail: s3 }, cause);
    case 'cors':
      return new BookshelfError({ code: 'CorsRefused', detail: s3 }, cause);
  }
}

/**
 * Whether a network failure of a request to `bucket` was the browser
 * refusing it: the bucket's CORS rules keep this page out, or the browser
 * keeps it from the local network (see `networkFailureCause`). Trying again
 * may cure the other causes, not a refusal.
 */
export async function refusedByBrowser(
  endpointUrl: string,
  bucket: string,
  fetchImpl: typeof fetch = fetch,
  forcePathStyle = true
): Promise<boolean> {
  const cause = await networkFailureCause(
    endpointUrl,
    bucket,
    fetchImpl,
    forcePathStyle
  );
  return cause === 'cors' || cause === 'local-network';
}

type FailureCause = 'unreachable' | 'local-network' | 'interrupted' | 'cors';

/**
 * How long the cause of a failure is remembered: the retries' question
 * (`refusedByBrowser`) and the error's diagnosis ask about the same failure
 * within milliseconds, and each answer costs two requests.
 */
export const CAUSE_REMEMBERED_MS = 2000;

/** The causes found lately, by the fetch that probed, and what it probed. */
const recentCauses = new WeakMap<
  typeof fetch,
  Map<string, { at: number; cause: Promise<FailureCause> }>
>();

/**
 * The cause of a network failure (see `probeFailureCause`), probed once
 * for the failures of `CAUSE_REMEMBERED_MS`.
 */
function networkFailureCause(
  endpointUrl: string,
  bucket: string | undefined,
  fetchImpl: typeof fetch,
  forcePathStyle: boolean
): Promise<FailureCause> {
  let causes = recentCauses.get(fetchImpl);
  if (!causes) {
    causes = new Map();
    recentCauses.set(fetchImpl, causes);
  }
  const now = Date.now();
  for (const [probed, { at }] of causes) {
    if (now - at >= CAUSE_REMEMBERED_MS) {
      causes.delete(probed);
    }
  }
  const key = JSON.stringify([endpointUrl, bucket ?? null, forcePathStyle]);
  const known = causes.get(key);
  if (known) {
    return known.cause;
  }
  const cause = probeFailureCause(
    endpointUrl,
    bucket,
    fetchImpl,
    forcePathStyle
  );
  causes.set(key, { at: now, cause });
  return cause;
}

/**
 * The cause of a network failure, by two probes: `unreachable` when a
 * `no-cors` request to the endpoint fails; `interrupted` when it answers
 * and a simple unsigned `cors` GET of the bucket is let in (S3 answers it
 * with an error, with the CORS headers when a rule allows the origin);
 * `cors` when it answers and the bucket keeps this page out.
 */
async function probeFailureCause(
  endpointUrl: string,
  bucket: string | undefined,
  fetchImpl: typeof fetch,
  forcePathStyle: boolean
): Promise<FailureCause> {
  if (!(await probeReachable(endpointUrl, fetchImpl))) {
    return (await localNetworkBlocked()) ? 'local-network' : 'unreachable';
  }
  if (!bucket) {
    return 'cors';
  }
  try {
    await fetchImpl(bucketUrl(endpointUrl, bucket, forcePathStyle), {
      mode: 'cors',
      cache: 'no-store',
      credentials: 'omit'
    });
    return 'interrupted';
  } catch {
    return 'cors';
  }
}
