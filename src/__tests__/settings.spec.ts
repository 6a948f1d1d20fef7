import * as fs from 'fs';
import * as path from 'path';

import {
  checkSettings,
  DEFAULT_SETTINGS,
  parseSettings,
  publicSettings
} from '../settings';
import { VERSION } from '../version';

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
      maxObjectSizeMB: 50
    });
  });

  it('falls back to the default for values of the wrong type', () => {
    const settings = parseSettings({
      region: 42,
      credentials: { mode: 'magic' },
      overwritePolicy: 'sometimes',
      allowedBuckets: 'examples',
      maxObjectSizeMB: -1
    });
    expect(settings.region).toBe('us-east-1');
    expect(settings.credentials.mode).toBe('session');
    expect(settings.overwritePolicy).toBe('confirm');
    expect(settings.allowedBuckets).toEqual([]);
    expect(settings.maxObjectSizeMB).toBe(200);
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
    ['ftp://example.org', 'endpointUrl'],
    ['not a url', 'endpointUrl'],
    ['http://user:pw@example.org', 'endpointUrl']
  ])('refuses the endpoint %s', (endpointUrl, setting) => {
    const problems = checkSettings({ ...base, endpointUrl });
    expect(problems.map(p => p.setting)).toEqual([setting]);
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

describe('publicSettings', () => {
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
