/**
 * Every credentials mode, end to end: a real JupyterLab, the real S3 test
 * server (moto, which does not verify signatures: which keys signed a
 * request is read from its Authorization header), and for the endpoint
 * mode a same-origin credentials endpoint started with the test server
 * (ui-tests/test_server/bookshelf_test_credentials.py). Every test is
 * scanned for secrets (./secrets.ts).
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';

import {
  bookshelfError,
  callBookshelf,
  coreSettings,
  listFolder,
  readFile
} from './helpers';
import { expect, scanServerLogs, test } from './secrets';
import { cloneDialog, openInfoPanel, startCommand, toast } from './pages';

const SETTINGS_KEYS = {
  mode: 'settings',
  accessKeyId: 'AKIDSETTINGSTEST',
  secretAccessKey: 'settings-secret-Q7xK2pLm9',
  sessionToken: 'settings-token-Vb4nR8sT1'
};
const SESSION_KEYS = {
  accessKeyId: 'AKIDSESSIONTEST',
  secretAccessKey: 'session-secret-H3jW6yZq0',
  sessionToken: 'session-token-Pe5cD2uK8'
};

function clone(page: IJupyterLabPageFixture, tmpPath: string, key: string) {
  return callBookshelf<{ path: string }>(page, 'clone', {
    s3_bucket: 'examples',
    s3_key: key,
    target_path: `${tmpPath}/`
  });
}

function credentialsDialog(page: IJupyterLabPageFixture) {
  return page.locator('.jp-Dialog', { hasText: 'S3 Credentials' });
}

async function enterSessionKeys(page: IJupyterLabPageFixture): Promise<void> {
  const dialog = credentialsDialog(page);
  await expect(dialog).toBeVisible();
  const fields = {
    accessKeyId: dialog.locator('input[name="accessKeyId"]'),
    secretAccessKey: dialog.locator('input[name="secretAccessKey"]'),
    sessionToken: dialog.locator('input[name="sessionToken"]')
  };
  // The dialog puts the focus on the first field once it is shown; typing
  // before that may land in the wrong field.
  await expect(fields.accessKeyId).toBeFocused();
  for (const [name, field] of Object.entries(fields)) {
    await field.fill(SESSION_KEYS[name as keyof typeof SESSION_KEYS]);
  }
  for (const [name, field] of Object.entries(fields)) {
    await expect(field).toHaveValue(
      SESSION_KEYS[name as keyof typeof SESSION_KEYS]
    );
  }
  await dialog.getByRole('button', { name: 'Use for This Tab' }).click();
  await expect(dialog).toHaveCount(0);
}

/**
 * Start clones in the page without waiting (they wait for the dialog).
 */
async function startClones(
  page: IJupyterLabPageFixture,
  tmpPath: string,
  count: number
): Promise<void> {
  await page.evaluate(
    ({ tmpPath, count }) => {
      const app = (window as any).jupyterapp;
      const services: Map<any, string> = app.pluginRegistry._services;
      const token = [...services.keys()].find(
        key => key.name === 'jupyterlab-bookshelf:IBookshelf'
      );
      (window as any).bookshelfClones = app
        .resolveRequiredService(token)
        .then((bookshelf: any) =>
          Promise.allSettled(
            Array.from({ length: count }, () =>
              bookshelf.clone({
                s3_bucket: 'examples',
                s3_key: 'intro.ipynb',
                target_path: `${tmpPath}/`
              })
            )
          )
        )
        .then((results: any[]) =>
          results.map(r =>
            r.status === 'fulfilled' ? r.value.path : `error ${r.reason.code}`
          )
        );
    },
    { tmpPath, count }
  );
}

async function clonesResult(page: IJupyterLabPageFixture): Promise<string[]> {
  return page.evaluate(() => (window as any).bookshelfClones);
}

async function endpointStats(
  page: IJupyterLabPageFixture,
  baseURL: string | undefined
): Promise<{ [mode: string]: number }> {
  const response = await page.request.get(
    `${baseURL}/bookshelf-test/credentials-stats`
  );
  expect(response.ok()).toBe(true);
  return response.json();
}

test.afterAll(() => {
  expect(scanServerLogs()).toEqual([]);
});

