/**
 * URLs as they may be shown: the S3 endpoint and the credentials URL appear
 * in the settings checks, the info panel and error messages, never with
 * what may be a secret (user name, password, query, fragment).
 */

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)([^?#]*)/;

/**
 * An http(s) URL as it may be shown: without user name, password, query or
 * fragment (which may hold secrets), without trailing slashes; null when it
 * is not an http or https URL with a host. Follows the server shim's
 * `_endpoint_url` (jupyterlab_bookshelf/settings.py), so that both report
 * the same endpoint.
 */
export function displayEndpointUrl(value: string): string | null {
  const match = SCHEME.exec(value);
  if (!match) {
    return null;
  }
  const scheme = match[1].toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') {
    return null;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (!url.hostname) {
    return null;
  }
  const hostPort = match[2].slice(match[2].lastIndexOf('@') + 1);
  const port = /^(?:\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(hostPort)?.[1];
  const host = url.hostname.toLowerCase();
  const shown = `${scheme}://${host}${port ? `:${Number(port)}` : ''}${match[3]}`;
  return shown.replace(/\/+$/, '');
}

/**
 * Whether a URL carries a user name or password.
 */
export function hasUserInfo(value: string): boolean {
  const match = SCHEME.exec(value);
  return !!match && match[2].includes('@');
}

/**
 * A URL or path as it may be shown in a message: user name, password, query
 * and fragment left out.
 */
export function displayUrl(value: string): string {
  const withoutQuery = value.replace(/[?#].*$/s, '');
  return withoutQuery.replace(/^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^/@]*@/, '$1');
}
