import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { expect, test } from './fixtures';
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  PutBucketCorsCommand,
  PutBucketVersioningCommand,
  S3Client
} from '@aws-sdk/client-s3';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import {
  coreSettings,
  expectNotification,
  fixture,
  getObject,
  headObject,
  largeNotebook,
  notebookText,
  openUploads,
  putObject,
  readFile,
  saveAgainAfterServerCheck,
  writeOnDisk
} from './helpers';
import {
  clickInToast,
  cloneDialog,
  confirmPublish,
  openErrorDetails,
  publishDialog,
  publishFromContextMenu,
  publishInDialog,
  toast
} from './pages';

const NOTEBOOK = notebookText([
  {
    cell_type: 'markdown',
    id: 'a1',
    metadata: {},
    source: ['# Forecast\n', 'Numbers for the team.']
  },
  {
    cell_type: 'code',
    execution_count: 1,
    id: 'b2',
    metadata: {},
    outputs: [{ name: 'stdout', output_type: 'stream', text: ['42\n'] }],
    source: ['print(42)']
  }
]);

async function addNotebook(
  page: IJupyterLabPageFixture,
  path: string
): Promise<void> {
  await page.contents.uploadContent(NOTEBOOK, 'text', path);
  await page.filebrowser.refresh();
}

