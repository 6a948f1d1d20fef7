/**
 * Against the second S3 test server, s3rver (scripts/s3rver_fixture.py):
 * it verifies request signatures against its keys (moto does not) and
 * silently ignores If-None-Match / If-Match on PUT (moto honours them).
 * What is on S3 is read back in Node with the AWS SDK and the right keys.
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import {
  bookshelfError,
  bookshelfSettings,
  callBookshelf,
  expectNotification,
  fixture,
  largeNotebook,
  namesOnDisk,
  notebookText,
  saveAgainAfterServerCheck,
  writeOnDisk
} from './helpers';
import { expect, scanServerLogs, test } from './secrets';
import { clickInToast, openInfoPanel, publishDialog, toast } from './pages';
import { client, keysBelow, readObject, server, writeObject } from './s3rver';

const PROBE_STEM = '.bookshelf-conditional-write-check-';
const CREDENTIALS_REFUSED = 'The S3 service did not accept the credentials.';

/**
 * Settings for s3rver: its endpoint, keys in the settings (the right ones
 * unless others are given) and the overwrite policy. A fixture, because
 * fixture.json is written when the servers start.
 */
function useS3rver(
  extra: object = {},
  keys: (info: ReturnType<typeof server>) => object = info => ({
    accessKeyId: info.access_key_id,
    secretAccessKey: info.secret_access_key
  })
): void {
  test.use({
    mockSettings: async ({}, use: (settings: object) => Promise<void>) => {
      const info = server();
      await use(
        bookshelfSettings({
          endpointUrl: info.endpoint_url,
          credentials: {
            mode: 'settings',
            sessionToken: '',
            endpoint: '',
            ...keys(info)
          },
          ...extra
        })
      );
    }
  } as any);
}

const NOTEBOOK = notebookText([
  {
    cell_type: 'markdown',
    id: 'a1',
    metadata: {},
    source: ['# Signed on s3rver']
  }
]);

async function addNotebook(
  page: IJupyterLabPageFixture,
  filePath: string,
  text = NOTEBOOK
): Promise<void> {
  await page.contents.uploadContent(text, 'text', filePath);
}

function onDisk(filePath: string): string | null {
  const full = path.join(fixture().root_dir, filePath);
  return fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : null;
}

test.afterAll(async () => {
  expect(scanServerLogs()).toEqual([]);
  // No probe leaves an object behind.
  expect(await keysBelow('published', PROBE_STEM)).toEqual([]);
});

test.describe('s3rver with the right keys', () => {
  useS3rver();

  test('clone and publish work, signed with the keys', async ({
    page,
    tmpPath
  }) => {
    const key = `shared/${tmpPath}/signed.ipynb`;
    await writeObject('examples', key, NOTEBOOK);
    const gets: { url: string; authorization?: string }[] = [];
    page.on('request', request => {
      if (
        request.method() === 'GET' &&
        request.url().startsWith(`${server().endpoint_url}/examples/`)
      ) {
        gets.push({
          url: request.url(),
          authorization: request.headers()['authorization']
        });
      }
    });
    const model = await callBookshelf<{ path: string }>(page, 'clone', {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    });
    expect(model.path).toBe(`${tmpPath}/signed.ipynb`);
    expect(JSON.parse(onDisk(model.path)!)).toEqual(JSON.parse(NOTEBOOK));
    // The download was signed in its URL (a GET without a CORS preflight),
    // and s3rver, which checks the signature, took it at once (a refusal
    // would have been followed by a GET signed in its headers).
    expect(gets).toHaveLength(1);
    expect(gets[0].url).toContain(
      `X-Amz-Credential=${server().access_key_id}%2F`
    );
    expect(gets[0].authorization).toBeUndefined();

    const published = await callBookshelf<{ s3_path: string }>(
      page,
      'publish',
      model.path
    );
    expect(published.s3_path).toBe(`s3://published/${model.path}`);
    expect(await readObject('published', model.path)).toBe(onDisk(model.path));
  });
});

test.describe('s3rver with the right keys, a large notebook', () => {
  useS3rver();

  test('is published in parts, each part signed, byte for byte', async ({
    page,
    tmpPath
  }) => {
    const filePath = `${tmpPath}/large.ipynb`;
    const line = JSON.stringify(`signed part é ✓ ${'y'.repeat(70)}\n`);
    const text = notebookText([
      {
        cell_type: 'markdown',
        id: 'big',
        metadata: {},
        source: new Array(250_000).fill(JSON.parse(line))
      }
    ]);
    expect(Buffer.byteLength(text)).toBeGreaterThan(20 * 1024 * 1024);
    writeOnDisk(filePath, text);
    const parts: string[] = [];
    page.on('requestfinished', request => {
      const number = new URL(request.url()).searchParams.get('partNumber');
      if (request.method() === 'PUT' && number) {
        parts.push(number);
      }
    });

    const published = await callBookshelf<{ etag: string }>(
      page,
      'publish',
      filePath
    );
    expect(await readObject('published', filePath)).toBe(text);
    const head = await client().send(
      new HeadObjectCommand({ Bucket: 'published', Key: filePath })
    );
    expect(head.ETag).toBe(published.etag);
    // 20 MiB and more in parts of 8 MiB, each signed (s3rver checks every
    // signature; its ETag of the whole is the MD5 of the bytes, not S3's).
    expect(parts.sort()).toEqual(['1', '2', '3']);
  });
});

