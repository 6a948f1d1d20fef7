/**
 * Parsing and checking of the Bookshelf settings (schema/core.json).
 * No UI imports: used by the plugins and unit tested on its own.
 */
import { CredentialsMode, IBookshelfSettings, OverwritePolicy } from './tokens';

const CREDENTIALS_MODES: CredentialsMode[] = [
  'anonymous',
  'session',
  'settings',
  'endpoint'
];
const OVERWRITE_POLICIES: OverwritePolicy[] = ['confirm', 'always', 'never'];

/**
 * The defaults, as in the schema.
 */
export const DEFAULT_SETTINGS: IBookshelfSettings = {
  endpointUrl: '',
  region: 'us-east-1',
  forcePathStyle: false,
  credentials: {
    mode: 'session',
    accessKeyId: '',
    secretAccessKey: '',
    sessionToken: '',
    endpoint: ''
  },
  publishBucket: '',
  publishPrefix: '',
  overwritePolicy: 'confirm',
  allowedBuckets: [],
  openAfterClone: true,
  maxObjectSizeMB: 200
};

function asString(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value.trim() : fallback;
}

function asBoolean(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

function asChoice<T extends string>(
  value: unknown,
  choices: T[],
  fallback: T
): T {
  return choices.includes(value as T) ? (value as T) : fallback;
}

/**
 * Turn the composite settings of the registry into typed settings; anything
 * missing or of the wrong type takes its default.
 */
export function parseSettings(composite: unknown): IBookshelfSettings {
  const raw = (composite && typeof composite === 'object' ? composite : {}) as {
    [key: string]: any;
  };
  const credentials = (
    raw.credentials && typeof raw.credentials === 'object'
      ? raw.credentials
      : {}
  ) as { [key: string]: unknown };
  const defaults = DEFAULT_SETTINGS;
  const maxSize = Number(raw.maxObjectSizeMB);
  return {
    endpointUrl: asString(raw.endpointUrl, defaults.endpointUrl).replace(
      /\/+$/,
      ''
    ),
    region: asString(raw.region, defaults.region),
    forcePathStyle: asBoolean(raw.forcePathStyle, defaults.forcePathStyle),
    credentials: {
      mode: asChoice(
        credentials.mode,
        CREDENTIALS_MODES,
        defaults.credentials.mode
      ),
      accessKeyId: asString(credentials.accessKeyId, ''),
      secretAccessKey: asString(credentials.secretAccessKey, ''),
      sessionToken: asString(credentials.sessionToken, ''),
      endpoint: asString(credentials.endpoint, '')
    },
    publishBucket: asString(raw.publishBucket, defaults.publishBucket),
    publishPrefix: asString(raw.publishPrefix, defaults.publishPrefix).replace(
      /^\/+/,
      ''
    ),
    overwritePolicy: asChoice(
      raw.overwritePolicy,
      OVERWRITE_POLICIES,
      defaults.overwritePolicy
    ),
    allowedBuckets: Array.isArray(raw.allowedBuckets)
      ? raw.allowedBuckets
          .filter((item: unknown) => typeof item === 'string')
          .map((item: string) => item.trim())
          .filter((item: string) => item.length > 0)
      : [],
    openAfterClone: asBoolean(raw.openAfterClone, defaults.openAfterClone),
    maxObjectSizeMB:
      Number.isFinite(maxSize) && maxSize >= 0
        ? maxSize
        : defaults.maxObjectSizeMB
  };
}

/**
 * A problem of the settings, by setting name.
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
  forPublish = false
): ISettingsProblem[] {
  const problems: ISettingsProblem[] = [];
  if (settings.endpointUrl) {
    let url: URL | null = null;
    try {
      url = new URL(settings.endpointUrl);
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      problems.push({
        setting: 'endpointUrl',
        message: `'${settings.endpointUrl}' is not an http or https URL.`
      });
    } else if (url.username || url.password) {
      problems.push({
        setting: 'endpointUrl',
        message: 'The endpoint URL must not contain a user name or password.'
      });
    }
  }
  if (!settings.region) {
    problems.push({ setting: 'region', message: 'The region is empty.' });
  }
  const credentials = settings.credentials;
  if (credentials.mode === 'settings') {
    if (!credentials.accessKeyId || !credentials.secretAccessKey) {
      problems.push({
        setting: 'credentials',
        message:
          "The mode is 'settings' but the access key id or the secret access key is empty."
      });
    }
  } else if (credentials.mode === 'endpoint' && !credentials.endpoint) {
    problems.push({
      setting: 'credentials',
      message: "The mode is 'endpoint' but no credentials URL is set."
    });
  }
  if (forPublish && !settings.publishBucket) {
    problems.push({
      setting: 'publishBucket',
      message: 'No publish bucket is set.'
    });
  }
  return problems;
}

/**
 * The settings as they may be shown: every secret left out.
 */
export function publicSettings(settings: IBookshelfSettings): {
  [key: string]: string | boolean | number | string[];
} {
  return {
    endpointUrl: settings.endpointUrl,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentialsMode: settings.credentials.mode,
    credentialsEndpoint: settings.credentials.endpoint,
    publishBucket: settings.publishBucket,
    publishPrefix: settings.publishPrefix,
    overwritePolicy: settings.overwritePolicy,
    allowedBuckets: settings.allowedBuckets,
    openAfterClone: settings.openAfterClone,
    maxObjectSizeMB: settings.maxObjectSizeMB
  };
}
