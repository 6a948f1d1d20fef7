/**
 * Turns what the S3 SDK and the browser throw into BookshelfErrors with a
 * cause. No SDK import: the SDK's errors are recognised by name and status.
 */
import { BookshelfError } from '../errors';

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
    /failed to fetch|networkerror|load failed|network request failed/i.test(
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
 * Map an SDK or fetch error to a BookshelfError.
 */
export function toBookshelfError(
  error: unknown,
  context: IAccessContext
): BookshelfError {
  if (error instanceof BookshelfError) {
    return error;
  }
  const detail = {
    bucket: context.bucket,
    key: context.key,
    versionId: context.versionId,
    endpoint: context.endpointUrl
  };
  if (error instanceof Error && error.name === 'AbortError') {
    return new BookshelfError('Cancelled', 'The transfer was cancelled.');
  }
  if (isNetworkFailure(error)) {
    return new BookshelfError(
      'Unreachable',
      `The S3 service${
        context.endpointUrl ? ` at ${context.endpointUrl}` : ''
      } could not be reached, or it refused this page's origin (CORS).`,
      detail
    );
  }
  const name: string = (error as any)?.name ?? (error as any)?.Code ?? '';
  const status: number | undefined = (error as any)?.$metadata?.httpStatusCode;
  switch (name) {
    case 'NoSuchBucket':
      return new BookshelfError(
        'NoSuchBucket',
        `The bucket '${context.bucket}' does not exist.`,
        detail
      );
    case 'NoSuchKey':
      return new BookshelfError(
        'NoSuchKey',
        `There is no object ${where(context)}.`,
        detail
      );
    case 'NoSuchVersion':
      return new BookshelfError(
        'NoSuchVersion',
        `${where(context)} has no version '${context.versionId}'.`,
        detail
      );
    case 'InvalidArgument':
      if (context.versionId) {
        return new BookshelfError(
          'NoSuchVersion',
          `${where(context)} has no version '${context.versionId}'.`,
          detail
        );
      }
      break;
    case 'AccessDenied':
    case 'Forbidden':
    case 'AllAccessDisabled':
      return new BookshelfError(
        'AccessDenied',
        `Access to ${where(context)} was denied.`,
        detail
      );
    case 'InvalidAccessKeyId':
    case 'SignatureDoesNotMatch':
    case 'InvalidToken':
    case 'CredentialsProviderError':
      return new BookshelfError(
        'InvalidCredentials',
        'The S3 service did not accept the credentials.',
        detail
      );
    case 'ExpiredToken':
    case 'TokenRefreshRequired':
      return new BookshelfError(
        'ExpiredCredentials',
        'The S3 credentials have expired.',
        detail
      );
    case 'PreconditionFailed':
    case 'ConditionalRequestConflict':
      return new BookshelfError(
        'PreconditionFailed',
        `${where(context)} was changed by someone else meanwhile.`,
        detail
      );
    case 'SlowDown':
    case 'ServiceUnavailable':
    case 'Throttling':
      return new BookshelfError(
        'SlowDown',
        'The S3 service is busy and asked to slow down; it still was after several tries.',
        detail
      );
  }
  if (status === 403) {
    return new BookshelfError(
      'AccessDenied',
      `Access to ${where(context)} was denied.`,
      detail
    );
  }
  if (status === 404) {
    return new BookshelfError(
      context.key ? 'NoSuchKey' : 'NoSuchBucket',
      context.key
        ? `There is no object ${where(context)}.`
        : `The bucket '${context.bucket}' does not exist.`,
      detail
    );
  }
  if (status === 412) {
    return new BookshelfError(
      'PreconditionFailed',
      `${where(context)} was changed by someone else meanwhile.`,
      detail
    );
  }
  if (status !== undefined && status >= 500) {
    return new BookshelfError(
      'ServerError',
      `The S3 service failed (HTTP ${status}); it still did after several tries.`,
      { ...detail, status }
    );
  }
  return new BookshelfError(
    'Unknown',
    `The S3 request for ${where(context)} failed${name ? ` (${name})` : ''}.`,
    { ...detail, status }
  );
}

/**
 * Tell a CORS refusal from an unreachable server after a network failure: a
 * no-cors request resolves when the server answers at all.
 */
export async function diagnoseNetworkFailure(
  error: BookshelfError,
  endpointUrl: string,
  fetchImpl: typeof fetch = fetch
): Promise<BookshelfError> {
  if (error.code !== 'Unreachable' || !endpointUrl) {
    return error;
  }
  try {
    await fetchImpl(endpointUrl, {
      mode: 'no-cors',
      cache: 'no-store',
      credentials: 'omit'
    });
  } catch {
    return error;
  }
  const bucket = error.detail.bucket;
  return new BookshelfError(
    'CorsRefused',
    bucket
      ? `The S3 service at ${endpointUrl} answers, but the bucket '${bucket}' does not allow requests from this page: either the bucket does not exist, or its CORS rules do not allow this page's origin.`
      : `The S3 service at ${endpointUrl} answers, but its CORS rules do not allow this page's origin.`,
    error.detail
  );
}
