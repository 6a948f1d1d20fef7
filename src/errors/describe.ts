/**
 * Describe any error for a person, translated: a BookshelfError by the
 * message table (`./messages.ts`), anything else by its own message.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

import { BookshelfError } from './errors';
import type { BookshelfErrorKind } from './kinds';
import { describeKind, IErrorDescription } from './messages';

export type { IErrorDescription } from './messages';

/**
 * Describe an error for a person: a translated title, message and fix,
 * built from the error's kind (never a secret).
 */
export function describeError(
  error: unknown,
  trans: TranslationBundle,
  origin: string = typeof window !== 'undefined' ? window.location.origin : ''
): IErrorDescription {
  if (!(error instanceof BookshelfError)) {
    const text = error instanceof Error ? error.message : String(error);
    return {
      title: trans.__('Something went wrong'),
      message: text,
      fix: ''
    };
  }
  const kind = { code: error.code, detail: error.detail } as BookshelfErrorKind;
  return describeKind(kind, trans, origin);
}
