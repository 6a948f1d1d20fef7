import { ServerConnection } from '@jupyterlab/services';
import { ReadableStream } from 'stream/web';

import {
  checkOnServer,
  sendWithProgress,
  ServerCommitter
} from '../clone/committer';
import { hasResponseStatus } from '../clone/contentsSave';
import { rejection } from './fakes/rejection';
import { blobBytes } from './fakes/bytes';
import { BookshelfError } from '../errors/errors';

const BASE_URL = 'http://127.0.0.1:8888/user/ana/';

/**
 * A Request that keeps its body as it was given: Node's Request takes
 * jsdom's Blob for an object and sends its name, where a browser sends the
 * Blob's bytes.
 */
class RequestKeepingBody extends Request {
  constructor(url: string, init: RequestInit) {
    super(url, { ...init, body: undefined });
    this.given = init.body;
  }

  /** Whether the body is a Blob, which Chromium sends fastest. */
  get isBlob(): boolean {
    return this.given instanceof Blob;
  }

  /** The bytes a browser would send for the body. */
  async bytes(): Promise<Uint8Array> {
    const body = this.given;
    if (body === undefined || body === null) {
      return new Uint8Array(0);
    }
    if (typeof body === 'string') {
      return new TextEncoder().encode(body);
    }
    if (body instanceof Blob) {
      return blobBytes(body);
    }
    return new Uint8Array(body as ArrayBuffer);
  }

  private readonly given: RequestInit['body'];
}

/**
 * A committer whose server answers `answer` and records the request.
 */
function committerAnswering(answer: () => Response | Promise<Response>) {
  const requests: { method: string; url: string; body: unknown }[] = [];
  const sent: {
    query: URLSearchParams;
    bytes: Uint8Array;
    type: string;
    isBlob: boolean;
  }[] = [];
  const serverSettings = ServerConnection.makeSettings({
    baseUrl: BASE_URL,
    Request: RequestKeepingBody as typeof Request,
    fetch: (async (request: RequestKeepingBody) => {
      const bytes = await request.bytes();
      const type = request.headers.get('Content-Type') ?? '';
      sent.push({
        query: new URL(request.url).searchParams,
        bytes,
        type,
        isBlob: request.isBlob
      });
      requests.push({
        method: request.method,
        // makeRequest may add a query that defeats caches.
        url: request.url.split('?')[0],
        body: type.includes('octet-stream')
          ? 'bytes'
          : JSON.parse(new TextDecoder().decode(bytes))
      });
      return answer();
    }) as any
  });
  return { committer: new ServerCommitter(serverSettings), requests, sent };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status });

