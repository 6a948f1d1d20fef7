import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';

import { listFolder } from './helpers';

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
    await expect(error).toContainText('s3_bucket');
    await expect(dialog.locator('input[name="bucket"]')).toHaveAttribute(
      'aria-invalid',
      'true'
    );
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    expect(await listFolder(page, tmpPath)).toEqual([]);
  });
});
