/**
 * The model: the plain backend of the IBookshelf service (`./service.ts`),
 * with the settings it is given, credentials and the lazily loaded S3
 * client, clone, publish and info. No UI here; the plugins add dialogs
 * around it.
 */
import { Contents, ServerConnection } from '@jupyterlab/services';
import { nullTranslator, TranslationBundle } from '@jupyterlab/translation';

// The clone code comes with the model (and the S3 SDK with `./backend.ts`),
// in chunks loaded at once: each was a second round of loading after it.
import {
  cloneObject,
  ICloneDependencies,
  ServerCommitter
} from '../clone/clone';
import type { ICommitter } from '../clone/committer';
import type { IContentsWriter } from '../clone/contentsSave';
import { ServerContentsWriter } from '../clone/serverContents';
import { TRANSLATION_DOMAIN } from '../package';
import { BookshelfError, isBookshelfError } from '../errors/errors';
import {
  ConditionalWritesMemory,
  type IConditionalWrites,
  probeConditionalWrites
} from '../publish/conditional';
import { fetchSavedFile, fetchSavedRange } from './savedFile';
import { requestAPI } from './serverApi';
import type { IObjectStoreConfig } from '../s3/client';
import { CredentialsProvider, ICredentialsRequest } from '../s3/credentials';
import {
  diagnoseNetworkFailure,
  refusedByBrowser,
  toBookshelfError
} from '../s3/diagnosis';
import type { IObjectStore } from '../s3/types';
import { checkSettings, DEFAULT_SETTINGS, features } from '../settings/checks';
import { IHub, ILinkBase, linkBase } from '../settings/deployment';
import type { IBookshelfBackend } from './service';
import type {
  IBookshelfInfo,
  IBookshelfSettings,
  ICloneOptions,
  ICloneRequest,
  IInfoOptions,
  IPublishOptions,
  IPublishResult,
  IPublishTargetInfo
} from '../tokens';

/**
 * The service's collaborators.
 */
export interface IBookshelfModelOptions {
  contents: Contents.IManager;
  serverSettings: ServerConnection.ISettings;
  credentials: CredentialsProvider;
  /** The extension's version, for info. */
  version: string;
  /** Translates the error messages and those of the live checks. */
  trans?: TranslationBundle;
  /**
   * Creates the object store: the S3 SDK's (`createModel` in `./backend.ts`
   * passes it, so that this module does not import the SDK); unit tests
   * pass a fake store.
   */
  createObjectStore: (
    config: IObjectStoreConfig
  ) => IObjectStore | Promise<IObjectStore>;
  /** fetch for the reachability probe (default: the browser's). */
  fetch?: typeof fetch;
  /** This page's origin, for the CORS checks (default: the window's). */
  origin?: string;
  /** The JupyterHub this server belongs to, or null: the links' form. */
  hub?: IHub | null;
  /**
   * The page is a JupyterLite site: its file tree is the browser's, and no
   * Jupyter server converts the version 3 notebooks cloned into it.
   */
  jupyterLite?: boolean;
}

/**
 * The Bookshelf model.
 */
export class BookshelfModel implements IBookshelfBackend {
  constructor(options: IBookshelfModelOptions) {
    this._options = options;
    this._trans = options.trans ?? nullTranslator.load(TRANSLATION_DOMAIN);
  }

