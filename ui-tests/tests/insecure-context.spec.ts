/**
 * Lab reached over plain HTTP by a name other than localhost, as a server
 * on the local network is (http://10.0.0.5:8888): the page is not a secure
 * context, so the browser gives it no `navigator.clipboard`, no Web Locks
 * and no `crypto.subtle`. This file's browser resolves LAN_HOST to
 * 127.0.0.1; the test Lab accepts it as its host (a JupyterHub's user
 * servers accept any), and the buckets' CORS rules allow its origin, the
 * hub's and the JupyterLite site's by that name (scripts/serve.py).
 */
import type { Browser, Page } from '@playwright/test';
import * as fs from 'fs';

import { expect, NetworkLog, test } from './fixtures';
import {
  callBookshelf,
  cloneNames,
  filesInFolder,
  fixture,
  getObject,
  namesOnDisk,
  notebookText,
  ownBrowser,
  readFile
} from './helpers';
import {
  clickInToast,
  cloneInDialog,
  confirmClone,
  followCloneLink,
  infoCheck,
  openApp,
  openErrorDetails,
  openInfoPanel,
  toast
} from './pages';
import { cloneFromLink, fileOnDisk, hub, logIn, publish } from './hub';
import { expectTabsCloneWithoutLoss } from './lite';
import { readObject, server as s3rver, writeObject } from './s3rver';

/** scripts/serve.py's LAN_HOST. */
const LAN_HOST = 'bookshelf-lan.test';

// A browser of this file's own (launch options are the worker's) that
// resolves LAN_HOST. Only the browser does: Galata's fixtures (the test's
// folder) and the checks on disk and S3 go on from Node as in other files,
// so the pages here are opened by hand, without Galata's mocks, which
// Node would have to fetch from LAN_HOST.
test.use(ownBrowser([`--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1`]));

// The test's network log, for the contexts opened by hand here.
let testNetworkLog: NetworkLog | null = null;
test.beforeEach(({ networkLog }) => {
  testNetworkLog = networkLog;
});

/**
 * Lab at `folder` in a browser context of its own, by LAN_HOST; with
 * `settings`, the extension's settings are those (as a user's own).
 */
async function openByLanName(
  browser: Browser,
  folder: string,
  settings?: object
): Promise<Page> {
  const context = await browser.newContext();
  testNetworkLog?.watch(context, 'page');
  if (settings) {
    // As Galata's mockSettings, fetched in Node by 127.0.0.1 (Node cannot
    // resolve LAN_HOST).
    await context.route('**/lab/api/settings**', async route => {
      const response = await route.fetch({
        url: route.request().url().replace(LAN_HOST, '127.0.0.1')
      });
      const body = await response.json();
      // The list of every plugin's settings, or one plugin's.
      const plugins = Array.isArray(body.settings) ? body.settings : [body];
      for (const plugin of plugins) {
        if (plugin.id === 'jupyterlab-bookshelf:core') {
          plugin.raw = JSON.stringify(settings);
          plugin.settings = settings;
        }
      }
      await route.fulfill({ response, json: body });
    });
  }
  const page = await context.newPage();
  await openApp(
    page,
    `http://${LAN_HOST}:${fixture().lab_port}/lab/tree/${folder}`
  );
  return page;
}

/**
 * Record what the page copies: a listener on the window runs after Lab's
 * own on the body, which has put the text in the event by then. (The
 * clipboard itself cannot be read here: that needs a secure context.)
 */
async function recordCopies(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    (window as any).bookshelfCopied = [];
    window.addEventListener('copy', event =>
      (window as any).bookshelfCopied.push(event.clipboardData?.getData('text'))
    );
  });
  return () => page.evaluate(() => (window as any).bookshelfCopied);
}

test('the page is not a secure context', async ({ browser, tmpPath }) => {
  const page = await openByLanName(browser, tmpPath);
  expect(
    await page.evaluate(() => ({
      secure: window.isSecureContext,
      locks: 'locks' in navigator,
      clipboard: 'clipboard' in navigator,
      subtle: !!globalThis.crypto?.subtle
    }))
  ).toEqual({ secure: false, locks: false, clipboard: false, subtle: false });
  await page.context().close();
});