test.describe('s3rver with the right keys, a notebook of a few MiB', () => {
  useS3rver();
  const MiB = 1024 * 1024;

  test('is put in one signed upload of the bytes the server checked', async ({
    page,
    tmpPath
  }) => {
    const filePath = `${tmpPath}/medium.ipynb`;
    const bytes = largeNotebook(4 * MiB, 'one put');
    writeOnDisk(filePath, bytes);
    const published = await callBookshelf<{ etag: string }>(
      page,
      'publish',
      filePath
    );
    expect(await readObject('published', filePath)).toBe(
      bytes.toString('utf8')
    );
    const md5 = createHash('md5').update(bytes).digest('hex');
    expect(published.etag).toBe(`"${md5}"`);
  });

  test('saved again after the check: s3rver ignores Content-MD5 and stores that save, and the publish says so', async ({
    page,
    tmpPath
  }) => {
    const filePath = `${tmpPath}/resaved.ipynb`;
    writeOnDisk(filePath, largeNotebook(4 * MiB, 'before'));
    const after = largeNotebook(4 * MiB, 'after!');
    const stop = await saveAgainAfterServerCheck(page, filePath, after);

    const error = await bookshelfError(page, 'publish', filePath);
    expect(error.code).toBe('ReadFailed');
    expect(error.message).toContain(
      'does not verify Content-MD5, stored the bytes of that save, which were not checked'
    );
    // What s3rver holds is that save, whole: not a torn or mixed file.
    expect(await readObject('published', filePath)).toBe(
      after.toString('utf8')
    );
    await stop();
  });
});

for (const [what, keys] of [
  [
    'a wrong secret',
    (info: ReturnType<typeof server>) => ({
      accessKeyId: info.access_key_id,
      secretAccessKey: 'settings-secret-NotS3rvers'
    })
  ],
  [
    'an unknown key id',
    () => ({
      accessKeyId: 'AKIDUNKNOWNTOS3RVER',
      secretAccessKey: 'settings-secret-AnyAtAll'
    })
  ]
] as const) {
  test.describe(`s3rver with ${what}`, () => {
    useS3rver({}, keys);

    test('clone and publish both say the credentials were refused; nothing written', async ({
      page,
      tmpPath
    }) => {
      const key = `shared/${tmpPath}/refused.ipynb`;
      await writeObject('examples', key, NOTEBOOK);
      const clone = await bookshelfError(page, 'clone', {
        s3_bucket: 'examples',
        s3_key: key,
        target_path: `${tmpPath}/`
      });
      expect(clone).toEqual({
        code: 'InvalidCredentials',
        message: CREDENTIALS_REFUSED
      });
      expect(namesOnDisk(tmpPath)).toEqual([]);

      const notebook = `${tmpPath}/mine.ipynb`;
      await addNotebook(page, notebook);
      const publish = await bookshelfError(page, 'publish', notebook);
      expect(publish).toEqual({
        code: 'InvalidCredentials',
        message: CREDENTIALS_REFUSED
      });
      expect(await readObject('published', notebook)).toBeNull();
    });
  });
}

test.describe('s3rver in session mode', () => {
  useS3rver({}, () => ({ mode: 'session' }));

  /** Start a publish in the page; it waits for the credentials dialog. */
  async function startPublish(page: IJupyterLabPageFixture, notebook: string) {
    await page.evaluate(p => {
      const app = (window as any).jupyterapp;
      const services: Map<any, string> = app.pluginRegistry._services;
      const token = [...services.keys()].find(
        key => key.name === 'jupyterlab-bookshelf:IBookshelf'
      );
      (window as any).bookshelfPublish = app
        .resolveRequiredService(token)
        .then((bookshelf: any) => bookshelf.publish(p))
        .then(
          () => 'published',
          (error: any) => error.code
        );
    }, notebook);
  }

  async function enterKeys(
    page: IJupyterLabPageFixture,
    secretAccessKey: string
  ): Promise<void> {
    const dialog = page.locator('.jp-Dialog', { hasText: 'S3 Credentials' });
    const accessKeyId = dialog.locator('input[name="accessKeyId"]');
    await expect(accessKeyId).toBeFocused();
    await accessKeyId.fill(server().access_key_id);
    await dialog.locator('input[name="secretAccessKey"]').fill(secretAccessKey);
    await dialog.getByRole('button', { name: 'Use for This Tab' }).click();
    await expect(dialog).toHaveCount(0);
  }

  test('refused keys are forgotten, so the next publish asks again', async ({
    page,
    tmpPath
  }) => {
    const notebook = `${tmpPath}/session.ipynb`;
    await addNotebook(page, notebook);
    await startPublish(page, notebook);
    await enterKeys(page, 'session-secret-NotS3rvers');
    expect(await page.evaluate(() => (window as any).bookshelfPublish)).toBe(
      'InvalidCredentials'
    );
    expect(await readObject('published', notebook)).toBeNull();

    await startPublish(page, notebook);
    await enterKeys(page, server().secret_access_key);
    expect(await page.evaluate(() => (window as any).bookshelfPublish)).toBe(
      'published'
    );
    expect(await readObject('published', notebook)).toBe(onDisk(notebook));
  });
});

