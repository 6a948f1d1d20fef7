import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { expect, test } from './fixtures';

import { getObject, listFolder, readFile } from './helpers';
import { cloneDialog, publishDialog } from './pages';

async function runFromPalette(
  page: IJupyterLabPageFixture,
  label: string
): Promise<void> {
  // Leave any editor first, as a person would before a shortcut.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+Shift+C');
  const palette = page.locator('#modal-command-palette');
  await expect(palette).toBeVisible();
  await page.keyboard.type(label);
  await expect(
    palette.locator('.lm-CommandPalette-item.lm-mod-active')
  ).toContainText(label);
  await page.keyboard.press('Enter');
}

test.describe('with the keyboard alone', () => {
  test('clone: the dialog opens in its first field, Enter clones', async ({
    page,
    tmpPath
  }) => {
    await runFromPalette(page, 'Clone from S3');
    const dialog = page.locator('.jp-Dialog');
    const bucket = dialog.locator('input[name="bucket"]');
    await expect(bucket).toBeFocused();
    // A pasted s3:// address is split into bucket and key.
    await page.keyboard.insertText(
      's3://examples/tutorials/getting-started.ipynb'
    );
    await expect(bucket).toHaveValue('examples');
    await expect(dialog.locator('input[name="key"]')).toHaveValue(
      'tutorials/getting-started.ipynb'
    );
    await expect(dialog.locator('input[name="folder"]')).toHaveValue(tmpPath);
    await page.keyboard.press('Enter');
    await expect(dialog).toHaveCount(0);
    await expect
      .poll(() => listFolder(page, tmpPath), { timeout: 30000 })
      .toEqual(['getting-started.ipynb']);
  });

  test('clone: errors are announced, Escape cancels', async ({
    page,
    tmpPath
  }) => {
    await runFromPalette(page, 'Clone from S3');
    const dialog = page.locator('.jp-Dialog');
    await expect(dialog.locator('input[name="bucket"]')).toBeFocused();
    await page.keyboard.type('No_Such..Bucket');
    const error = dialog.locator('#jp-bookshelf-clone-bucket-error');
    await expect(error).toHaveAttribute('role', 'alert');
    // The field's label, not the request's key.
    await expect(error).toContainText('Bucket: a bucket name');
    await expect(error).not.toContainText('s3_bucket');
    await expect(dialog.locator('input[name="bucket"]')).toHaveAttribute(
      'aria-invalid',
      'true'
    );
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    expect(await listFolder(page, tmpPath)).toEqual([]);
  });

  test('clone: Tab and Shift+Tab stay inside the dialog', async ({
    page,
    tmpPath
  }) => {
    await runFromPalette(page, 'Clone from S3');
    const dialog = page.locator('.jp-Dialog');
    const bucket = dialog.locator('input[name="bucket"]');
    await expect(bucket).toBeFocused();
    // An empty form: no problem shown yet, and Clone waits.
    await expect(dialog.locator('.jp-Bookshelf-field-error')).toHaveCount(0);
    await expect(dialog.getByRole('button', { name: 'Clone' })).toBeDisabled();
    const focusInDialog = () =>
      page.evaluate(
        () => !!document.activeElement?.closest('.jp-Dialog-content')
      );
    await page.keyboard.press('Shift+Tab');
    await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(bucket).toBeFocused();
    for (const key of ['Tab', 'Shift+Tab']) {
      for (let step = 0; step < 9; step++) {
        await page.keyboard.press(key);
        expect(await focusInDialog(), `${key} ${step}`).toBe(true);
      }
    }
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    expect(await listFolder(page, tmpPath)).toEqual([]);
  });

  test('clone, then publish the open notebook: Enter confirms each dialog', async ({
    page,
    tmpPath
  }) => {
    await runFromPalette(page, 'Clone from S3');
    const clone = cloneDialog(page);
    await expect(clone.locator('input[name="bucket"]')).toBeFocused();
    await page.keyboard.insertText(
      's3://examples/tutorials/getting-started.ipynb'
    );
    await page.keyboard.press('Enter');
    await expect(clone).toHaveCount(0);
    // The clone opens; wait until its kernel has started, whose status
    // changes re-render the palette.
    const path = `${tmpPath}/getting-started.ipynb`;
    await expect(
      page.locator('.lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-current', {
        hasText: 'getting-started.ipynb'
      })
    ).toBeVisible({ timeout: 30000 });
    await expect(page.locator('#jp-main-statusbar')).toContainText('Idle', {
      timeout: 60000
    });

    // Kernel start may add the language to the notebook's metadata: save.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+s');
    await expect(
      page.locator('.lm-TabBar-tab.jp-mod-current.jp-mod-dirty')
    ).toHaveCount(0);

    await runFromPalette(page, 'Publish Notebook');
    const publish = publishDialog(page);
    const destination = publish.locator('input[name="destination"]');
    await expect(destination).toBeFocused();
    await expect(destination).toHaveValue(path);
    await expect(
      publish.locator('.jp-Bookshelf-publish-status[data-state="new"]')
    ).toBeVisible({ timeout: 30000 });
    await page.keyboard.press('Enter');
    await expect(publish).toHaveCount(0);
    await expect
      .poll(async () => (await getObject('published', path)) !== null, {
        timeout: 30000
      })
      .toBe(true);
    const stored = await getObject('published', path);
    expect(stored!.body.toString('utf8')).toBe(await readFile(page, path));
  });
});