describe('ServerCommitter', () => {
  const model = {
    name: 'q3-1.ipynb',
    path: 'work/q3-1.ipynb',
    type: 'notebook',
    content: null
  };

  it('posts the temporary path and the target, and answers the model', async () => {
    const { committer, requests } = committerAnswering(() => json(201, model));
    const answer = await committer.commit(
      'work/q3.ipynb.00.bookshelf-partial',
      'work',
      'q3.ipynb'
    );
    expect(answer).toEqual(model);
    expect(requests).toEqual([
      {
        method: 'POST',
        url: `${BASE_URL}api/bookshelf/commit`,
        body: {
          path: 'work/q3.ipynb.00.bookshelf-partial',
          target: 'work/q3.ipynb'
        }
      }
    ]);
  });

  it('targets the root without a leading slash', async () => {
    const { committer, requests } = committerAnswering(() => json(201, model));
    await committer.commit('q3.ipynb.00.bookshelf-partial', '', 'q3.ipynb');
    expect(requests[0].body).toMatchObject({ target: 'q3.ipynb' });
  });

  test.each([
    ['a Jupyter server without the extension', 404, '<html>404</html>'],
    [
      'an older extension (JSON without a code)',
      404,
      JSON.stringify({ message: 'Not Found', reason: null })
    ],
    ['a static host refusing POST', 405, 'Method Not Allowed'],
    ['a static host without POST', 501, 'Unsupported method'],
    ['a static host answering every path with its page', 200, '<html></html>']
  ])('answers null for %s', async (_, status, body) => {
    const { committer } = committerAnswering(
      () => new Response(body, { status })
    );
    expect(await committer.commit('a.bookshelf-partial', '', 'a')).toBeNull();
  });

  it('answers null for another drive, without asking the server', async () => {
    const { committer, requests } = committerAnswering(() => json(201, model));
    expect(
      await committer.commit('Drive:a.bookshelf-partial', 'Drive:', 'a')
    ).toBeNull();
    expect(requests).toEqual([]);
  });

  test.each([
    [404, 'NotFound'],
    [409, 'Conflict'],
    [400, 'InvalidRequest'],
    [500, 'SaveFailed']
  ])("rejects with the commit path's %i", async (status, code) => {
    const { committer } = committerAnswering(() =>
      json(status, { code, message: `the server says ${code}` })
    );
    const error = await rejection(
      committer.commit('a.bookshelf-partial', '', 'a')
    );
    expect(error).toBeInstanceOf(ServerConnection.ResponseError);
    expect(hasResponseStatus(error, status)).toBe(true);
    expect(error.message).toBe(`the server says ${code}`);
  });

  it('rejects as with no answer when the answer is cut off', async () => {
    const { committer } = committerAnswering(
      () => new Response('{"name": "q3', { status: 201 })
    );
    const error = await rejection(
      committer.commit('a.bookshelf-partial', '', 'a')
    );
    expect(error).toBeInstanceOf(ServerConnection.NetworkError);
  });
});

