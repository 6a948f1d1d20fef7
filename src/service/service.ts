/**
 * The one implementation of the IBookshelf token: the settings and their
 * signal, and operations that load the backend (the model: S3
 * credentials, clone, publish, info) on first use, so that JupyterLab's
 * start-up does not fetch their code.
 */
import { ISignal, Signal } from '@lumino/signaling';
import type { Contents } from '@jupyterlab/services';

import { DEFAULT_SETTINGS } from '../settings/parse';
import type {
  IBookshelf,
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
 * What the service hands its operations on to: a plain backend (the model,
 * `./model.ts`), which keeps no signal and is not the token.
 */
export interface IBookshelfBackend extends Pick<
  IBookshelf,
  'info' | 'clone' | 'publishTarget' | 'publish'
> {
  /** Take the effective settings (the service calls it on every change). */
  updateSettings(settings: IBookshelfSettings): void;
  /** The S3 credentials the backend holds. */
  readonly credentials: { forget(): void };
}

/**
 * The Bookshelf service.
 */
export class BookshelfService implements IBookshelf {
  /**
   * @param load - creates the model; called on first use (again after a
   *   failure, e.g. a chunk that did not load).
   */
  constructor(private readonly _load: () => Promise<IBookshelfBackend>) {}

  get settings(): IBookshelfSettings {
    return this._settings;
  }

  get settingsChanged(): ISignal<IBookshelf, IBookshelfSettings> {
    return this._settingsChanged;
  }

  /**
   * Replace the settings (from the settings registry).
   */
  updateSettings(settings: IBookshelfSettings): void {
    this._settings = settings;
    this._backend?.updateSettings(settings);
    this._settingsChanged.emit(settings);
  }

  /**
   * Forget the S3 credentials held in memory; nothing to forget before
   * first use.
   */
  forgetCredentials(): void {
    this._backend?.credentials.forget();
  }

  async info(options?: IInfoOptions): Promise<IBookshelfInfo> {
    return (await this._loaded()).info(options);
  }

  async clone(
    request: ICloneRequest,
    options?: ICloneOptions
  ): Promise<Contents.IModel> {
    return (await this._loaded()).clone(request, options);
  }

  prepareClone(): void {
    // The model comes with all a clone needs (the S3 SDK among it).
    this._loaded().catch(() => undefined); // left to the clone, which says why
  }

  async publishTarget(
    path: string,
    destination?: string
  ): Promise<IPublishTargetInfo> {
    return (await this._loaded()).publishTarget(path, destination);
  }

  async publish(
    path: string,
    options?: IPublishOptions
  ): Promise<IPublishResult> {
    return (await this._loaded()).publish(path, options);
  }

  private _loaded(): Promise<IBookshelfBackend> {
    if (!this._loading) {
      this._loading = this._load().then(
        backend => {
          backend.updateSettings(this._settings);
          this._backend = backend;
          return backend;
        },
        error => {
          this._loading = null;
          throw error;
        }
      );
    }
    return this._loading;
  }

  private _settings: IBookshelfSettings = DEFAULT_SETTINGS;
  private _settingsChanged = new Signal<IBookshelf, IBookshelfSettings>(this);
  private _loading: Promise<IBookshelfBackend> | null = null;
  private _backend: IBookshelfBackend | null = null;
}
