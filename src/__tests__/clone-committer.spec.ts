import { ServerConnection } from '@jupyterlab/services';

import { ServerCommitter } from '../clone/committer';
import { hasResponseStatus } from '../clone/writer';
import { rejection } from './fakes/rejection';

const BASE_URL = 'http://127.0.0.1:8888/user/ana/';

/**
 * A committer whose server answers `answer` and records the request.
 */
function committerAnswering(answer: () => Response | Promise<Response>) {
  const requests: { method: string; url: string; body: unknown }[] = [];
  const serverSettings = ServerConnection.makeSettings({
    baseUrl: BASE_URL,
    fetch: (async (request: Request) => {
      requests.push({
        method: request.method,
        // makeRequest may add a query that defeats caches.
        url: request.url.split('?')[0],
        body: JSON.parse(await request.text())
      });
      return answer();
    }) as any
  });
  return { committer: new ServerCommitter(serverSettings), requests };
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
