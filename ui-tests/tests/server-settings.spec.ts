/**
 * The server's own user settings, written through the settings API as the
 * Settings Editor writes them, so that the server extension reads them as the
 * browser does. These change what every page that does not mock its settings
 * sees: the Playwright project "server-settings" runs this file alone, after
 * the others.
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';

import { callBookshelf } from './helpers';
import { infoCheck, openInfoPanel } from './pages';
import { expect, scanServerLogs, test } from './secrets';

test.afterAll(() => {
  expect(scanServerLogs()).toEqual([]);
});

test.describe('on settings the server reads too', () => {
  // Real user settings, written through the settings API, so that the shim
  // sees them as the browser does.
  test.use({ mockSettings: false });

  async function writeUserSettings(
    page: IJupyterLabPageFixture,
    baseURL: string,
    settings: object
  ): Promise<void> {
    const response = await page.request.put(
      `${baseURL}/lab/api/settings/jupyterlab-bookshelf:core`,
      { data: { raw: JSON.stringify(settings) } }
    );
    expect(response.status()).toBe(204);
  }

  test('a broken configuration: the same features, and the checks fail', async ({
    page,
    baseURL
  }) => {
    try {
      await writeUserSettings(page, baseURL!, {
        endpointUrl: 'http://bob:settings-secret-InTheUrl9@127.0.0.1:9',
        publishBucket: 'Bad_Bucket',
        credentials: { mode: 'endpoint' }
      });
      await page.reload();
      await page.waitForSelector('#jupyterlab-splash', { state: 'detached' });
      const browser = await callBookshelf<any>(page, 'info');
      const shim = await (
        await page.request.get(`${baseURL}/api/bookshelf`)
      ).json();
      // The file is valid JSON: its values are wrong, which both see.
      const { settings_files_problems, server_access, ...shared } = shim;
      expect(settings_files_problems).toEqual([]);
      expect(server_access).toBe(true);
      expect(browser).toEqual(shared);
      expect(shim.features.clone_valid).toBe(false);
      expect(shim.features.endpoint_url).toBe('http://127.0.0.1:9');
      expect(shim.features.settings_problem).toContain(
        'endpointUrl must not contain a user name or password'
      );

      const panel = await openInfoPanel(page);
      await expect(infoCheck(panel, 'settings')).toHaveAttribute(
        'data-state',
        'fail'
      );
      await expect(infoCheck(panel, 'settings')).toContainText(
        'The S3 endpoint URL must not contain a user name or password'
      );
      await expect(infoCheck(panel, 'settings')).toContainText(
        'The publish bucket name is not valid'
      );
      await expect(infoCheck(panel, 'settings')).toContainText(
        'no credentials URL is set'
      );
      await expect(panel.locator('[data-setting="endpointUrl"] td')).toHaveText(
        'http://127.0.0.1:9'
      );
      await expect(panel).not.toContainText('bob');
    } finally {
      await writeUserSettings(page, baseURL!, {});
    }
  });
});
