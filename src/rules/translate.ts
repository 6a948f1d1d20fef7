/**
 * The messages of the shared rule files (`src/rules/*.json`) through the
 * translation bundle, like every other user-facing text.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

/**
 * A rule's message template (`%1`-style placeholders) translated with
 * `trans` and filled with `args`. The templates are msgids like the literal
 * ones elsewhere; they are data so that the server extension gives the same
 * texts (`format_message` in `jupyterlab_bookshelf/rules.py`).
 */
export function ruleMessage(
  trans: TranslationBundle,
  template: string,
  ...args: (string | number)[]
): string {
  // The msgids are the shared rule texts, not literals of this file.
  // eslint-disable-next-line jupyter/no-dynamic-translation
  return trans.__(template, ...args);
}
