/**
 * What the backend reads of the page it runs in: whether it is a JupyterLite
 * site, and same-origin URLs below the server's base URL. Apart from
 * `./backend.ts`, which brings the S3 SDK, so that their tests do not load it.
 */
import { URLExt } from '@jupyterlab/coreutils';

import { BookshelfError } from '../errors/errors';
import { displayUrl } from '../s3/urls';

/**
 * Whether the page is a JupyterLite site, as its page config's `appName`
 * says: no Jupyter server behind it, its file tree lives in the browser.
 * Here rather than beside the hub's page config in
 * `../settings/deployment.ts`: only the clone needs it, not the start-up.
 */
export function isJupyterLite(appName: string): boolean {
  return appName === 'JupyterLite';
}

/**
 * Resolve a same-origin URL from the settings: an absolute URL or path
 * stays, a relative one is below the server's base URL, another origin is
 * refused.
 */
export function resolveServerUrl(url: string, baseUrl: string): string {
  const base = new URL(baseUrl, window.location.href);
  const absolute =
    /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(url) || url.startsWith('//');
  const resolved = absolute
    ? new URL(url, base.origin)
    : url.startsWith('/')
      ? new URL(url, base.origin)
      : new URL(URLExt.join(base.pathname, url), base.origin);
  if (resolved.origin !== base.origin) {
    throw new BookshelfError({
      code: 'NotConfigured',
      detail: { reason: 'endpoint-cross-origin', url: displayUrl(url) }
    });
  }
  return resolved.href;
}