test.describe('publish from the file browser', () => {
  test('right-click → Publish puts the saved notebook and gives a clone link', async ({
    page,
    tmpPath,
    baseURL,
    context
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const name = `forecast-${Date.now()}.ipynb`;
    const path = `${tmpPath}/${name}`;
    await addNotebook(page, path);

    await publishFromContextMenu(page, name);
    const dialog = publishDialog(page);
    await expect(dialog).toContainText('s3://published/');
    await expect(dialog.locator('input[name="destination"]')).toHaveValue(path);
    await expect(
      dialog.locator('.jp-Bookshelf-publish-status[data-state="new"]')
    ).toBeVisible();
    await dialog.getByRole('button', { name: 'Publish' }).click();

    const published = toast(page, 'Published version');
    await expect(published).toBeVisible({ timeout: 30000 });
    const stored = await getObject('published', path);
    expect(stored!.body.toString('utf8')).toBe(await readFile(page, path));
    expect(stored!.versionId).toBeTruthy();
    await expect(published).toContainText(
      `Published version ${stored!.versionId}`
    );

    await clickInToast(published, 'Copy Link');
    // The button says it copied, as the clipboard cannot be seen.
    await expect(
      published.getByRole('button', { name: 'Link Copied' })
    ).toBeVisible();
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(link).toBe(
      `${baseURL}/bookshelf/clone?s3_bucket=published&s3_key=${encodeURIComponent(path)}&s3_version_id=${encodeURIComponent(stored!.versionId!)}`
    );

    // The link lands in the clone dialog for that version.
    await page.evaluate(url => window.location.assign(url), link);
    await page.waitForURL(/\/lab/);
    const linkDialog = cloneDialog(page);
    await expect(linkDialog).toBeVisible({ timeout: 30000 });
    await expect(linkDialog.locator('input[name="versionId"]')).toHaveValue(
      stored!.versionId!
    );
    await expect(linkDialog.locator('input[name="key"]')).toHaveValue(path);
  });

  test('publishing again replaces it after confirmation, as a new version', async ({
    page,
    tmpPath
  }) => {
    const name = `again-${Date.now()}.ipynb`;
    const path = `${tmpPath}/${name}`;
    await addNotebook(page, path);
    const first = await putObject(
      'published',
      path,
      NOTEBOOK.replace('Forecast', 'Old forecast'),
      'application/x-ipynb+json'
    );

    await publishFromContextMenu(page, name);
    const dialog = publishDialog(page);
    await expect(
      dialog.locator('.jp-Bookshelf-publish-status[data-state="exists"]')
    ).toContainText('replaces that version');
    // Styled as JupyterLab styles an action that replaces something.
    const replace = dialog.getByRole('button', { name: 'Replace' });
    await expect(replace).toHaveClass(/jp-mod-warn/);
    await replace.click();
    await expect(toast(page, 'Published version')).toBeVisible({
      timeout: 30000
    });

    const latest = await getObject('published', path);
    expect(latest!.body.toString('utf8')).toBe(NOTEBOOK);
    expect(latest!.versionId).not.toBe(first);
    const old = await getObject('published', path, first!);
    expect(old!.body.toString('utf8')).toContain('Old forecast');
  });

  test('a publish by someone else after the dialog opened is a conflict', async ({
    page,
    tmpPath
  }) => {
    const name = `race-${Date.now()}.ipynb`;
    const path = `${tmpPath}/${name}`;
    await addNotebook(page, path);
    await putObject('published', path, NOTEBOOK.replace('Forecast', 'A'));

    await publishFromContextMenu(page, name);
    const dialog = publishDialog(page);
    await expect(
      dialog.locator('.jp-Bookshelf-publish-status[data-state="exists"]')
    ).toBeVisible();
    // Someone else publishes meanwhile.
    const theirs = NOTEBOOK.replace('Forecast', 'Their forecast');
    await putObject('published', path, theirs);
    await dialog.getByRole('button', { name: 'Replace' }).click();

    await expectNotification(page, 'was changed by someone else');
    const stored = await getObject('published', path);
    expect(stored!.body.toString('utf8')).toBe(theirs);
  });

  test('the menu item is on notebooks only', async ({ page, tmpPath }) => {
    await page.contents.uploadContent(
      'plain text',
      'text',
      `${tmpPath}/notes.txt`
    );
    await addNotebook(page, `${tmpPath}/nb.ipynb`);
    await page
      .locator('.jp-DirListing-item', { hasText: 'notes.txt' })
      .click({ button: 'right' });
    await expect(page.locator('.lm-Menu').first()).toBeVisible();
    await expect(
      page.getByRole('menuitem', { name: 'Publish', exact: true })
    ).toHaveCount(0);
    await page.keyboard.press('Escape');
    await page
      .locator('.jp-DirListing-item', { hasText: 'nb.ipynb' })
      .click({ button: 'right' });
    await expect(
      page.getByRole('menuitem', { name: 'Publish', exact: true })
    ).toHaveCount(1);
    await page.keyboard.press('Escape');

    // Two notebooks selected: offered for one at a time, never the first.
    await addNotebook(page, `${tmpPath}/other.ipynb`);
    await page.locator('.jp-DirListing-item', { hasText: 'nb.ipynb' }).click();
    await page
      .locator('.jp-DirListing-item', { hasText: 'other.ipynb' })
      .click({ modifiers: ['Shift'] });
    await page
      .locator('.jp-DirListing-item', { hasText: 'other.ipynb' })
      .click({ button: 'right' });
    const item = page.getByRole('menuitem', {
      name: 'Publish (one notebook at a time)'
    });
    await expect(item).toHaveCount(1);
    await expect(item).toHaveAttribute('aria-disabled', 'true');
  });

  test('a saved notebook that starts with a byte order mark is refused with that reason, and nothing is stored', async ({
    page,
    tmpPath
  }) => {
    // Written as another program would (Jupyter cannot open such a file).
    const path = `${tmpPath}/marked-${Date.now()}.ipynb`;
    writeOnDisk(path, Buffer.from('\ufeff' + NOTEBOOK, 'utf8'));
    await page.filebrowser.refresh();
    await publishInDialog(page, path);
    // Lab shortens a long notification: the reason is in its details.
    const notification = toast(page, 'is not a valid Jupyter notebook');
    await expect(notification).toBeVisible({ timeout: 30000 });
    const details = await openErrorDetails(page, notification);
    await expect(details).toContainText(
      'it starts with a byte order mark (U+FEFF), which Jupyter cannot read: save it as UTF-8 without one.'
    );
    expect(await getObject('published', path)).toBeNull();
  });

  test('unsaved changes offer three choices; save and publish', async ({
    page,
    tmpPath
  }) => {
    const name = `edited-${Date.now()}.ipynb`;
    const path = `${tmpPath}/${name}`;
    await addNotebook(page, path);
    await page.filebrowser.open(name);
    await page.notebook.setCell(0, 'markdown', '# Edited before publishing');
    // Not awaited in the page: the command waits for the dialogs.
    await page.evaluate(p => {
      void (window as any).jupyterapp.commands.execute('bookshelf:publish', {
        path: p
      });
    }, path);
    const ask = page.locator('.jp-Dialog', { hasText: 'Unsaved changes' });
    await expect(ask.getByRole('button', { name: 'Cancel' })).toBeVisible();
    await expect(
      ask.getByRole('button', { name: 'Publish Saved Version' })
    ).toBeVisible();
    await ask.getByRole('button', { name: 'Save and Publish' }).click();
    const dialog = publishDialog(page);
    await expect(
      dialog.locator('.jp-Bookshelf-publish-status[data-state="new"]')
    ).toBeVisible();
    await dialog.getByRole('button', { name: 'Publish' }).click();
    await expect(toast(page, 'Published version')).toBeVisible({
      timeout: 30000
    });
    const stored = await getObject('published', path);
    expect(stored!.body.toString('utf8')).toContain('Edited before publishing');
  });
});

test.describe('a large notebook', () => {
  const MiB = 1024 * 1024;

  test('is published in parts while it is read, byte for byte, and again as a new version', async ({
    page,
    tmpPath
  }) => {
    const name = 'large.ipynb';
    const path = `${tmpPath}/${name}`;
    const first = largeNotebook(26 * MiB, 'first');
    writeOnDisk(path, first);
    await page.filebrowser.refresh();

    await publishFromContextMenu(page, name);
    await confirmPublish(page, 'new');
    await expect(toast(page, 'Published version')).toBeVisible({
      timeout: 60000
    });

    const stored = await getObject('published', path);
    expect(stored!.body.equals(first)).toBe(true);
    // S3's ETag of an object uploaded in parts of 8 MiB.
    const head = await headObject('published', path);
    const parts = Math.ceil(first.length / (8 * MiB));
    expect(parts).toBeGreaterThan(2);
    expect(head!.etag).toMatch(new RegExp(`^"[0-9a-f]{32}-${parts}"$`));
    expect(await openUploads('published')).not.toContain(path);

    // Saved again and published again: moto ignores If-Match on the
    // completion of an upload in parts, so the replace of the version seen
    // is one conditional put (what keeps the promise there).
    const second = largeNotebook(20 * MiB, 'second');
    writeOnDisk(path, second);
    await publishFromContextMenu(page, name);
    await confirmPublish(page, 'exists');
    await expect
      .poll(async () => (await headObject('published', path))?.versionId, {
        timeout: 60000
      })
      .not.toBe(stored!.versionId);
    const replaced = await getObject('published', path);
    expect(replaced!.body.equals(second)).toBe(true);
    expect(replaced!.versionId).not.toBe(stored!.versionId);
    const earlier = await getObject('published', path, stored!.versionId!);
    expect(earlier!.body.equals(first)).toBe(true);
    expect(await openUploads('published')).not.toContain(path);
  });

  test('up to 16 MiB is put in one upload of the bytes the server checked, byte for byte', async ({
    page,
    tmpPath
  }) => {
    const name = 'medium.ipynb';
    const path = `${tmpPath}/${name}`;
    const bytes = largeNotebook(6 * MiB, 'medium');
    writeOnDisk(path, bytes);
    await page.filebrowser.refresh();
    const toS3: string[] = [];
    page.on('request', request => {
      if (request.url().includes('/published/')) {
        toS3.push(`${request.method()} ${new URL(request.url()).search}`);
      }
    });

    await publishFromContextMenu(page, name);
    await confirmPublish(page, 'new');
    await expect(toast(page, 'Published version')).toBeVisible({
      timeout: 60000
    });

    const stored = await getObject('published', path);
    expect(stored!.body.equals(bytes)).toBe(true);
    const md5 = createHash('md5').update(bytes).digest('hex');
    expect((await headObject('published', path))!.etag).toBe(`"${md5}"`);
    // One put, no upload in parts.
    expect(toS3.filter(request => request.startsWith('PUT'))).toEqual([
      'PUT ?x-id=PutObject'
    ]);
    expect(toS3.filter(request => request.startsWith('POST'))).toEqual([]);
  });

  test('saved again between the check and the upload is not published: S3 refuses the bytes', async ({
    page,
    tmpPath
  }) => {
    const name = 'resaved.ipynb';
    const path = `${tmpPath}/${name}`;
    writeOnDisk(path, largeNotebook(6 * MiB, 'before'));
    await page.filebrowser.refresh();
    // The server's check reads the file; then it is saved again (same
    // size), before the browser fetches the bytes it uploads.
    const stop = await saveAgainAfterServerCheck(
      page,
      path,
      largeNotebook(6 * MiB, 'after!')
    );

    await publishFromContextMenu(page, name);
    await confirmPublish(page, 'new');
    await expect(
      toast(page, 'was saved again while it was being published')
    ).toBeVisible({ timeout: 60000 });
    expect(await headObject('published', path)).toBeNull();
    await stop();
  });

  test('cancelled while its parts go up, leaves no object and no parts', async ({
    page,
    tmpPath
  }) => {
    const name = 'cancelled.ipynb';
    const path = `${tmpPath}/${name}`;
    writeOnDisk(path, largeNotebook(26 * MiB, 'cancelled'));
    await page.filebrowser.refresh();
    // The second part is held back, so that there is time to cancel.
    await page.route(/partNumber=2(&|$)/, async route => {
      await new Promise(resolve => setTimeout(resolve, 4000));
      await route.fallback().catch(() => undefined);
    });

    await publishFromContextMenu(page, name);
    await confirmPublish(page, 'new');
    const progress = toast(page, `Publishing ${path}`);
    await clickInToast(progress, 'Cancel');
    await expect(toast(page, 'Publishing was cancelled.')).toBeVisible({
      timeout: 10000
    });
    await expect
      .poll(() => openUploads('published'), { timeout: 10000 })
      .not.toContain(path);
    expect(await headObject('published', path)).toBeNull();
    await page.unroute(/partNumber=2(&|$)/);
  });
});

test.describe('a publish bucket whose CORS rule predates uploads in parts', () => {
  // The rule Bookshelf proposed before: no POST, so the page may not start
  // an upload in parts there.
  const BUCKET = `older-cors-${process.pid}`;
  test.use({ mockSettings: coreSettings({ publishBucket: BUCKET }) });

  const client = () =>
    new S3Client({
      endpoint: fixture().endpoint_url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'bookshelf-demo', secretAccessKey: 'x' }
    });

  test.beforeAll(async () => {
    const info = fixture();
    const s3 = client();
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    await s3.send(
      new PutBucketVersioningCommand({
        Bucket: BUCKET,
        VersioningConfiguration: { Status: 'Enabled' }
      })
    );
    const rule = JSON.parse(
      fs.readFileSync(
        path.join(__dirname, '..', '..', 'src', 'rules', 'cors.json'),
        'utf8'
      )
    );
    await s3.send(
      new PutBucketCorsCommand({
        Bucket: BUCKET,
        CORSConfiguration: {
          CORSRules: [
            {
              AllowedOrigins: [`http://127.0.0.1:${info.lab_port}`],
              AllowedMethods: ['GET', 'HEAD', 'PUT', 'DELETE'],
              AllowedHeaders: rule.AllowedHeaders,
              ExposeHeaders: rule.ExposeHeaders,
              MaxAgeSeconds: rule.MaxAgeSeconds
            }
          ]
        }
      })
    );
  });

  test('still gets a large notebook, in one upload, byte for byte', async ({
    page,
    tmpPath
  }) => {
    const name = 'large.ipynb';
    const filePath = `${tmpPath}/${name}`;
    // Above 16 MiB, which goes in parts where the rule allows it.
    const notebook = largeNotebook(20 * 1024 * 1024, 'whole');
    writeOnDisk(filePath, notebook);
    await page.filebrowser.refresh();
    const refused: string[] = [];
    page.on('requestfailed', request => {
      if (request.method() === 'POST' && request.url().includes(BUCKET)) {
        refused.push(request.url());
      }
    });

    await publishFromContextMenu(page, name);
    await confirmPublish(page, 'new');
    await expect(toast(page, 'Published version')).toBeVisible({
      timeout: 30000
    });

    // The browser refused the start of an upload in parts (each of the
    // SDK's tries: the rule lets this page's GETs in, so a refused POST
    // looks like a lost connection, which is tried again); one PUT did it.
    expect(refused.length).toBeGreaterThanOrEqual(1);
    const stored = await getObject(BUCKET, filePath);
    expect(stored!.body.equals(notebook)).toBe(true);
    expect((await headObject(BUCKET, filePath))!.etag).toMatch(
      /^"[0-9a-f]{32}"$/
    );
    // S3 refuses the preflight of the POST, so nothing is started there.
    // moto answers every preflight and POST is a method the browser does
    // not check against the answer, so moto started uploads whose answers
    // the page could not read: none of them holds a part.
    const s3 = client();
    const { Uploads = [] } = await s3.send(
      new ListMultipartUploadsCommand({ Bucket: BUCKET })
    );
    for (const upload of Uploads) {
      const { Parts = [] } = await s3.send(
        new ListPartsCommand({
          Bucket: BUCKET,
          Key: upload.Key,
          UploadId: upload.UploadId
        })
      );
      expect(Parts).toEqual([]);
      await s3.send(
        new AbortMultipartUploadCommand({
          Bucket: BUCKET,
          Key: upload.Key,
          UploadId: upload.UploadId
        })
      );
    }
  });
});

