import { ServerConnection } from '@jupyterlab/services';

import { hasResponseStatus, saveToContents } from '../clone/contentsSave';
import { ServerContentsWriter } from '../clone/serverContents';
import { FakeContentsManager } from './fakes/contents';
import { rejection } from './fakes/rejection';

const BASE_URL = 'http://127.0.0.1:8888/user/ana/';

/** A request as the page gave it: its body as given (text or a Blob). */
interface ISentSave {
  method: string;
  path: string;
  bodyIsText: boolean;
  model: Record<string, unknown>;
}

/**
 * A writer over a fake contents manager that stands for the server's: the
 * writer's requests reach it through `fetch`, as they reach the Jupyter
 * server's contents API (its refusals answered with their status).
 */
function writerOverServer(contents: FakeContentsManager) {
  const sent: ISentSave[] = [];
  const prefix = new URL(`${BASE_URL}api/contents/`).pathname;
  class RecordingRequest extends Request {
    constructor(url: string, init: RequestInit) {
      super(url, init);
      this.bodyIsText = typeof init.body === 'string';
    }
    readonly bodyIsText: boolean;
  }
  const serverSettings = ServerConnection.makeSettings({
    baseUrl: BASE_URL,
    Request: RecordingRequest as typeof Request,
    fetch: (async (request: RecordingRequest) => {
      const url = new URL(request.url);
      const path = decodeURIComponent(url.pathname.slice(prefix.length));
      const model = JSON.parse(await request.text());
      sent.push({
        method: request.method,
        path,
        bodyIsText: request.bodyIsText,
        model
      });
      try {
        const saved = await contents.save(path, model);
        return Response.json(saved, { status: model.chunk > 1 ? 200 : 201 });
      } catch (error) {
        const status = (error as ServerConnection.ResponseError).response
          ?.status;
        return Response.json(
          { message: String((error as Error).message) },
          { status: status ?? 500 }
        );
      }
    }) as typeof fetch
  });
  // The page's contents manager: what the writer must leave alone.
  const manager = new FakeContentsManager();
  return {
    writer: new ServerContentsWriter(manager, serverSettings),
    manager,
    sent
  };
}

async function* pieces(bytes: Uint8Array, size: number) {
  for (let start = 0; start < bytes.length; start += size) {
    yield bytes.slice(start, start + size);
  }
}

describe('ServerContentsWriter', () => {
  it("saves on the server's drive with the model's JSON as text, not through the contents manager", async () => {
    const server = new FakeContentsManager();
    server.addDirectory('reports/2026 Q3');
    const { writer, manager, sent } = writerOverServer(server);
    const model = await writer.save('reports/2026 Q3/q3 #1.ipynb.partial', {
      type: 'file',
      format: 'text',
      content: 'é ✓'
    });
    expect(model.path).toBe('reports/2026 Q3/q3 #1.ipynb.partial');
    expect(sent).toEqual([
      {
        method: 'PUT',
        path: 'reports/2026 Q3/q3 #1.ipynb.partial',
        bodyIsText: true,
        model: {
          type: 'file',
          format: 'text',
          content: 'é ✓',
          path: 'reports/2026 Q3/q3 #1.ipynb.partial'
        }
      }
    ]);
    expect(server.readText('reports/2026 Q3/q3 #1.ipynb.partial')).toBe('é ✓');
    expect(manager.calls).toEqual([]);
  });

  it("writes a stream's chunks in order, the file exactly as it came", async () => {
    const server = new FakeContentsManager();
    const { writer, sent } = writerOverServer(server);
    const bytes = new TextEncoder().encode(
      '{"cells": ["é ✓ ' + 'x'.repeat(40) + '"]}'
    );
    await saveToContents(
      writer,
      '',
      'big.ipynb.partial',
      { stream: pieces(bytes, 5), total: bytes.length, text: true },
      { chunkSize: 16 },
      { save: null }
    );
    expect(Array.from(server.readBytes('big.ipynb.partial'))).toEqual(
      Array.from(bytes)
    );
    expect(sent.map(save => save.model.chunk)).toEqual([1, 2, 3, -1]);
    expect(sent.every(save => save.bodyIsText)).toBe(true);
  });

  it("gives a refusal as the server's error with its status, so that a proxy's 413 is saved in smaller pieces", async () => {
    const server = new FakeContentsManager({ bodyLimit: 400 });
    const { writer, sent } = writerOverServer(server);
    const error = await rejection(
      writer.save('a.txt', {
        type: 'file',
        format: 'text',
        content: 'x'.repeat(1000)
      })
    );
    expect(error).toBeInstanceOf(ServerConnection.ResponseError);
    expect(hasResponseStatus(error, 413)).toBe(true);
    expect(server.has('a.txt')).toBe(false);

    sent.length = 0;
    const text = 'y'.repeat(300 * 1024);
    const limited = new FakeContentsManager({ bodyLimit: 200 * 1024 });
    const over = writerOverServer(limited);
    await saveToContents(
      over.writer,
      '',
      'b.txt',
      { bytes: new TextEncoder().encode(text), format: 'text', text },
      {},
      { save: null }
    );
    expect(limited.readText('b.txt')).toBe(text);
    expect(over.sent.length).toBeGreaterThan(2);
  });

  it('leaves other drives, reads, renames and deletes to the contents manager', async () => {
    const server = new FakeContentsManager();
    const { writer, manager, sent } = writerOverServer(server);
    manager.addDirectory('folder');
    manager.addDirectory('other:folder');
    server.addDirectory('folder');
    await writer.save('other:folder/a.txt', {
      type: 'file',
      format: 'text',
      content: 'a'
    });
    await writer.save('folder/b.txt.partial', {
      type: 'file',
      format: 'text',
      content: 'b'
    });
    manager.addFile('folder/c.txt', 'c');
    await writer.get('folder/c.txt', { content: false });
    await writer.rename('folder/c.txt', 'folder/d.txt');
    await writer.delete('folder/d.txt');
    expect(manager.calls.map(call => [call.method, call.path])).toEqual([
      ['save', 'other:folder/a.txt'],
      ['get', 'folder/c.txt'],
      ['rename', 'folder/c.txt'],
      ['delete', 'folder/d.txt']
    ]);
    expect(sent.map(save => save.path)).toEqual(['folder/b.txt.partial']);
  });
});