  get settings(): IBookshelfSettings {
    return this._settings;
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
   * The frontend's version.
   */
  get version(): string {
    return this._options.version;
  }

  /**
   * Take the settings (the service passes on those of the settings registry).
   */
  updateSettings(settings: IBookshelfSettings): void {
    // Settings of another mode may hold credentials we must not keep.
    if (settings.credentials.mode !== this._settings.credentials.mode) {
      this._options.credentials.forget();
    }
    this._settings = settings;
  }

  /**
   * An object store for the current settings.
   */
  async objectStore(
    settings: IBookshelfSettings = this._settings,
    request: ICredentialsRequest = {}
  ): Promise<IObjectStore> {
    return this._options.createObjectStore({
      endpointUrl: settings.endpointUrl,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials: () => this._options.credentials.get(settings, request),
      refusedByBrowser: bucket =>
        refusedByBrowser(
          this.serviceUrl(settings),
          bucket,
          this._options.fetch,
          settings.forcePathStyle
        )
    });
  }

  /**
   * Turn a failure into a BookshelfError, telling a CORS refusal from an
   * unreachable server.
   */
  async explain(
    error: unknown,
    context: { bucket?: string; key?: string; versionId?: string } = {},
    settings: IBookshelfSettings = this._settings
  ): Promise<BookshelfError> {
    const serviceUrl = this.serviceUrl(settings);
    const failure = await diagnoseNetworkFailure(
      toBookshelfError(error, { ...context, endpointUrl: serviceUrl }),
      serviceUrl,
      this._options.fetch,
      settings.forcePathStyle
    );
    const mode = settings.credentials.mode;
    if (
      (isBookshelfError(failure, 'InvalidCredentials') &&
        failure.detail.reason === 'refused') ||
      failure.code === 'ExpiredCredentials'
    ) {
      // The next try asks again (session) or fetches new ones (endpoint).
      this._options.credentials.invalidate(settings);
    }
    return failure.withContext({ mode });
  }

  async clone(
    request: ICloneRequest,
    options: ICloneOptions & { defaultFolder?: string } = {}
  ): Promise<Contents.IModel> {
    options = options ?? {};
    this._refuseInvalidSettings();
    const store = await this.objectStore();
    try {
      const deps: ICloneDependencies = {
        store,
        contents: this._cloneContents(),
        // One for the page: it remembers a server without the create path.
        committer: (this._committer ??= new ServerCommitter(
          this._options.serverSettings
        )),
        asksNothing: () => this.asksNothing()
      };
      return await cloneObject(deps, request, {
        defaultFolder: options.defaultFolder ?? '',
        createFolders: options.createFolders,
        jupyterLite: this._options.jupyterLite,
        maxObjectSizeMB: this._settings.maxObjectSizeMB,
        signal: options.signal,
        onProgress: options.onProgress,
        trans: this._trans
      });
    } catch (error) {
      // The request may be anything an API caller sent: name only text.
      const fields = (
        typeof request === 'object' && request !== null ? request : {}
      ) as { [name: string]: unknown };
      const text = (name: string) =>
        typeof fields[name] === 'string' ? (fields[name] as string) : undefined;
      throw await this.explain(error, {
        bucket: text('s3_bucket'),
        key: text('s3_key'),
        versionId: text('s3_version_id')
      });
    }
  }

  /**
   * Whether a request to S3 now would ask the person nothing: only session
   * mode asks, for keys it does not hold yet.
   */
  asksNothing(): boolean {
    return (
      this._settings.credentials.mode !== 'session' ||
      this._options.credentials.hasSessionCredentials
    );
  }

  /**
   * Refuse to go on with settings that GET /api/bookshelf and the info
   * panel call invalid (e.g. an endpoint URL holding a password): clone
   * and publish alike.
   */
  private _refuseInvalidSettings(): void {
    const problems = checkSettings(this._settings, false, this._trans);
    if (problems.length) {
      throw new BookshelfError({
        code: 'NotConfigured',
        detail: {
          reason: 'settings',
          message: problems.map(problem => problem.message).join(' ')
        }
      });
    }
  }

  /**
   * Whether the S3 service honours conditional writes in `bucket`, probed
   * once per endpoint and bucket for this page's session (see
   * `probeConditionalWrites`). The probe writes below the publish prefix.
   */
  async conditionalWrites(
    bucket: string,
    store: IObjectStore,
    settings: IBookshelfSettings = this._settings
  ): Promise<IConditionalWrites> {
    return this._conditionalWrites.get(this.serviceUrl(settings), bucket, () =>
      probeConditionalWrites(store, bucket, settings.publishPrefix)
    );
  }

  /**
   * The remembered answer for `bucket`, without probing; null when it was
   * not probed yet in this session.
   */
  knownConditionalWrites(
    bucket: string,
    settings: IBookshelfSettings = this._settings
  ): Promise<IConditionalWrites> | null {
    return this._conditionalWrites.known(this.serviceUrl(settings), bucket);
  }

  async publishTarget(
    path: string,
    destination?: string
  ): Promise<IPublishTargetInfo> {
    this._refuseInvalidSettings();
    // The publish code and the S3 SDK load side by side on first use.
    const store = this.objectStore();
    store.catch(() => undefined); // awaited below
    const { readPublishTarget } = await import('../publish/publish');
    try {
      return await readPublishTarget(
        { store: await store },
        path,
        this._settings,
        destination,
        this._trans
      );
    } catch (error) {
      throw await this.explain(error, { bucket: this._settings.publishBucket });
    }
  }

  async publish(
    path: string,
    options: IPublishOptions = {}
  ): Promise<IPublishResult> {
    options = options ?? {};
    this._refuseInvalidSettings();
    // The publish code loads on first use, not at start-up, alongside the
    // S3 SDK rather than before it.
    const store = this.objectStore();
    store.catch(() => undefined); // awaited below
    const { publishNotebook, checkOnServer, probeConditionalCompletes } =
      await import('../publish/publish');
    const settings = this._settings;
    const serverUrl = new URL(
      this._options.serverSettings.baseUrl,
      window.location.href
    );
    // The Lite form here rather than in `linkBase`, whose module Lab loads
    // at start-up (for the hub's page config).
    const links: ILinkBase = this._options.jupyterLite
      ? { origin: serverUrl.origin, baseUrl: serverUrl.pathname, form: 'lite' }
      : linkBase(
          this._options.hub ?? null,
          serverUrl.origin,
          serverUrl.pathname
        );
    try {
      const s3 = await store;
      const result = await publishNotebook(
        {
          store: s3,
          contents: this._options.contents,
          openSaved: path => fetchSavedFile(this._options.serverSettings, path),
          readSavedRange: (path, start, end) =>
            fetchSavedRange(this._options.serverSettings, path, start, end),
          checkSaved: (path, partSize, onPart) =>
            checkOnServer(this._options.serverSettings, path, partSize, onPart),
          conditionalWrites: bucket =>
            this.conditionalWrites(bucket, s3, settings),
          asksNothing: () => this.asksNothing(),
          conditionalCompletes: bucket =>
            this._conditionalCompletes.get(
              this.serviceUrl(settings),
              bucket,
              () =>
                probeConditionalCompletes(s3, bucket, settings.publishPrefix)
            )
        },
        path,
        {
          ...options,
          settings,
          serverOrigin: links.origin,
          baseUrl: links.baseUrl,
          linkForm: links.form,
          trans: this._trans
        }
      );
      return { ...result, link_form: links.form };
    } catch (error) {
      throw await this.explain(error, { bucket: settings.publishBucket });
    }
  }

  async info(options: IInfoOptions = {}): Promise<IBookshelfInfo> {
    const settings = this._settings;
    const info: IBookshelfInfo = {
      release: this._options.version,
      features: features(settings)
    };
    if (!options.live) {
      return info;
    }
    // The checks' code loads when they first run.
    const { LiveChecks } = await import('../info/liveChecks');
    const checks = new LiveChecks(this, settings, this._trans, {
      origin: this._origin,
      fetch: this._options.fetch,
      askCredentials: options.askCredentials === true,
      jupyterLite: this._options.jupyterLite
    });
    return { ...info, checks: await checks.run() };
  }

  /**
   * The URL of the S3 service: the endpoint, or Amazon S3's for the region.
   */
  serviceUrl(settings: IBookshelfSettings = this._settings): string {
    return (
      settings.endpointUrl ||
      `https://s3.${settings.region || 'us-east-1'}.amazonaws.com`
    );
  }

  /**
   * The version of the server shim, or the reason it does not answer.
   */
  async shimInfo(): Promise<IBookshelfInfo> {
    return requestAPI<IBookshelfInfo>('', {}, this._options.serverSettings);
  }

  /**
   * Where a clone saves its temporary file: on a Jupyter server, a writer
   * that keeps the saves' bodies out of the browser's process (see
   * `ServerContentsWriter`); in JupyterLite, the contents manager, whose
   * saves stay in the page. One for the page: a proxy's body size limit,
   * once met, is remembered per writer (`refusedContentLength` of
   * `contentsSave.ts`), so later clones cut their saves below it at once.
   */
  private _cloneContents(): IContentsWriter {
    if (this._options.jupyterLite) {
      return this._options.contents;
    }
    return (this._serverContents ??= new ServerContentsWriter(
      this._options.contents,
      this._options.serverSettings
    ));
  }

  private get _origin(): string {
    return (
      this._options.origin ??
      (typeof window !== 'undefined' ? window.location.origin : '')
    );
  }

  private _options: IBookshelfModelOptions;
  private _trans: TranslationBundle;
  private _settings: IBookshelfSettings = DEFAULT_SETTINGS;
  private _conditionalWrites = new ConditionalWritesMemory();
  private _committer: ICommitter | null = null;
  private _serverContents: ServerContentsWriter | null = null;
  private _conditionalCompletes = new ConditionalWritesMemory();
}
