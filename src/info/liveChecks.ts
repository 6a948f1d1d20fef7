/**
 * The live checks of the info panel: whether the configuration works, each
 * check with what was checked, pass or fail, and the fix. Nothing stays
 * written: what only an upload could prove is said to be unproven, except
 * whether conditional writes are honoured, whose probe a conforming server
 * refuses (and whose object is deleted again where it is stored). No UI
 * here; loaded on first use by the model.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

import { BookshelfError, isBookshelfError } from '../errors/errors';
import type { IConditionalWrites } from '../publish/conditional';
import { describeError } from '../errors/describe';
import publishRules from '../rules/publish.json';
import { corsRule, localNetworkBlockedText } from '../errors/messages';
import {
  checkCorsRules,
  CLONE_METHODS,
  ICorsRule,
  mergeCorsRules,
  PARTS_METHODS
} from '../s3/cors';
import type { ICredentials } from '../s3/credentials';
import { localNetworkBlocked, probeReachable } from '../s3/diagnosis';
import { policyDenies, PolicyVerdict } from '../s3/policy';
import type { IObjectStore } from '../s3/types';
import { displayUrl } from '../s3/urls';
import { checkSettings, type ISettingsProblem } from '../settings/checks';
import type { IBookshelfInfo, IBookshelfSettings, IInfoCheck } from '../tokens';

/**
 * What the checks need of the model.
 */
export interface ILiveChecksHost {
  readonly credentials: {
    get(
      settings: IBookshelfSettings,
      request?: { prompt?: boolean }
    ): Promise<ICredentials | null>;
  };
  objectStore(
    settings: IBookshelfSettings,
    request: { prompt?: boolean }
  ): Promise<IObjectStore>;
  explain(
    error: unknown,
    context: { bucket?: string },
    settings: IBookshelfSettings
  ): Promise<BookshelfError>;
  serviceUrl(settings: IBookshelfSettings): string;
  conditionalWrites(
    bucket: string,
    store: IObjectStore,
    settings: IBookshelfSettings
  ): Promise<IConditionalWrites>;
  knownConditionalWrites(
    bucket: string,
    settings: IBookshelfSettings
  ): Promise<IConditionalWrites> | null;
  shimInfo(): Promise<IBookshelfInfo>;
  readonly version: string;
}

/**
 * How many buckets of `allowedBuckets` are checked at once, and at most:
 * an admin may list many, and the panel must answer in seconds without
 * flooding the S3 service.
 */
export const CLONE_BUCKET_CHECKS = { atOnce: 4, atMost: 20 };

/**
 * `work` on each item, at most `atOnce` at a time; the results in order.
 */
async function mapAtMost<T, R>(
  items: T[],
  atOnce: number,
  work: (item: T) => Promise<R>
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(atOnce, items.length) }, worker)
  );
  return results;
}

/** What reading a bucket's CORS rules from the page gave. */
type CorsReading =
  | { state: 'rules'; rules: ICorsRule[] }
  | { state: 'none' }
  | { state: 'unreadable'; reason: BookshelfError };

/**
 * One run of the live checks for a snapshot of the settings.
 */
export class LiveChecks {
  constructor(
    private readonly _host: ILiveChecksHost,
    private readonly _settings: IBookshelfSettings,
    private readonly _trans: TranslationBundle,
    private readonly _options: {
      origin: string;
      fetch?: typeof fetch;
      askCredentials: boolean;
      /** The page is a JupyterLite site: there is no Jupyter server. */
      jupyterLite?: boolean;
    }
  ) {}

  /**
   * Run every check; the order is the panel's.
   */
  async run(): Promise<IInfoCheck[]> {
    // One request for the server extension's answer, which two checks use.
    const shimInfo = this._host.shimInfo();
    shimInfo.catch(() => undefined); // each check handles a failure
    const shim = this._checkShim(shimInfo);
    const checks: IInfoCheck[] = [];
    const pageProblems = checkSettings(
      this._settings,
      !!this._settings.publishBucket,
      this._trans
    );
    checks.push(await this._checkSettings(pageProblems, shimInfo));
    const credentials = await this._checkCredentials();
    checks.push(credentials);
    const service = await this._checkService(pageProblems.length === 0);
    checks.push(service);
    // The publish bucket and the buckets links clone from, side by side.
    const [publishChecks, cloneChecks] = await Promise.all([
      this._checkBucket(credentials, service),
      this._checkCloneBuckets(credentials, service)
    ]);
    checks.push(...publishChecks, ...cloneChecks);
    return [await shim, ...checks];
  }