test.describe('anonymous mode', () => {
  test.use({
    mockSettings: coreSettings({ credentials: { mode: 'anonymous' } })
  });

  test('reads a public object with unsigned requests', async ({
    page,
    tmpPath,
    network
  }) => {
    const model = await clone(page, tmpPath, 'public/welcome.ipynb');
    expect(model.path).toBe(`${tmpPath}/welcome.ipynb`);
    expect(JSON.parse(await readFile(page, model.path)).nbformat).toBe(4);
    const keys = network.signingKeys();
    expect(keys.length).toBeGreaterThan(0);
    expect(new Set(keys)).toEqual(new Set(['(unsigned)']));
  });

  test('a private object is refused, and the message says why', async ({
    page,
    tmpPath
  }) => {
    const error = await bookshelfError(page, 'clone', {
      s3_bucket: 'examples',
      s3_key: 'intro.ipynb',
      target_path: `${tmpPath}/`
    });
    expect(error.code).toBe('AccessDenied');

    // As a person meets it: the clone dialog, then the notification.
    await startCommand(page, 'bookshelf:clone', {
      s3_bucket: 'examples',
      s3_key: 'intro.ipynb',
      target_path: `${tmpPath}/`
    });
    await page
      .locator('.jp-Dialog')
      .getByRole('button', { name: 'Clone' })
      .click();
    const notification = toast(
      page,
      'Access to s3://examples/intro.ipynb was denied.'
    );
    await expect(notification).toBeVisible({ timeout: 30000 });
    await expect(notification).toContainText('unsigned');
    expect(await listFolder(page, tmpPath)).toEqual([]);
  });
});

test.describe('settings mode', () => {
  test.use({ mockSettings: coreSettings({ credentials: SETTINGS_KEYS }) });

  test('signs with the keys of the settings', async ({
    page,
    tmpPath,
    network
  }) => {
    await clone(page, tmpPath, 'intro.ipynb');
    expect(new Set(network.signingKeys())).toEqual(
      new Set(['AKIDSETTINGSTEST'])
    );
    for (const request of network.s3Requests()) {
      expect(request.headers['x-amz-security-token']).toBe(
        SETTINGS_KEYS.sessionToken
      );
    }
  });

  test('the info panel says where the keys are, never what they are', async ({
    page
  }) => {
    const panel = await openInfoPanel(page);
    const check = panel.locator('[data-check="credentials"]');
    await expect(check).toHaveAttribute('data-state', 'pass');
    await expect(check).toContainText('stored in plain text');
    await expect(
      panel.locator('[data-setting="credentialsMode"] td')
    ).toHaveText('settings');
    await expect(panel).not.toContainText('AKIDSETTINGSTEST');
  });
});

test.describe('settings mode without a secret key', () => {
  test.use({
    mockSettings: coreSettings({
      credentials: { mode: 'settings', accessKeyId: 'AKIDSETTINGSTEST' }
    })
  });

  test('refuses to clone and says what to set', async ({ page, tmpPath }) => {
    const error = await bookshelfError(page, 'clone', {
      s3_bucket: 'examples',
      s3_key: 'intro.ipynb',
      target_path: `${tmpPath}/`
    });
    expect(error.code).toBe('NotConfigured');
    const panel = await openInfoPanel(page);
    await expect(panel.locator('[data-check="settings"]')).toHaveAttribute(
      'data-state',
      'fail'
    );
    await expect(panel.locator('[data-check="credentials"]')).toContainText(
      'An administrator sets both keys'
    );
  });
});

