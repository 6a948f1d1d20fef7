import * as fs from 'fs';
import * as path from 'path';

import {
  checkSettings,
  DEFAULT_SETTINGS,
  parseSettings,
  publicSettings
} from '../settings/checks';
import { displayEndpointUrl, displayUrl } from '../s3/urls';
import { VERSION } from '../package';
import settingsRules from '../rules/settings.json';

const schema = JSON.parse(
  fs.readFileSync(
    path.join(__dirname, '..', '..', 'schema', 'core.json'),
    'utf8'
  )
);

describe('parseSettings', () => {
  it('gives the defaults for empty settings', () => {
    expect(parseSettings({})).toEqual(DEFAULT_SETTINGS);
    expect(parseSettings(undefined)).toEqual(DEFAULT_SETTINGS);
  });

  it('has the same defaults as the schema', () => {
    const fromSchema: { [key: string]: unknown } = {};
    for (const [key, property] of Object.entries<any>(schema.properties)) {
      fromSchema[key] = property.default;
    }
    expect(parseSettings(fromSchema)).toEqual(DEFAULT_SETTINGS);
    expect(Object.keys(DEFAULT_SETTINGS).sort()).toEqual(
      Object.keys(schema.properties).sort()
    );
  });

  it('has the defaults and choices of the schema in the shared rules', () => {
    // The server extension checks the same (test_settings_rules.py).
    const defaults = (properties: { [key: string]: any }) =>
      Object.fromEntries(
        Object.entries(properties).map(([key, property]) => [
          key,
          property.default
        ])
      );
    expect(settingsRules.defaults).toEqual(defaults(schema.properties));
    expect(settingsRules.defaults.credentials).toEqual(
      defaults(schema.properties.credentials.properties)
    );
    const choices = (property: { oneOf: { const: string }[] }) =>
      property.oneOf.map(choice => choice.const);
    expect(settingsRules.choices).toEqual({
      'credentials.mode': choices(
        schema.properties.credentials.properties.mode
      ),
      overwritePolicy: choices(schema.properties.overwritePolicy)
    });
  });

  it('reads every setting', () => {
    const settings = parseSettings({
      endpointUrl: 'http://127.0.0.1:9000/',
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: {
        mode: 'settings',
        accessKeyId: 'AKID',
        secretAccessKey: 'SECRET',
        sessionToken: 'TOKEN',
        endpoint: ''
      },
      publishBucket: 'published',
      publishPrefix: '/team/',
      overwritePolicy: 'never',
      allowedBuckets: ['team-*', ' ', 'examples'],
      openAfterClone: false,
      openAfterCloneMaxMB: 5,
      maxObjectSizeMB: 50
    });
    expect(settings).toEqual({
      endpointUrl: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: {
        mode: 'settings',
        accessKeyId: 'AKID',
        secretAccessKey: 'SECRET',
        sessionToken: 'TOKEN',
        endpoint: ''
      },
      publishBucket: 'published',
      publishPrefix: 'team/',
      overwritePolicy: 'never',
      allowedBuckets: ['team-*', 'examples'],
      openAfterClone: false,
      openAfterCloneMaxMB: 5,
      maxObjectSizeMB: 50
    });
  });

  it('falls back to the default for values of the wrong type', () => {
    const settings = parseSettings({
      region: 42,
      credentials: { mode: 'magic' },
      overwritePolicy: 'sometimes',
      allowedBuckets: 'examples',
      maxObjectSizeMB: -1,
      openAfterCloneMaxMB: 'big'
    });
    expect(settings.region).toBe('us-east-1');
    expect(settings.credentials.mode).toBe('session');
    expect(settings.overwritePolicy).toBe('confirm');
    expect(settings.allowedBuckets).toEqual([]);
    expect(settings.maxObjectSizeMB).toBe(1024);
    expect(settings.openAfterCloneMaxMB).toBe(25);
  });
});