  private _check(
    id: string,
    label: string,
    state: IInfoCheck['state'],
    message: string,
    fix = '',
    extra: Partial<IInfoCheck> = {}
  ): IInfoCheck {
    return { id, label, ok: state === 'pass', state, message, fix, ...extra };
  }

  private async _checkShim(
    shimInfo: Promise<IBookshelfInfo>
  ): Promise<IInfoCheck> {
    const trans = this._trans;
    const label = trans.__('Server extension');
    if (this._options.jupyterLite) {
      // Nothing to install: a Lite site has no server.
      return this._check(
        'shim',
        label,
        'skip',
        trans.__(
          'This is a JupyterLite site: there is no Jupyter server, and Bookshelf works without its server extension. New files get their names in the browser, under a lock that the tabs of this site share, and notebooks are checked in the page.'
        )
      );
    }
    let shim: IBookshelfInfo;
    try {
      shim = await shimInfo;
    } catch {
      return this._check(
        'shim',
        label,
        'fail',
        trans.__(
          'The server extension jupyterlab_bookshelf does not answer at api/bookshelf on the Jupyter server.'
        ),
        trans.__(
          'Install jupyterlab-bookshelf with pip in the Jupyter server\'s environment (it enables the server extension), or run "jupyter server extension enable jupyterlab_bookshelf"; then restart the server.'
        )
      );
    }
    if (shim.release !== this._host.version) {
      return this._check(
        'shim',
        label,
        'fail',
        trans.__(
          'The server extension answers, but it is version %1 and this page runs version %2.',
          String(shim.release),
          this._host.version
        ),
        trans.__(
          "Reinstall jupyterlab-bookshelf with pip in the Jupyter server's environment, restart the server and reload this page."
        )
      );
    }
    return this._check(
      'shim',
      label,
      'pass',
      trans.__(
        'jupyterlab_bookshelf %1 answers on the Jupyter server (it serves the clone links).',
        shim.release
      )
    );
  }

  private async _checkSettings(
    problems: ISettingsProblem[],
    shimInfo: Promise<IBookshelfInfo>
  ): Promise<IInfoCheck> {
    const trans = this._trans;
    // What the page cannot see: the settings files on the server, where an
    // overrides file that does not parse loses every admin setting.
    const fileProblems =
      (await shimInfo.catch(() => null))?.settings_files_problems ?? [];
    if (fileProblems.length) {
      return this._check(
        'settings',
        trans.__('Settings'),
        'fail',
        trans.__(
          'The settings files on the Jupyter server have problems: %1.',
          fileProblems.join('; ')
        ),
        trans.__(
          'An administrator corrects the files named and restarts JupyterLab, which reads the overrides only when it starts.'
        )
      );
    }
    return problems.length
      ? this._check(
          'settings',
          trans.__('Settings'),
          'fail',
          problems.map(problem => problem.message).join(' '),
          trans.__(
            'Correct them in the Bookshelf settings ("Open settings" below), or ask an administrator to.'
          )
        )
      : this._check(
          'settings',
          trans.__('Settings'),
          'pass',
          trans.__('The settings are complete.')
        );
  }

  private async _checkCredentials(): Promise<IInfoCheck> {
    const trans = this._trans;
    const label = trans.__('Credentials');
    const settings = this._settings;
    const mode = settings.credentials.mode;
    let credentials: ICredentials | null;
    try {
      credentials = await this._host.credentials.get(settings, {
        prompt: this._options.askCredentials
      });
    } catch (error) {
      if (
        (isBookshelfError(error, 'NotConfigured') &&
          error.detail.reason === 'session-empty') ||
        (isBookshelfError(error, 'Cancelled') &&
          error.detail.reason === 'credentials-cancelled')
      ) {
        return this._check(
          'credentials',
          label,
          'skip',
          trans.__(
            'No credentials are entered in this tab yet (session mode); Bookshelf asks for them on first use, so the buckets were not checked.'
          ),
          trans.__('Enter them now to check the buckets with them.'),
          { action: 'enter-credentials' }
        );
      }
      const description = describeError(error, trans, this._options.origin);
      return this._check(
        'credentials',
        label,
        'fail',
        description.message,
        description.fix
      );
    }
    switch (mode) {
      case 'anonymous':
        return this._check(
          'credentials',
          label,
          'pass',
          trans.__(
            'Requests are unsigned (anonymous mode): only public buckets and objects can be read, and publishing needs a bucket that takes anonymous uploads.'
          )
        );
      case 'settings':
        return this._check(
          'credentials',
          label,
          'pass',
          this._options.jupyterLite
            ? trans.__(
                "The access key id and secret access key of the settings are used. In a JupyterLite site they are in the site's files, which anyone who can open the site can read: use keys that may only read public data, or the session or endpoint mode."
              )
            : trans.__(
                'The access key id and secret access key of the settings are used. They are stored in plain text on the Jupyter server: use this mode for local use and demos only.'
              )
        );
      case 'session':
        return this._check(
          'credentials',
          label,
          'pass',
          trans.__(
            'The credentials entered in this tab are used; they are kept in this tab\'s memory only ("Forget S3 Credentials" drops them).'
          )
        );
      case 'endpoint':
        return this._check(
          'credentials',
          label,
          'pass',
          credentials?.expiration
            ? trans.__(
                'Temporary credentials were fetched from %1; they expire at %2 and are fetched again before.',
                displayUrl(settings.credentials.endpoint),
                credentials.expiration.toISOString()
              )
            : trans.__(
                'Credentials were fetched from %1 (without an expiration).',
                displayUrl(settings.credentials.endpoint)
              )
        );
    }
  }

