/**
 * Where the model's clone saves: on a Jupyter server, its own requests to
 * the contents API with text bodies (`ServerContentsWriter`, which keeps the
 * bodies out of the browser's process); in JupyterLite, the contents
 * manager, whose saves never leave the page.
 */
import { ServerConnection } from '@jupyterlab/services';

import { CredentialsProvider } from '../s3/credentials';
import { BookshelfModel } from '../service/model';
import { DEFAULT_SETTINGS } from '../settings/checks';
import { notebookText } from './fakes/bytes';
import { FakeContentsManager } from './fakes/contents';
import { FakeObjectStore } from './fakes/store';

const BASE_URL = 'http://127.0.0.1:8888/user/ana/';

/** A request the page sent to the server, as it went. */
interface ISent {
  method: string;
  path: string;
  bodyIsText: boolean;
}

/**
 * A server without Bookshelf's server extension (its paths answer 404, so
 * a clone saves its file through the contents API) whose contents API is
 * the fake contents manager the page also has.
 */
function serverOver(contents: FakeContentsManager) {
  const sent: ISent[] = [];
  class RecordingRequest extends Request {
    constructor(url: string, init: RequestInit) {
      super(url, init);
      this.bodyIsText = typeof init.body === 'string';
    }
    readonly bodyIsText: boolean;
  }
  const base = new URL(BASE_URL).pathname;
  const serverSettings = ServerConnection.makeSettings({
    baseUrl: BASE_URL,
    Request: RecordingRequest as typeof Request,
    fetch: (async (request: RecordingRequest) => {
      const path = decodeURIComponent(
        new URL(request.url).pathname.slice(base.length)
      );
      sent.push({
        method: request.method,
        path,
        bodyIsText: request.bodyIsText
      });
      if (!path.startsWith('api/contents/') || request.method !== 'PUT') {
        return Response.json({ message: 'Not found' }, { status: 404 });
      }
      const model = JSON.parse(await request.text());
      const saved = await contents.save(
        path.slice('api/contents/'.length),
        model
      );
      return Response.json(saved, { status: 201 });
    }) as typeof fetch
  });
  return { serverSettings, sent };
}

function modelOn(jupyterLite: boolean) {
  const contents = new FakeContentsManager();
  contents.addDirectory('reports');
  const store = new FakeObjectStore();
  store.addBucket('examples');
  store.addObject('examples', 'q3.ipynb', notebookText('q3'));
  const { serverSettings, sent } = serverOver(contents);
  const model = new BookshelfModel({
    contents: contents as any,
    serverSettings,
    credentials: new CredentialsProvider(),
    version: '0',
    createObjectStore: () => store,
    jupyterLite
  });
  model.updateSettings({
    ...DEFAULT_SETTINGS,
    endpointUrl: 'http://127.0.0.1:9000',
    credentials: { ...DEFAULT_SETTINGS.credentials, mode: 'anonymous' }
  });
  return { model, contents, sent };
}

/** Clone the notebook into `reports/`, and see it there, whole. */
async function cloneIntoReports(
  model: BookshelfModel,
  contents: FakeContentsManager
): Promise<void> {
  const cloned = await model.clone({
    s3_bucket: 'examples',
    s3_key: 'q3.ipynb',
    target_path: 'reports/'
  });
  expect(cloned.path).toBe('reports/q3.ipynb');
  expect(contents.readText(cloned.path)).toBe(notebookText('q3'));
}

describe('BookshelfModel.clone, where it saves', () => {
  it("saves on a Jupyter server by its own requests to the contents API, with text bodies, not through the contents manager's save", async () => {
    const { model, contents, sent } = modelOn(false);
    await cloneIntoReports(model, contents);
    const saves = sent.filter(
      request =>
        request.method === 'PUT' && request.path.startsWith('api/contents/')
    );
    expect(saves.length).toBeGreaterThan(0);
    expect(saves.every(save => save.bodyIsText)).toBe(true);
    // Every save the contents held came by those requests.
    const saved = contents.calls.filter(call => call.method === 'save');
    expect(saved.length).toBe(saves.length);
  });

  it("saves in JupyterLite through the contents manager, with no request to a server's contents API", async () => {
    const { model, contents, sent } = modelOn(true);
    await cloneIntoReports(model, contents);
    expect(
      sent.filter(request => request.path.startsWith('api/contents/'))
    ).toEqual([]);
    expect(
      contents.calls.filter(call => call.method === 'save').length
    ).toBeGreaterThan(0);
  });
});
