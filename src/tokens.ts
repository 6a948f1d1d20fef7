import type { Contents } from '@jupyterlab/services';
import { Token } from '@lumino/coreutils';
import type { ISignal } from '@lumino/signaling';

/**
 * The npm package name, also the prefix of every plugin id.
 */
export const PACKAGE_NAME = 'jupyterlab-bookshelf';

/**
 * The id of the plugin that owns the settings (schema/core.json).
 */
export const CORE_PLUGIN_ID = `${PACKAGE_NAME}:core`;

/**
 * How the browser authenticates to the S3 service.
 */
export type CredentialsMode = 'anonymous' | 'session' | 'settings' | 'endpoint';

/**
 * What happens when a published object already exists.
 */
export type OverwritePolicy = 'confirm' | 'always' | 'never';

/**
 * The effective settings, parsed and normalized.
 */
export interface IBookshelfSettings {
  endpointUrl: string;
  region: string;
  forcePathStyle: boolean;
  credentials: {
    mode: CredentialsMode;
    accessKeyId: string;
    secretAccessKey: string;
    sessionToken: string;
    endpoint: string;
  };
  publishBucket: string;
  publishPrefix: string;
  overwritePolicy: OverwritePolicy;
  allowedBuckets: string[];
  openAfterClone: boolean;
  /** Larger clones are offered for opening, not opened by themselves. */
  openAfterCloneMaxMB: number;
  maxObjectSizeMB: number;
}

/**
 * A clone request: the payload of the seed's clone POST.
 */
export interface ICloneRequest {
  s3_bucket: string;
  s3_key: string;
  /** Path in the Jupyter file tree; a folder (trailing slash) or a file. */
  target_path?: string;
  s3_version_id?: string;
}

/**
 * Progress of a transfer.
 */
export interface ITransferProgress {
  loaded: number;
  /** Total bytes, when known. */
  total?: number;
}

/**
 * Options for a clone through the browser API.
 */
export interface ICloneOptions {
  signal?: AbortSignal;
  onProgress?: (progress: ITransferProgress) => void;
  /**
   * Create a target folder that does not exist yet, with its parents, as a
   * link's target_path may name one (removed again if the clone fails).
   * Default: a missing folder is an error.
   */
  createFolders?: boolean;
}

/**
 * The body of the seed's publish PUT.
 */
export interface IPublishBody {
  type: 'notebook';
  content: unknown;
}

/**
 * Options for a publish through the browser API.
 */
export interface IPublishOptions {
  /** Publish this content instead of the saved file. */
  body?: IPublishBody;
  /** The destination path below the publish prefix (default: the file's path). */
  destination?: string;
  /**
   * Replace an existing object. `ifMatch` makes it conditional on the ETag
   * the user saw. Without it the overwrite policy decides.
   */
  overwrite?: boolean;
  ifMatch?: string;
  signal?: AbortSignal;
  onProgress?: (progress: ITransferProgress) => void;
}

/**
 * The result of a publish.
 */
export interface IPublishResult {
  s3_path: string;
  version_id?: string;
  etag?: string;
  clone_url: string;
  /**
   * The form of `clone_url`: `hub`, a JupyterHub link that opens in the
   * server of whoever follows it; `server`, a link into this server;
   * `lite`, a link into this JupyterLite site.
   */
  link_form?: 'hub' | 'server' | 'lite';
}

/**
 * Where a notebook would be published, and what is there now.
 */
export interface IPublishTargetInfo {
  bucket: string;
  key: string;
  s3_path: string;
  /** The object there now, or null. */
  existing: {
    etag?: string;
    versionId?: string;
    lastModified?: Date;
    contentLength?: number;
  } | null;
}

/**
 * One live check of the info panel.
 */
export interface IInfoCheck {
  id: string;
  /** Translated name of what is checked. */
  label: string;
  /** Passed. */
  ok: boolean;
  /** `skip`: could not be checked (the message says why). */
  state: 'pass' | 'fail' | 'skip';
  /** What was checked and found, translated. */
  message: string;
  /** What to do, translated; empty when nothing is to be done. */
  fix: string;
  /** A CORS rule to add (JSON, one rule), when the fix is to add one. */
  rule?: string;
  /**
   * The bucket's whole CORS configuration with that rule (JSON, a list of
   * rules), when the page could read the bucket's rules: the rules for
   * other origins kept as they are.
   */
  corsConfiguration?: string;
  /** An action the panel offers: enter session credentials now. */
  action?: 'enter-credentials';
}

/**
 * The seed's info: `release` and `features` are what the server shim's
 * GET /api/bookshelf answers for the same settings; the browser adds the
 * live checks.
 */
export interface IBookshelfInfo {
  release: string;
  features: { [name: string]: boolean | string };
  /**
   * From the server extension only: what is wrong in the settings files
   * (an overrides file that does not parse, a misspelt setting), which
   * the page cannot see.
   */
  settings_files_problems?: string[];
  checks?: IInfoCheck[];
}

/**
 * Options of `IBookshelf.info`.
 */
export interface IInfoOptions {
  /** Run the live checks (network requests to the server and to S3). */
  live?: boolean;
  /**
   * In session mode, ask for credentials when none are held, so that the
   * buckets can be checked (default false: the checks never open a dialog
   * by themselves).
   */
  askCredentials?: boolean;
}

/**
 * The Bookshelf service: clone and publish for other extensions and tests.
 */
export interface IBookshelf {
  /** The effective settings. */
  readonly settings: IBookshelfSettings;
  /** Emitted when the effective settings change. */
  readonly settingsChanged: ISignal<IBookshelf, IBookshelfSettings>;
  /** Version and features; with `live`, the live checks too. */
  info(options?: IInfoOptions): Promise<IBookshelfInfo>;
  /** Clone an object into the file tree; resolves to the new file's model. */
  clone(
    request: ICloneRequest,
    options?: ICloneOptions
  ): Promise<Contents.IModel>;
  /**
   * Start loading the code a clone needs (the S3 SDK among it), for a clone
   * the person is about to start: their click then does not wait for it.
   */
  prepareClone(): void;
  /**
   * Where `path` would be published (below the publish prefix, at
   * `destination` when given) and what exists there, without uploading.
   */
  publishTarget(
    path: string,
    destination?: string
  ): Promise<IPublishTargetInfo>;
  /** Publish a notebook of the file tree to the publish bucket. */
  publish(path: string, options?: IPublishOptions): Promise<IPublishResult>;
}

/**
 * The Bookshelf service token.
 */
export const IBookshelf = new Token<IBookshelf>(
  `${PACKAGE_NAME}:IBookshelf`,
  'Clones objects from S3-style storage into the file tree and publishes notebooks to the publish bucket.'
);