  private async _checkService(settingsOk: boolean): Promise<IInfoCheck> {
    const trans = this._trans;
    const label = trans.__('S3 service');
    const settings = this._settings;
    if (!settingsOk && !this._serviceUrlUsable()) {
      return this._check(
        'service',
        label,
        'skip',
        trans.__(
          'Not checked: the S3 endpoint URL is not valid (see Settings).'
        )
      );
    }
    const url = this._host.serviceUrl(settings);
    const shown = displayUrl(url);
    if (await probeReachable(url, this._options.fetch)) {
      return this._check(
        'service',
        label,
        'pass',
        trans.__('Something answers HTTP at %1.', shown)
      );
    }
    if (await localNetworkBlocked()) {
      const blocked = localNetworkBlockedText(shown, trans);
      return this._check(
        'service',
        label,
        'fail',
        blocked.message,
        blocked.fix
      );
    }
    return this._check(
      'service',
      label,
      'fail',
      trans.__('Nothing answers at %1.', shown),
      trans.__(
        'Check the S3 endpoint URL in the Bookshelf settings, and that the service runs and is reachable from this computer (network, VPN, proxy).'
      )
    );
  }

  private _serviceUrlUsable(): boolean {
    return !checkSettings(this._settings, false, this._trans).some(
      problem => problem.setting === 'endpointUrl'
    );
  }

  /**
   * CORS, the publish bucket and its versioning.
   */
  private async _checkBucket(
    credentials: IInfoCheck,
    service: IInfoCheck
  ): Promise<IInfoCheck[]> {
    const trans = this._trans;
    const settings = this._settings;
    const bucket = settings.publishBucket;
    const labels = {
      cors: trans.__('CORS allows this origin'),
      bucket: trans.__('Publish bucket'),
      versioning: trans.__('Versioning'),
      conditional: trans.__('Conditional writes')
    };
    const skipAll = (why: string, bucketCheck?: IInfoCheck) => [
      this._check('cors', labels.cors, 'skip', why),
      bucketCheck ?? this._check('publish-bucket', labels.bucket, 'skip', why),
      this._check('versioning', labels.versioning, 'skip', why),
      this._check('conditional-writes', labels.conditional, 'skip', why)
    ];
    if (!bucket) {
      return skipAll(
        trans.__('Not checked: no publish bucket is set.'),
        this._check(
          'publish-bucket',
          labels.bucket,
          'fail',
          trans.__('No publish bucket is set, so publishing is off.'),
          trans.__(
            'Set "Publish bucket" in the Bookshelf settings to publish notebooks, or ask an administrator to.'
          )
        )
      );
    }
    const waiting = this._bucketsWait(credentials, service);
    if (waiting) {
      return skipAll(waiting);
    }
    const path = `s3://${bucket}`;
    const origin = this._options.origin;
    let store: IObjectStore;
    try {
      store = await this._host.objectStore(settings, { prompt: false });
      await store.headBucket(bucket);
    } catch (error) {
      const failure = await this._host.explain(error, { bucket }, settings);
      const description = describeError(failure, trans, origin);
      if (failure.code === 'CorsRefused') {
        return [
          this._check(
            'cors',
            labels.cors,
            'fail',
            trans.__(
              'A HEAD request for %1 from this page (%2) got no answer the page may read, although the S3 service answers: the bucket does not exist, or its CORS rules do not allow this origin.',
              path,
              origin
            ),
            description.fix,
            { rule: description.rule }
          ),
          this._check(
            'publish-bucket',
            labels.bucket,
            'fail',
            trans.__(
              'Could not be checked: the browser keeps the answers of %1 from this page (see CORS).',
              path
            ),
            trans.__(
              'Check the name in "Publish bucket"; if it is right, add the CORS rule shown above to the bucket.'
            )
          ),
          this._check(
            'versioning',
            labels.versioning,
            'skip',
            trans.__('Not checked: the bucket cannot be read from this page.')
          ),
          this._check(
            'conditional-writes',
            labels.conditional,
            'skip',
            trans.__('Not checked: the bucket cannot be read from this page.')
          )
        ];
      }
      return [
        this._check(
          'cors',
          labels.cors,
          'skip',
          trans.__(
            'Not checked: the bucket could not be used (see Publish bucket).'
          )
        ),
        this._check(
          'publish-bucket',
          labels.bucket,
          'fail',
          trans.__(
            'A HEAD request for %1 failed: %2',
            path,
            description.message
          ),
          description.fix
        ),
        this._check(
          'versioning',
          labels.versioning,
          'skip',
          trans.__('Not checked: the bucket could not be used.')
        ),
        this._check(
          'conditional-writes',
          labels.conditional,
          'skip',
          trans.__('Not checked: the bucket could not be used.')
        )
      ];
    }

    const cors = await this._readCors(store, bucket);
    const policy = await this._readPolicy(store, bucket);
    return [
      this._corsCheck(cors, path, labels.cors),
      this._bucketCheck(cors, policy, path, labels.bucket),
      await this._versioningCheck(store, bucket, labels.versioning),
      await this._conditionalCheck(store, bucket, labels.conditional)
    ];
  }

