/**
 * Per-folder locks that serialize choosing a free name and renaming onto it.
 *
 * jupyter_server checks that a rename's new path is free and then moves the
 * file in a thread, so two renames onto one name can both pass the check,
 * and the second silently replaces the first. Holding a lock per folder
 * around "find a free name, rename" prevents that between clones of one
 * browser (all its tabs: with Web Locks, or where a page has none, with
 * IndexedDB).
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

/**
 * A lock's record in IndexedDB: who holds it, and until when.
 */
interface ILease {
  owner: string;
  /** `Date.now()` after which the lock is free, unless renewed. */
  expires: number;
}

/**
 * Options of `IndexedDbFolderLocks`.
 */
export interface IIndexedDbFolderLocksOptions {
  /** As `WebFolderLocks`'s. */
  prefix?: string;
  /** How long a lock lasts unless renewed (renewed every third of it). */
  leaseMs?: number;
  /** How often a waiting task tries again, at most (with jitter). */
  retryMs?: number;
}

/**
 * The IndexedDB database of the locks, and its store.
 */
export const LOCKS_DATABASE = 'jupyterlab-bookshelf-locks';
export const LOCKS_STORE = 'locks';

/**
 * Locks shared by every tab of the origin where the page has no Web Locks:
 * a page that is not a secure context, such as a JupyterLite site or a
 * Jupyter server reached over plain HTTP by its network address. There,
 * two tabs of a Lite site cloning one key at once lost a clone (Lite's
 * rename replaces a file without a word).
 *
 * Written by hand: no library gives a lock across tabs without Web Locks.
 * IndexedDB runs read-write transactions on one store one at a time across
 * the origin's tabs, so a lock is a record taken in one such transaction
 * when there is none or its lease has run out, renewed while its task runs,
 * deleted after. A tab closed while it holds one frees it when its lease
 * runs out. Waiting tasks try again every `retryMs`, or at once when a
 * release is announced (a BroadcastChannel reaches the other tabs).
 */
export class IndexedDbFolderLocks implements IFolderLocks {
  /**
   * @param factory - The IndexedDB factory, usually `indexedDB`.
   */
  constructor(
    private readonly _factory: IDBFactory,
    options: IIndexedDbFolderLocksOptions = {}
  ) {
    this._prefix = options.prefix ?? LOCK_NAME_PREFIX;
    this._leaseMs = options.leaseMs ?? 30000;
    this._retryMs = options.retryMs ?? 50;
    if (typeof BroadcastChannel !== 'undefined') {
      this._channel = new BroadcastChannel(LOCKS_DATABASE);
      this._channel.onmessage = () => this._wakeUp();
    }
  }

  async run<T>(
    folder: string,
    task: () => Promise<T>,
    signal?: AbortSignal
  ): Promise<T> {
    let database: IDBDatabase;
    try {
      database = await this._open();
    } catch {
      // No IndexedDB after all (storage refused): this page's own locks.
      return this._fallback.run(folder, task, signal);
    }
    const name = this._prefix + folder;
    const owner = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    for (;;) {
      let taken: boolean;
      try {
        taken = await this._take(database, name, owner);
      } catch {
        // IndexedDB failed (its storage full, say): better this page's own
        // locks than no clone.
        return this._fallback.run(folder, task, signal);
      }
      if (taken) {
        break;
      }
      await unlessAborted(this._retry(), signal);
    }
    const renewal = setInterval(
      () => void this._renew(database, name, owner).catch(() => undefined),
      this._leaseMs / 3
    );
    try {
      return await task();
    } finally {
      clearInterval(renewal);
      await this._release(database, name, owner).catch(() => undefined);
      this._channel?.postMessage(name);
      this._wakeUp();
    }
  }

  /**
   * Stop listening for releases and close the database.
   */
  dispose(): void {
    this._channel?.close();
    void this._database
      ?.then(database => database.close())
      .catch(() => {
        /* never opened */
      });
  }

  /** Take the lock `name` for `owner` if it is free; whether it was. */
  private _take(
    database: IDBDatabase,
    name: string,
    owner: string
  ): Promise<boolean> {
    return this._update(database, name, held =>
      held && held.expires > Date.now()
        ? undefined
        : { owner, expires: Date.now() + this._leaseMs }
    );
  }

  private _renew(
    database: IDBDatabase,
    name: string,
    owner: string
  ): Promise<boolean> {
    return this._update(database, name, held =>
      held?.owner === owner
        ? { owner, expires: Date.now() + this._leaseMs }
        : undefined
    );
  }

  private _release(
    database: IDBDatabase,
    name: string,
    owner: string
  ): Promise<boolean> {
    return this._update(database, name, held =>
      held?.owner === owner ? null : undefined
    );
  }

  /**
   * In one read-write transaction, read the lease of `name` and write what
   * `change` answers for it (null: delete it; undefined: leave it).
   * Resolves, once committed, to whether it wrote.
   */
  private _update(
    database: IDBDatabase,
    name: string,
    change: (held: ILease | undefined) => ILease | null | undefined
  ): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const transaction = database.transaction(LOCKS_STORE, 'readwrite');
      const store = transaction.objectStore(LOCKS_STORE);
      let wrote = false;
      const read = store.get(name);
      read.onsuccess = () => {
        const next = change(read.result as ILease | undefined);
        if (next === null) {
          store.delete(name);
        } else if (next !== undefined) {
          store.put(next, name);
        }
        wrote = next !== undefined;
      };
      transaction.oncomplete = () => resolve(wrote);
      transaction.onerror = transaction.onabort = () =>
        reject(transaction.error ?? new Error('The lock was not written.'));
    });
  }

  /** Resolves after a while, or sooner when a lock is released. */
  private _retry(): Promise<void> {
    return new Promise(resolve => {
      const done = () => {
        clearTimeout(timer);
        this._waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this._retryMs * (0.5 + Math.random() / 2));
      this._waiting.add(done);
    });
  }

  private _wakeUp(): void {
    for (const done of [...this._waiting]) {
      done();
    }
  }

  private _open(): Promise<IDBDatabase> {
    if (!this._database) {
      const opening = new Promise<IDBDatabase>((resolve, reject) => {
        const request = this._factory.open(LOCKS_DATABASE, 1);
        request.onupgradeneeded = () =>
          request.result.createObjectStore(LOCKS_STORE);
        request.onsuccess = () => {
          const database = request.result;
          // Another tab upgrading the database: let it; open again later.
          database.onversionchange = () => {
            database.close();
            this._database = null;
          };
          // Closed by the browser (its storage cleared, say): open again.
          database.onclose = () => (this._database = null);
          resolve(database);
        };
        request.onerror = () => reject(request.error);
      });
      this._database = opening;
    }
    return this._database;
  }

  private readonly _prefix: string;
  private readonly _leaseMs: number;
  private readonly _retryMs: number;
  private readonly _channel: BroadcastChannel | null = null;
  private readonly _waiting = new Set<() => void>();
  private readonly _fallback = new MemoryFolderLocks();
  private _database: Promise<IDBDatabase> | null = null;
}

let pageLocks: IFolderLocks | null = null;

/**
 * The locks to use by default: Web Locks when the browser has them, else
 * locks in IndexedDB (shared by the origin's tabs too), else one set of
 * in-memory locks shared by the whole page.
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
    pageLocks =
      typeof indexedDB !== 'undefined'
        ? new IndexedDbFolderLocks(indexedDB)
        : new MemoryFolderLocks();
  }
  return pageLocks;
}