describe('ServerCommitter.create', () => {
  const model = { name: 'q3.ipynb', path: 'work/q3.ipynb', type: 'notebook' };
  const bytes = new TextEncoder().encode('{"cells": []}');
  const temporary = 'work/q3 +?#%.ipynb.00.bookshelf-partial';
  const create = (committer: ServerCommitter, notebook = true) =>
    committer.create(temporary, 'work', 'q3 +?#%.ipynb', bytes, {
      md5: 'a'.repeat(32),
      notebook
    });

  it('posts the bytes as they are, the paths and checks in the query', async () => {
    const { committer, requests, sent } = committerAnswering(() =>
      json(201, model)
    );
    expect(await create(committer)).toEqual(model);
    expect(requests).toEqual([
      { method: 'POST', url: `${BASE_URL}api/bookshelf/create`, body: 'bytes' }
    ]);
    expect(Array.from(sent[0].bytes)).toEqual(Array.from(bytes));
    // A Blob: Chromium sends other bodies far slower (see blobBody).
    expect(sent[0].isBlob).toBe(true);
    expect(sent[0].type).toBe('application/octet-stream');
    expect(Object.fromEntries(sent[0].query)).toMatchObject({
      path: temporary,
      target: 'work/q3 +?#%.ipynb',
      md5: 'a'.repeat(32),
      check: 'notebook'
    });
  });

  it('asks for no notebook check of other files', async () => {
    const { committer, sent } = committerAnswering(() => json(201, model));
    await create(committer, false);
    expect(sent[0].query.has('check')).toBe(false);
  });

  test.each([
    ['an older server extension', 404, null],
    ['a host without it', 405, null],
    ['files not on its disk', 501, 'NotConfigured']
  ])(
    'answers null for %s, and does not send the bytes again',
    async (_, status, code) => {
      const { committer, requests } = committerAnswering(() =>
        json(status, code ? { code, message: 'no' } : { message: 'Not Found' })
      );
      expect(await create(committer)).toBeNull();
      expect(await create(committer)).toBeNull();
      expect(requests).toHaveLength(1);
    }
  );

  it('answers null for another drive, without asking the server', async () => {
    const { committer, requests } = committerAnswering(() => json(201, model));
    expect(
      await committer.create('D:a.bookshelf-partial', 'D:', 'a', bytes, {
        notebook: false
      })
    ).toBeNull();
    expect(requests).toEqual([]);
  });

  it('rejects damaged bytes as a checksum mismatch, to be cloned again', async () => {
    const { committer } = committerAnswering(() =>
      json(502, {
        code: 'Corrupted',
        message: 'damaged',
        reason: 'checksum',
        expected: 'a'.repeat(32),
        actual: 'b'.repeat(32)
      })
    );
    const error = await rejection(create(committer));
    expect(error).toBeInstanceOf(BookshelfError);
    expect(error.code).toBe('Corrupted');
    expect(error.detail).toEqual({
      reason: 'checksum',
      expected: 'a'.repeat(32),
      actual: 'b'.repeat(32)
    });
  });

  it("rejects what is not a notebook in the server's words", async () => {
    const { committer } = committerAnswering(() =>
      json(400, { code: 'NotANotebook', message: "'cells' is missing." })
    );
    const error = await rejection(create(committer));
    expect(error.code).toBe('NotANotebook');
    expect(error.detail).toEqual({ message: "'cells' is missing." });
  });

  test.each([
    [409, 'Conflict'],
    [400, 'InvalidRequest'],
    [500, 'SaveFailed']
  ])("rejects with the create path's %i", async (status, code) => {
    const { committer } = committerAnswering(() =>
      json(status, { code, message: `the server says ${code}` })
    );
    const error = await rejection(create(committer));
    expect(error).toBeInstanceOf(ServerConnection.ResponseError);
    expect(hasResponseStatus(error, status)).toBe(true);
  });

  it('answers null for a body a proxy refused as too large (413), and keeps offering smaller ones', async () => {
    const { committer, requests } = committerAnswering(
      () =>
        new Response('<html>413 Request Entity Too Large</html>', {
          status: 413
        })
    );
    expect(await create(committer)).toBeNull();
    expect(committer.createRefusedFrom).toBe(bytes.length);
    expect(committer.createUnavailable).toBe(false);
    const smaller = bytes.subarray(1);
    expect(
      await committer.create(temporary, 'work', 'q3.ipynb', smaller, {
        notebook: false
      })
    ).toBeNull();
    expect(committer.createRefusedFrom).toBe(smaller.length);
    expect(requests).toHaveLength(2);
  });

  it('rejects as with no answer when a proxy answers 502', async () => {
    const { committer } = committerAnswering(
      () => new Response('Bad Gateway', { status: 502 })
    );
    const error = await rejection(create(committer));
    expect(hasResponseStatus(error, 502)).toBe(true);
    expect(error).not.toBeInstanceOf(BookshelfError);
  });
});