  /**
   * Why no bucket can be checked yet, or null when they can: they need
   * credentials and an S3 service that answers.
   */
  private _bucketsWait(
    credentials: IInfoCheck,
    service: IInfoCheck
  ): string | null {
    const trans = this._trans;
    if (credentials.state !== 'pass') {
      return trans.__('Not checked: no credentials (see Credentials).');
    }
    if (service.state === 'skip') {
      return trans.__(
        'Not checked until the settings are corrected (see Settings).'
      );
    }
    if (service.state !== 'pass') {
      return trans.__(
        'Not checked: the S3 service does not answer (see S3 service).'
      );
    }
    return null;
  }

  /**
   * The buckets links may clone from (`allowedBuckets`): each one named
   * without a wildcard gets its own row; a pattern cannot be checked.
   */
  private async _checkCloneBuckets(
    credentials: IInfoCheck,
    service: IInfoCheck
  ): Promise<IInfoCheck[]> {
    const trans = this._trans;
    const patterns = [...new Set(this._settings.allowedBuckets)];
    if (!patterns.length) {
      return [
        this._check(
          'clone-buckets',
          trans.__('Buckets links clone from'),
          'skip',
          trans.__(
            'Links may clone from any bucket ("allowedBuckets" is empty), so no bucket was checked. Name the buckets people clone from in "allowedBuckets" to have each checked here.'
          )
        )
      ];
    }
    const label = (bucket: string) => trans.__('Clone bucket s3://%1', bucket);
    const named = patterns.filter(pattern => !pattern.includes('*'));
    const checked = named.slice(0, CLONE_BUCKET_CHECKS.atMost);
    const rows: IInfoCheck[] = [];
    const skipWhy = this._bucketsWait(credentials, service);
    if (skipWhy) {
      rows.push(
        ...checked.map(bucket =>
          this._check(`clone-bucket:${bucket}`, label(bucket), 'skip', skipWhy)
        )
      );
    } else {
      let store: IObjectStore | null = null;
      let storeFailure: unknown = null;
      try {
        store = await this._host.objectStore(this._settings, {
          prompt: false
        });
      } catch (error) {
        storeFailure = error;
      }
      rows.push(
        ...(await mapAtMost(checked, CLONE_BUCKET_CHECKS.atOnce, bucket =>
          store
            ? this._checkCloneBucket(store, bucket, label(bucket))
            : this._failedCloneBucket(storeFailure, bucket, label(bucket))
        ))
      );
    }
    for (const bucket of named.slice(CLONE_BUCKET_CHECKS.atMost)) {
      rows.push(
        this._check(
          `clone-bucket:${bucket}`,
          label(bucket),
          'skip',
          trans.__(
            'Not checked: the panel checks the first %1 buckets of "allowedBuckets" only.',
            CLONE_BUCKET_CHECKS.atMost
          )
        )
      );
    }
    for (const pattern of patterns.filter(p => p.includes('*'))) {
      rows.push(
        this._check(
          `clone-bucket:${pattern}`,
          trans.__('Clone buckets %1', pattern),
          'skip',
          trans.__(
            'Not checkable: "%1" is a pattern, and the buckets it allows cannot be listed from this page. Name a bucket without wildcards in "allowedBuckets" to have it checked.',
            pattern
          )
        )
      );
    }
    return rows;
  }

