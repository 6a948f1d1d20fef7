import type { ReadonlyJSONObject } from '@lumino/coreutils';

/**
 * The command ids of the extension.
 */
export namespace CommandIDs {
  export const clone = 'bookshelf:clone';
  export const publish = 'bookshelf:publish';
  export const info = 'bookshelf:info';
  export const forgetCredentials = 'bookshelf:forget-credentials';
  /** Opens the clone dialog from the in-app deep link (routed). */
  export const openCloneLink = 'bookshelf:open-clone-link';
}

/**
 * The palette category of the commands.
 */
export const PALETTE_CATEGORY = 'Bookshelf';

/**
 * The `describedBy` of a command: the schema of its arguments
 * (./commandArgs.ts), loaded when asked for.
 */
export function describedBy(
  id: string
): () => Promise<{ args: ReadonlyJSONObject }> {
  return async () => ({
    args: (await import('./commandArgs')).COMMAND_ARGS[id]
  });
}