describe('checkOnServer for a publish', () => {
  const MD5 = ['0'.repeat(32), '1'.repeat(32), '2'.repeat(32)];
  const ANSWER = {
    checked: 'notebook',
    size: 12,
    etag: '"abc-3"',
    part_md5s: MD5
  };

  /** Settings whose server answers these pieces of text as JSON lines. */
  function streaming(pieces: string[], type = 'application/x-ndjson') {
    const requests: unknown[] = [];
    const settings = ServerConnection.makeSettings({
      baseUrl: BASE_URL,
      fetch: (async (request: Request) => {
        requests.push(JSON.parse(await request.text()));
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            for (const piece of pieces) {
              await new Promise(resolve => setTimeout(resolve, 1));
              controller.enqueue(new TextEncoder().encode(piece));
            }
            controller.close();
          }
        });
        return new Response(body as unknown as BodyInit, {
          status: 200,
          headers: { 'Content-Type': type }
        });
      }) as any
    });
    return { settings, requests };
  }

  const lines = [
    `{"part": 1, "md5": "${MD5[0]}"}\n`,
    `{"part": 2, "md5": "${MD5[1]}"}\n`,
    `${JSON.stringify(ANSWER)}\n`
  ];

  it('asks for the parts as they are hashed, and gives each at once', async () => {
    // Lines cut anywhere, as a network delivers them.
    const text = lines.join('');
    const pieces = [text.slice(0, 10), text.slice(10, 60), text.slice(60)];
    const { settings, requests } = streaming(pieces);
    const seen: [number, string][] = [];
    const answer = await checkOnServer(
      settings,
      'work/big.ipynb',
      8,
      (i, md5) => seen.push([i, md5])
    );
    expect(requests).toEqual([
      {
        path: 'work/big.ipynb',
        check: 'notebook',
        purpose: 'publish',
        part_size: 8,
        stream: true
      }
    ]);
    expect(seen).toEqual([
      [0, MD5[0]],
      [1, MD5[1]]
    ]);
    expect(answer).toEqual({ size: 12, etag: '"abc-3"', partMd5s: MD5 });
  });

  it('rejects with the error of the last line', async () => {
    const error = JSON.stringify({
      error: { code: 'NotANotebook', message: "'cells' is not a list." }
    });
    const { settings } = streaming([lines[0], `${error}\n`]);
    const seen: number[] = [];
    const failure = await rejection(
      checkOnServer(settings, 'work/big.ipynb', 8, i => seen.push(i))
    );
    expect(failure.code).toBe('NotANotebook');
    expect(failure.detail.message).toBe("'cells' is not a list.");
    expect(seen).toEqual([0]);
  });

  it('answers null for an answer cut off before its last line', async () => {
    const { settings } = streaming([lines[0], lines[1], '{"checked": "no']);
    expect(await checkOnServer(settings, 'work/big.ipynb', 8, () => 0)).toBe(
      null
    );
  });

  it('reads the one answer of a server that does not stream', async () => {
    const { settings } = streaming(
      [JSON.stringify(ANSWER)],
      'application/json'
    );
    const seen: number[] = [];
    const answer = await checkOnServer(settings, 'work/big.ipynb', 8, i =>
      seen.push(i)
    );
    expect(answer).toEqual({ size: 12, etag: '"abc-3"', partMd5s: MD5 });
    expect(seen).toEqual([]);
  });
});

