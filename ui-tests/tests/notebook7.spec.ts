/**
 * The extension in Jupyter Notebook 7, which scripts/serve.py starts beside
 * JupyterLab (same files, settings and S3 server; default URL /tree):
 * clone by link (the link hands off to /tree), the clone dialog, publish
 * from the tree view's context menu, its buttons for the selection and the
 * notebook's File menu, and the info panel in both views.
 */
import { expect, test } from './fixtures';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Page } from '@playwright/test';

import * as fs from 'fs';
import * as path from 'path';

import {
  filesInFolder,
  fixture,
  getObject,
  largeNotebook,
  notebookText,
  putObject,
  readFile
} from './helpers';
import { startNginx } from './nginx';
import {
  cloneDialog,
  confirmClone,
  followCloneLink,
  publishDialog,
  startCommand,
  toast
} from './pages';

const NOTEBOOK_URL = `http://127.0.0.1:${process.env.BOOKSHELF_TEST_NOTEBOOK_PORT}`;

const NOTEBOOK = notebookText([
  {
    cell_type: 'markdown',
    id: 'n7',
    metadata: {},
    source: ['# Published from Notebook 7']
  }
]);

// Galata's fixtures, pointed at Notebook: its pages are under the base URL
// (`/tree`, `/notebooks`), and it is ready once its main panel is there.
test.use({
  baseURL: NOTEBOOK_URL,
  appPath: '',
  waitForApplication: async ({}, use) => {
    await use(async (page: Page) => {
      await page.waitForSelector('#main-panel');
    });
  }
});

test.beforeAll(async () => {
  // Notebook starts with Lab; wait for it if it is still starting.
  for (let attempt = 0; attempt < 120; attempt++) {
    try {
      if ((await fetch(`${NOTEBOOK_URL}/api/status`)).ok) {
        return;
      }
    } catch {
      // Not listening yet.
    }
    await new Promise(resolve => setTimeout(resolve, 500));
  }
  throw new Error(`Notebook 7 did not start at ${NOTEBOOK_URL}`);
});

/**
 * Upload a notebook as `name` in `folder` and open that folder in the tree
 * view; resolves to the notebook's path and its row.
 */
async function notebookInTree(
  page: IJupyterLabPageFixture,
  folder: string,
  name: string
) {
  const path = `${folder}/${name}`;
  await page.contents.uploadContent(NOTEBOOK, 'text', path);
  await page.evaluate(
    url => window.location.assign(url),
    `${NOTEBOOK_URL}/tree/${folder}`
  );
  const item = page.locator('.jp-DirListing-item', { hasText: name });
  await expect(item).toBeVisible({ timeout: 30000 });
  return { path, item };
}

/**
 * Publish from the open publish dialog (a new object); resolves to what S3
 * then holds at `path`.
 */
async function publishNew(page: Page, path: string): Promise<string> {
  const dialog = publishDialog(page);
  await expect(
    dialog.locator('.jp-Bookshelf-publish-status[data-state="new"]')
  ).toBeVisible({ timeout: 30000 });
  await expect(dialog.locator('input[name="destination"]')).toHaveValue(path);
  await dialog.getByRole('button', { name: 'Publish' }).click();
  await expect(toast(page, 'Published version')).toBeVisible({
    timeout: 30000
  });
  const stored = await getObject('published', path);
  return stored!.body.toString('utf8');
}