test.describe('session mode', () => {
  test.use({
    mockSettings: coreSettings({ credentials: { mode: 'session' } })
  });

  test('asks once for clones that start together, then keeps the keys for the tab', async ({
    page,
    tmpPath,
    network
  }) => {
    await startClones(page, tmpPath, 3);
    await expect(credentialsDialog(page)).toHaveCount(1);
    await expect(credentialsDialog(page)).toContainText(
      'in this browser tab only'
    );
    await enterSessionKeys(page);
    const paths = await clonesResult(page);
    expect(paths.sort()).toEqual([
      `${tmpPath}/intro-1.ipynb`,
      `${tmpPath}/intro-2.ipynb`,
      `${tmpPath}/intro.ipynb`
    ]);
    expect(new Set(network.signingKeys())).toEqual(
      new Set(['AKIDSESSIONTEST'])
    );
    for (const request of network.s3Requests()) {
      expect(request.headers['x-amz-security-token']).toBe(
        SESSION_KEYS.sessionToken
      );
    }

    // The next use does not ask.
    await clone(page, tmpPath, 'data/readme.txt');
    await expect(credentialsDialog(page)).toHaveCount(0);

    // "Forget S3 Credentials": the next use asks again.
    await page.evaluate(() =>
      (window as any).jupyterapp.commands.execute(
        'bookshelf:forget-credentials'
      )
    );
    await expect(toast(page, 'forgot the S3 credentials')).toBeVisible();
    await startClones(page, tmpPath, 1);
    await enterSessionKeys(page);
    expect(await clonesResult(page)).toEqual([`${tmpPath}/intro-3.ipynb`]);
    expect(new Set(network.signingKeys())).toEqual(
      new Set(['AKIDSESSIONTEST'])
    );

    // Memory of the tab only: after a reload it asks again.
    await page.reload();
    await page.waitForSelector('#jupyterlab-splash', { state: 'detached' });
    await startClones(page, tmpPath, 1);
    await expect(credentialsDialog(page)).toBeVisible({ timeout: 30000 });
    await credentialsDialog(page)
      .getByRole('button', { name: 'Cancel' })
      .click();
    expect(await clonesResult(page)).toEqual(['error Cancelled']);
  });

  test('cancelling the dialog clones nothing', async ({ page, tmpPath }) => {
    await startCommand(page, 'bookshelf:clone', {
      s3_bucket: 'examples',
      s3_key: 'intro.ipynb',
      target_path: `${tmpPath}/`
    });
    await cloneDialog(page).getByRole('button', { name: 'Clone' }).click();
    await credentialsDialog(page)
      .getByRole('button', { name: 'Cancel' })
      .click();
    await expect(toast(page, 'cancelled')).toBeVisible();
    expect(await listFolder(page, tmpPath)).toEqual([]);
  });

  test('the info panel offers to enter them, then checks the buckets', async ({
    page
  }) => {
    const panel = await openInfoPanel(page);
    const check = panel.locator('[data-check="credentials"]');
    await expect(check).toHaveAttribute('data-state', 'skip');
    await expect(
      panel.locator('[data-check="publish-bucket"]')
    ).toHaveAttribute('data-state', 'skip');
    // Opening the panel did not open a dialog by itself.
    await expect(credentialsDialog(page)).toHaveCount(0);
    await check.getByRole('button', { name: 'Enter S3 Credentials…' }).click();
    await enterSessionKeys(page);
    await expect(check).toHaveAttribute('data-state', 'pass');
    for (const id of ['cors', 'publish-bucket', 'versioning']) {
      await expect(panel.locator(`[data-check="${id}"]`)).toHaveAttribute(
        'data-state',
        'pass'
      );
    }
  });
});

