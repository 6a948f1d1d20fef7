// Node's web streams: the test environment's Response (Node's) takes them as bodies.
import { ServerConnection } from '@jupyterlab/services';
import { ReadableStream } from 'stream/web';

import { fetchSavedFile, fetchSavedRange } from '../service/savedFile';

const SIZE = 1024 * 1024;
const CHUNK = 64 * 1024;
const FILE = Uint8Array.from({ length: SIZE }, (_, i) => (i * 7) % 251);

interface IServerOptions {
  /** Answer every request whole, as a server that ignores ranges. */
  ignoresRanges?: boolean;
  /** Compress the answer (its length is then the compressed one). */
  compressed?: boolean;
  /** The status to answer instead of the file. */
  status?: number;
}

/**
 * A `/files/` handler serving FILE as Jupyter's (tornado's) does: a range
 * that is the whole file comes back whole with 200, a part with 206, a
 * range past the end with 416. Its body is handed out in pieces and records
 * how much of it was read and whether it was let go.
 */
function filesServer(options: IServerOptions = {}) {
  const seen: { url: string; range: string | null; cache?: string }[] = [];
  const body = { pulled: 0, cancelled: false };
  const stream = (bytes: Uint8Array) =>
    new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (body.pulled >= bytes.length) {
            controller.close();
            return;
          }
          controller.enqueue(bytes.slice(body.pulled, body.pulled + CHUNK));
          body.pulled += CHUNK;
        },
        cancel() {
          body.cancelled = true;
        }
      },
      { highWaterMark: 0 }
    );
  const settings = ServerConnection.makeSettings({
    baseUrl: 'http://127.0.0.1:8888/user/ana/',
    fetch: (async (input: RequestInfo, init: RequestInit = {}) => {
      const request = new Request(input, init);
      const range = request.headers.get('Range');
      seen.push({ url: request.url, range, cache: request.cache });
      if (options.status) {
        return new Response('nope', { status: options.status });
      }
      const headers: Record<string, string> = {};
      if (options.compressed) {
        headers['Content-Encoding'] = 'gzip';
      }
      const match = /^bytes=(\d+)-(\d+)$/.exec(range ?? '');
      if (!match || options.ignoresRanges) {
        headers['Content-Length'] = String(options.compressed ? 999 : SIZE);
        return new Response(stream(FILE) as unknown as BodyInit, {
          status: 200,
          headers
        });
      }
      const start = Number(match[1]);
      const end = Math.min(Number(match[2]) + 1, SIZE);
      if (start >= SIZE) {
        return new Response(null, { status: 416 });
      }
      const part = FILE.slice(start, end);
      headers['Content-Length'] = String(part.length);
      const whole = start === 0 && end === SIZE;
      return new Response(stream(part) as unknown as BodyInit, {
        status: whole ? 200 : 206,
        headers
      });
    }) as any
  });
  return { settings, seen, body };
}

/**
 * Whether `blob` holds `expected`, byte for byte (compared as Buffers: Jest's
 * element-wise equality takes seconds on a megabyte).
 */
async function holds(blob: Blob | null, expected: Uint8Array) {
  const got = blob ? Buffer.from(await blob.arrayBuffer()) : null;
  return got?.equals(expected) ?? false;
}

describe('fetchSavedFile', () => {
  it('asks /files/ past the cache and announces the size', async () => {
    const server = filesServer();
    const saved = await fetchSavedFile(server.settings, 'Reports/Q1 #2.ipynb');
    expect(saved?.size).toBe(SIZE);
    expect(Buffer.from((await saved?.bytes()) ?? []).equals(FILE)).toBe(true);
    expect(server.seen[0].url).toMatch(
      /^http:\/\/127\.0\.0\.1:8888\/user\/ana\/files\/Reports\/Q1%20%232\.ipynb/
    );
    expect(server.seen[0].cache).toBe('no-store');
  });

  it('announces no size for a compressed answer', async () => {
    const saved = await fetchSavedFile(
      filesServer({ compressed: true }).settings,
      'a.ipynb'
    );
    expect(saved).not.toBeNull();
    expect(saved?.size).toBeUndefined();
  });

  it('is null for a file that is not there, and throws on a failure', async () => {
    expect(
      await fetchSavedFile(filesServer({ status: 404 }).settings, 'a.ipynb')
    ).toBeNull();
    await expect(
      fetchSavedFile(filesServer({ status: 500 }).settings, 'a.ipynb')
    ).rejects.toBeInstanceOf(ServerConnection.ResponseError);
  });

  it('lets go of the body unread', async () => {
    const server = filesServer();
    const saved = await fetchSavedFile(server.settings, 'a.ipynb');
    saved?.release();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(server.body.cancelled).toBe(true);
    expect(server.body.pulled).toBeLessThan(SIZE);
  });
});

describe('fetchSavedRange', () => {
  it('gives a part answered with 206', async () => {
    const server = filesServer();
    const part = await fetchSavedRange(server.settings, 'a.ipynb', 100, 5000);
    expect(await holds(part, FILE.slice(100, 5000))).toBe(true);
    expect(server.seen[0].range).toBe('bytes=100-4999');
    expect(server.seen[0].cache).toBe('no-store');
  });

  it('gives the last part, shorter than the others', async () => {
    const part = await fetchSavedRange(
      filesServer().settings,
      'a.ipynb',
      SIZE - 10,
      SIZE
    );
    expect(await holds(part, FILE.slice(SIZE - 10))).toBe(true);
  });

  // A notebook of one part asks for all of itself; tornado answers 200.
  it('gives the whole file when the range is the whole file, answered with 200', async () => {
    const part = await fetchSavedRange(
      filesServer().settings,
      'a.ipynb',
      0,
      SIZE
    );
    expect(await holds(part, FILE)).toBe(true);
  });

  it('is null, unread, when the server ignores a partial range', async () => {
    const server = filesServer({ ignoresRanges: true });
    expect(
      await fetchSavedRange(server.settings, 'a.ipynb', 0, CHUNK)
    ).toBeNull();
    expect(server.body.cancelled).toBe(true);
    expect(server.body.pulled).toBeLessThan(SIZE);
  });

  it('is null when the file is no longer that long', async () => {
    // Asked for more than it holds: the whole file comes with 200.
    expect(
      await fetchSavedRange(filesServer().settings, 'a.ipynb', 0, SIZE + 1)
    ).toBeNull();
    // A part that runs past the end comes short with 206.
    expect(
      await fetchSavedRange(filesServer().settings, 'a.ipynb', 10, SIZE + 5)
    ).toBeNull();
    // A range that starts past the end is refused.
    expect(
      await fetchSavedRange(filesServer().settings, 'a.ipynb', SIZE, SIZE + 5)
    ).toBeNull();
  });

  it('is null for a compressed whole answer, whose length cannot be told', async () => {
    expect(
      await fetchSavedRange(
        filesServer({ compressed: true, ignoresRanges: true }).settings,
        'a.ipynb',
        0,
        SIZE
      )
    ).toBeNull();
  });

  it('is null for a file that is not there, and throws on a failure', async () => {
    expect(
      await fetchSavedRange(filesServer({ status: 404 }).settings, 'a', 0, 9)
    ).toBeNull();
    await expect(
      fetchSavedRange(filesServer({ status: 500 }).settings, 'a', 0, 9)
    ).rejects.toBeInstanceOf(ServerConnection.ResponseError);
  });
});