  private async _failedCloneBucket(
    error: unknown,
    bucket: string,
    label: string
  ): Promise<IInfoCheck> {
    const failure = await this._host.explain(error, { bucket }, this._settings);
    const description = describeError(
      failure,
      this._trans,
      this._options.origin
    );
    return this._check(
      `clone-bucket:${bucket}`,
      label,
      'fail',
      description.message,
      description.fix
    );
  }

  /**
   * Whether a link to an object of `bucket` can clone from this page: the
   * bucket answers (HEAD), its CORS rules let the page GET with the headers
   * a clone sends and read the ones it needs, and neither a refused listing
   * nor the bucket policy says reading is denied. Nothing is read or
   * written: whether these credentials may read its objects stays unproven.
   */
  private async _checkCloneBucket(
    store: IObjectStore,
    bucket: string,
    label: string
  ): Promise<IInfoCheck> {
    const trans = this._trans;
    const settings = this._settings;
    const origin = this._options.origin;
    const id = `clone-bucket:${bucket}`;
    const path = `s3://${bucket}`;
    const found: string[] = [];
    try {
      await store.headBucket(bucket);
      found.push(
        trans.__(
          '%1 exists and answered a HEAD request from this page made with these credentials.',
          path
        )
      );
    } catch (error) {
      const failure = await this._host.explain(error, { bucket }, settings);
      const description = describeError(failure, trans, origin);
      if (failure.code === 'CorsRefused') {
        return this._check(
          id,
          label,
          'fail',
          trans.__(
            'A HEAD request for %1 from this page (%2) got no answer the page may read, although the S3 service answers: the bucket does not exist, or its CORS rules do not allow this origin, and clone links to it fail.',
            path,
            origin
          ),
          '',
          {
            ...this._corsFix(null),
            fix: trans.__(
              'Check the name in "allowedBuckets". If it is right, ask an administrator to add this rule at the start of the bucket\'s CORS configuration, keeping the rules it has (S3 console: the bucket, Permissions, Cross-origin resource sharing; the configuration is a list of rules):'
            )
          }
        );
      }
      if (failure.code !== 'AccessDenied') {
        return this._check(
          id,
          label,
          'fail',
          trans.__(
            'A HEAD request for %1 failed: %2',
            path,
            description.message
          ),
          failure.code === 'NoSuchBucket'
            ? trans.__(
                'Correct the name in "allowedBuckets", or create the bucket.'
              )
            : description.fix
        );
      }
      // HEAD on a bucket needs the permission to list it; a clone reads
      // single objects, which may be allowed all the same.
      found.push(
        trans.__(
          '%1 answered, but these credentials may not list it (a HEAD request was refused): clones work only if they may read its objects, which only a clone shows.',
          path
        )
      );
    }

    const cors = await this._readCors(store, bucket);
    let corsFailure: Pick<
      IInfoCheck,
      'fix' | 'rule' | 'corsConfiguration'
    > | null = null;
    switch (cors.state) {
      case 'none':
        found.push(
          trans.__(
            'It has no CORS rules of its own, but the S3 service let this page read its answers: it allows this origin for every bucket.'
          )
        );
        break;
      case 'unreadable':
        if (cors.reason.code === 'CorsRefused') {
          found.push(
            trans.__(
              'Its CORS rules let this page (%1) send HEAD requests but not GET requests, so clones from it fail.',
              origin
            )
          );
          corsFailure = this._corsFix(null);
        } else {
          found.push(
            trans.__(
              'Its CORS rules let this page (%1) send GET requests with the headers a clone sends; they could not be read with these credentials, so whether the page may read ETag and x-amz-version-id was not checked.',
              origin
            )
          );
        }
        break;
      case 'rules': {
        const verdict = checkCorsRules(cors.rules, origin, CLONE_METHODS);
        if (!verdict.refusedMethods.length && !verdict.hiddenHeaders.length) {
          found.push(
            trans.__(
              'Its CORS rules allow GET from this page (%1) with the headers a clone sends, and let it read the headers a clone checks.',
              origin
            )
          );
        } else {
          found.push(
            verdict.refusedMethods.length
              ? trans.__(
                  'Its CORS rules do not allow GET from this page (%1) with the headers a clone sends, so clones from it fail.',
                  origin
                )
              : trans.__(
                  'Its CORS rules do not let this page read these answer headers, which a clone checks: %1.',
                  verdict.hiddenHeaders.join('; ')
                )
          );
          corsFailure = this._corsFix(cors.rules);
        }
        break;
      }
    }

    const policy = await this._readPolicy(
      store,
      bucket,
      's3:GetObject',
      'notebook.ipynb'
    );
    const denied = policy.state === 'read' && policy.verdict === 'denied';
    if (policy.state === 'unreadable') {
      found.push(
        trans.__(
          'Its bucket policy could not be read with these credentials, so it was not checked for denials.'
        )
      );
    } else if (denied) {
      found.push(
        trans.__(
          'Its bucket policy denies reading objects (s3:GetObject) to everyone, so clones from it fail.'
        )
      );
    } else if (policy.verdict === 'maybe') {
      found.push(
        trans.__(
          'Its bucket policy denies reading objects (s3:GetObject) to some principals or under conditions; whether these credentials are concerned is not known.'
        )
      );
    } else {
      found.push(trans.__('Its bucket policy denies no reading of objects.'));
    }
    if (corsFailure) {
      return this._check(id, label, 'fail', found.join(' '), '', corsFailure);
    }
    if (denied) {
      return this._check(
        id,
        label,
        'fail',
        found.join(' '),
        trans.__(
          'Ask the owner of the bucket to lift the Deny statement for s3:GetObject, or remove the bucket from "allowedBuckets".'
        )
      );
    }
    return this._check(id, label, 'pass', found.join(' '));
  }

