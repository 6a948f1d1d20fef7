/**
 * Turns what the S3 SDK and the browser throw into BookshelfErrors with a
 * cause. No SDK import: the SDK's errors are recognised by name and status.
 */
import { BookshelfError } from '../errors/errors';
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

function where(context: IAccessContext): string {
  if (context.bucket && context.key) {
    return `s3://${context.bucket}/${context.key}`;
  }
  return context.bucket ? `s3://${context.bucket}` : 'the S3 service';
}

/**
 * S3 error codes (the SDK's error `name`) by what they mean.
 */
const ERROR_NAMES: { [name: string]: BookshelfError['code'] } = {
  NoSuchBucket: 'NoSuchBucket',
  NoSuchKey: 'NoSuchKey',
  NoSuchVersion: 'NoSuchVersion',
  AccessDenied: 'AccessDenied',
  Forbidden: 'AccessDenied',
  AllAccessDisabled: 'AccessDenied',
  AccountProblem: 'AccessDenied',
  InvalidAccessKeyId: 'InvalidCredentials',
  SignatureDoesNotMatch: 'InvalidCredentials',
  InvalidToken: 'InvalidCredentials',
  InvalidSecurity: 'InvalidCredentials',
  CredentialsProviderError: 'InvalidCredentials',
  RequestTimeTooSkewed: 'InvalidCredentials',
  ExpiredToken: 'ExpiredCredentials',
  TokenRefreshRequired: 'ExpiredCredentials',
  PreconditionFailed: 'PreconditionFailed',
  ConditionalRequestConflict: 'PreconditionFailed',
  SlowDown: 'SlowDown',
  ServiceUnavailable: 'SlowDown',
  Throttling: 'SlowDown',
  ThrottlingException: 'SlowDown',
  TooManyRequests: 'SlowDown',
  RequestLimitExceeded: 'SlowDown',
  InternalError: 'ServerError',
  TimeoutError: 'Unreachable',
  RequestTimeout: 'Unreachable',
  // The upload's Content-MD5 did not match what the server received.
  BadDigest: 'Corrupted',
  InvalidDigest: 'Corrupted'
};

/**
 * Map an SDK or fetch error to a BookshelfError. The message is English for
 * logs and API callers; `describeError` (src/errors/messages.ts) gives the
 * translated text from the code and the detail.
 */
