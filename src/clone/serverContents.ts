/**
 * The contents writer of a clone on a Jupyter server: the contents
 * manager, except that a save to the server's own drive is sent with the
 * model's JSON as text.
 *
 * JupyterLab's contents manager (4.6) sends a save's JSON as a File.
 * Chromium keeps a Blob's bytes in its browser process until the page's
 * garbage collector drops the File, which a series of saves (a few objects
 * in the page's heap each) does not bring about: a 200 MB clone saved in
 * 8 MiB chunks raised the browser process's resident memory by 114-190 MiB;
 * with text bodies by 0-3 MiB, in the same time (bench/README.md).
 */

import { URLExt } from '@jupyterlab/coreutils';
import { Contents, ServerConnection } from '@jupyterlab/services';
import type { IContentsWriter } from './contentsSave';
import { isOtherDrive } from './naming';

/**
 * Lab's contents manager, with saves to the server's drive sent as text.
 * Reads, renames and deletes, and saves to other drives (`drive:path`), go
 * through the contents manager as before.
 */
export class ServerContentsWriter implements IContentsWriter {
  constructor(
    contents: IContentsWriter,
    serverSettings: ServerConnection.ISettings
  ) {
    this._contents = contents;
    this._serverSettings = serverSettings;
  }

  get(
    path: string,
    options?: Contents.IFetchOptions
  ): Promise<Contents.IModel> {
    return this._contents.get(path, options);
  }

  rename(path: string, newPath: string): Promise<Contents.IModel> {
    return this._contents.rename(path, newPath);
  }

  delete(path: string): Promise<void> {
    return this._contents.delete(path);
  }

  /**
   * Save as the contents manager does (`PUT /api/contents/<path>`, the
   * same answers and errors: a `ServerConnection.ResponseError` for a
   * refusal, a `NetworkError` when no answer came), with a text body.
   */
  async save(
    path: string,
    options: Partial<Contents.IModel> = {}
  ): Promise<Contents.IModel> {
    if (isOtherDrive(path)) {
      return this._contents.save(path, options);
    }
    const settings = this._serverSettings;
    const url = URLExt.join(
      settings.baseUrl,
      'api',
      'contents',
      URLExt.encodeParts(path)
    );
    const response = await ServerConnection.makeRequest(
      url,
      { method: 'PUT', body: JSON.stringify({ ...options, path }) },
      settings
    );
    // 200 for an existing file, 201 for a new one.
    if (response.status !== 200 && response.status !== 201) {
      throw await ServerConnection.ResponseError.create(response);
    }
    return (await response.json()) as Contents.IModel;
  }

  private _contents: IContentsWriter;
  private _serverSettings: ServerConnection.ISettings;
}
