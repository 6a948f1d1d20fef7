/**
 * Server-side mode (`c.Bookshelf.server_access`, on in the test Lab, see
 * scripts/serve.py): clones through the HTTP API racing clones in two
 * browsers, a script's 200 clones in a loop while a person works in Lab and
 * another lists the folder, a script's publish racing a person's to one key,
 * and what a person sees when the bucket's CORS rules refuse the
 * page: the offer to publish on the server (JupyterLab) and to clone on the
 * server (Notebook 7, served by the same server at /tree). Every test reads
 * the result back on disk and on S3, outside the browser.
 *
 * In the fault-proxy project (playwright.config.js): the publish tests make
 * the proxy refuse the bucket's PUT to this page, or hold it back.
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Page } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';

import { expect, test } from './fixtures';
import {
  addFault,
  bookshelfSettings,
  clearFaults,
  expectFaultsApplied,
  faultRules,
  filesOnDisk,
  fixture,
  getObject,
  listVersions,
  md5,
  namesOnDisk,
  proxyUrl,
  putObject,
  settleBookshelf,
  titledNotebook,
  uid,
  expectFileIsObject
} from './helpers';
import { cloneInDialog, publishDialog, startCommand, toast } from './pages';

test.afterEach(async () => {
  await clearFaults();
});

test.describe('API clones racing browser clones', () => {
  const perSide = 20;

  test('20 clones through the HTTP API and 20 in two browsers, of one key into one folder, give 40 files (0 lost)', async ({
    page,
    secondBrowser,
    baseURL,
    request,
    tmpPath
  }) => {
    test.setTimeout(120 * 1000);
    const key = `server-side/${uid()}/shared.ipynb`;
    const body = titledNotebook('Shared');
    await putObject('examples', key, body, 'application/x-ipynb+json');
    await page.contents.uploadContent(
      'already here',
      'text',
      `${tmpPath}/shared.ipynb`
    );
    const clone = {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    };
    const times: { side: string; start: number; end: number }[] = [];
    const timed = async <T>(side: string, work: () => Promise<T>) => {
      const start = Date.now();
      try {
        return await work();
      } finally {
        times.push({ side, start, end: Date.now() });
      }
    };
    // The server-side clones: the spec's request, as a script sends it.
    const api = Array.from({ length: perSide }, () =>
      timed('api', async () => {
        const response = await request.post(`${baseURL}/api/bookshelf/clone`, {
          data: clone
        });
        return { status: response.status(), body: await response.json() };
      })
    );
    const inPage = (browserPage: IJupyterLabPageFixture) =>
      Array.from({ length: perSide / 2 }, () =>
        timed('browser', () => settleBookshelf(browserPage, 'clone', clone))
      );
    const [fromApi, fromBrowsers] = await Promise.all([
      Promise.all(api),
      Promise.all([...inPage(page), ...inPage(secondBrowser)])
    ]);

    // Every one succeeded, each with a path of its own.
    expect(fromApi.filter(result => result.status !== 201)).toEqual([]);
    expect(fromBrowsers.filter(result => !result.ok)).toEqual([]);
    const reported = [
      ...fromApi.map(result => result.body.path as string),
      ...fromBrowsers.map(result => result.value.path as string)
    ];
    expect(new Set(reported).size).toBe(2 * perSide);

    // The two kinds really ran at the same time.
    const span = (side: string) => {
      const mine = times.filter(time => time.side === side);
      return {
        start: Math.min(...mine.map(time => time.start)),
        end: Math.max(...mine.map(time => time.end))
      };
    };
    const [a, b] = [span('api'), span('browser')];
    expect(Math.max(a.start, b.start)).toBeLessThan(Math.min(a.end, b.end));

    // On disk, outside the browsers: the file there, and 40 copies
    // under the next 40 names, each the object's bytes; nothing else.
    const root = fixture().root_dir;
    const expected = [
      'shared.ipynb',
      ...Array.from({ length: 2 * perSide }, (_, i) => `shared-${i + 1}.ipynb`)
    ].sort();
    const files = namesOnDisk(tmpPath).filter(name =>
      fs.statSync(path.join(root, tmpPath, name)).isFile()
    );
    expect(files).toEqual(expected);
    expect(reported.map(p => p.slice(p.lastIndexOf('/') + 1)).sort()).toEqual(
      expected.filter(name => name !== 'shared.ipynb')
    );
    expect(
      fs.readFileSync(path.join(root, tmpPath, 'shared.ipynb'), 'utf8')
    ).toBe('already here');
    for (const name of expected.filter(name => name !== 'shared.ipynb')) {
      expect(md5(fs.readFileSync(path.join(root, tmpPath, name))), name).toBe(
        md5(body)
      );
    }
    expect(filesOnDisk(/\.bookshelf-partial$/)).toEqual([]);
  });
});

test.describe('a script that clones in a loop', () => {
  const clones = 200;

  test('200 clones from a loop while a person works in Lab: every file whole, the folder stays open, every save goes through', async ({
    page,
    request,
    baseURL,
    tmpPath
  }) => {
    test.setTimeout(240 * 1000);
    const key = `server-side/${uid()}/daily.ipynb`;
    const body = titledNotebook('Daily', 20 * 1024);
    await putObject('examples', key, body, 'application/x-ipynb+json');

    // The person has the folder the script clones into open, and a
    // notebook of their own in it.
    await page.filebrowser.openDirectory(tmpPath);
    await page.notebook.createNew('mine.ipynb');
    let edits = 0;
    const editAndSave = async () => {
      edits += 1;
      await page.notebook.setCell(0, 'code', `step = ${edits}`);
      await page.notebook.save();
      await page.filebrowser.refresh();
    };
    // Saved once before the script starts: the saves made while it runs
    // (its 200 clones take only a few seconds) come after.
    await editAndSave();

    // The script: one clone after the other, as a shell or Python loop
    // calls the API with the server's token.
    let done = false;
    const loop = (async () => {
      const statuses: number[] = [];
      try {
        for (let i = 0; i < clones; i++) {
          const response = await request.post(
            `${baseURL}/api/bookshelf/clone`,
            {
              data: {
                s3_bucket: 'examples',
                s3_key: key,
                target_path: `${tmpPath}/`
              }
            }
          );
          statuses.push(response.status());
        }
      } finally {
        done = true;
      }
      return statuses;
    })();

    // Another person's file browser lists the folder meanwhile, four
    // times a second (Lab's own polls every ten seconds).
    const pause = (ms: number) =>
      new Promise(resolve => setTimeout(resolve, ms));
    const listings = (async () => {
      const statuses: number[] = [];
      while (!done) {
        const response = await request.get(
          `${baseURL}/api/contents/${tmpPath}?content=1`
        );
        statuses.push(response.status());
        await pause(250);
      }
      return statuses;
    })();

    // Meanwhile the person edits and saves, and looks at the folder.
    while (!done) {
      await editAndSave();
      // At a quick person's pace.
      await pause(250);
    }
    const statuses = await loop;
    const listed = await listings;

    expect(statuses.filter(status => status !== 201)).toEqual([]);
    expect(listed.length).toBeGreaterThan(1);
    expect(listed.filter(status => status !== 200)).toEqual([]);
    // At least one save began and ended while the clones went on.
    expect(edits).toBeGreaterThan(2);
    // No "Directory not found" or other error dialog; still in the folder.
    await expect(page.locator('.jp-Dialog')).toHaveCount(0);
    expect(await page.filebrowser.getCurrentDirectory()).toBe(tmpPath);

    // On disk, outside the browser: the person's last save, and the 200
    // clones under 200 names, each the object's bytes; nothing else.
    const root = fixture().root_dir;
    const mine = JSON.parse(
      fs.readFileSync(path.join(root, tmpPath, 'mine.ipynb'), 'utf8')
    );
    expect([mine.cells[0].source].flat().join('')).toBe(`step = ${edits}`);
    const expected = [
      'daily.ipynb',
      ...Array.from({ length: clones - 1 }, (_, i) => `daily-${i + 1}.ipynb`),
      'mine.ipynb'
    ].sort();
    const files = namesOnDisk(tmpPath).filter(name =>
      fs.statSync(path.join(root, tmpPath, name)).isFile()
    );
    expect(files).toEqual(expected);
    for (const name of expected.filter(name => name !== 'mine.ipynb')) {
      expect(md5(fs.readFileSync(path.join(root, tmpPath, name))), name).toBe(
        md5(body)
      );
    }
    expect(filesOnDisk(/\.bookshelf-partial$/)).toEqual([]);
  });
});

test.describe('a publish bucket whose CORS rules refuse this page', () => {
  // The page publishes through the proxy; the server goes to S3 itself.
  test.use({ mockSettings: bookshelfSettings({ endpointUrl: proxyUrl() }) });

  test('the publish is offered on the server, which stores the saved notebook', async ({
    page,
    tmpPath
  }) => {
    const nbPath = `${tmpPath}/report-${uid()}.ipynb`;
    const text = titledNotebook('Published on the server', 1024);
    await page.contents.uploadContent(text, 'text', nbPath);
    // A bucket whose CORS rules do not name this page, as the browser meets
    // it. Playwright answers the preflights of a page whose requests it
    // routes (Galata's mocked settings) itself, so a refusal cannot come
    // from the preflight: the page's upload fails without an answer (the
    // proxy closes the connection before any byte of the body, so S3 stores
    // nothing) and the bucket's answer names another origin, which is what
    // tells the page that CORS refused it.
    await addFault({
      method: 'PUT',
      path: `/published/${nbPath}`,
      // Every try: the SDK retries a failed upload.
      times: 0,
      fault: { type: 'drop', where: 'request', after: 0 }
    });
    await addFault({
      method: 'GET',
      path: '/published/',
      times: 0,
      fault: {
        type: 'headers',
        set: { 'Access-Control-Allow-Origin': 'https://elsewhere.example' }
      }
    });
    await startCommand(page, 'bookshelf:publish', { path: nbPath });
    const dialog = publishDialog(page);
    await expect(
      dialog.locator('.jp-Bookshelf-publish-status[data-state="new"]')
    ).toBeVisible({ timeout: 30000 });
    await dialog.getByRole('button', { name: 'Publish' }).click();
    const refused = toast(page, 'does not allow requests from this page');
    await expect(refused).toBeVisible({ timeout: 30000 });
    // Nothing reached S3 from the page.
    expect(await getObject('published', nbPath)).toBeNull();

    await refused
      .getByRole('button', { name: 'Publish on the Server' })
      .click();
    await expect(toast(page, 'Published version')).toBeVisible({
      timeout: 30000
    });
    await expectFaultsApplied();
    // On S3: the saved file's bytes, one version; the file stays as it was.
    const stored = await getObject('published', nbPath);
    expect(md5(stored!.body)).toBe(md5(text));
    expect(await listVersions('published', nbPath)).toEqual([
      stored!.versionId
    ]);
    expect(fs.readFileSync(path.join(fixture().root_dir, nbPath), 'utf8')).toBe(
      text
    );
  });
});

test.describe('a script publishes through the HTTP API while a person publishes in Lab', () => {
  // The page goes through the proxy, which holds its upload back; the server
  // goes to S3 itself. The policy is 'confirm' on both sides (the server's
  // own settings, and the page's).
  test.use({ mockSettings: bookshelfSettings({ endpointUrl: proxyUrl() }) });

  test('to a new key: the script stores first, the person is told, nothing is overwritten', async ({
    page,
    baseURL,
    request,
    tmpPath
  }) => {
    const nbPath = `${tmpPath}/shared-${uid()}.ipynb`;
    const fromScript = titledNotebook('From the script');
    const fromPerson = titledNotebook('From the person');
    // The script publishes the saved file; the person the notebook open in
    // the page (the model in the body).
    await page.contents.uploadContent(fromScript, 'text', nbPath);
    await addFault({
      method: 'PUT',
      path: `/published/${nbPath}`,
      times: 1,
      fault: { type: 'delay', ms: 2000, where: 'request' }
    });
    const inPage = settleBookshelf(page, 'publish', nbPath, {
      body: { type: 'notebook', content: JSON.parse(fromPerson) }
    });
    // The page has looked (nothing there) and its upload is held back.
    await expect
      .poll(async () => (await faultRules())[0].seen, { timeout: 30000 })
      .toBe(1);
    const response = await request.put(
      `${baseURL}/api/bookshelf/published/${nbPath}`
    );
    expect(response.status(), await response.text()).toBe(201);
    const script = await response.json();

    const person = await inPage;
    expect(person.ok).toBe(false);
    expect(person.code).toBe('Conflict');
    expect(person.message).toContain('created by someone else');
    await expectFaultsApplied();
    // On S3: the script's bytes, one version, the one the script was told.
    const stored = await getObject('published', nbPath);
    expect(md5(stored!.body)).toBe(md5(fromScript));
    expect(await listVersions('published', nbPath)).toEqual([
      stored!.versionId
    ]);
    expect(script.version_id).toBe(stored!.versionId);
  });
});

test.describe('Notebook 7 with server-side mode on', () => {
  // Notebook 7 as the same server serves it (/tree): its server-side mode
  // is on, whereas the Notebook 7 server of notebook7.spec.ts has it off.
  test.use({
    appPath: '',
    waitForApplication: async ({}, use) => {
      await use(async (page: Page) => {
        await page.waitForSelector('#main-panel');
      });
    }
  });

  test('a clone the bucket refuses for CORS is offered on the server, which writes the object as it is', async ({
    page,
    baseURL,
    tmpPath
  }) => {
    await page.evaluate(
      url => window.location.assign(url),
      `${baseURL}/tree/${tmpPath}`
    );
    await page.waitForSelector('#main-panel');
    await cloneInDialog(page, {
      s3_bucket: 'nocors',
      s3_key: 'intro.ipynb',
      target_path: `${tmpPath}/`
    });
    const refused = toast(page, 'does not allow requests from this page');
    await expect(refused).toBeVisible({ timeout: 30000 });
    expect(namesOnDisk(tmpPath)).toEqual([]);

    await refused.getByRole('button', { name: 'Clone on the Server' }).click();
    await expect(
      toast(page, `Cloned s3://nocors/intro.ipynb to ${tmpPath}/intro.ipynb`)
    ).toBeVisible({ timeout: 30000 });
    await expectFileIsObject('nocors', 'intro.ipynb', `${tmpPath}/intro.ipynb`);
    expect(namesOnDisk(tmpPath)).toEqual(['intro.ipynb']);
    expect(filesOnDisk(/\.bookshelf-partial$/)).toEqual([]);
  });
});

test.describe('a notebook whose code publishes with the Python client', () => {
  test("BookshelfClient() in the notebook's kernel publishes a saved notebook of its folder and clones it back", async ({
    page,
    tmpPath
  }) => {
    // Notebook 7 serves the same folder from a server of its own, whose
    // server-side mode is off: the kernel must find its own server (the
    // one that started it), not the other server of the folder.
    test.setTimeout(120 * 1000);
    const key = `kernel/${uid()}/report.ipynb`;
    const text = titledNotebook('Published from a kernel', 1024);
    await page.contents.uploadContent(text, 'text', `${tmpPath}/report.ipynb`);
    await page.notebook.createNew('runner.ipynb');
    await page.notebook.setCell(
      0,
      'code',
      [
        'from jupyterlab_bookshelf.client import BookshelfClient',
        'client = BookshelfClient()',
        `link = client.publish("report.ipynb", to="${key}")`,
        `copy = client.clone(link.s3_path, to="${tmpPath}/")`,
        'print(link.s3_path, copy["path"])'
      ].join('\n')
    );
    await page.notebook.runCell(0);
    const output = (await page.notebook.getCellTextOutput(0)) ?? [];
    expect(output.join('')).toContain(
      `s3://published/${key} ${tmpPath}/report-1.ipynb`
    );
    // On S3 the saved file's bytes; on disk the clone of them, beside it.
    const stored = await getObject('published', key);
    expect(md5(stored!.body)).toBe(md5(text));
    await expectFileIsObject('published', key, `${tmpPath}/report-1.ipynb`);
  });
});
