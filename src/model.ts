/**
 * The Bookshelf service behind the IBookshelf token: settings, credentials
 * and the lazily loaded S3 client, with clone, publish and info. No UI here;
 * the plugins add dialogs around it.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { Contents, ServerConnection } from '@jupyterlab/services';
import { nullTranslator, TranslationBundle } from '@jupyterlab/translation';
import { ISignal, Signal } from '@lumino/signaling';

import type { ICloneDependencies } from './clone/clone';
import { BookshelfError } from './errors';
import { requestAPI } from './request';
import { CredentialsProvider } from './s3/credentials';
import { loadObjectStore } from './s3/loader';
import type { IObjectStore } from './s3/types';
import { checkSettings, DEFAULT_SETTINGS } from './settings';
import {
  IBookshelf,
  IBookshelfInfo,
  IBookshelfSettings,
  ICloneOptions,
  ICloneRequest,
  IInfoCheck,
  IPublishOptions,
  IPublishResult,
  IPublishTargetInfo
} from './tokens';

/**
 * The service's collaborators.
 */
export interface IBookshelfModelOptions {
  contents: Contents.IManager;
  serverSettings: ServerConnection.ISettings;
  credentials: CredentialsProvider;
  /** The extension's version, for info. */
  version: string;
  /** Translates the messages of the live checks. */
  trans?: TranslationBundle;
}

/**
 * The Bookshelf service.
 */
export class BookshelfModel implements IBookshelf {
  constructor(options: IBookshelfModelOptions) {
    this._options = options;
    this._trans = options.trans ?? nullTranslator.load('jupyterlab_bookshelf');
  }

  get settings(): IBookshelfSettings {
    return this._settings;
  }

  get settingsChanged(): ISignal<IBookshelf, IBookshelfSettings> {
    return this._settingsChanged;
  }

  get contents(): Contents.IManager {
    return this._options.contents;
  }

  get serverSettings(): ServerConnection.ISettings {
    return this._options.serverSettings;
  }

  get credentials(): CredentialsProvider {
    return this._options.credentials;
  }

  /**
   * Replace the settings (from the settings registry).
   */
  updateSettings(settings: IBookshelfSettings): void {
    this._settings = settings;
    this._settingsChanged.emit(settings);
  }

  /**
   * An object store for the current settings; loads the SDK on first use.
   */
  async objectStore(): Promise<IObjectStore> {
    const settings = this._settings;
    return loadObjectStore({
      endpointUrl: settings.endpointUrl,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials: () => this._options.credentials.get(settings)
    });
  }

  /**
   * Turn a failure into a BookshelfError, telling a CORS refusal from an
   * unreachable server.
   */
  async explain(
    error: unknown,
    context: { bucket?: string; key?: string; versionId?: string } = {}
  ): Promise<BookshelfError> {
    // Loaded on the first failure, not at start-up.
    const { diagnoseNetworkFailure, toBookshelfError } =
      await import('./s3/diagnosis');
    const failure = toBookshelfError(error, {
      ...context,
      endpointUrl: this._settings.endpointUrl
    });
    return diagnoseNetworkFailure(failure, this._settings.endpointUrl);
  }

  async clone(
    request: ICloneRequest,
    options: ICloneOptions & { defaultFolder?: string } = {}
  ): Promise<Contents.IModel> {
    const problems = checkSettings(this._settings);
    if (problems.length) {
      throw new BookshelfError(
        'NotConfigured',
        problems.map(problem => problem.message).join(' ')
      );
    }
    const deps: ICloneDependencies = {
      store: await this.objectStore(),
      contents: this._options.contents
    };
    try {
      // The clone code loads on first use, not at start-up.
      const { cloneObject } = await import('./clone/clone');
      return await cloneObject(deps, request, {
        defaultFolder: options.defaultFolder ?? '',
        maxObjectSizeMB: this._settings.maxObjectSizeMB,
        signal: options.signal,
        onProgress: options.onProgress
      });
    } catch (error) {
      throw await this.explain(error, {
        bucket: request.s3_bucket,
        key: request.s3_key,
        versionId: request.s3_version_id
      });
    }
  }

  async publishTarget(
    path: string,
    destination?: string
  ): Promise<IPublishTargetInfo> {
    const { readPublishTarget } = await import('./publish/publish');
    try {
      return await readPublishTarget(
        { store: await this.objectStore() },
        path,
        this._settings,
        destination
      );
    } catch (error) {
      throw await this.explain(error, { bucket: this._settings.publishBucket });
    }
  }

