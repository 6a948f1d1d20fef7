import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';

import { getObject, listFolder, readFile } from './helpers';

async function runFromPalette(
  page: IJupyterLabPageFixture,
  label: string
): Promise<void> {
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

  test('publish: the palette, the destination field, Enter publishes', async ({
    page,
    tmpPath
  }) => {
    const name = `keys-${Date.now()}.ipynb`;
    const path = `${tmpPath}/${name}`;
    await page.evaluate(
      async ({ path }) => {
        const app = (window as any).jupyterapp;
        await app.serviceManager.contents.save(path, {
          type: 'notebook',
          format: 'json',
          content: {
            cells: [],
            metadata: {},
            nbformat: 4,
            nbformat_minor: 5
          }
        });
        await app.commands.execute('docmanager:open', { path });
      },
      { path }
    );
    await expect(
      page.getByRole('main').getByRole('tab', { name: new RegExp(name) })
    ).toBeVisible();
    await runFromPalette(page, 'Publish Notebook');
    const dialog = page.locator('.jp-Dialog', { hasText: 'Publish Notebook' });
    await expect(dialog.locator('input[name="destination"]')).toBeFocused();
    await expect(
      dialog.locator('.jp-Bookshelf-publish-status[data-state="new"]')
    ).toBeVisible();
    await page.keyboard.press('Enter');
    await expect(
      page.locator('.Toastify__toast', { hasText: 'Published version' })
    ).toBeVisible({ timeout: 30000 });
    const stored = await getObject('published', path);
    expect(stored!.body.toString('utf8')).toBe(await readFile(page, path));
  });
});
