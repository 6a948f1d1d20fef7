/**
 * A page on the internet whose S3 service is on the person's computer or
 * local network: Chromium lets such a page reach them only with the
 * person's leave ("local network access", since Chrome 142), and a request
 * it keeps back fails as one to a service that does not answer. This
 * file's browser is Debian's full Chromium (the headless shell has no such
 * permission) told that the test Lab's address is a public one; the S3
 * server stays on 127.0.0.1, and the browser's question is answered "no",
 * as when the person refuses.
 */
import { expect, test } from './fixtures';
import { namesOnDisk, ownBrowser } from './helpers';
import {
  cloneInDialog,
  infoCheck,
  openErrorDetails,
  openInfoPanel,
  toast
} from './pages';

const CHROMIUM = process.env.BOOKSHELF_FULL_CHROMIUM || '/usr/bin/chromium';

test.use(
  ownBrowser(
    [
      `--ip-address-space-overrides=127.0.0.1:${process.env.BOOKSHELF_TEST_LAB_PORT}=public`
    ],
    CHROMIUM
  )
);

const BLOCKED = 'The browser did not let this page reach the S3 service at';

test('a clone says the browser keeps this page from the S3 service, and how to allow it; nothing is written', async ({
  page,
  tmpPath
}) => {
  const blocked: string[] = [];
  page.on('requestfailed', request => {
    if (request.url().includes('/examples/intro.ipynb')) {
      blocked.push(request.method());
    }
  });
  await cloneInDialog(page, {
    s3_bucket: 'examples',
    s3_key: 'intro.ipynb',
    target_path: `${tmpPath}/`
  });
  const notification = toast(page, BLOCKED);
  await expect(notification).toBeVisible({ timeout: 30000 });
  // Tried once: a refusal answers every try the same.
  expect(blocked).toEqual(['GET']);
  const dialog = await openErrorDetails(page, notification);
  await expect(dialog.locator('.jp-Dialog-header')).toContainText(
    'S3 service blocked by the browser'
  );
  await expect(dialog).toContainText('"Local network access"');
  await dialog.getByRole('button', { name: 'Close' }).click();
  expect(namesOnDisk(tmpPath)).toEqual([]);
  // (Headless, the browser's question is answered "no" at once.)
  expect(
    await page.evaluate(
      async () =>
        (
          await navigator.permissions.query({
            name: 'loopback-network' as PermissionName
          })
        ).state
    )
  ).toBe('denied');
});

test("the info panel's service check says the same", async ({ page }) => {
  const panel = await openInfoPanel(page);
  const service = infoCheck(panel, 'service');
  await expect(service).toHaveAttribute('data-state', 'fail');
  await expect(service).toContainText(BLOCKED);
  await expect(service.locator('.jp-Bookshelf-check-fix')).toContainText(
    'Allow this site to access your local network'
  );
});
