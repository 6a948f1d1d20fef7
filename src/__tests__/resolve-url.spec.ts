import { BookshelfError } from '../errors/errors';
import { resolveServerUrl } from '../service/page';

/** An error's detail, whatever its code. */
const detailOf = (error: { detail: unknown }) =>
  error.detail as { [key: string]: unknown };

const BASE = 'http://127.0.0.1:8888/jupyter/';

describe('resolveServerUrl (the credentials URL of endpoint mode)', () => {
  it.each([
    [
      'bookshelf/credentials',
      'http://127.0.0.1:8888/jupyter/bookshelf/credentials'
    ],
    ['/services/creds', 'http://127.0.0.1:8888/services/creds'],
    [
      'http://127.0.0.1:8888/services/creds',
      'http://127.0.0.1:8888/services/creds'
    ]
  ])('resolves %s on the server', (url, resolved) => {
    expect(resolveServerUrl(url, BASE)).toBe(resolved);
  });

  it.each([
    'http://127.0.0.1:9/credentials',
    'https://sts.example.org/creds?key=hunter2',
    '//evil.example.org/creds'
  ])('refuses %s on another origin, naming it without its query', url => {
    let error: unknown;
    try {
      resolveServerUrl(url, BASE);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BookshelfError);
    expect((error as BookshelfError).code).toBe('NotConfigured');
    expect(detailOf(error as BookshelfError).reason).toBe(
      'endpoint-cross-origin'
    );
    expect(JSON.stringify((error as BookshelfError).detail)).not.toContain(
      'hunter2'
    );
  });
});
