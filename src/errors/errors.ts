/**
 * The error model as the code that raises errors uses it: `BookshelfError`
 * and its helpers (`./bookshelfError.ts`), the kinds (`./kinds.ts`), and
 * the English messages of the message table (`./messages.ts`), installed
 * here. package.json lists this module under `sideEffects`, so that the
 * bundler never skips it for the modules it re-exports.
 */
import { nullTranslator } from '@jupyterlab/translation';

import { TRANSLATION_DOMAIN } from '../package';
import { setEnglishMessages } from './bookshelfError';
import { describeKind } from './messages';

setEnglishMessages(
  kind =>
    describeKind(
      kind,
      nullTranslator.load(TRANSLATION_DOMAIN),
      typeof window !== 'undefined' && window.location
        ? window.location.origin
        : ''
    ).message
);

export * from './bookshelfError';
