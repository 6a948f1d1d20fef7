/**
 * Parsing and checking of the Bookshelf settings (schema/core.json).
 * No UI imports: used by the plugins and unit tested on its own.
 */
import { nullTranslator, TranslationBundle } from '@jupyterlab/translation';

import featureRules from '../rules/features.json';
import { ruleMessage } from '../rules/translate';
import { checkBucket } from '../s3/names';
import { displayEndpointUrl, displayUrl, hasUserInfo } from '../s3/urls';
import { TRANSLATION_DOMAIN } from '../package';
import { USERNAME_PLACEHOLDER } from './deployment';
import { IBookshelfSettings } from '../tokens';

// Parsing loads with the plugins; the checks below load on first use.
export { DEFAULT_SETTINGS, parseSettings } from './parse';

/**
 * A problem of the settings, by setting name. The message is translated and
 * names settings, never their values (a value may hold a secret).
 */
export interface ISettingsProblem {
  setting: string;
  message: string;
}

/**
 * What is wrong with the settings for cloning (and, with `forPublish`, for
 * publishing). An empty list means the settings are usable.
 */
export function checkSettings(
  settings: IBookshelfSettings,
  forPublish = false,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): ISettingsProblem[] {
  const problems: ISettingsProblem[] = [];
  if (settings.endpointUrl) {
    if (displayEndpointUrl(settings.endpointUrl) === null) {
      problems.push({
        setting: 'endpointUrl',
        message: trans.__(
          'The S3 endpoint URL is not an http:// or https:// URL.'
        )
      });
    } else if (hasUserInfo(settings.endpointUrl)) {
      problems.push({
        setting: 'endpointUrl',
        message: trans.__(
          'The S3 endpoint URL must not contain a user name or password; the credentials mode says how to sign in.'
        )
      });
    }
  }
  if (!settings.region) {
    problems.push({
      setting: 'region',
      message: trans.__('The region is empty.')
    });
  }
  const credentials = settings.credentials;
  if (credentials.mode === 'settings') {
    if (!credentials.accessKeyId || !credentials.secretAccessKey) {
      problems.push({
        setting: 'credentials',
        message: trans.__(
          'The credentials mode is "settings" but the access key id or the secret access key is empty.'
        )
      });
    }
  } else if (credentials.mode === 'endpoint' && !credentials.endpoint) {
    problems.push({
      setting: 'credentials',
      message: trans.__(
        'The credentials mode is "endpoint" but no credentials URL is set.'
      )
    });
  }
  if (forPublish) {
    if (!settings.publishBucket) {
      problems.push({
        setting: 'publishBucket',
        message: trans.__('No publish bucket is set.')
      });
    } else {
      const rule = checkBucket(settings.publishBucket, trans);
      if (rule) {
        problems.push({
          setting: 'publishBucket',
          message: trans.__('The publish bucket name is not valid: %1.', rule)
        });
      }
    }
    // Resolved under a JupyterHub (./deployment.ts); elsewhere nobody is
    // the user it would name.
    if (settings.publishPrefix.includes(USERNAME_PLACEHOLDER)) {
      problems.push({
        setting: 'publishPrefix',
        message: trans.__(
          'The publish prefix contains %1, which only a JupyterHub server can fill in; this server is not part of a hub.',
          USERNAME_PLACEHOLDER
        )
      });
    }
  }
  return problems;
}

/**
 * The settings as they may be shown: every secret left out, URLs without
 * user name, password, query or fragment.
 */
export function publicSettings(settings: IBookshelfSettings): {
  [key: string]: string | boolean | number | string[];
} {
  return {
    endpointUrl: settings.endpointUrl
      ? (displayEndpointUrl(settings.endpointUrl) ??
        displayUrl(settings.endpointUrl))
      : '',
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentialsMode: settings.credentials.mode,
    credentialsEndpoint: displayUrl(settings.credentials.endpoint),
    publishBucket: settings.publishBucket,
    publishPrefix: settings.publishPrefix,
    overwritePolicy: settings.overwritePolicy,
    allowedBuckets: settings.allowedBuckets,
    openAfterClone: settings.openAfterClone,
    openAfterCloneMaxMB: settings.openAfterCloneMaxMB,
    maxObjectSizeMB: settings.maxObjectSizeMB
  };
}

const PROBLEMS = featureRules.problems;

/**
 * A problem text of the API (`settings_problem`), shared with the server
 * extension: English, never translated (the null bundle only fills its
 * placeholders).
 */
function api(template: string, ...args: string[]): string {
  return ruleMessage(
    nullTranslator.load(TRANSLATION_DOMAIN),
    template,
    ...args
  );
}

/**
 * The features of the configuration, as the server shim's
 * `GET /api/bookshelf` reports them (`features()` in
 * jupyterlab_bookshelf/settings.py): the same names, values and problem
 * texts, so that the browser's `IBookshelf.info()` and the shim agree. The
 * problem texts are the API's (English, naming settings, never values); the
 * info panel shows translated checks instead.
 */
export function features(settings: IBookshelfSettings): {
  [name: string]: boolean | string;
} {
  const clone: string[] = [];
  if (!settings.region) {
    clone.push(api(PROBLEMS.regionEmpty));
  }
  if (settings.endpointUrl) {
    if (displayEndpointUrl(settings.endpointUrl) === null) {
      clone.push(api(PROBLEMS.endpointNotHttp));
    } else if (hasUserInfo(settings.endpointUrl)) {
      clone.push(api(PROBLEMS.endpointUserInfo));
    }
  }
  const credentials = settings.credentials;
  if (credentials.mode === 'settings') {
    for (const name of ['accessKeyId', 'secretAccessKey'] as const) {
      if (!credentials[name]) {
        clone.push(api(PROBLEMS.settingsKeyEmpty, name));
      }
    }
  } else if (credentials.mode === 'endpoint' && !credentials.endpoint) {
    clone.push(api(PROBLEMS.endpointEmpty));
  }
  const publish: string[] = [];
  const rule = settings.publishBucket
    ? checkBucket(settings.publishBucket)
    : null;
  if (rule) {
    publish.push(api(PROBLEMS.publishBucket, rule));
  }
  // Filled in under a JupyterHub (./deployment.ts) before it gets here.
  if (settings.publishPrefix.includes(USERNAME_PLACEHOLDER)) {
    publish.push(api(PROBLEMS.publishPrefixUser, USERNAME_PLACEHOLDER));
  }
  return {
    clone_valid: clone.length === 0,
    publish_valid:
      clone.length === 0 && publish.length === 0 && !!settings.publishBucket,
    credentials_mode: credentials.mode,
    endpoint_url: settings.endpointUrl
      ? (displayEndpointUrl(settings.endpointUrl) ?? '')
      : '',
    region: settings.region,
    force_path_style: settings.forcePathStyle,
    publish_bucket: settings.publishBucket,
    publish_prefix: settings.publishPrefix,
    overwrite_policy: settings.overwritePolicy,
    links_restricted: settings.allowedBuckets.length > 0,
    settings_problem: [...clone, ...publish].join('; ')
  };
}
