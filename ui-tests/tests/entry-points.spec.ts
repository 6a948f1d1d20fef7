/**
 * Where a person looks for Clone: the File menu and the file browser's
 * toolbar, besides the palette.
 */
import { expect, test } from '@jupyterlab/galata';

test('Clone from S3… is in the File menu', async ({ page }) => {
  await page.menu.open('File');
  const item = page.getByRole('menuitem', { name: 'Clone from S3…' });
  await expect(item).toBeVisible();
  // eslint-disable-next-line jupyter/galata-prefer-menu-helper -- the test asserts this very item is shown, then clicks it
  await item.click();
  await expect(
    page.locator('.jp-Dialog', { hasText: 'Clone from S3' })
  ).toBeVisible();
});

test("the file browser's toolbar has a Clone button", async ({ page }) => {
  const button = page.locator(
    '.jp-FileBrowser-toolbar [data-jp-item-name="bookshelf-clone"] button'
  );
  await expect(button).toBeVisible();
  await button.click();
  await expect(
    page.locator('.jp-Dialog', { hasText: 'Clone from S3' })
  ).toBeVisible();
});
