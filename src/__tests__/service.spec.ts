import { BookshelfModel } from '../service/model';
import { CredentialsProvider } from '../s3/credentials';
import { BookshelfService, type IBookshelfBackend } from '../service/service';
import { DEFAULT_SETTINGS } from '../settings/checks';
import type { IBookshelfSettings } from '../tokens';

/**
 * A backend that records what it was asked.
 */
function backend(): IBookshelfBackend & {
  calls: string[];
  settings: IBookshelfSettings[];
} {
  const calls: string[] = [];
  const settings: IBookshelfSettings[] = [];
  return {
    calls,
    settings,
    credentials: { forget: () => calls.push('forget') },
    updateSettings: next => settings.push(next),
    info: async () => {
      calls.push('info');
      return { release: '0', features: {} };
    },
    clone: async request => {
      calls.push(`clone ${request.s3_key}`);
      return { path: request.s3_key } as any;
    },
    publishTarget: async path => {
      calls.push(`publishTarget ${path}`);
      return {} as any;
    },
    publish: async path => {
      calls.push(`publish ${path}`);
      return {} as any;
    }
  };
}

const OTHER: IBookshelfSettings = {
  ...DEFAULT_SETTINGS,
  publishBucket: 'published'
};

describe('BookshelfService', () => {
  it('loads nothing until an operation is used, then loads once', async () => {
    const model = backend();
    let loads = 0;
    const service = new BookshelfService(async () => {
      loads++;
      return model;
    });
    service.updateSettings(OTHER);
    service.forgetCredentials();
    expect(service.settings).toBe(OTHER);
    expect(loads).toBe(0);

    await Promise.all([
      service.clone({ s3_bucket: 'b', s3_key: 'k' }),
      service.publish('a.ipynb'),
      service.publishTarget('a.ipynb'),
      service.info()
    ]);
    expect(loads).toBe(1);
    expect(model.calls.sort()).toEqual([
      'clone k',
      'info',
      'publish a.ipynb',
      'publishTarget a.ipynb'
    ]);
    // The model starts from the settings in effect.
    expect(model.settings).toEqual([OTHER]);
  });

  it('prepares a clone by loading the model once; a failed load is left to the clone', async () => {
    const model = backend();
    let loads = 0;
    const service = new BookshelfService(async () => {
      loads++;
      return model;
    });
    service.prepareClone();
    service.prepareClone();
    await new Promise(resolve => setTimeout(resolve, 0));
    await service.clone({ s3_bucket: 'b', s3_key: 'k' });
    expect(loads).toBe(1);
    expect(model.calls).toEqual(['clone k']);
    let failures = 0;
    const failing = new BookshelfService(async () => {
      failures++;
      throw new Error('offline');
    });
    failing.prepareClone(); // no unhandled rejection
    await new Promise(resolve => setTimeout(resolve, 0));
    // The clone loads again, and says why it could not.
    await expect(
      failing.clone({ s3_bucket: 'b', s3_key: 'k' })
    ).rejects.toThrow('offline');
    expect(failures).toBe(2);
  });

  it('hands later settings and forgetting to the loaded model', async () => {
    const model = backend();
    const service = new BookshelfService(async () => model);
    const seen: IBookshelfSettings[] = [];
    service.settingsChanged.connect((_, next) => seen.push(next));
    await service.info();
    service.updateSettings(OTHER);
    service.forgetCredentials();
    expect(model.settings).toEqual([DEFAULT_SETTINGS, OTHER]);
    expect(model.calls).toContain('forget');
    expect(seen).toEqual([OTHER]);
  });

  it('tries loading again after a failure', async () => {
    const model = backend();
    let attempt = 0;
    const service = new BookshelfService(async () => {
      if (++attempt === 1) {
        throw new Error('ChunkLoadError');
      }
      return model;
    });
    await expect(service.info()).rejects.toThrow('ChunkLoadError');
    await service.info();
    expect(attempt).toBe(2);
    expect(model.calls).toEqual(['info']);
  });
});

/** A model with these credentials and no server behind it. */
function modelWith(credentials: CredentialsProvider): BookshelfModel {
  return new BookshelfModel({
    contents: {} as any,
    serverSettings: {} as any,
    credentials,
    version: '0',
    createObjectStore: () => {
      throw new Error('no S3 service in these tests');
    }
  });
}

describe('BookshelfModel.updateSettings', () => {
  it('forgets the credentials when the credentials mode changes', () => {
    const credentials = new CredentialsProvider();
    const model = modelWith(credentials);
    const keys = { accessKeyId: 'id', secretAccessKey: 'secret' };
    credentials.setSessionCredentials(keys);
    model.updateSettings({ ...DEFAULT_SETTINGS, publishBucket: 'other' });
    expect(credentials.hasSessionCredentials).toBe(true);
    model.updateSettings({
      ...DEFAULT_SETTINGS,
      credentials: { ...DEFAULT_SETTINGS.credentials, mode: 'anonymous' }
    });
    expect(credentials.hasSessionCredentials).toBe(false);
  });
});

describe('BookshelfModel.asksNothing', () => {
  it('is false only in session mode without keys', () => {
    const credentials = new CredentialsProvider();
    const model = modelWith(credentials);
    const mode = (name: 'session' | 'anonymous' | 'settings' | 'endpoint') =>
      model.updateSettings({
        ...DEFAULT_SETTINGS,
        credentials: { ...DEFAULT_SETTINGS.credentials, mode: name }
      });
    mode('session');
    expect(model.asksNothing()).toBe(false);
    credentials.setSessionCredentials({
      accessKeyId: 'id',
      secretAccessKey: 's'
    });
    expect(model.asksNothing()).toBe(true);
    for (const other of ['anonymous', 'settings', 'endpoint'] as const) {
      mode(other);
      expect(model.asksNothing()).toBe(true);
    }
  });
});