  async publish(
    path: string,
    options: IPublishOptions = {}
  ): Promise<IPublishResult> {
    // The publish code loads on first use, not at start-up.
    const { publishNotebook } = await import('./publish/publish');
    const settings = this._settings;
    const baseUrl = new URL(
      this._options.serverSettings.baseUrl,
      window.location.href
    );
    try {
      return await publishNotebook(
        {
          store: await this.objectStore(),
          contents: this._options.contents,
          readBytes: path => this._readSavedBytes(path)
        },
        path,
        {
          ...options,
          settings,
          serverOrigin: baseUrl.origin,
          baseUrl: baseUrl.pathname
        }
      );
    } catch (error) {
      throw await this.explain(error, { bucket: settings.publishBucket });
    }
  }

  async info(options: { live?: boolean } = {}): Promise<IBookshelfInfo> {
    const trans = this._trans;
    let info: IBookshelfInfo;
    let shimCheck: IInfoCheck;
    try {
      info = await requestAPI<IBookshelfInfo>(
        '',
        {},
        this._options.serverSettings
      );
      shimCheck = {
        id: 'shim',
        label: trans.__('Server extension'),
        ok: true,
        message: trans.__('jupyterlab_bookshelf %1 answers.', info.release)
      };
    } catch {
      info = { release: this._options.version, features: {} };
      shimCheck = {
        id: 'shim',
        label: trans.__('Server extension'),
        ok: false,
        message: trans.__(
          'The server extension jupyterlab_bookshelf does not answer: install it with pip in the environment of the Jupyter server and restart the server.'
        )
      };
    }
    if (!options.live) {
      return info;
    }
    return { ...info, checks: [shimCheck, ...(await this._liveChecks())] };
  }

  /**
   * A saved file's bytes from the server's `/files/` path; null when the
   * file does not exist.
   */
  private async _readSavedBytes(path: string): Promise<Uint8Array | null> {
    const settings = this._options.serverSettings;
    const url = URLExt.join(
      settings.baseUrl,
      'files',
      URLExt.encodeParts(path)
    );
    const response = await ServerConnection.makeRequest(
      url,
      { cache: 'no-store' },
      settings
    );
    if (response.status === 404) {
      return null;
    }
    if (!response.ok) {
      throw new ServerConnection.ResponseError(response);
    }
    return new Uint8Array(await response.arrayBuffer());
  }

  private async _liveChecks(): Promise<IInfoCheck[]> {
    const trans = this._trans;
    const settings = this._settings;
    const checks: IInfoCheck[] = [];
    const problems = checkSettings(settings);
    checks.push({
      id: 'settings',
      label: trans.__('Settings'),
      ok: problems.length === 0,
      message: problems.length
        ? problems
            .map(problem => `${problem.setting}: ${problem.message}`)
            .join(' ')
        : trans.__('The settings are complete.')
    });
    let credentialsOk = false;
    try {
      await this._options.credentials.get(settings);
      credentialsOk = true;
      checks.push({
        id: 'credentials',
        label: trans.__('Credentials'),
        ok: true,
        message:
          settings.credentials.mode === 'anonymous'
            ? trans.__('Requests are unsigned (anonymous mode).')
            : trans.__(
                'Credentials are available (%1 mode).',
                settings.credentials.mode
              )
      });
    } catch (error) {
      checks.push({
        id: 'credentials',
        label: trans.__('Credentials'),
        ok: false,
        message: error instanceof Error ? error.message : String(error)
      });
    }
    const bucket = settings.publishBucket;
    if (!bucket) {
      checks.push({
        id: 'publish-bucket',
        label: trans.__('Publish bucket'),
        ok: false,
        message: trans.__(
          'No publish bucket is set: set "Publish bucket" in the Bookshelf settings to publish notebooks.'
        )
      });
      return checks;
    }
    if (!credentialsOk) {
      return checks;
    }
    try {
      const store = await this.objectStore();
      await store.headBucket(bucket);
      checks.push({
        id: 'publish-bucket',
        label: trans.__('Publish bucket'),
        ok: true,
        message: trans.__('s3://%1 is reachable.', bucket)
      });
      const versioning = await store.getBucketVersioning(bucket);
      checks.push({
        id: 'versioning',
        label: trans.__('Versioning'),
        ok: versioning === 'Enabled',
        message:
          versioning === 'Enabled'
            ? trans.__(
                'Versioning is on for s3://%1: every publish keeps the earlier versions.',
                bucket
              )
            : trans.__(
                'Versioning is off for s3://%1: a publish replaces the earlier object for good. Turn versioning on for the bucket to keep every version.',
                bucket
              )
      });
    } catch (error) {
      const failure = await this.explain(error, { bucket });
      checks.push({
        id: 'publish-bucket',
        label: trans.__('Publish bucket'),
        ok: false,
        message: failure.message
      });
    }
    return checks;
  }

  private _options: IBookshelfModelOptions;
  private _trans: TranslationBundle;
  private _settings: IBookshelfSettings = DEFAULT_SETTINGS;
  private _settingsChanged = new Signal<IBookshelf, IBookshelfSettings>(this);
}