  /**
   * Whether the service honours If-None-Match and If-Match on uploads, which
   * the policies 'never' and 'confirm' rely on. Probed (see
   * `probeConditionalWrites`: nothing stays written) unless the policy is
   * 'always', which relies on neither; the answer is remembered for the
   * session and shared with publishing.
   */
  private async _conditionalCheck(
    store: IObjectStore,
    bucket: string,
    label: string
  ): Promise<IInfoCheck> {
    const trans = this._trans;
    const settings = this._settings;
    const policy = settings.overwritePolicy;
    const where = `s3://${bucket}/${settings.publishPrefix}`;
    const known = this._host.knownConditionalWrites(bucket, settings);
    if (policy === 'always' && !known) {
      return this._check(
        'conditional-writes',
        label,
        'skip',
        trans.__(
          "Not checked: the overwrite policy 'always' replaces published objects without conditions, so it does not rely on them."
        )
      );
    }
    let answer: IConditionalWrites;
    try {
      answer = await (known ??
        this._host.conditionalWrites(bucket, store, settings));
    } catch (error) {
      const failure = await this._host.explain(error, { bucket }, settings);
      const description = describeError(failure, trans, this._options.origin);
      return this._check(
        'conditional-writes',
        label,
        'fail',
        trans.__(
          'Could not be checked: an upload with an If-Match condition to a new key below %1 failed: %2',
          where,
          description.message
        ),
        description.fix
      );
    }
    if (answer.ifMatch && answer.ifNoneMatch) {
      return this._check(
        'conditional-writes',
        label,
        'pass',
        trans.__(
          "An upload to a new key below %1 with an If-Match condition that no object can meet was refused, so the S3 service honours conditional writes: the overwrite policy 'never' and the confirmed replace of 'confirm' keep their promise. Nothing was written.",
          where
        )
      );
    }
    const found = [
      trans.__(
        'An upload to a new key below %1 with an If-Match condition that no object can meet was stored, so the S3 service ignores If-Match.',
        where
      ),
      answer.ifNoneMatch
        ? trans.__(
            'It refused an upload with If-None-Match: * onto that object, so it honours If-None-Match.'
          )
        : trans.__(
            'It also stored an upload with If-None-Match: * onto that object, so it ignores If-None-Match.'
          ),
      answer.leftover
        ? trans.__(
            'The check could not delete its object %1: delete it.',
            answer.leftover
          )
        : trans.__('The check deleted what it wrote.'),
      answer.ifNoneMatch
        ? trans.__(
            "Bookshelf refuses what it cannot protect here: the confirmed replace of the overwrite policy 'confirm'."
          )
        : trans.__(
            "Bookshelf refuses what it cannot protect here: the overwrite policy 'never' and the confirmed replace of 'confirm'."
          )
    ];
    return this._check(
      'conditional-writes',
      label,
      'fail',
      found.join(' '),
      trans.__(
        "Set overwritePolicy to 'always' in the Bookshelf settings, knowing that a publish then replaces whatever is published at its path, or use an S3 service that supports conditional writes."
      )
    );
  }

  private async _readCors(
    store: IObjectStore,
    bucket: string
  ): Promise<CorsReading> {
    try {
      const rules = await store.getBucketCors(bucket);
      return rules === null ? { state: 'none' } : { state: 'rules', rules };
    } catch (error) {
      return {
        state: 'unreadable',
        reason: await this._host.explain(error, { bucket }, this._settings)
      };
    }
  }

