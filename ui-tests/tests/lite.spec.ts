/**
 * JupyterLite: the extension in a Lite site (scripts/lite_fixture.py), where
 * there is no Jupyter server: files live in the browser's storage, and the
 * server extension's commit path and checks are absent. A person follows a
 * clone link, clones, and publishes the notebook back; checked in the
 * browser's storage and on S3.
 */
import { expect, test } from './fixtures';
import type { Page } from '@playwright/test';

import {
  fixture,
  getObject,
  md5,
  notebookText,
  putObject,
  uid
} from './helpers';
import {
  confirmClone,
  confirmPublish,
  followCloneLink,
  publishDialog,
  startCommand
} from './pages';

/** A file's text in the Lite site's storage; null when there is none. */
async function liteFile(page: Page, path: string): Promise<string | null> {
  return page.evaluate(async path => {
    try {
      const model = await (
        window as any
      ).jupyterapp.serviceManager.contents.get(path, {
        content: true,
        type: 'file',
        format: 'text'
      });
      return model.content as string;
    } catch {
      return null;
    }
  }, path);
}

test.describe('JupyterLite', () => {
  test('a link clones into the browser, and the clone publishes back', async ({
    browser
  }) => {
    const lite = fixture().lite_url;
    expect(lite).toBeTruthy();
    const name = `lite-${uid()}.ipynb`;
    const key = `lite/${name}`;
    const text = notebookText([
      { cell_type: 'markdown', metadata: {}, source: ['# Lite ✓ café'] }
    ]);
    await putObject('examples', key, text, 'application/x-ipynb+json');

    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${lite}/lab/index.html`);
      await page.locator('#jp-main-dock-panel').waitFor({ timeout: 60000 });
      const dialog = await followCloneLink(
        page,
        `${lite}/lab/index.html?bookshelf-clone&s3_bucket=examples` +
          `&s3_key=${encodeURIComponent(key)}`,
        /\/lab\//
      );
      await expect(dialog.locator('input[name="name"]')).toHaveValue(name);
      // Nothing is written before the click.
      expect(await liteFile(page, name)).toBeNull();
      await confirmClone(page, `s3://examples/${key}`, name);
      // In the browser's storage, byte for byte.
      await expect.poll(() => liteFile(page, name)).toBe(text);
      // The clone opens; this site has no kernel, and Lite asks for one.
      const kernel = page.locator('.jp-Dialog', { hasText: 'Select Kernel' });
      await kernel.getByRole('button', { name: 'No Kernel' }).click();
      await expect(kernel).toHaveCount(0);

      // Publish it back, as a person does from the menu.
      await startCommand(page, 'bookshelf:publish', { path: name });
      // Lite may mark the open notebook changed (its kernel choice): the
      // saved version is the clone's bytes.
      const unsaved = page.locator('.jp-Dialog', {
        hasText: 'Unsaved changes'
      });
      await expect(unsaved.or(publishDialog(page))).toBeVisible();
      if (await unsaved.isVisible()) {
        await unsaved
          .getByRole('button', { name: 'Publish Saved Version' })
          .click();
      }
      await confirmPublish(page, 'new');
      await expect
        .poll(async () => (await getObject('published', name))?.body)
        .toBeTruthy();
      const published = await getObject('published', name);
      expect(md5(published!.body)).toBe(md5(text));
    } finally {
      await context.close();
    }
  });
});
