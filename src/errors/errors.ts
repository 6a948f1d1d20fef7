/**
 * Errors of the core logic. Each carries a code that the user interface turns
 * into a translated message and a fix (see `./diagnosis.ts`); `detail` holds
 * values safe to show (never a secret).
 */

export type BookshelfErrorCode =
  | 'InvalidRequest'
  | 'BucketNotAllowed'
  | 'NoSuchBucket'
  | 'NoSuchKey'
  | 'NoSuchVersion'
  | 'AccessDenied'
  | 'InvalidCredentials'
  | 'ExpiredCredentials'
  | 'CorsRefused'
  | 'Unreachable'
  | 'SlowDown'
  | 'ServerError'
  | 'NotANotebook'
  | 'TooLarge'
  | 'Conflict'
  | 'PreconditionFailed'
  | 'PublishNotConfigured'
  | 'NotConfigured'
  | 'Cancelled'
  | 'SaveFailed'
  | 'ReadFailed'
  | 'Corrupted'
  | 'Interrupted'
  | 'Unknown';

export class BookshelfError extends Error {
  constructor(
    readonly code: BookshelfErrorCode,
    message: string,
    readonly detail: { [key: string]: string | number | undefined } = {}
  ) {
    super(message);
    this.name = 'BookshelfError';
  }
}

/**
 * Whether an error is the user's cancellation.
 */
export function isCancelled(error: unknown): boolean {
  return (
    (error instanceof BookshelfError && error.code === 'Cancelled') ||
    (error instanceof Error && error.name === 'AbortError')
  );
}

/**
 * Throw a Cancelled error if the signal was aborted.
 */
export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) {
    throw new BookshelfError('Cancelled', 'The transfer was cancelled.');
  }
}