describe('checkSettings', () => {
  const base = parseSettings({});

  it('accepts the defaults for cloning', () => {
    expect(checkSettings(base)).toEqual([]);
  });

  it('needs a publish bucket to publish', () => {
    expect(checkSettings(base, true)).toEqual([
      { setting: 'publishBucket', message: 'No publish bucket is set.' }
    ]);
  });

  it.each([
    ['ftp://example.org/hunter2', 'endpointUrl'],
    ['not a url hunter2', 'endpointUrl'],
    ['http://user:hunter2@example.org', 'endpointUrl'],
    ['https://s3.example.org:99999/hunter2', 'endpointUrl']
  ])('refuses the endpoint %s without quoting it', (endpointUrl, setting) => {
    const problems = checkSettings({ ...base, endpointUrl });
    expect(problems.map(p => p.setting)).toEqual([setting]);
    // The URL may carry a password: the message never quotes it.
    expect(problems[0].message).not.toContain('hunter2');
  });

  it('checks the publish bucket name for publishing', () => {
    const problems = checkSettings(
      { ...base, publishBucket: 'Bad_Bucket' },
      true
    );
    expect(problems).toEqual([
      {
        setting: 'publishBucket',
        message:
          "The publish bucket name is not valid: a bucket name has only lowercase letters a-z, digits, dots and hyphens (found 'B')."
      }
    ]);
  });

  it('translates its messages', () => {
    const trans = { __: (text: string) => `«${text}»` } as any;
    const problems = checkSettings({ ...base, region: '' }, true, trans);
    expect(problems.map(p => p.message)).toEqual([
      '«The region is empty.»',
      '«No publish bucket is set.»'
    ]);
  });

  it('needs both keys in settings mode, without showing them', () => {
    const problems = checkSettings({
      ...base,
      credentials: {
        ...base.credentials,
        mode: 'settings',
        accessKeyId: 'AKID'
      }
    });
    expect(problems).toHaveLength(1);
    expect(problems[0].setting).toBe('credentials');
    expect(problems[0].message).not.toContain('AKID');
  });

  it('needs a URL in endpoint mode', () => {
    const problems = checkSettings({
      ...base,
      credentials: { ...base.credentials, mode: 'endpoint' }
    });
    expect(problems.map(p => p.setting)).toEqual(['credentials']);
  });
});

describe('displayUrl and displayEndpointUrl', () => {
  it.each([
    ['/bookshelf/credentials?token=hunter2#x', '/bookshelf/credentials'],
    ['https://u:hunter2@h.example.org/c?x=1', 'https://h.example.org/c'],
    ['creds', 'creds']
  ])('shows %s as %s', (url, shown) => {
    expect(displayUrl(url)).toBe(shown);
  });

  it.each([
    ['http://127.0.0.1:9000', 'http://127.0.0.1:9000'],
    ['HTTPS://S3.Example.ORG/base/', 'https://s3.example.org/base'],
    [
      'https://u:hunter2@s3.example.org:8443/?sig=hunter2',
      'https://s3.example.org:8443'
    ],
    ['http://[::1]:9000', 'http://[::1]:9000'],
    ['ftp://s3.example.org', null],
    ['http://', null],
    ['s3.example.org', null]
  ])('shows the endpoint %s as %s', (url, shown) => {
    expect(displayEndpointUrl(url)).toBe(shown);
  });
});

describe('publicSettings', () => {
  it('shows URLs without user name, password or query', () => {
    const shown = publicSettings(
      parseSettings({
        endpointUrl: 'https://admin:hunter2@s3.example.org/?k=hunter2',
        credentials: { mode: 'endpoint', endpoint: '/creds?key=hunter2' }
      })
    );
    expect(shown.endpointUrl).toBe('https://s3.example.org');
    expect(shown.credentialsEndpoint).toBe('/creds');
    expect(JSON.stringify(shown)).not.toContain('hunter2');
  });

  it('leaves every secret out', () => {
    const shown = JSON.stringify(
      publicSettings(
        parseSettings({
          credentials: {
            mode: 'settings',
            accessKeyId: 'AKIDEXAMPLE',
            secretAccessKey: 'wJalrXUtnFEMI',
            sessionToken: 'FwoGZXIvYXdzEXAMPLE'
          }
        })
      )
    );
    expect(shown).not.toContain('AKIDEXAMPLE');
    expect(shown).not.toContain('wJalrXUtnFEMI');
    expect(shown).not.toContain('FwoGZXIvYXdzEXAMPLE');
    expect(shown).toContain('"credentialsMode":"settings"');
  });
});

describe('VERSION', () => {
  it('is the version of package.json', () => {
    const packageJson = JSON.parse(
      fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')
    );
    expect(VERSION).toBe(packageJson.version);
  });
});