  /**
   * Whether the bucket policy denies `action` on `key` (of a kind the
   * extension would use).
   */
  private async _readPolicy(
    store: IObjectStore,
    bucket: string,
    action = 's3:PutObject',
    key = `${this._settings.publishPrefix}bookshelf-check.ipynb`
  ): Promise<
    | { state: 'read'; verdict: PolicyVerdict }
    | { state: 'unreadable'; reason: BookshelfError }
  > {
    try {
      const policy = await store.getBucketPolicy(bucket);
      return {
        state: 'read',
        verdict: policy
          ? policyDenies(policy, action, `arn:aws:s3:::${bucket}/${key}`)
          : 'none'
      };
    } catch (error) {
      return {
        state: 'unreadable',
        reason: await this._host.explain(error, { bucket }, this._settings)
      };
    }
  }

  /**
   * What to show an administrator for a bucket whose rules fall short: the
   * one rule to add and, where the page could read the bucket's rules, the
   * whole configuration with it, which keeps the rules other sites rely on.
   */
  private _corsFix(
    rules: ICorsRule[] | null
  ): Pick<IInfoCheck, 'fix' | 'rule' | 'corsConfiguration'> {
    const trans = this._trans;
    const origin = this._options.origin;
    const rule = corsRule(origin);
    if (!rules) {
      return {
        fix: trans.__(
          "Ask an administrator to add this rule at the start of the bucket's CORS configuration, keeping the rules it has (S3 console: the bucket, Permissions, Cross-origin resource sharing; the configuration is a list of rules):"
        ),
        rule
      };
    }
    const merged = mergeCorsRules(rules, origin);
    // The first rule is this origin's; the rest are kept for other origins.
    const kept = merged.length - 1;
    return {
      fix: kept
        ? trans._n(
            "Ask an administrator to replace the bucket's CORS configuration (S3 console: the bucket, Permissions, Cross-origin resource sharing) with the configuration below: it keeps the bucket's rule for other origins as it is, and gives this origin one rule of its own, first, since S3 uses the first rule that matches. The rule for this origin alone:",
            "Ask an administrator to replace the bucket's CORS configuration (S3 console: the bucket, Permissions, Cross-origin resource sharing) with the configuration below: it keeps the bucket's %1 rules for other origins as they are, and gives this origin one rule of its own, first, since S3 uses the first rule that matches. The rule for this origin alone:",
            kept
          )
        : trans.__(
            "Ask an administrator to replace the bucket's CORS configuration (S3 console: the bucket, Permissions, Cross-origin resource sharing) with the configuration below, whose one rule, for this origin, keeps what the bucket's rule allowed it and adds what Bookshelf needs:"
          ),
      rule,
      corsConfiguration: JSON.stringify(merged, null, 2)
    };
  }

  private _corsCheck(
    cors: CorsReading,
    path: string,
    label: string
  ): IInfoCheck {
    const trans = this._trans;
    const origin = this._options.origin;
    switch (cors.state) {
      case 'none':
        return this._check(
          'cors',
          label,
          'pass',
          trans.__(
            '%1 has no CORS rules of its own, but the S3 service let this page (%2) read its answer to a HEAD request: it allows this origin for every bucket. Whether it allows uploads (PUT) could not be read.',
            path,
            origin
          )
        );
      case 'unreadable':
        if (cors.reason.code === 'CorsRefused') {
          return this._check(
            'cors',
            label,
            'fail',
            trans.__(
              'The CORS rules of %1 let this page (%2) send HEAD requests but not GET requests.',
              path,
              origin
            ),
            '',
            this._corsFix(null)
          );
        }
        return this._check(
          'cors',
          label,
          'pass',
          trans.__(
            'The S3 service let this page (%1) read its answer to a HEAD request for %2. Its CORS rules could not be read with these credentials (%3), so whether they allow GET and PUT with the headers Bookshelf sends was not checked.',
            origin,
            path,
            describeError(cors.reason, trans, origin).message
          )
        );
      case 'rules': {
        const { refusedMethods, hiddenHeaders } = checkCorsRules(
          cors.rules,
          origin
        );
        if (!refusedMethods.length && !hiddenHeaders.length) {
          const passed = trans.__(
            'The CORS rules of %1 allow GET, HEAD and PUT from this page (%2) with the headers Bookshelf sends, and let it read ETag and x-amz-version-id.',
            path,
            origin
          );
          if (
            checkCorsRules(cors.rules, origin, PARTS_METHODS).refusedMethods
              .length
          ) {
            // Publishing works; only large notebooks lose the upload in parts.
            const { fix, ...rest } = this._corsFix(cors.rules);
            return this._check(
              'cors',
              label,
              'pass',
              `${passed} ${trans.__(
                'They do not allow POST, so a notebook above %1 MiB is published in one upload instead of in parts.',
                String(publishRules.multipart.above / 1024 ** 2)
              )}`,
              `${trans.__('To publish large notebooks in parts:')} ${fix}`,
              rest
            );
          }
          return this._check('cors', label, 'pass', passed);
        }
        const found: string[] = [];
        if (refusedMethods.length) {
          found.push(
            trans.__(
              'The CORS rules of %1 do not allow %2 from this page (%3) with the headers Bookshelf sends.',
              path,
              refusedMethods.join(', '),
              origin
            )
          );
        }
        if (hiddenHeaders.length) {
          found.push(
            trans.__(
              'They do not let the page read these answer headers: %1.',
              hiddenHeaders.join('; ')
            )
          );
        }
        return this._check(
          'cors',
          label,
          'fail',
          found.join(' '),
          '',
          this._corsFix(cors.rules)
        );
      }
    }
  }

