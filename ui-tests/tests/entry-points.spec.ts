/**
 * Where a person looks for Clone: the File menu, the file browser's toolbar
 * and the launcher, besides the palette.
 */
import { expect, test } from './fixtures';
import { cloneDialog } from './pages';

test('Clone from S3… is in the File menu', async ({ page }) => {
  await page.menu.open('File');
  const item = page.getByRole('menuitem', { name: 'Clone from S3…' });
  await expect(item).toBeVisible();
  // eslint-disable-next-line jupyter/galata-prefer-menu-helper -- the test asserts this very item is shown, then clicks it
  await item.click();
  await expect(cloneDialog(page)).toBeVisible();
});

test("the file browser's toolbar has a Clone button", async ({ page }) => {
  const button = page.locator(
    '.jp-FileBrowser-toolbar [data-jp-item-name="bookshelf-clone"] button'
  );
  await expect(button).toBeVisible();
  await button.click();
  await expect(cloneDialog(page)).toBeVisible();
});

test("the launcher has a Clone from S3 card among Lab's Other cards", async ({
  page
}) => {
  await page.evaluate(() =>
    (window as any).jupyterapp.commands.execute('launcher:create')
  );
  const section = page
    .locator('.jp-Launcher-section')
    .filter({
      has: page.locator('.jp-Launcher-sectionTitle', { hasText: /^Other$/ })
    })
    .last();
  const card = section.locator('.jp-LauncherCard', {
    hasText: 'Clone from S3'
  });
  await expect(card).toBeVisible();
  // Beside Lab's own new-file cards, with the command's icon.
  await expect(
    section.locator('.jp-LauncherCard', { hasText: 'Text File' })
  ).toBeVisible();
  await expect(card.locator('svg')).toBeVisible();
  await card.click();
  const dialog = cloneDialog(page);
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
});

test("Lab's file browser toolbar has no Publish button, also for a selected notebook", async ({
  page,
  tmpPath
}) => {
  // It belongs to Notebook 7's buttons for a selection; Lab offers Publish
  // in the context menu.
  await page.contents.uploadContent('{}', 'text', `${tmpPath}/a.ipynb`);
  await page.filebrowser.openDirectory(tmpPath);
  await page.locator('.jp-DirListing-item', { hasText: 'a.ipynb' }).click();
  await expect(
    page.locator(
      '.jp-FileBrowser-toolbar [data-jp-item-name="bookshelf-clone"]'
    )
  ).toBeVisible();
  await expect(
    page.locator(
      '.jp-FileBrowser-toolbar [data-jp-item-name="bookshelf-publish"]'
    )
  ).toBeHidden();
});