test.describe("s3rver and the overwrite policy 'never'", () => {
  useS3rver({ overwritePolicy: 'never' });

  test('is refused with the reason and the setting to change; nothing written', async ({
    page,
    tmpPath
  }) => {
    const notebook = `${tmpPath}/never.ipynb`;
    await addNotebook(page, notebook);
    const error = await bookshelfError(page, 'publish', notebook);
    expect(error.code).toBe('NotConfigured');
    expect(error.message).toContain(
      "the overwrite policy 'never' needs the S3 service to refuse an upload onto an existing object (If-None-Match), and this service ignores that condition"
    );
    expect(error.message).toContain("Set overwritePolicy to 'always'");
    expect(await readObject('published', notebook)).toBeNull();
  });
});

test.describe("s3rver and the confirmed replace of 'confirm'", () => {
  useS3rver({ overwritePolicy: 'confirm' });

  test('is refused from the publish dialog; the object on S3 is unchanged', async ({
    page,
    tmpPath
  }) => {
    const name = `replace-${Date.now()}.ipynb`;
    const notebook = `${tmpPath}/${name}`;
    await addNotebook(page, notebook);
    const theirs = notebookText([
      { cell_type: 'markdown', id: 't1', metadata: {}, source: ['Theirs'] }
    ]);
    await writeObject('published', notebook, theirs);

    await page.filebrowser.openDirectory(tmpPath);
    await page
      .locator('.jp-DirListing-item', { hasText: name })
      .first()
      .click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Publish', exact: true }).click();
    const dialog = publishDialog(page);
    await dialog.getByRole('button', { name: 'Replace' }).click();
    await expectNotification(
      page,
      `Nothing was published to s3://published/${notebook}`
    );
    const notification = toast(
      page,
      'Nothing was published to s3://published/'
    );
    await clickInToast(notification, 'Show Details');
    const details = page.locator('.jp-Dialog', {
      hasText: 'Publishing cannot be protected'
    });
    await expect(details).toContainText(
      'replacing only the version you saw needs the S3 service to honour If-Match, and this service ignores that condition'
    );
    await expect(details).toContainText("Set overwritePolicy to 'always'");
    await details.getByRole('button', { name: 'Close' }).click();
    expect(await readObject('published', notebook)).toBe(theirs);

    // The API refuses too, with the ETag the dialog saw.
    const target = await callBookshelf<{ existing: { etag: string } }>(
      page,
      'publishTarget' as any,
      notebook
    );
    const error = await bookshelfError(page, 'publish', notebook, {
      overwrite: true,
      ifMatch: target.existing.etag
    });
    expect(error.code).toBe('NotConfigured');
    expect(error.message).toContain('needs the S3 service to honour If-Match');
    expect(await readObject('published', notebook)).toBe(theirs);
  });
});

test.describe('the info panel', () => {
  test.describe('on s3rver', () => {
    useS3rver();

    test('shows the conditional-writes check failing, with the fix', async ({
      page
    }) => {
      const panel = await openInfoPanel(page);
      const check = panel.locator('[data-check="conditional-writes"]');
      await expect(check).toHaveAttribute('data-state', 'fail');
      await expect(check).toContainText('so the S3 service ignores If-Match');
      await expect(check).toContainText('so it ignores If-None-Match');
      await expect(check).toContainText('The check deleted what it wrote.');
      await expect(check).toContainText("Set overwritePolicy to 'always'");
    });
  });

  test.describe('on moto', () => {
    test('shows the conditional-writes check passing', async ({ page }) => {
      const panel = await openInfoPanel(page);
      const check = panel.locator('[data-check="conditional-writes"]');
      await expect(check).toHaveAttribute('data-state', 'pass');
      await expect(check).toContainText(
        'so the S3 service honours conditional writes'
      );
    });
  });
});
