/**
 * The fake contents manager answers as jupyter_server 2.21 did when probed
 * over /api/contents; these tests keep it that way.
 */

import { ServerConnection } from '@jupyterlab/services';
import { bytesEqual, utf8 } from './fakes/bytes';
import { FakeContentsManager } from './fakes/contents';
import { FakeObjectStore } from './fakes/store';

function base64(bytes: number[]): string {
  return btoa(String.fromCharCode(...bytes));
}

async function status(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ServerConnection.ResponseError);
    return (error as ServerConnection.ResponseError).response.status;
  }
  return 200;
}

describe('FakeContentsManager', () => {
  let contents: FakeContentsManager;

  beforeEach(() => {
    contents = new FakeContentsManager();
  });

  it('overwrites on save, like PUT', async () => {
    await contents.save('a.txt', {
      type: 'file',
      format: 'text',
      content: '1'
    });
    await contents.save('a.txt', {
      type: 'file',
      format: 'text',
      content: '2'
    });
    expect(contents.readText('a.txt')).toBe('2');
  });

  it('refuses hidden names with 400', async () => {
    expect(
      await status(
        contents.save('.h.txt', { type: 'file', format: 'text', content: 'x' })
      )
    ).toBe(400);
  });

  it('answers 500 for a save into a missing folder', async () => {
    expect(
      await status(
        contents.save('nodir/x.txt', {
          type: 'file',
          format: 'text',
          content: 'x'
        })
      )
    ).toBe(500);
  });

  it('creates on chunk 1, appends on later chunks, in base64 or text', async () => {
    const save = (chunk: number, format: 'text' | 'base64', content: string) =>
      contents.save('c.bin', { type: 'file', format, chunk, content });
    await save(1, 'base64', base64([0xe2, 0x82]));
    await save(2, 'base64', base64([0xac, 0x21]));
    await save(-1, 'text', 'end');
    expect(contents.readText('c.bin')).toBe('€!end');
    await save(1, 'base64', base64([0x58]));
    expect(contents.readText('c.bin')).toBe('X');
  });

  it('creates a file on an append to a missing one', async () => {
    await contents.save('m.bin', {
      type: 'file',
      format: 'base64',
      chunk: 2,
      content: base64([0x59])
    });
    expect(bytesEqual(contents.readBytes('m.bin'), utf8('Y'))).toBe(true);
  });

  it('refuses chunks of a notebook model with 400', async () => {
    expect(
      await status(
        contents.save('n.ipynb', { type: 'notebook', chunk: 1, content: {} })
      )
    ).toBe(400);
  });

  it('answers 409, 404 and 400 on rename as the server does', async () => {
    contents.addFile('a.txt', 'a');
    contents.addFile('b.txt', 'b');
    expect(await status(contents.rename('a.txt', 'b.txt'))).toBe(409);
    expect(await status(contents.rename('nope.txt', 'z.txt'))).toBe(404);
    expect(await status(contents.rename('a.txt', '.a.txt'))).toBe(400);
    expect(contents.readText('b.txt')).toBe('b');
  });

  it('answers a renamed notebook with its notebook model', async () => {
    contents.addFile('c.bin', '{}');
    const model = await contents.rename('c.bin', 'q3.ipynb');
    expect(model).toMatchObject({
      name: 'q3.ipynb',
      path: 'q3.ipynb',
      type: 'notebook',
      content: null,
      format: null,
      size: 2
    });
  });

  it('answers 404 for a missing path', async () => {
    expect(await status(contents.get('nope'))).toBe(404);
  });

  it('with renameRace, lets two renames onto one name both succeed', async () => {
    const racing = new FakeContentsManager({ renameRace: true });
    racing.addFile('a.txt', 'a');
    racing.addFile('b.txt', 'b');
    await Promise.all([
      racing.rename('a.txt', 'target.txt'),
      racing.rename('b.txt', 'target.txt')
    ]);
    expect(racing.files()).toEqual(['target.txt']);
  });
});

describe('FakeObjectStore', () => {
  it('keeps versions of a versioned bucket and refuses unknown ones', async () => {
    const store = new FakeObjectStore();
    store.addBucket('b', 'Enabled');
    const first = store.addObject('b', 'k', 'one');
    store.addObject('b', 'k', 'two');
    const old = await store.getObject('b', 'k', { versionId: first });
    expect(new TextDecoder().decode(old.bytes)).toBe('one');
    expect(old.head.versionId).toBe(first);
    await expect(
      store.getObject('b', 'k', { versionId: 'nope' })
    ).rejects.toMatchObject({ code: 'NoSuchVersion' });
    await expect(store.getObject('b', 'x')).rejects.toMatchObject({
      code: 'NoSuchKey'
    });
    await expect(store.getObject('x', 'k')).rejects.toMatchObject({
      code: 'NoSuchBucket'
    });
  });

  it('refuses conditional puts that do not hold', async () => {
    const store = new FakeObjectStore();
    store.addBucket('b');
    const { etag } = await store.putObject('b', 'k', 'one');
    await expect(
      store.putObject('b', 'k', 'two', { ifNoneMatch: '*' })
    ).rejects.toMatchObject({ code: 'PreconditionFailed' });
    await store.putObject('b', 'k', 'two', { ifMatch: etag });
    await expect(
      store.putObject('b', 'k', 'three', { ifMatch: etag })
    ).rejects.toMatchObject({ code: 'PreconditionFailed' });
  });
});
