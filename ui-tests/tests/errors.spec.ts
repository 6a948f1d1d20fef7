/**
 * Deployments broken the ways real ones break, as a person meets them: the
 * clone dialog, then a notification that says what happened and what to
 * do, with the details (and the CORS rule to add) a click away. Against the
 * real S3 test server (scripts/s3_fixture.py): a bucket without a CORS
 * rule, a bucket that does not exist (it has no CORS rule either, so the
 * browser cannot tell it from one), a closed port, and a bucket whose
 * policy denies reading and writing objects.
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';

import {
  bookshelfError,
  closedPort,
  coreSettings,
  fixture,
  listFolder,
  listKeys,
  notebookText,
  expectFileIsObject
} from './helpers';
import { cloneInDialog, openErrorDetails, toast } from './pages';
import { expect, scanServerLogs, test } from './secrets';

const ORIGIN_RULE = (origin: string) => ({
  AllowedOrigins: [origin],
  AllowedMethods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'],
  AllowedHeaders: ['*'],
  ExposeHeaders: ['ETag', 'x-amz-version-id', 'x-amz-server-side-encryption'],
  MaxAgeSeconds: 3000
});

/**
 * Clone from the dialog, as a person does, and return the notification.
 */
async function cloneFromDialog(
  page: IJupyterLabPageFixture,
  bucket: string,
  key: string,
  tmpPath: string,
  expected: string
) {
  await cloneInDialog(page, {
    s3_bucket: bucket,
    s3_key: key,
    target_path: `${tmpPath}/`
  });
  const notification = toast(page, expected);
  await expect(notification).toBeVisible({ timeout: 30000 });
  return notification;
}

test.afterAll(() => {
  expect(scanServerLogs()).toEqual([]);
});

test.describe('a bucket without a CORS rule', () => {
  test('is told apart from an unreachable service, with the rule to add', async ({
    page,
    tmpPath,
    baseURL
  }) => {
    const refused: string[] = [];
    page.on('requestfailed', request => {
      if (request.url().includes('/nocors/intro.ipynb')) {
        refused.push(request.method());
      }
    });
    const error = await bookshelfError(page, 'clone', {
      s3_bucket: 'nocors',
      s3_key: 'intro.ipynb',
      target_path: `${tmpPath}/`
    });
    expect(error.code).toBe('CorsRefused');
    // Tried once, not four times: a CORS refusal answers every try the same.
    expect(refused).toEqual(['GET']);

    const notification = await cloneFromDialog(
      page,
      'nocors',
      'intro.ipynb',
      tmpPath,
      'does not allow requests from this page'
    );
    await expect(notification).toContainText(
      `The S3 service at ${fixture().endpoint_url} answers, but the bucket "nocors"`
    );
    const dialog = await openErrorDetails(page, notification);
    await expect(dialog.locator('.jp-Dialog-header')).toContainText(
      'Blocked by CORS'
    );
    await expect(dialog).toContainText(
      'add this rule at the start of its CORS configuration, keeping the rules it has'
    );
    const rule = JSON.parse(
      (await dialog.locator('.jp-Bookshelf-error-rule').textContent())!
    );
    // One rule to add, not a configuration replacing the bucket's rules.
    expect(rule).toEqual(ORIGIN_RULE(baseURL!));
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(await listFolder(page, tmpPath)).toEqual([]);
  });
});

test.describe('a bucket without a CORS rule, with server-side mode on', () => {
  /**
   * Clone `key` of the bucket without a CORS rule from the dialog, then,
   * refused, choose "Clone on the Server" (the test Lab runs with
   * c.Bookshelf.server_access, scripts/serve.py); nothing is written before.
   */
  async function cloneOnServerAfterRefusal(
    page: IJupyterLabPageFixture,
    key: string,
    tmpPath: string
  ): Promise<void> {
    const notification = await cloneFromDialog(
      page,
      'nocors',
      key,
      tmpPath,
      'does not allow requests from this page'
    );
    expect(await listFolder(page, tmpPath)).toEqual([]);
    await notification
      .getByRole('button', { name: 'Clone on the Server' })
      .click();
  }

  test('the clone is offered on the server, which is not bound by CORS, and saves the object as it is', async ({
    page,
    tmpPath
  }) => {
    await cloneOnServerAfterRefusal(page, 'intro.ipynb', tmpPath);
    await expect(
      toast(page, `Cloned s3://nocors/intro.ipynb to ${tmpPath}/intro.ipynb`)
    ).toBeVisible({ timeout: 30000 });
    // On disk: the object's bytes, under the name the dialog showed.
    await expectFileIsObject('nocors', 'intro.ipynb', `${tmpPath}/intro.ipynb`);
    expect(await listFolder(page, tmpPath)).toEqual(['intro.ipynb']);
  });

  test('a clone the server cannot do either says why, and its progress does not stay', async ({
    page,
    tmpPath
  }) => {
    // A missing key: the browser sees the bucket's CORS refusal, the server
    // S3's answer, at once (a few milliseconds).
    await cloneOnServerAfterRefusal(page, 'not-there.ipynb', tmpPath);
    await expect(
      toast(page, 'The Jupyter server could not clone s3://nocors/not-there')
    ).toBeVisible({ timeout: 30000 });
    await expect(
      toast(page, 'Cloning s3://nocors/not-there.ipynb on the Jupyter server')
    ).toHaveCount(0);
    expect(await listFolder(page, tmpPath)).toEqual([]);
  });
});

