/**
 * `BookshelfError`: an error of the core logic, of one kind of
 * `./kinds.ts` (a code and its typed detail). Its `message` is the English
 * text of the message table (`./messages.ts`), so English is written once;
 * the user interface shows the translated text (`describeError`). An error
 * that wraps another keeps it as its `cause`.
 */
import { nullTranslator } from '@jupyterlab/translation';

import { TRANSLATION_DOMAIN } from '../package';
import type {
  BookshelfErrorCode,
  BookshelfErrorKind,
  DetailOf,
  IS3Context,
  ITries
} from './kinds';
import { describeKind } from './messages';

export {
  BOOKSHELF_ERROR_CODES,
  type BookshelfErrorCode,
  type BookshelfErrorKind,
  type DetailOf
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
   * many tries), wrapping this one.
   */
  withContext(context: IS3Context & ITries): BookshelfError<C> {
    const kind = {
      code: this.code,
      detail: { ...this.detail, ...context }
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

function englishMessage(kind: BookshelfErrorKind): string {
  const origin =
    typeof window !== 'undefined' && window.location
      ? window.location.origin
      : '';
  return describeKind(kind, nullTranslator.load(TRANSLATION_DOMAIN), origin)
    .message;
}
