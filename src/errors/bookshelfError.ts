/**
 * `BookshelfError`: an error of Bookshelf, of one kind of `./kinds.ts` (a
 * code and its typed detail). An error that wraps another keeps it as its
 * `cause`. Its `message` is English for logs and API callers, from the one
 * message table (`./messages.ts`) that `describeError` translates for
 * people; `./errors.ts` installs the table. This module stays small, for
 * the start-up bundle (`src/index.ts` exports the class to other
 * extensions); the logic imports `./errors.ts`.
 */
import type {
  BookshelfErrorCode,
  BookshelfErrorKind,
  DetailOf,
  IS3Context,
  ITries
} from './kinds';

export {
  BOOKSHELF_ERROR_CODES,
  type BookshelfErrorCode,
  type BookshelfErrorKind,
  type DetailOf,
  type IBookshelfErrorDetails,
  type IS3Context
} from './kinds';

/**
 * What the error wraps, if anything (as `Error`'s `cause` in ES2022).
 */
export interface IBookshelfErrorOptions {
  cause?: unknown;
}

/**
 * An error of Bookshelf. Narrow it to one code with `isBookshelfError` to
 * read that code's detail.
 */
export class BookshelfError<
  C extends BookshelfErrorCode = BookshelfErrorCode
> extends Error {
  constructor(
    kind: BookshelfErrorKind<C>,
    options: IBookshelfErrorOptions = {}
  ) {
    super(englishMessage(kind as BookshelfErrorKind));
    this.name = 'BookshelfError';
    this.code = kind.code;
    this.detail = kind.detail;
    if (options.cause !== undefined) {
      this.cause = options.cause;
    }
  }

  /** What kind of error it is. */
  readonly code: C;
  /** Values of this code's detail, safe to show (never a secret). */
  readonly detail: DetailOf<C>;
  /** The error this one wraps. */
  readonly cause?: unknown;

  /**
   * The S3 service's id of the failed request, when it answered.
   */
  get requestId(): string | undefined {
    return (this.detail as IS3Context).requestId;
  }

  /**
   * The same error with more context (where, which credentials mode, how
   * many tries), wrapping this one; undefined values add nothing.
   */
  withContext(context: IS3Context & ITries): BookshelfError<C> {
    const added = Object.fromEntries(
      Object.entries(context).filter(([, value]) => value !== undefined)
    );
    const kind = {
      code: this.code,
      detail: { ...this.detail, ...added }
    } as BookshelfErrorKind<C>;
    return new BookshelfError(kind, { cause: this });
  }
}

/**
 * Whether `error` is a BookshelfError, of one of `codes` when given (then
 * its detail is that code's).
 */
export function isBookshelfError<C extends BookshelfErrorCode>(
  error: unknown,
  ...codes: C[]
): error is BookshelfError<C> {
  return (
    error instanceof BookshelfError &&
    (codes.length === 0 || (codes as string[]).includes(error.code))
  );
}

/**
 * The user cancelled (`reason`: what was cancelled, when not a transfer).
 */
export function cancelled(
  options: IBookshelfErrorOptions & { reason?: 'credentials-cancelled' } = {}
): BookshelfError<'Cancelled'> {
  const { reason, cause } = options;
  return new BookshelfError(
    { code: 'Cancelled', detail: reason ? { reason } : {} },
    { cause }
  );
}

/**
 * Publishing needs a publish bucket; `message` says what is wrong with the
 * one set, if one is.
 */
export function publishNotConfigured(
  message?: string
): BookshelfError<'PublishNotConfigured'> {
  return new BookshelfError({
    code: 'PublishNotConfigured',
    detail: message ? { message } : {}
  });
}

/**
 * Whether an error is the user's cancellation.
 */
export function isCancelled(error: unknown): boolean {
  return (
    isBookshelfError(error, 'Cancelled') ||
    (error instanceof Error && error.name === 'AbortError')
  );
}

/**
 * Throw a Cancelled error if the signal was aborted.
 */
export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) {
    throw cancelled();
  }
}

/**
 * `promise`, or a Cancelled error as soon as the signal aborts (at once if
 * it has): the wait ends, not what is awaited.
 */
export function unlessAborted<T>(
  promise: Promise<T>,
  signal?: AbortSignal
): Promise<T> {
  if (!signal) {
    return promise;
  }
  if (signal.aborted) {
    return Promise.reject(cancelled());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', onAbort);
    });
  });
}

/**
 * The English message of a kind of error: its code until `./errors.ts`
 * installs the message table.
 */
let englishMessage = (kind: BookshelfErrorKind): string => kind.code;

/**
 * Install the English messages (`./errors.ts` does, with the table).
 */
export function setEnglishMessages(
  render: (kind: BookshelfErrorKind) => string
): void {
  englishMessage = render;
}