test.describe('a bucket that does not exist', () => {
  test('names both possible causes, as the browser cannot tell them apart', async ({
    page,
    tmpPath
  }) => {
    const notification = await cloneFromDialog(
      page,
      'missing-bucket',
      'intro.ipynb',
      tmpPath,
      'the bucket "missing-bucket"'
    );
    // The notification is short; the details say it all.
    const dialog = await openErrorDetails(page, notification);
    await expect(dialog).toContainText('either the bucket does not exist');
    await expect(dialog).toContainText('Check the bucket name');
    await expect(dialog.locator('.jp-Bookshelf-error-rule')).toBeVisible();
    expect(await listFolder(page, tmpPath)).toEqual([]);
  });
});

test.describe('a closed port', () => {
  let port = 0;
  test.beforeAll(async () => {
    port = await closedPort();
  });
  // The settings are read when the page loads, after beforeAll.
  test.use({
    mockSettings: async ({}, use: (settings: object) => Promise<void>) => {
      await use(coreSettings({ endpointUrl: `http://127.0.0.1:${port}` }));
    }
  } as any);

  test('says that nothing answers there, not CORS', async ({
    page,
    tmpPath
  }) => {
    const error = await bookshelfError(page, 'clone', {
      s3_bucket: 'examples',
      s3_key: 'intro.ipynb',
      target_path: `${tmpPath}/`
    });
    expect(error.code).toBe('Unreachable');
    expect(error.message).toBe(`Nothing answers at http://127.0.0.1:${port}.`);
    const notification = await cloneFromDialog(
      page,
      'examples',
      'intro.ipynb',
      tmpPath,
      `Nothing answers at http://127.0.0.1:${port}.`
    );
    await expect(notification).toContainText('Check the S3 endpoint URL');
    await expect(notification).not.toContainText('CORS');
    expect(await listFolder(page, tmpPath)).toEqual([]);
  });
});

test.describe('a bucket whose policy denies access', () => {
  test('clone is refused: access denied, and why', async ({
    page,
    tmpPath
  }) => {
    const error = await bookshelfError(page, 'clone', {
      s3_bucket: 'denied',
      s3_key: 'intro.ipynb',
      target_path: `${tmpPath}/`
    });
    expect(error.code).toBe('AccessDenied');
    const notification = await cloneFromDialog(
      page,
      'denied',
      'intro.ipynb',
      tmpPath,
      'Access to s3://denied/intro.ipynb was denied.'
    );
    const dialog = await openErrorDetails(page, notification);
    await expect(dialog.locator('.jp-Dialog-header')).toContainText(
      'Access denied'
    );
    await expect(dialog).toContainText('a bucket policy may deny it');
    expect(await listFolder(page, tmpPath)).toEqual([]);
  });

  test.describe('as the publish bucket', () => {
    test.use({ mockSettings: coreSettings({ publishBucket: 'denied' }) });

    test('publish is refused and nothing is written', async ({
      page,
      tmpPath
    }) => {
      const path = `${tmpPath}/refused-${Date.now()}.ipynb`;
      await page.contents.uploadContent(notebookText(), 'text', path);
      const error = await bookshelfError(page, 'publish', path, {
        overwrite: true
      });
      expect(error.code).toBe('AccessDenied');
      expect(error.message).toContain('s3://denied');
      expect(await listKeys('denied')).toEqual(['intro.ipynb']);
    });
  });
});
