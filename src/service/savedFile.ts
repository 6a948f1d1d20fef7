/**
 * Reads of a saved file through the server's `/files/` path, past the
 * browser's cache: whole as it arrives, or one range of it as a Blob.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import type { ISavedFile } from '../publish/publish';
import { ByteCollector } from '../transfer/bytes';

/**
 * A response's body in one buffer, handing each piece to `onChunk` as it
 * arrives (to hash it while the rest is on its way).
 */
export async function readResponse(
  response: Response,
  onChunk?: (chunk: Uint8Array) => void
): Promise<Uint8Array> {
  if (!onChunk || !response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    onChunk?.(bytes);
    return bytes;
  }
  const reader = response.body.getReader();
  // The length is only a hint: a compressed answer announces fewer bytes.
  const collected = new ByteCollector(
    Number(response.headers.get('Content-Length'))
  );
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    collected.add(value);
    onChunk(value);
  }
  return collected.bytes();
}

/**
 * A saved file from the server's `/files/` path, as it arrives; null when
 * the file does not exist.
 */
export async function fetchSavedFile(
  settings: ServerConnection.ISettings,
  path: string
): Promise<ISavedFile | null> {
  const response = await requestSavedFile(settings, path);
  if (response.status === 404) {
    return null;
  }
  if (!response.ok) {
    throw new ServerConnection.ResponseError(response);
  }
  const size = announcedSize(response);
  return {
    size,
    bytes: onChunk => readResponse(response, onChunk),
    release: () => void response.body?.cancel().catch(() => undefined)
  };
}

/**
 * The bytes of a saved file from `start` to `end` (excluded), as a Blob
 * (the browser keeps it; the page does not read it); null when the server
 * does not answer that range (it ignores ranges, or the file is shorter).
 */
export async function fetchSavedRange(
  settings: ServerConnection.ISettings,
  path: string,
  start: number,
  end: number
): Promise<Blob | null> {
  const response = await requestSavedFile(settings, path, {
    Range: `bytes=${start}-${end - 1}`
  });
  if (response.status === 206) {
    const part = await response.blob();
    return part.size === end - start ? part : null;
  }
  // A range that is the whole file is answered whole, with 200 (tornado
  // does so): those are the bytes asked for when exactly that many come.
  if (
    response.status === 200 &&
    start === 0 &&
    announcedSize(response) === end
  ) {
    const whole = await response.blob();
    return whole.size === end ? whole : null;
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.ok || response.status === 404 || response.status === 416) {
    return null;
  }
  throw new ServerConnection.ResponseError(response);
}

/**
 * The size of the file a response carries, when it says so: a compressed
 * answer announces fewer bytes than it gives.
 */
function announcedSize(response: Response): number | undefined {
  const length = response.headers.get('Content-Length');
  if (length === null || response.headers.get('Content-Encoding')) {
    return undefined;
  }
  const size = Number(length);
  return Number.isSafeInteger(size) ? size : undefined;
}

/**
 * `GET` of a saved file from the server's `/files/` path, past the
 * browser's cache.
 */
function requestSavedFile(
  settings: ServerConnection.ISettings,
  path: string,
  headers: Record<string, string> = {}
): Promise<Response> {
  const url = URLExt.join(settings.baseUrl, 'files', URLExt.encodeParts(path));
  return ServerConnection.makeRequest(
    url,
    { cache: 'no-store', headers },
    settings
  );
}