test.describe('overwrite policy "never"', () => {
  test.use({ mockSettings: coreSettings({ overwritePolicy: 'never' }) });

  test('refuses an existing object and leaves it unchanged', async ({
    page,
    tmpPath
  }) => {
    const name = `kept-${Date.now()}.ipynb`;
    const path = `${tmpPath}/${name}`;
    await addNotebook(page, path);
    const original = NOTEBOOK.replace('Forecast', 'Original');
    await putObject('published', path, original);

    await publishFromContextMenu(page, name);
    const dialog = publishDialog(page);
    await expect(dialog).toContainText('the overwrite policy is "never"');
    await expect(dialog.locator('.jp-mod-accept')).toBeDisabled();
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // The API refuses too.
    const outcome = await page.evaluate(async p => {
      const app = (window as any).jupyterapp;
      const services: Map<any, string> = app.pluginRegistry._services;
      const token = [...services.keys()].find(
        key => key.name === 'jupyterlab-bookshelf:IBookshelf'
      );
      const bookshelf = await app.resolveRequiredService(token);
      try {
        await bookshelf.publish(p, { overwrite: true });
        return 'published';
      } catch (error: any) {
        return error.code;
      }
    }, path);
    expect(outcome).toBe('Conflict');
    const stored = await getObject('published', path);
    expect(stored!.body.toString('utf8')).toBe(original);
  });
});

test.describe('no publish bucket', () => {
  test.use({ mockSettings: coreSettings({ publishBucket: '' }) });

  test('says publishing is not set up and offers the settings', async ({
    page,
    tmpPath
  }) => {
    const name = 'unset.ipynb';
    await addNotebook(page, `${tmpPath}/${name}`);
    await publishFromContextMenu(page, name);
    const dialog = page.locator('.jp-Dialog', {
      hasText: 'Publishing is not set up'
    });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Open Settings' }).click();
    await expect(
      page.getByRole('main').getByRole('tab', { name: /Settings/ })
    ).toBeVisible();
  });
});
