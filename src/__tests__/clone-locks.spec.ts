/**
 * The folder locks of pages without Web Locks, in IndexedDB: two instances
 * on one IndexedDB factory stand for two tabs of one origin (fake-indexeddb
 * runs read-write transactions one at a time, as browsers do).
 */
import { IDBFactory } from 'fake-indexeddb';
import { deserialize, serialize } from 'v8';

import type { IFileData } from '../clone/content';
import {
  defaultFolderLocks,
  IndexedDbFolderLocks,
  LOCK_NAME_PREFIX,
  LOCKS_DATABASE,
  LOCKS_STORE,
  MemoryFolderLocks
} from '../clone/locks';
import { writeNewFile } from '../clone/writer';
import { utf8 } from './fakes/bytes';
import { delay, FakeContentsManager } from './fakes/contents';

// fake-indexeddb stores copies made by structuredClone, which browsers and
// Node have and jest's jsdom does not: Node's own, through v8.
if (typeof structuredClone === 'undefined') {
  (globalThis as any).structuredClone = (value: unknown) =>
    deserialize(serialize(value));
}

const text = (content: string): IFileData => ({
  bytes: utf8(content),
  format: 'text'
});

describe('IndexedDbFolderLocks', () => {
  let factory: IDBFactory;
  let tabs: IndexedDbFolderLocks[];

  /** A tab's locks, on this test's IndexedDB. */
  function tab(
    options: ConstructorParameters<typeof IndexedDbFolderLocks>[1] = {}
  ): IndexedDbFolderLocks {
    const locks = new IndexedDbFolderLocks(factory, options);
    tabs.push(locks);
    return locks;
  }

  /** Write a lease into the locks' database, as a tab does. */
  function putLease(
    name: string,
    lease: { owner: string; expires: number }
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      const request = factory.open(LOCKS_DATABASE, 1);
      request.onsuccess = () => {
        const database = request.result;
        const transaction = database.transaction(LOCKS_STORE, 'readwrite');
        transaction.objectStore(LOCKS_STORE).put(lease, name);
        transaction.oncomplete = () => {
          database.close();
          resolve();
        };
        transaction.onerror = () => reject(transaction.error);
      };
      request.onerror = () => reject(request.error);
    });
  }

  beforeEach(() => {
    factory = new IDBFactory();
    tabs = [];
  });

  afterEach(() => {
    for (const locks of tabs) {
      locks.dispose();
    }
  });

  /** A task that records when it runs. */
  function recorded(events: string[], label: string, ms = 10) {
    return async () => {
      events.push(`${label} start`);
      await delay(ms);
      events.push(`${label} end`);
      return label;
    };
  }

  /** Whether no two tasks of `events` overlapped. */
  function oneAtATime(events: string[]): boolean {
    let running = 0;
    for (const event of events) {
      running += event.endsWith(' start') ? 1 : -1;
      if (running > 1) {
        return false;
      }
    }
    return true;
  }

  it('runs one task at a time per folder, across tabs', async () => {
    const [a, b] = [tab(), tab()];
    const events: string[] = [];
    const other: string[] = [];
    const results = await Promise.all([
      a.run('work', recorded(events, 'a1')),
      b.run('work', recorded(events, 'b1')),
      a.run('work', recorded(events, 'a2')),
      b.run('work', recorded(events, 'b2')),
      b.run('elsewhere', recorded(other, 'c1', 40))
    ]);
    expect(results).toEqual(['a1', 'b1', 'a2', 'b2', 'c1']);
    expect(events).toHaveLength(8);
    expect(oneAtATime(events)).toBe(true);
    // Another folder's lock is another lock: c1 ran beside them.
    expect(other).toEqual(['c1 start', 'c1 end']);
  });

  it('gives twenty clones from two tabs twenty files on a server whose renames race', async () => {
    const racing = new FakeContentsManager({
      renameRace: true,
      renameRaceDelay: 2
    });
    racing.addFile('work/q3.ipynb', 'the original');
    const [a, b] = [tab(), tab()];
    const writes = Array.from({ length: 20 }, (_, i) =>
      writeNewFile(racing, 'work', 'q3.ipynb', text(`clone ${i}`), {
        locks: i % 2 ? a : b
      })
    );
    const models = await Promise.all(writes);
    expect(new Set(models.map(model => model.path)).size).toBe(20);
    // None replaced another, nor the file that was there.
    expect(racing.files()).toHaveLength(21);
    expect(racing.readText('work/q3.ipynb')).toBe('the original');
    expect(new Set(racing.files().map(racing.readText, racing)).size).toBe(21);
  });

  it('keeps the lock past its lease while the task runs (it is renewed)', async () => {
    const [a, b] = [tab({ leaseMs: 60 }), tab({ leaseMs: 60, retryMs: 10 })];
    const events: string[] = [];
    await Promise.all([
      a.run('work', recorded(events, 'a', 250)),
      delay(20).then(() => b.run('work', recorded(events, 'b')))
    ]);
    expect(events).toEqual(['a start', 'a end', 'b start', 'b end']);
  });

  it('takes the lock of a tab that went away once its lease has run out', async () => {
    const b = tab({ retryMs: 10 });
    await b.run('other', async () => undefined); // the database is there
    // What a tab closed while it held the lock leaves: its lease, which
    // nothing renews or deletes.
    await putLease(LOCK_NAME_PREFIX + 'work', {
      owner: 'a closed tab',
      expires: Date.now() + 150
    });
    const waitedFrom = Date.now();
    await expect(b.run('work', async () => 'taken')).resolves.toBe('taken');
    expect(Date.now() - waitedFrom).toBeGreaterThanOrEqual(140);
  });

  it('releases the lock when the task fails', async () => {
    const a = tab();
    await expect(
      a.run('work', async () => {
        throw new Error('boom');
      })
    ).rejects.toThrow('boom');
    await expect(tab().run('work', async () => 'next')).resolves.toBe('next');
  });

  it('turns an abort while waiting into Cancelled, without taking the lock', async () => {
    const [a, b] = [tab(), tab({ retryMs: 10 })];
    let release!: () => void;
    const holding = a.run(
      'work',
      () => new Promise<void>(resolve => (release = resolve))
    );
    const controller = new AbortController();
    const ran = jest.fn(async () => undefined);
    const waiting = b.run('work', ran, controller.signal);
    await delay(30);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'Cancelled' });
    release();
    await holding;
    expect(ran).not.toHaveBeenCalled();
    await expect(b.run('work', async () => 'free')).resolves.toBe('free');
  });

  it('falls back to this page’s locks when IndexedDB refuses to open', async () => {
    const refusing = {
      open: () => {
        const request: any = {};
        setTimeout(() => {
          request.error = new DOMException('refused', 'SecurityError');
          request.onerror?.();
        });
        return request;
      }
    } as unknown as IDBFactory;
    const locks = new IndexedDbFolderLocks(refusing);
    tabs.push(locks);
    const events: string[] = [];
    await Promise.all([
      locks.run('work', recorded(events, 'x')),
      locks.run('work', recorded(events, 'y'))
    ]);
    expect(oneAtATime(events)).toBe(true);
  });

  it("falls back to this page's locks when a lock cannot be written", async () => {
    const locks = tab();
    await locks.run('work', async () => undefined);
    // Its connection closed: every transaction fails from now on.
    (await (locks as any)._database).close();
    const events: string[] = [];
    await Promise.all([
      locks.run('work', recorded(events, 'x')),
      locks.run('work', recorded(events, 'y'))
    ]);
    expect(events).toHaveLength(4);
    expect(oneAtATime(events)).toBe(true);
  });

  it('keeps its leases in a database of its own', async () => {
    await tab().run('work', async () => undefined);
    const names = (await factory.databases()).map(info => info.name);
    expect(names).toEqual([LOCKS_DATABASE]);
  });
});

describe('defaultFolderLocks without Web Locks', () => {
  it('uses IndexedDB where the page has it', async () => {
    const original = (globalThis as any).indexedDB;
    (globalThis as any).indexedDB = new IDBFactory();
    try {
      // A fresh module: the locks chosen are kept for the page.
      await jest.isolateModulesAsync(async () => {
        const fresh = await import('../clone/locks');
        const locks = fresh.defaultFolderLocks();
        expect(locks).toBeInstanceOf(fresh.IndexedDbFolderLocks);
        expect(fresh.defaultFolderLocks()).toBe(locks);
        (locks as IndexedDbFolderLocks).dispose();
      });
    } finally {
      (globalThis as any).indexedDB = original;
    }
  });

  it("uses this page's own locks where it has no IndexedDB", () => {
    expect((globalThis as any).indexedDB).toBeUndefined();
    expect(defaultFolderLocks()).toBeInstanceOf(MemoryFolderLocks);
  });
});