describe('sendWithProgress', () => {
  /**
   * An XMLHttpRequest as the browser's behaves for these calls: the upload
   * says how far it came, then the answer loads, or the request fails.
   */
  class FakeXhr {
    static made: FakeXhr[] = [];
    static fails = false;
    method = '';
    url = '';
    headers: { [name: string]: string } = {};
    body: Blob | null = null;
    status = 0;
    responseText = '';
    upload: {
      onprogress: ((event: { loaded: number }) => void) | null;
      onload: (() => void) | null;
    } = { onprogress: null, onload: null };
    aborted = false;
    /** Called between the two halves of the upload. */
    static midway: (() => void) | null = null;
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    onabort: (() => void) | null = null;
    ontimeout: (() => void) | null = null;

    constructor() {
      FakeXhr.made.push(this);
    }
    open(method: string, url: string) {
      this.method = method;
      this.url = url;
    }
    setRequestHeader(name: string, value: string) {
      this.headers[name] = value;
    }
    getResponseHeader(name: string) {
      return name === 'Content-Type' ? 'application/json' : null;
    }
    abort() {
      this.aborted = true;
      this.onabort?.();
    }
    send(body: Blob) {
      this.body = body;
      const step = (next: () => void) =>
        setTimeout(() => {
          if (!this.aborted) {
            next();
          }
        });
      step(() => {
        if (FakeXhr.fails) {
          this.onerror?.();
          return;
        }
        this.upload.onprogress?.({ loaded: Math.floor(body.size / 2) });
        FakeXhr.midway?.();
        step(() => {
          this.upload.onprogress?.({ loaded: body.size });
          this.upload.onload?.();
          FakeXhr.midway?.();
          step(() => {
            this.status = 201;
            this.responseText = JSON.stringify({ path: 'a.bin' });
            this.onload?.();
          });
        });
      });
    }
  }

  const real = (globalThis as any).XMLHttpRequest;
  beforeEach(() => {
    FakeXhr.made = [];
    FakeXhr.fails = false;
    FakeXhr.midway = null;
    (globalThis as any).XMLHttpRequest = FakeXhr;
    document.cookie = '_xsrf=xsrf-value';
  });
  afterEach(() => {
    (globalThis as any).XMLHttpRequest = real;
    document.cookie = '_xsrf=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
  });

  const body = new Blob([new Uint8Array(1000)]);
  const url = `${BASE_URL}api/bookshelf/create?path=a`;

  it("posts the Blob with the server's credentials and says how far it came", async () => {
    const settings = ServerConnection.makeSettings({
      baseUrl: BASE_URL,
      token: 'the-token'
    });
    const sent: number[] = [];
    const answer = await sendWithProgress(url, body, settings, loaded =>
      sent.push(loaded)
    );
    expect(answer.status).toBe(201);
    expect(await answer.json()).toEqual({ path: 'a.bin' });
    expect(sent).toEqual([500, 1000]);
    const [request] = FakeXhr.made;
    expect(request.method).toBe('POST');
    expect(request.url).toBe(url);
    expect(request.body).toBe(body);
    expect(request.headers).toEqual({
      'Content-Type': 'application/octet-stream',
      Authorization: 'token the-token',
      'X-XSRFToken': 'xsrf-value'
    });
  });

  it('sends no token where the server has none (cookies, as on a hub)', async () => {
    const settings = ServerConnection.makeSettings({
      baseUrl: BASE_URL,
      token: ''
    });
    await sendWithProgress(url, body, settings);
    expect(FakeXhr.made[0].headers).not.toHaveProperty('Authorization');
    expect(FakeXhr.made[0].headers['X-XSRFToken']).toBe('xsrf-value');
  });

  it('rejects as with no answer when the request fails', async () => {
    FakeXhr.fails = true;
    const settings = ServerConnection.makeSettings({ baseUrl: BASE_URL });
    const error = await rejection(sendWithProgress(url, body, settings));
    expect(error).toBeInstanceOf(ServerConnection.NetworkError);
  });

  it('stops the upload when asked while the bytes go', async () => {
    const settings = ServerConnection.makeSettings({ baseUrl: BASE_URL });
    const stop = new AbortController();
    FakeXhr.midway = () => stop.abort();
    const error = await rejection(
      sendWithProgress(url, body, settings, undefined, stop.signal)
    );
    expect(error).toBeInstanceOf(ServerConnection.NetworkError);
    expect(FakeXhr.made[0].aborted).toBe(true);
  });

  it('lets the request answer when asked to stop once all the bytes went', async () => {
    const settings = ServerConnection.makeSettings({ baseUrl: BASE_URL });
    const stop = new AbortController();
    let halves = 0;
    FakeXhr.midway = () => {
      if (++halves === 2) {
        stop.abort();
      }
    };
    const answer = await sendWithProgress(
      url,
      body,
      settings,
      undefined,
      stop.signal
    );
    expect(answer.status).toBe(201);
    expect(FakeXhr.made[0].aborted).toBe(false);
  });

  it("uses the settings' own fetch where they bring one", async () => {
    const { committer, requests } = committerAnswering(
      () =>
        new Response(JSON.stringify({ message: 'Not Found' }), {
          status: 404
        })
    );
    expect(
      await committer.create('a.bookshelf-partial', '', 'a', body, {
        notebook: false
      })
    ).toBeNull();
    expect(requests).toHaveLength(1);
    expect(FakeXhr.made).toEqual([]);
  });
});
