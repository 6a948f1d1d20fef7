import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import * as path from 'path';

import { callBookshelf } from './helpers';

const IMAGES = path.join(__dirname, '..', '..', 'docs', 'images');

async function openLink(page: IJupyterLabPageFixture, query: string) {
  await page.evaluate(
    url => window.location.assign(url),
    `/lab?bookshelf-clone&${query}`
  );
  await page.waitForURL(/\/lab/);
  await page.locator('.jp-Dialog').waitFor({ timeout: 30000 });
}

for (const theme of ['light', 'dark']) {
  test.describe(`${theme} theme`, () => {
    test.use({ viewport: { width: 1200, height: 760 } });

    // A folder with the name a reader would use, not the test's own.
    const folder = 'reports';

    test.beforeEach(async ({ page }) => {
      if (theme === 'dark') {
        await page.theme.setDarkTheme();
      }
      if (!(await page.contents.directoryExists(folder))) {
        await page.contents.createDirectory(folder);
      }
    });

    test.afterEach(async ({ page }) => {
      await page.contents.deleteDirectory(folder);
    });

    test('the clone dialog', async ({ page }) => {
      await openLink(
        page,
        `s3_bucket=examples&s3_key=reports/2026/q3.ipynb&target_path=${folder}/`
      );
      const dialog = page.locator('.jp-Dialog-content');
      await expect(dialog).toContainText('Will be saved as');
      await dialog.screenshot({
        path: path.join(IMAGES, `clone-dialog-${theme}.png`)
      });
    });

    test('the publish dialog and its result', async ({ page }) => {
      await callBookshelf(page, 'clone', {
        s3_bucket: 'examples',
        s3_key: 'analysis/sales-forecast.ipynb',
        target_path: `${folder}/`
      });
      await page.filebrowser.openDirectory(folder);
      await page
        .locator('.jp-DirListing-item', { hasText: 'sales-forecast.ipynb' })
        .click({ button: 'right' });
      await page
        .getByRole('menuitem', { name: 'Publish', exact: true })
        .click();
      const dialog = page.locator('.jp-Dialog-content');
      await expect(
        dialog.locator('.jp-Bookshelf-publish-status[data-state]')
      ).not.toHaveAttribute('data-state', 'checking');
      await dialog.screenshot({
        path: path.join(IMAGES, `publish-dialog-${theme}.png`)
      });
      await dialog.getByRole('button', { name: /Publish|Replace/ }).click();
      const toast = page.locator('.Toastify__toast', {
        hasText: 'Published version'
      });
      await expect(toast).toBeVisible({ timeout: 30000 });
      await toast.screenshot({
        path: path.join(IMAGES, `publish-result-${theme}.png`)
      });
    });

    test('the info panel', async ({ page }) => {
      await page.evaluate(async () => {
        await (window as any).jupyterapp.commands.execute('bookshelf:info');
      });
      const panel = page.locator('.jp-Bookshelf-infoPanel');
      await expect(
        panel.locator('[data-check="versioning"][data-ok="true"]')
      ).toBeVisible();
      await panel.screenshot({
        path: path.join(IMAGES, `info-panel-${theme}.png`)
      });
    });
  });
}
