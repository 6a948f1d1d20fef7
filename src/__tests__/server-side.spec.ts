import { Notification } from '@jupyterlab/apputils';
import { ServerConnection } from '@jupyterlab/services';

import {
  cloneOnServer,
  isCorsRefusal,
  publishOnServer,
  serverAccess,
  serverErrorMessage,
  withServerNotification
} from '../actions/serverSide';

/**
 * Server settings whose fetch records each request and answers `reply`.
 */
function server(reply: (url: string, init: RequestInit) => Response) {
  const requests: { url: string; method: string; body: any }[] = [];
  const settings = ServerConnection.makeSettings({
    baseUrl: 'http://127.0.0.1:8888/user/ana/',
    fetch: (async (input: RequestInfo, init: RequestInit = {}) => {
      // Lab's makeRequest hands fetch a Request, with a cache-busting query.
      const request = new Request(input, init);
      const text = await request.text();
      requests.push({
        url: request.url.replace(/\?\d+$/, ''),
        method: request.method,
        body: text ? JSON.parse(text) : undefined
      });
      return reply(request.url, init);
    }) as any
  });
  return { settings, requests };
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' }
  });
}

describe('isCorsRefusal', () => {
  it('is true for a CORS refusal only', () => {
    expect(isCorsRefusal({ code: 'CorsRefused' })).toBe(true);
    expect(isCorsRefusal({ code: 'AccessDenied' })).toBe(false);
    expect(isCorsRefusal(new TypeError('Failed to fetch'))).toBe(false);
    expect(isCorsRefusal(null)).toBe(false);
  });
});

describe('serverAccess', () => {
  it("follows GET api/bookshelf's server_access", async () => {
    const on = server(() => json({ release: '0.1.0', server_access: true }));
    await expect(serverAccess(on.settings)).resolves.toBe(true);
    expect(on.requests[0].url).toMatch(
      /^http:\/\/127\.0\.0\.1:8888\/user\/ana\/api\/bookshelf/
    );
    const off = server(() => json({ release: '0.1.0', server_access: false }));
    await expect(serverAccess(off.settings)).resolves.toBe(false);
  });

  it('is false where the server cannot say: an old server, no extension, a failure', async () => {
    for (const reply of [
      () => json({ release: '0.1.0' }),
      () => json({ message: 'Not Found' }, 404),
      () => {
        throw new TypeError('Failed to fetch');
      }
    ]) {
      await expect(serverAccess(server(reply).settings)).resolves.toBe(false);
    }
  });
});

describe('cloneOnServer and publishOnServer', () => {
  it('POST the clone request and answer the new file', async () => {
    const model = { path: 'work/q3-1.ipynb', type: 'notebook' };
    const { settings, requests } = server(() => json(model, 201));
    const request = { s3_bucket: 'nocors', s3_key: 'a b/q3.ipynb' };
    await expect(cloneOnServer(request, settings)).resolves.toEqual(model);
    expect(requests).toEqual([
      {
        url: 'http://127.0.0.1:8888/user/ana/api/bookshelf/clone',
        method: 'POST',
        body: request
      }
    ]);
  });

  it("PUT the saved notebook's path, encoded, with the dialog's choices", async () => {
    const result = { s3_path: 's3://published/x.ipynb', clone_url: 'u' };
    const { settings, requests } = server(() => json(result));
    await expect(
      publishOnServer(
        'my work/q#3?.ipynb',
        { destination: 'team/q3.ipynb', overwrite: true, ifMatch: '"e1"' },
        settings
      )
    ).resolves.toEqual(result);
    expect(requests[0].method).toBe('PUT');
    expect(requests[0].url).toBe(
      'http://127.0.0.1:8888/user/ana/api/bookshelf/published/my%20work/q%233%3F.ipynb'
    );
    expect(requests[0].body).toEqual({
      to: 'team/q3.ipynb',
      overwrite: true,
      if_match: '"e1"'
    });
    await publishOnServer('n.ipynb', {}, settings);
    expect(requests[1].body).toEqual({});
  });

  it("reject with the server's own message", async () => {
    const { settings } = server(() =>
      json({ code: 'NoSuchKey', message: 'There is no object s3://b/k.' }, 404)
    );
    const error = await cloneOnServer(
      { s3_bucket: 'bbb', s3_key: 'k' },
      settings
    ).catch(e => e);
    expect(serverErrorMessage(error)).toBe('There is no object s3://b/k.');
  });
});

describe('withServerNotification', () => {
  /** Run `work` under it; the result and the notification changes seen. */
  async function run<T>(work: () => Promise<T>) {
    const changes: string[] = [];
    const record = (_: unknown, change: Notification.IChange) =>
      changes.push(
        `${change.type} ${change.notification.type}: ${change.notification.message}`
      );
    Notification.manager.changed.connect(record);
    try {
      const result = await withServerNotification(
        'Cloning s3://examples/q3.ipynb on the Jupyter server',
        reason => `The Jupyter server could not clone it: ${reason}`,
        work
      );
      return { result, changes };
    } finally {
      Notification.manager.changed.disconnect(record);
      Notification.manager.dismiss();
    }
  }

  it('shows the work running, then nothing of it once done', async () => {
    const { result, changes } = await run(async () => 'cloned');
    expect(result).toBe('cloned');
    expect(changes).toEqual([
      'added in-progress: Cloning s3://examples/q3.ipynb on the Jupyter server',
      'removed in-progress: Cloning s3://examples/q3.ipynb on the Jupyter server'
    ]);
  });

  it("a failure at once dismisses the pending notification and shows the server's reason in a new one", async () => {
    // Not an update of the pending one: JupyterLab's toasts lose an update
    // that comes before the toast is drawn.
    const { result, changes } = await run(async () => {
      throw new Error('The object s3://examples/q3.ipynb does not exist.');
    });
    expect(result).toBeNull();
    expect(changes).toEqual([
      'added in-progress: Cloning s3://examples/q3.ipynb on the Jupyter server',
      'removed in-progress: Cloning s3://examples/q3.ipynb on the Jupyter server',
      'added error: The Jupyter server could not clone it: The object s3://examples/q3.ipynb does not exist.'
    ]);
  });
});
