/**
 * Parsing of the Bookshelf settings (schema/core.json): the part the
 * plugins need at start-up, kept apart from the checks in `./checks.ts`.
 * The defaults and choices are data shared with the server extension
 * (`src/rules/settings.json`).
 */
import settingsRules from '../rules/settings.json';
import type {
  CredentialsMode,
  IBookshelfSettings,
  OverwritePolicy
} from '../tokens';

const CREDENTIALS_MODES = settingsRules.choices[
  'credentials.mode'
] as CredentialsMode[];
const OVERWRITE_POLICIES = settingsRules.choices[
  'overwritePolicy'
] as OverwritePolicy[];

/**
 * The defaults (`src/rules/settings.json`: the settings' defaults and
 * choices, which the server extension applies too; settings.spec.ts and
 * test_settings_rules.py check that schema/core.json says the same).
 */
export const DEFAULT_SETTINGS = settingsRules.defaults as IBookshelfSettings;

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
  const choice = typeof value === 'string' ? value.trim() : value;
  return choices.includes(choice as T) ? (choice as T) : fallback;
}

/** A size in MB: a number, finite and not negative (not `"50"`, `[50]` or `true`). */
function asSize(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
    ? value
    : fallback;
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
    openAfterCloneMaxMB: asSize(
      raw.openAfterCloneMaxMB,
      defaults.openAfterCloneMaxMB
    ),
    maxObjectSizeMB: asSize(raw.maxObjectSizeMB, defaults.maxObjectSizeMB)
  };
}