export function toBookshelfError(
  error: unknown,
  context: IAccessContext
): BookshelfError {
  if (error instanceof BookshelfError) {
    return error;
  }
  const endpoint = context.endpointUrl
    ? displayUrl(context.endpointUrl)
    : undefined;
  const detail: BookshelfError['detail'] = {
    bucket: context.bucket,
    key: context.key,
    versionId: context.versionId,
    endpoint
  };
  if (error instanceof Error && error.name === 'AbortError') {
    return new BookshelfError('Cancelled', 'The transfer was cancelled.');
  }
  const jupyterStatus = (error as any)?.response?.status;
  if (typeof jupyterStatus === 'number' && !(error as any)?.$metadata) {
    // A Jupyter server's answer (ServerConnection.ResponseError), not S3's.
    const said = error instanceof Error ? error.message.trim() : '';
    return new BookshelfError(
      'Unknown',
      `The Jupyter server answered HTTP ${jupyterStatus}${said && said.length <= 300 ? `: ${said}` : ''}.`,
      { status: jupyterStatus, source: 'jupyter' }
    );
  }
  if (isNetworkFailure(error)) {
    return new BookshelfError(
      'Unreachable',
      `The S3 service${
        endpoint ? ` at ${endpoint}` : ''
      } could not be reached, or it refused this page's origin (CORS).`,
      { ...detail, reason: 'network' }
    );
  }
  const name: string = (error as any)?.name ?? (error as any)?.Code ?? '';
  const status: number | undefined = (error as any)?.$metadata?.httpStatusCode;
  let code: BookshelfError['code'] | undefined = ERROR_NAMES[name];
  if (name === 'InvalidArgument' && context.versionId) {
    // S3 answers a malformed version id so.
    code = 'NoSuchVersion';
  }
  if (!code && (name === 'NotFound' || status === 404)) {
    // A HEAD answer has no body, hence no error code: only the status.
    code = context.key ? 'NoSuchKey' : 'NoSuchBucket';
  }
  if (!code && status !== undefined) {
    if (status === 401 || status === 403) {
      code = 'AccessDenied';
    } else if (status === 412) {
      code = 'PreconditionFailed';
    } else if (status === 429 || status === 503) {
      code = 'SlowDown';
    } else if (status >= 500) {
      code = 'ServerError';
    }
  }
  switch (code) {
    case 'NoSuchBucket':
      return new BookshelfError(
        code,
        `The bucket '${context.bucket}' does not exist.`,
        detail
      );
    case 'NoSuchKey':
      return new BookshelfError(
        code,
        `There is no object ${where(context)}.`,
        detail
      );
    case 'NoSuchVersion':
      return new BookshelfError(
        code,
        `${where(context)} has no version '${context.versionId}'.`,
        detail
      );
    case 'AccessDenied':
      return new BookshelfError(
        code,
        `Access to ${where(context)} was denied.`,
        detail
      );
    case 'InvalidCredentials':
      return new BookshelfError(
        code,
        name === 'RequestTimeTooSkewed'
          ? "The S3 service refused the request because this computer's clock is wrong."
          : 'The S3 service did not accept the credentials.',
        {
          ...detail,
          reason: name === 'RequestTimeTooSkewed' ? 'clock-skew' : 'refused'
        }
      );
    case 'ExpiredCredentials':
      return new BookshelfError(
        code,
        'The S3 credentials have expired.',
        detail
      );
    case 'PreconditionFailed':
      return new BookshelfError(
        code,
        `${where(context)} was changed by someone else meanwhile.`,
        detail
      );
    case 'Corrupted':
      return new BookshelfError(
        'Corrupted',
        `The S3 service refused the upload to ${where(context)}: the bytes it received were damaged on the way, so it stored nothing.`,
        { ...detail, reason: 'upload' }
      );
    case 'SlowDown':
      return new BookshelfError(
        code,
        'The S3 service is busy and asked to slow down; it still was after several tries.',
        { ...detail, status }
      );
    case 'ServerError':
      return new BookshelfError(
        code,
        `The S3 service failed${
          status ? ` (HTTP ${status})` : ''
        }; it still did after several tries.`,
        { ...detail, status }
      );
    case 'Unreachable':
      return new BookshelfError(
        code,
        `The S3 service${endpoint ? ` at ${endpoint}` : ''} did not answer in time.`,
        { ...detail, reason: 'timeout' }
      );
  }
  return new BookshelfError(
    'Unknown',
    `The S3 request for ${where(context)} failed${name ? ` (${name})` : ''}.`,
    { ...detail, status, name: name || undefined }
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
  if (error.code !== 'Unreachable' || error.detail.reason !== 'network') {
    return error;
  }
  if (!endpointUrl) {
    return error;
  }
  const endpoint = displayUrl(endpointUrl);
  if (!(await probeReachable(endpointUrl, fetchImpl))) {
    return new BookshelfError(
      'Unreachable',
      `The S3 service at ${endpoint} could not be reached.`,
      { ...error.detail, endpoint, reason: 'unreachable' }
    );
  }
  const bucket = error.detail.bucket;
  if (bucket) {
    let allowed = false;
    try {
      await fetchImpl(bucketUrl(endpointUrl, String(bucket), forcePathStyle), {
        mode: 'cors',
        cache: 'no-store',
        credentials: 'omit'
      });
      allowed = true;
    } catch {
      allowed = false;
    }
    if (allowed) {
      return new BookshelfError(
        'Interrupted',
        `The connection to the S3 service at ${endpoint} was lost during the transfer of ${where(
          {
            bucket: String(bucket),
            key: error.detail.key ? String(error.detail.key) : undefined
          }
        )}.`,
        { ...error.detail, endpoint, reason: 'connection' }
      );
    }
  }
  return new BookshelfError(
    'CorsRefused',
    bucket
      ? `The S3 service at ${endpoint} answers, but the bucket '${bucket}' does not allow requests from this page: either the bucket does not exist, or its CORS rules do not allow this page's origin.`
      : `The S3 service at ${endpoint} answers, but its CORS rules do not allow this page's origin.`,
    { ...error.detail, endpoint, reason: 'cors' }
  );
}