test('two browsers clone one key three times each at once: six files, each the object', async ({
  browser,
  tmpPath
}) => {
  const first = await openByLanName(browser, tmpPath);
  const second = await openByLanName(browser, tmpPath);
  const request = {
    s3_bucket: 'examples',
    s3_key: 'reports/2026/q3.ipynb',
    target_path: `${tmpPath}/`
  };
  const models = await Promise.all(
    [first, first, first, second, second, second].map(page =>
      callBookshelf<any>(page, 'clone', request)
    )
  );
  const expected = cloneNames('q3', '.ipynb', 6);
  expect(models.map(model => model.name).sort()).toEqual(expected);
  expect(namesOnDisk(tmpPath)).toEqual(expected);
  const object = (await getObject('examples', request.s3_key))!.body;
  for (const name of expected) {
    expect(await readFile(first, `${tmpPath}/${name}`)).toBe(
      object.toString('utf8')
    );
  }
  await first.context().close();
  await second.context().close();
});

test("a clone link by this name lands in Lab by this name, and clones into the link's folder", async ({
  browser,
  tmpPath
}) => {
  const page = await openByLanName(browser, tmpPath);
  const dialog = await followCloneLink(
    page,
    `/bookshelf/clone?s3_bucket=examples&s3_key=intro.ipynb&target_path=${encodeURIComponent(`${tmpPath}/`)}`,
    new RegExp(`^http://${LAN_HOST}:\\d+/lab`)
  );
  await expect(dialog.locator('input[name="folder"]')).toHaveValue(tmpPath);
  await confirmClone(
    page,
    's3://examples/intro.ipynb',
    `${tmpPath}/intro.ipynb`
  );
  // (Opened after the clone: Jupyter's checkpoint folder is there too.)
  expect(filesInFolder(tmpPath)).toEqual(['intro.ipynb']);
  const object = (await getObject('examples', 'intro.ipynb'))!.body;
  expect(await readFile(page, `${tmpPath}/intro.ipynb`)).toBe(
    object.toString('utf8')
  );
  await page.context().close();
});

test('a notebook publishes, its bytes on S3', async ({ browser, tmpPath }) => {
  const page = await openByLanName(browser, tmpPath);
  const model = await callBookshelf<any>(page, 'clone', {
    s3_bucket: 'examples',
    s3_key: 'intro.ipynb',
    target_path: `${tmpPath}/`
  });
  const result = await callBookshelf<any>(page, 'publish', model.path, {
    overwrite: true
  });
  const stored = await getObject('published', model.path);
  expect(stored!.body.toString('utf8')).toBe(await readFile(page, model.path));
  expect(result.version_id).toBe(stored!.versionId);
  await page.context().close();
});

test('on an S3 service that checks signatures (s3rver), a clone and a publish are signed right without crypto.subtle', async ({
  browser,
  tmpPath
}) => {
  // The SDK hashes for its signatures in JavaScript here, not WebCrypto.
  const info = s3rver();
  const page = await openByLanName(browser, tmpPath, {
    endpointUrl: info.endpoint_url,
    credentials: {
      mode: 'settings',
      accessKeyId: info.access_key_id,
      secretAccessKey: info.secret_access_key,
      sessionToken: '',
      endpoint: ''
    }
  });
  const key = `shared/${tmpPath}/signed.ipynb`;
  const text = notebookText([
    { cell_type: 'markdown', metadata: {}, source: ['# Signed'] }
  ]);
  await writeObject('examples', key, text);
  const model = await callBookshelf<any>(page, 'clone', {
    s3_bucket: 'examples',
    s3_key: key,
    target_path: `${tmpPath}/`
  });
  expect(await readFile(page, model.path)).toBe(text);
  const published = await callBookshelf<any>(page, 'publish', model.path);
  expect(published.s3_path).toBe(`s3://published/${model.path}`);
  expect(await readObject('published', model.path)).toBe(text);
  await page.context().close();
});