  private _bucketCheck(
    cors: CorsReading,
    policy: Awaited<ReturnType<LiveChecks['_readPolicy']>>,
    path: string,
    label: string
  ): IInfoCheck {
    const trans = this._trans;
    const prefix = this._settings.publishPrefix;
    const where = prefix ? `${path}/${prefix}` : path;
    const found: string[] = [
      trans.__(
        '%1 exists and answered a HEAD request made with these credentials.',
        path
      )
    ];
    const putRefused =
      cors.state === 'rules' &&
      checkCorsRules(cors.rules, this._options.origin, [
        'PUT'
      ]).refusedMethods.includes('PUT');
    if (cors.state === 'rules') {
      found.push(
        putRefused
          ? trans.__(
              'Its CORS rules do not allow uploads (PUT) from this page.'
            )
          : trans.__('Its CORS rules allow uploads (PUT) from this page.')
      );
    }
    if (policy.state === 'unreadable') {
      found.push(
        trans.__(
          'Its bucket policy could not be read with these credentials, so it was not checked for denials.'
        )
      );
    } else if (policy.verdict === 'denied') {
      found.push(
        trans.__(
          'Its bucket policy denies uploads (s3:PutObject) below %1 to everyone.',
          where
        )
      );
    } else if (policy.verdict === 'maybe') {
      found.push(
        trans.__(
          'Its bucket policy denies uploads (s3:PutObject) below %1 to some principals or under conditions; whether these credentials are concerned is not known.',
          where
        )
      );
    } else {
      found.push(
        trans.__('Its bucket policy denies no uploads below %1.', where)
      );
    }
    found.push(
      trans.__(
        'Nothing was written: only an upload proves that these credentials may write (s3:PutObject).'
      )
    );
    if (policy.state === 'read' && policy.verdict === 'denied') {
      return this._check(
        'publish-bucket',
        label,
        'fail',
        found.join(' '),
        trans.__(
          'Ask the owner of the bucket to lift the Deny statement for s3:PutObject, or set another "Publish bucket" in the Bookshelf settings.'
        )
      );
    }
    if (putRefused) {
      return this._check(
        'publish-bucket',
        label,
        'fail',
        found.join(' '),
        trans.__('Add the CORS rule shown under "CORS allows this origin".')
      );
    }
    return this._check('publish-bucket', label, 'pass', found.join(' '));
  }

  private async _versioningCheck(
    store: IObjectStore,
    bucket: string,
    label: string
  ): Promise<IInfoCheck> {
    const trans = this._trans;
    try {
      const versioning = await store.getBucketVersioning(bucket);
      if (versioning === 'Enabled') {
        return this._check(
          'versioning',
          label,
          'pass',
          trans.__(
            'Versioning is on for s3://%1: every publish keeps the earlier versions, and clone links name the version.',
            bucket
          )
        );
      }
      return this._check(
        'versioning',
        label,
        'fail',
        versioning === 'Suspended'
          ? trans.__(
              'Versioning is suspended for s3://%1: a publish replaces the earlier object for good.',
              bucket
            )
          : trans.__(
              'Versioning is off for s3://%1: a publish replaces the earlier object for good.',
              bucket
            ),
        trans.__(
          'Ask an administrator to turn versioning on for the bucket (S3 console: the bucket, Properties, Bucket Versioning) to keep every version.'
        )
      );
    } catch (error) {
      const failure = await this._host.explain(
        error,
        { bucket },
        this._settings
      );
      const description = describeError(failure, trans, this._options.origin);
      return this._check(
        'versioning',
        label,
        'fail',
        trans.__(
          'The versioning state of s3://%1 could not be read: %2',
          bucket,
          description.message
        ),
        description.fix
      );
    }
  }
}
