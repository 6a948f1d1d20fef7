import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/**
 * Call the server shim's API (`{base_url}api/bookshelf/...`).
 */
export async function requestAPI<T>(
  endPoint = '',
  init: RequestInit = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<T> {
  const requestUrl = URLExt.join(
    settings.baseUrl,
    'api',
    'bookshelf',
    endPoint
  );
  const response = await ServerConnection.makeRequest(
    requestUrl,
    init,
    settings
  );
  let data: any = await response.text();
  if (data.length > 0) {
    try {
      data = JSON.parse(data);
    } catch {
      // Not JSON: keep the text for the error.
    }
  }
  if (!response.ok) {
    throw new ServerConnection.ResponseError(response, data.message || data);
  }
  return data as T;
}
