/**
 * The dialogs and the info panel at small and large font sizes, as a user
 * sets them in Settings → Theme: every field, label and button stays
 * inside its dialog and nothing is cut off, in the light and dark themes.
 */
import { galata } from '@jupyterlab/galata';
import { expect, test } from './fixtures';
import type { Locator } from '@playwright/test';

import { notebookText } from './helpers';
import { openInfoPanel, startCommand } from './pages';

const SIZES = {
  small: { 'ui-font-size1': '10px', 'content-font-size1': '11px' },
  large: { 'ui-font-size1': '20px', 'content-font-size1': '22px' }
};
const THEMES = ['JupyterLab Light', 'JupyterLab Dark'];

/**
 * Elements of `container` that stick out of it, or whose text is cut off
 * (wider than their box while not allowed to wrap).
 */
async function overflowing(container: Locator): Promise<string[]> {
  return container.evaluate(root => {
    const box = root.getBoundingClientRect();
    const problems: string[] = [];
    const selector = 'input, label, button, select, h2, h3, p, li, code';
    for (const element of Array.from(root.querySelectorAll(selector))) {
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) {
        continue; // not shown
      }
      const name =
        element.tagName.toLowerCase() +
        (element.getAttribute('name')
          ? `[name=${element.getAttribute('name')}]`
          : '') +
        ` "${(element.textContent ?? '').trim().slice(0, 30)}"`;
      if (rect.left < box.left - 1 || rect.right > box.right + 1) {
        problems.push(`${name} sticks out sideways`);
      }
      const style = getComputedStyle(element);
      if (
        style.overflowX === 'hidden' &&
        style.textOverflow !== 'ellipsis' &&
        element.scrollWidth > element.clientWidth + 1
      ) {
        problems.push(`${name} is cut off`);
      }
    }
    return problems;
  });
}

for (const theme of THEMES) {
  for (const [size, overrides] of Object.entries(SIZES)) {
    test.describe(`${theme}, ${size} fonts`, () => {
      test.use({
        mockSettings: {
          ...galata.DEFAULT_SETTINGS,
          '@jupyterlab/apputils-extension:themes': {
            ...galata.DEFAULT_SETTINGS['@jupyterlab/apputils-extension:themes'],
            theme,
            overrides: {
              ...galata.DEFAULT_SETTINGS[
                '@jupyterlab/apputils-extension:themes'
              ].overrides,
              ...overrides
            }
          }
        }
      });

      test('the clone and publish dialogs and the info panel fit', async ({
        page,
        tmpPath
      }) => {
        // The theme's font size is in effect.
        const fontSize = await page.evaluate(() =>
          getComputedStyle(document.body)
            .getPropertyValue('--jp-ui-font-size1')
            .trim()
        );
        expect(fontSize).toBe(overrides['ui-font-size1']);

        await startCommand(page, 'bookshelf:clone', {
          s3_bucket: 'examples',
          s3_key: 'reports/2026/q3.ipynb'
        });
        const clone = page.locator('.jp-Dialog-content', {
          hasText: 'Clone from S3'
        });
        await expect(clone).toBeVisible();
        await expect(
          clone.locator('.jp-Bookshelf-clone-destination')
        ).toContainText('Will be saved as', { timeout: 30000 });
        expect(await overflowing(clone)).toEqual([]);
        await page.keyboard.press('Escape');
        await expect(clone).toHaveCount(0);

        const path = `${tmpPath}/fit.ipynb`;
        await page.contents.uploadContent(notebookText(), 'text', path);
        await startCommand(page, 'bookshelf:publish', { path });
        const publish = page.locator('.jp-Dialog-content', {
          hasText: 'Publish Notebook'
        });
        await expect(
          publish.locator('.jp-Bookshelf-publish-status[data-state="new"]')
        ).toBeVisible({ timeout: 30000 });
        expect(await overflowing(publish)).toEqual([]);
        await page.keyboard.press('Escape');
        await expect(publish).toHaveCount(0);

        const panel = await openInfoPanel(page);
        expect(await overflowing(panel)).toEqual([]);
      });
    });
  }
}