test("the info panel's Copy Rule copies a bucket's CORS rule, and says so", async ({
  browser,
  tmpPath
}) => {
  const page = await openByLanName(browser, tmpPath);
  const copied = await recordCopies(page);
  const panel = await openInfoPanel(page);
  // A bucket of allowedBuckets without a CORS rule for this page.
  const nocors = infoCheck(panel, 'clone-bucket:nocors');
  const shown = (await nocors
    .locator('.jp-Bookshelf-check-rule pre')
    .textContent())!;
  expect(JSON.parse(shown).AllowedOrigins).toEqual([
    `http://${LAN_HOST}:${fixture().lab_port}`
  ]);
  await nocors.getByRole('button', { name: 'Copy Rule' }).click();
  await expect(
    nocors.getByRole('button', { name: 'Rule Copied' })
  ).toBeVisible();
  expect(await copied()).toEqual([shown]);
  await page.context().close();
});

test("a clone's CORS error: its details' Copy Rule copies the rule", async ({
  browser,
  tmpPath
}) => {
  const page = await openByLanName(browser, tmpPath);
  const copied = await recordCopies(page);
  await cloneInDialog(page, {
    s3_bucket: 'nocors',
    s3_key: 'intro.ipynb',
    target_path: `${tmpPath}/`
  });
  const notification = toast(page, 'does not allow requests from this page');
  await expect(notification).toBeVisible();
  const dialog = await openErrorDetails(page, notification);
  const shown = (await dialog
    .locator('.jp-Bookshelf-error-rule')
    .textContent())!;
  await dialog.getByRole('button', { name: 'Copy Rule' }).click();
  await expect(dialog).toHaveCount(0);
  expect(await copied()).toEqual([shown]);
  expect(namesOnDisk(tmpPath)).toEqual([]);
  await page.context().close();
});

test('two tabs of a JupyterLite site clone one key at once: every clone gets a name of its own, none is lost', async ({
  browser
}) => {
  // No Web Locks here: the tabs share locks in IndexedDB. (With a lock per
  // tab, one of six such rounds lost a clone.)
  const site = fixture().lite_url!.replace('127.0.0.1', LAN_HOST);
  await expectTabsCloneWithoutLoss(browser, site, 6);
});

test("on a JupyterHub by this name: a user-redirect link clones into the user's own tree, the clone publishes below the user's prefix, and Copy Hub Link copies the link by this name", async ({
  browser,
  networkLog
}) => {
  // A user's server to start on a two-core machine.
  test.setTimeout(240000);
  const origin = hub().url.replace('127.0.0.1', LAN_HOST);
  const ana = await logIn(browser, 'ana', networkLog, origin);
  expect(await ana.evaluate(() => window.isSecureContext)).toBe(false);
  const folder = `lan-${Date.now()}`;
  const key = 'reports/2026/q3.ipynb';
  const cloned = await cloneFromLink(
    ana,
    `${origin}/hub/user-redirect/bookshelf/clone?s3_bucket=examples` +
      `&s3_key=${encodeURIComponent(key)}` +
      `&target_path=${encodeURIComponent(folder + '/')}`
  );
  expect(cloned).toBe(`${folder}/q3.ipynb`);
  const file = await fileOnDisk('ana', cloned);
  expect(fs.readFileSync(file)).toEqual(
    (await getObject('examples', key))!.body
  );

  const notification = await publish(ana, cloned, 'ana');
  const stored = await getObject('published', `users/ana/${cloned}`);
  expect(stored!.body.equals(fs.readFileSync(file))).toBe(true);
  const copied = await recordCopies(ana);
  await clickInToast(notification, 'Copy Hub Link');
  await expect(
    notification.getByRole('button', { name: 'Hub Link Copied' })
  ).toBeVisible();
  const link = new URL((await copied())[0]);
  expect(link.origin).toBe(origin);
  expect(link.pathname).toBe('/hub/user-redirect/bookshelf/clone');
  expect(link.searchParams.get('s3_key')).toBe(`users/ana/${cloned}`);
  expect(link.searchParams.get('s3_version_id')).toBe(stored!.versionId);
  await ana.context().close();
});
