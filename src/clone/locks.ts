/**
 * Per-folder locks that serialize choosing a free name and renaming onto it.
 *
 * jupyter_server checks that a rename's new path is free and then moves the
 * file in a thread, so two renames onto one name can both pass the check,
 * and the second silently replaces the first. Holding a lock per folder
 * around "find a free name, rename" prevents that between clones of one
 * browser (all its tabs, with Web Locks).
 */

import { cancelled, unlessAborted } from '../errors/errors';

/**
 * Runs tasks one at a time per folder.
 */
export interface IFolderLocks {
  /**
   * Run `task` while holding the lock of `folder`; resolves to its result.
   * Rejects without running it when `signal` aborts while waiting.
   */
  run<T>(
    folder: string,
    task: () => Promise<T>,
    signal?: AbortSignal
  ): Promise<T>;
}

/**
 * The prefix of this extension's Web Lock names.
 */
export const LOCK_NAME_PREFIX = 'jupyterlab-bookshelf:';

/**
 * Locks shared by every tab of the origin, with the Web Locks API.
 */
export class WebFolderLocks implements IFolderLocks {
  /**
   * @param locks - The lock manager, usually `navigator.locks`.
   * @param prefix - Prepended to the folder to name the lock; add the
   *   server's base URL when several servers share one origin.
   */
  constructor(
    private readonly _locks: LockManager,
    private readonly _prefix = LOCK_NAME_PREFIX
  ) {}

  async run<T>(
    folder: string,
    task: () => Promise<T>,
    signal?: AbortSignal
  ): Promise<T> {
    const options: LockOptions = signal ? { signal } : {};
    try {
      return (await this._locks.request(this._prefix + folder, options, () =>
        task()
      )) as T;
    } catch (error) {
      throw signal?.aborted ? cancelled() : error;
    }
  }
}

/**
 * Locks within this page only: the fallback where Web Locks are missing.
 */
export class MemoryFolderLocks implements IFolderLocks {
  async run<T>(
    folder: string,
    task: () => Promise<T>,
    signal?: AbortSignal
  ): Promise<T> {
    const previous = this._tails.get(folder) ?? Promise.resolve();
    let release!: () => void;
    const held = new Promise<void>(resolve => (release = resolve));
    // The next task waits for the previous one too, even if this one gives
    // up while waiting.
    const tail = previous.then(() => held);
    this._tails.set(folder, tail);
    try {
      await unlessAborted(previous, signal);
      return await task();
    } finally {
      release();
      if (this._tails.get(folder) === tail) {
        this._tails.delete(folder);
      }
    }
  }

  private _tails = new Map<string, Promise<void>>();
}

let pageLocks: MemoryFolderLocks | null = null;

/**
 * The locks to use by default: Web Locks when the browser has them, else
 * one set of in-memory locks shared by the whole page.
 */
export function defaultFolderLocks(): IFolderLocks {
  const locks =
    typeof navigator !== 'undefined'
      ? (navigator as Navigator & { locks?: LockManager }).locks
      : undefined;
  if (locks && typeof locks.request === 'function') {
    return new WebFolderLocks(locks);
  }
  if (!pageLocks) {
    pageLocks = new MemoryFolderLocks();
  }
  return pageLocks;
}