test.describe('Notebook 7', () => {
  test('the clone link hands off to /tree; Clone writes and opens the notebook', async ({
    page,
    context,
    tmpPath
  }) => {
    // As a click on a shared link would (Galata's goto expects an app page).
    await page.evaluate(
      url => window.location.assign(url),
      `${NOTEBOOK_URL}/bookshelf/clone?s3_bucket=examples&s3_key=reports/2026/q3.ipynb&target_path=${encodeURIComponent(`${tmpPath}/`)}`
    );
    await page.waitForURL(/\/tree/);
    const dialog = cloneDialog(page);
    await expect(dialog).toBeVisible({ timeout: 30000 });
    await expect(dialog.locator('input[name="bucket"]')).toHaveValue(
      'examples'
    );
    await expect(dialog.locator('input[name="key"]')).toHaveValue(
      'reports/2026/q3.ipynb'
    );
    // The link's parameters are gone from the address bar.
    expect(page.url()).not.toContain('s3_key');

    // Notebook opens documents in a new browser tab.
    const opened = context.waitForEvent('page');
    await dialog.getByRole('button', { name: 'Clone' }).click();
    await expect(
      toast(page, 'Cloned s3://examples/reports/2026/q3.ipynb')
    ).toBeVisible({
      timeout: 30000
    });
    const notebookPage = await opened;
    await notebookPage.waitForURL(
      new RegExp(`/notebooks/${tmpPath}/q3\\.ipynb`)
    );
    const cloned = JSON.parse(await readFile(page, `${tmpPath}/q3.ipynb`));
    expect(cloned.nbformat).toBe(4);
    await notebookPage.close();
  });

  test('a clone link on a /tree address of a folder proposes that folder', async ({
    page,
    tmpPath
  }) => {
    const folder = `${tmpPath}/week 1`;
    await page.contents.createDirectory(folder);
    // A link a course page built from the folder's address.
    const dialog = await followCloneLink(
      page,
      `${NOTEBOOK_URL}/tree/${folder.split('/').map(encodeURIComponent).join('/')}?bookshelf-clone&s3_bucket=examples&s3_key=intro.ipynb`,
      /\/tree/
    );
    await expect(dialog.locator('input[name="folder"]')).toHaveValue(folder);
    await confirmClone(
      page,
      's3://examples/intro.ipynb',
      `${folder}/intro.ipynb`
    );
    expect(filesInFolder(folder)).toEqual(['intro.ipynb']);
  });

  test('the clone dialog from the command names the free name', async ({
    page,
    tmpPath
  }) => {
    await page.contents.uploadContent(NOTEBOOK, 'text', `${tmpPath}/q3.ipynb`);
    await startCommand(page, 'bookshelf:clone', {
      s3_bucket: 'examples',
      s3_key: 'reports/2026/q3.ipynb',
      target_path: `${tmpPath}/`
    });
    const dialog = cloneDialog(page);
    await expect(dialog).toBeVisible({ timeout: 30000 });
    await expect(dialog).toContainText('q3-1.ipynb');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
  });

  test("publish from the tree view's context menu", async ({
    page,
    tmpPath
  }) => {
    const { path, item } = await notebookInTree(
      page,
      tmpPath,
      `tree-${Date.now()}.ipynb`
    );
    await item.click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Publish', exact: true }).click();
    expect(await publishNew(page, path)).toBe(NOTEBOOK);
  });

  test("publish from the tree view's buttons for the selection", async ({
    page,
    tmpPath
  }) => {
    await page.contents.uploadContent('text', 'text', `${tmpPath}/notes.txt`);
    const { path, item } = await notebookInTree(
      page,
      tmpPath,
      `button-${Date.now()}.ipynb`
    );
    const button = page.locator(
      '.jp-FileBrowser-toolbar [data-jp-item-name="bookshelf-publish"]'
    );
    // Shown with Notebook's own buttons for a selection, only while a
    // notebook is selected.
    await expect(button).toBeHidden();
    await page.locator('.jp-DirListing-item', { hasText: 'notes.txt' }).click();
    await expect(
      page.locator('.jp-FileBrowser-toolbar #fileAction-open')
    ).toBeVisible();
    await expect(button).toBeHidden();
    await item.click();
    await expect(button).toBeVisible();
    await expect(button).toHaveText('Publish');
    await button.getByRole('button').click();
    expect(await publishNew(page, path)).toBe(NOTEBOOK);
  });

  test("publish from the notebook's File menu", async ({ page, tmpPath }) => {
    const name = `menu-${Date.now()}.ipynb`;
    const path = `${tmpPath}/${name}`;
    await page.contents.uploadContent(NOTEBOOK, 'text', path);
    await page.evaluate(
      url => window.location.assign(url),
      `${NOTEBOOK_URL}/notebooks/${path}`
    );
    await expect(page.locator('.jp-Notebook')).toBeVisible({ timeout: 30000 });
    // An edit not saved yet: a new cell below the first. Galata's notebook
    // and menu helpers drive JupyterLab's page, not Notebook 7's, so the
    // test clicks as a person does.
    /* eslint-disable jupyter/galata-prefer-notebook-cell-helper, jupyter/galata-prefer-menu-helper */
    await page.locator('.jp-Notebook .jp-Cell').first().click();
    await page.keyboard.press('Escape');
    await page.keyboard.press('b');
    await expect(page.locator('.jp-Notebook .jp-Cell')).toHaveCount(2);
    await page.locator('.lm-MenuBar-item', { hasText: 'File' }).click();
    await page
      .getByRole('menuitem', { name: 'Publish Notebook…', exact: true })
      .click();
    /* eslint-enable jupyter/galata-prefer-notebook-cell-helper, jupyter/galata-prefer-menu-helper */
    // Notebook 7 asks about unsaved changes as Lab does.
    await page
      .locator('.jp-Dialog', { hasText: 'Unsaved changes' })
      .getByRole('button', { name: 'Save and Publish' })
      .click();
    const published = await publishNew(page, path);
    expect(published).toBe(await readFile(page, path));
    expect(JSON.parse(published).cells).toHaveLength(2);
  });

  test('the info panel is a tab of the tree view, and a side panel beside a notebook', async ({
    page,
    tmpPath
  }) => {
    await startCommand(page, 'bookshelf:info');
    const panel = page.locator('.jp-Bookshelf-infoPanel');
    await expect(panel).toBeVisible({ timeout: 30000 });
    await expect(
      page.locator('#main-panel .lm-TabBar-tab', { hasText: 'Bookshelf' })
    ).toBeVisible();
    await expect(panel.locator('.jp-Bookshelf-info-checks')).toHaveAttribute(
      'aria-busy',
      'false',
      { timeout: 30000 }
    );
    // Every check passes on the demo configuration, also from /tree, but
    // for the two buckets the test Lab's links name broken on purpose.
    const broken = ['clone-bucket:nocors', 'clone-bucket:missing-bucket'];
    for (const item of await panel.locator('[data-check]').all()) {
      const id = (await item.getAttribute('data-check'))!;
      await expect(item).toHaveAttribute(
        'data-state',
        broken.includes(id) ? 'fail' : 'pass'
      );
    }

    const path = `${tmpPath}/side.ipynb`;
    await page.contents.uploadContent(NOTEBOOK, 'text', path);
    await page.evaluate(
      url => window.location.assign(url),
      `${NOTEBOOK_URL}/notebooks/${path}`
    );
    await expect(page.locator('.jp-Notebook')).toBeVisible({ timeout: 30000 });
    await startCommand(page, 'bookshelf:info');
    const side = page.locator('#jp-right-stack .jp-Bookshelf-infoPanel');
    await expect(side).toBeVisible({ timeout: 30000 });
    // The notebook stays in the main area.
    await expect(page.locator('#main-panel .jp-Notebook')).toBeVisible();
  });

  test('behind nginx that ends TLS, with client_max_body_size 3m: a link clones a large notebook in pieces nginx lets through, the tree view publishes it, and the server-side publish links back over https', async ({
    browser,
    networkLog,
    tmpPath
  }) => {
    test.setTimeout(150000);
    // Above nginx's 3 MiB body limit, below the size Notebook opens itself.
    const notebook = largeNotebook(5 * 1024 * 1024, 'Behind nginx');
    const name = 'big report.ipynb';
    const key = `nginx-tls/${Date.now()}/${name}`;
    await putObject('examples', key, notebook, 'application/x-ipynb+json');
    const nginx = await startNginx('3m', { tls: true });
    // A browser of its own that accepts the test's certificate.
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    networkLog.watch(context, 'https browser');
    try {
      const page = await context.newPage();
      // Notebook 7's in-app link (the Lab server behind nginx, whose
      // default frontend is Lab, serves /tree too, in server-side mode).
      const query = new URLSearchParams({
        s3_bucket: 'examples',
        s3_key: key,
        target_path: `${tmpPath}/`
      });
      await page.goto(`${nginx.url}/tree?bookshelf-clone&${query}`);
      await expect(cloneDialog(page)).toBeVisible({ timeout: 30000 });
      // Notebook opens the clone in a tab of its own, through nginx too;
      // the tree view says where the clone went.
      const opened = context.waitForEvent('page');
      await cloneDialog(page).getByRole('button', { name: 'Clone' }).click();
      // (Lab shortens long notifications: the start says enough.)
      await expect(toast(page, `Cloned s3://examples/${key}`)).toBeVisible({
        timeout: 30000
      });
      const notebookPage = await opened;
      await notebookPage.waitForURL(`${nginx.url}/notebooks/**`);
      await notebookPage.close();
      // Back in the tree view, the progress is gone: no notification of
      // it is left. (Asked of the notifications, not of the toasts: a page
      // behind another draws no animation, and the headless shell may not
      // end the exit of a toast that began there.)
      await page.bringToFront();
      const messages = () =>
        page.evaluate(async () => {
          const galata = (window as any).galata;
          // Galata's page fixture does this in Lab: its helpers find the
          // app once it has been asked for.
          void galata.app;
          const notifications: { message: string }[] =
            await galata.getNotifications();
          return notifications.map(item => item.message);
        });
      await expect
        .poll(
          async () =>
            (await messages()).filter(message => message.includes('Cloning')),
          { timeout: 15000 }
        )
        .toEqual([]);
      expect(await messages()).toContainEqual(
        expect.stringContaining(`Cloned s3://examples/${key}`)
      );
      const onDisk = path.join(fixture().root_dir, tmpPath, name);
      expect(fs.readFileSync(onDisk).equals(notebook)).toBe(true);
      // nginx refused the whole body; the pieces went through it.
      expect(nginx.refusedBodies()).toBeGreaterThan(0);

      // Publish from the tree view, over https.
      await page.goto(`${nginx.url}/tree/${tmpPath}`);
      const item = page.locator('.jp-DirListing-item', { hasText: name });
      await expect(item).toBeVisible({ timeout: 30000 });
      await item.click({ button: 'right' });
      await page
        .getByRole('menuitem', { name: 'Publish', exact: true })
        .click();
      expect(await publishNew(page, `${tmpPath}/${name}`)).toBe(
        notebook.toString('utf8')
      );

      // The server's publish (a script's, here from the page): its link is
      // on the origin the browser used, https through nginx, not the plain
      // HTTP that Jupyter sees behind it.
      const destination = `${tmpPath}/from the server.ipynb`;
      const answer = await page.evaluate(
        async ({ source, to }) => {
          const url = `/api/bookshelf/published/${source
            .split('/')
            .map(encodeURIComponent)
            .join('/')}?to=${encodeURIComponent(to)}`;
          const response = await fetch(url, { method: 'PUT' });
          return { status: response.status, body: await response.json() };
        },
        { source: `${tmpPath}/${name}`, to: destination }
      );
      expect(answer.status).toBe(201);
      expect(answer.body.clone_url).toMatch(
        new RegExp(`^${nginx.url.replace(/[.]/g, '\\.')}/bookshelf/clone\\?`)
      );
      const stored = await getObject('published', destination);
      expect(stored!.body.equals(notebook)).toBe(true);
    } finally {
      // nginx is stopped whatever closing the browser does (after a timeout
      // it throws).
      await context.close().finally(() => nginx.stop());
    }
    // No temporary file left beside the clone.
    expect(fs.readdirSync(path.join(fixture().root_dir, tmpPath))).toEqual([
      name
    ]);
  });
});
