import { cloneUrl } from '../publish/destination';
import { checkSettings } from '../settings/checks';
import { isJupyterLite } from '../service/page';
import {
  linkBase,
  readHub,
  resolveDeploymentSettings
} from '../settings/deployment';
import { DEFAULT_SETTINGS } from '../settings/parse';

describe('isJupyterLite', () => {
  it("is true for JupyterLite's page config only", () => {
    expect(isJupyterLite('JupyterLite')).toBe(true);
    for (const name of ['JupyterLab', 'Jupyter Notebook', '']) {
      expect(isJupyterLite(name)).toBe(false);
    }
  });
});

describe('readHub', () => {
  it('is null outside a JupyterHub', () => {
    expect(readHub({})).toBeNull();
    expect(readHub({ hubPrefix: '', hubUser: 'ana' })).toBeNull();
  });

  it("reads the hub's prefix, host and user from the page config", () => {
    expect(
      readHub({ hubPrefix: '/hub/', hubHost: '', hubUser: 'ana' })
    ).toEqual({ prefix: '/hub/', host: '', user: 'ana' });
  });
});

describe('linkBase', () => {
  const request = { s3_bucket: 'published', s3_key: 'users/ana/q3.ipynb' };

  it("is the server's own base outside a hub", () => {
    const base = linkBase(null, 'http://127.0.0.1:8888', '/');
    expect(base.form).toBe('server');
    expect(cloneUrl(base.origin, base.baseUrl, request)).toBe(
      'http://127.0.0.1:8888/bookshelf/clone?s3_bucket=published&s3_key=users%2Fana%2Fq3.ipynb'
    );
  });

  it("goes through the hub's user-redirect under a hub, never into the publisher's server", () => {
    const hub = { prefix: '/hub/', host: '', user: 'ana' };
    const base = linkBase(hub, 'https://hub.example.org', '/user/ana/');
    expect(base.form).toBe('hub');
    const url = cloneUrl(base.origin, base.baseUrl, request);
    expect(url).toBe(
      'https://hub.example.org/hub/user-redirect/bookshelf/clone?s3_bucket=published&s3_key=users%2Fana%2Fq3.ipynb'
    );
    expect(url).not.toContain('/user/ana/');
  });

  it("uses the hub's host when the hub is on another origin, and a prefix without its slash", () => {
    const hub = {
      prefix: '/jhub/hub',
      host: 'https://hub.example.org',
      user: 'bob'
    };
    const base = linkBase(hub, 'https://bob.servers.example.org', '/user/bob/');
    expect(base).toEqual({
      origin: 'https://hub.example.org',
      baseUrl: '/jhub/hub/user-redirect/',
      form: 'hub'
    });
  });
});

describe('resolveDeploymentSettings', () => {
  const settings = { ...DEFAULT_SETTINGS, publishPrefix: 'users/{username}/' };

  it('puts the hub user in place of {username}, everywhere it appears', () => {
    const hub = { prefix: '/hub/', host: '', user: 'ana' };
    expect(resolveDeploymentSettings(settings, hub).publishPrefix).toBe(
      'users/ana/'
    );
    expect(
      resolveDeploymentSettings(
        { ...settings, publishPrefix: '{username}/x/{username}/' },
        hub
      ).publishPrefix
    ).toBe('ana/x/ana/');
  });

  it('leaves the settings as they are outside a hub, and without the placeholder', () => {
    expect(resolveDeploymentSettings(settings, null)).toBe(settings);
    const plain = { ...DEFAULT_SETTINGS, publishPrefix: 'team/' };
    expect(
      resolveDeploymentSettings(plain, {
        prefix: '/hub/',
        host: '',
        user: 'ana'
      })
    ).toBe(plain);
  });
});

describe('the settings check', () => {
  it('refuses to publish with {username} outside a hub, and passes once a hub resolved it', () => {
    const settings = {
      ...DEFAULT_SETTINGS,
      publishBucket: 'published',
      publishPrefix: 'users/{username}/'
    };
    expect(checkSettings(settings, true)).toEqual([
      expect.objectContaining({
        setting: 'publishPrefix',
        message: expect.stringContaining('{username}')
      })
    ]);
    expect(checkSettings(settings, false)).toEqual([]);
    const resolved = resolveDeploymentSettings(settings, {
      prefix: '/hub/',
      host: '',
      user: 'ana'
    });
    expect(checkSettings(resolved, true)).toEqual([]);
  });
});