test.describe('endpoint mode', () => {
  test.describe('with credentials valid for an hour', () => {
    test.use({
      mockSettings: coreSettings({
        // Relative: below the server's base URL.
        credentials: {
          mode: 'endpoint',
          endpoint: 'bookshelf-test/credentials/static'
        }
      })
    });

    test('fetches them once from the same origin and signs with them', async ({
      page,
      tmpPath,
      baseURL,
      network
    }) => {
      const before = (await endpointStats(page, baseURL)).static ?? 0;
      await clone(page, tmpPath, 'intro.ipynb');
      await clone(page, tmpPath, 'data/readme.txt');
      const after = (await endpointStats(page, baseURL)).static ?? 0;
      expect(after - before).toBe(1);
      expect(new Set(network.signingKeys())).toEqual(
        new Set([`ASIASTATIC${after}`])
      );
      const fetched = network.requests.filter(r =>
        r.url.includes('/bookshelf-test/credentials/static')
      );
      expect(fetched).toHaveLength(1);
      expect(new URL(fetched[0].url).origin).toBe(baseURL);

      const panel = await openInfoPanel(page);
      await expect(panel.locator('[data-check="credentials"]')).toContainText(
        'Temporary credentials were fetched from bookshelf-test/credentials/static; they expire at'
      );
      await expect(
        panel.locator('[data-check="publish-bucket"]')
      ).toHaveAttribute('data-state', 'pass');
    });
  });

  test.describe('with credentials that expire during the test', () => {
    test.use({
      mockSettings: coreSettings({
        credentials: {
          mode: 'endpoint',
          endpoint: '/bookshelf-test/credentials/short'
        }
      })
    });

    test('refreshes them before they expire', async ({
      page,
      tmpPath,
      baseURL,
      network
    }) => {
      // They live 8 s; Bookshelf fetches new ones after three quarters.
      const start = (await endpointStats(page, baseURL)).short ?? 0;
      await clone(page, tmpPath, 'intro.ipynb');
      await clone(page, tmpPath, 'data/readme.txt');
      expect((await endpointStats(page, baseURL)).short).toBe(start + 1);
      const first = `ASIASHORT${start + 1}`;
      expect(new Set(network.signingKeys())).toEqual(new Set([first]));
      const signedBefore = network.s3Requests().length;
      const fetches = () =>
        network.requests.filter(r =>
          r.url.includes('/bookshelf-test/credentials/short')
        );
      expect(fetches()).toHaveLength(1);
      const firstFetch = fetches()[0].time;

      // 7 s after the first fetch: past the refresh point (6 s), before
      // the first credentials expire (8 s).
      await page.waitForTimeout(Math.max(0, firstFetch + 7000 - Date.now()));
      await clone(page, tmpPath, 'intro.ipynb');
      expect((await endpointStats(page, baseURL)).short).toBe(start + 2);
      expect(fetches()).toHaveLength(2);
      expect(fetches()[1].time - firstFetch).toBeLessThan(8000);
      const later = network.signingKeys().slice(signedBefore);
      expect(later.length).toBeGreaterThan(0);
      expect(new Set(later)).toEqual(new Set([`ASIASHORT${start + 2}`]));
      expect(await listFolder(page, tmpPath)).toEqual([
        'intro-1.ipynb',
        'intro.ipynb',
        'readme.txt'
      ]);
    });
  });

  for (const [mode, text, fix] of [
    ['error', 'answered HTTP 500', 'tell an administrator'],
    ['forbidden', 'answered HTTP 403', 'Log in to Jupyter again'],
    ['html', 'did not answer S3 credentials', 'Check the credentials URL'],
    ['incomplete', 'did not answer S3 credentials', 'Check the credentials URL']
  ]) {
    test.describe(`with an endpoint that fails (${mode})`, () => {
      test.use({
        mockSettings: coreSettings({
          credentials: {
            mode: 'endpoint',
            endpoint: `/bookshelf-test/credentials/${mode}`
          }
        })
      });

      test('names the URL and says what to do', async ({ page, tmpPath }) => {
        const error = await bookshelfError(page, 'clone', {
          s3_bucket: 'examples',
          s3_key: 'intro.ipynb',
          target_path: `${tmpPath}/`
        });
        expect(error.code).toBe('InvalidCredentials');
        expect(error.message).toContain(`/bookshelf-test/credentials/${mode}`);
        const panel = await openInfoPanel(page);
        const check = panel.locator('[data-check="credentials"]');
        await expect(check).toHaveAttribute('data-state', 'fail');
        await expect(check).toContainText(
          `The credentials URL /bookshelf-test/credentials/${mode}`
        );
        await expect(check).toContainText(text);
        await expect(check.locator('.jp-Bookshelf-check-fix')).toContainText(
          fix
        );
        expect(await listFolder(page, tmpPath)).toEqual([]);
      });
    });
  }

  test.describe('with a URL on another origin', () => {
    test.use({
      mockSettings: coreSettings({
        credentials: {
          mode: 'endpoint',
          endpoint: 'http://127.0.0.1:9/credentials'
        }
      })
    });

    test('refuses it without fetching', async ({ page, tmpPath, network }) => {
      const error = await bookshelfError(page, 'clone', {
        s3_bucket: 'examples',
        s3_key: 'intro.ipynb',
        target_path: `${tmpPath}/`
      });
      expect(error.code).toBe('NotConfigured');
      expect(
        network.requests.filter(r => r.url.startsWith('http://127.0.0.1:9/'))
      ).toEqual([]);
    });
  });
});

test.describe('the secret scan', () => {
  test('finds a secret where it must not be', async ({ page, network }) => {
    await page.evaluate(() =>
      console.log('oops: session-secret-PLANTED-by-the-test')
    );
    await expect
      .poll(() => network.findings())
      .toEqual(['console log: session-secret-PLANTED-by-the-test']);
    network.clear();
  });
});
