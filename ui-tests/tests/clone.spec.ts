import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Request } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';

import {
  callBookshelf,
  cloneRecordingProgress,
  coreSettings,
  filesInFolder,
  fixture,
  getObject,
  listFolder,
  namesOnDisk,
  putObject,
  withoutCreatePath,
  readFile,
  pseudoRandomBytes
} from './helpers';
import { expect, test } from './fixtures';
import { startNginx } from './nginx';
import {
  clickInToast,
  cloneDialog,
  confirmClone,
  followCloneLink,
  startCommand,
  toast,
  openApp
} from './pages';

async function cloneError(
  page: IJupyterLabPageFixture,
  request: object
): Promise<{ code: string; message: string }> {
  try {
    await callBookshelf(page, 'clone', request);
  } catch (error) {
    const text = (error as Error).message;
    return JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
  }
  throw new Error('The clone succeeded');
}

async function readBase64(
  page: IJupyterLabPageFixture,
  path: string
): Promise<string> {
  return page.evaluate(async p => {
    const model = await (window as any).jupyterapp.serviceManager.contents.get(
      p,
      { type: 'file', format: 'base64', content: true }
    );
    return (model.content as string).replace(/\s/g, '');
  }, path);
}

/**
 * Open an in-app clone link as a person would (a full page load).
 */
async function openInAppLink(
  page: IJupyterLabPageFixture,
  query: string
): Promise<void> {
  await page.evaluate(
    url => window.location.assign(url),
    `/lab?bookshelf-clone&${query}`
  );
  await page.waitForURL(/\/lab/);
  await page.locator('.jp-Dialog').waitFor({ timeout: 30000 });
}

/** The text of a notebook of one markdown cell. */
function markdownNotebook(id: string, source: string[]): string {
  return JSON.stringify({
    cells: [{ cell_type: 'markdown', id, metadata: {}, source }],
    metadata: {},
    nbformat: 4,
    nbformat_minor: 5
  });
}

test.describe('clone by link', () => {
  test('the server link lands in the dialog, and only Clone writes', async ({
    page,
    baseURL,
    tmpPath
  }) => {
    const link =
      `${baseURL}/bookshelf/clone?s3_bucket=examples` +
      `&s3_key=${encodeURIComponent('reports/2026/q3.ipynb')}` +
      `&target_path=${encodeURIComponent(tmpPath + '/')}`;
    const landing = await page.request.get(link);
    expect(landing.status()).toBe(200);
    expect(await landing.text()).toContain('bookshelf-clone');

    // As a person clicking the link: the landing page hands off to Lab.
    await page.evaluate(url => window.location.assign(url), link);
    await page.waitForURL(/\/lab/);
    const dialog = page.locator('.jp-Dialog');
    // The dialog opens once Lab has loaded and restored its layout.
    await expect(dialog).toBeVisible({ timeout: 30000 });
    await expect(dialog.locator('input[name="bucket"]')).toHaveValue(
      'examples'
    );
    await expect(dialog.locator('input[name="key"]')).toHaveValue(
      'reports/2026/q3.ipynb'
    );
    await expect(dialog.locator('input[name="folder"]')).toHaveValue(tmpPath);
    await expect(dialog.locator('input[name="name"]')).toHaveValue('q3.ipynb');
    await expect(dialog).toContainText('Clone only from sources you trust');
    // The parameters left the address bar.
    expect(page.url()).not.toContain('bookshelf-clone');
    // Nothing is written before the click.
    expect(await listFolder(page, tmpPath)).toEqual([]);

    await dialog.getByRole('button', { name: 'Clone' }).click();
    await expect(
      page.locator('.jp-NotebookPanel', { hasText: 'Q3 2026 report' }).first()
    ).toBeVisible({ timeout: 20000 });
    await expect(
      page.getByRole('main').getByRole('tab', { name: /q3\.ipynb/ })
    ).toBeVisible();
    expect(await listFolder(page, tmpPath)).toEqual(['q3.ipynb']);
    const saved = await readFile(page, `${tmpPath}/q3.ipynb`);
    const original = await getObject('examples', 'reports/2026/q3.ipynb');
    expect(saved).toBe(original!.body.toString('utf8'));
  });

  test("a clone that ends before Lab restored the file browser's folder shows its file there", async ({
    page,
    baseURL,
    tmpPath
  }) => {
    // Lab restores the browser's folder by going to the root, reading the
    // saved folder, then going there by a relative path. Hold that read
    // (the one request for the folder without `content`) until the clone
    // has shown its file, as a slow start-up does.
    const folderPath = new URL(`${baseURL}/api/contents/${tmpPath}`).pathname;
    let committed = false;
    let held = 0;
    await page.route(
      url => url.pathname === folderPath && !url.searchParams.has('content'),
      async route => {
        held++;
        for (let i = 0; i < 100 && !committed; i++) {
          await new Promise(resolve => setTimeout(resolve, 50));
        }
        // Time for what follows the commit (the file browser's move).
        await new Promise(resolve => setTimeout(resolve, 1000));
        await route.continue();
      }
    );
    page.on('requestfinished', request => {
      if (/\/api\/bookshelf\/(commit|create)/.test(request.url())) {
        committed = true;
      }
    });
    // The workspace keeps the browser at the test's folder once the server
    // has stored it. Lab saves the workspace half a second after its last
    // change, so a save of Galata's start-up (at the test's folder) may come
    // after the moves below begin, and a save between the two moves would
    // keep the root: wait until the saves have settled on the folder. A save
    // still on its way when the page leaves is cut off.
    const folderState = `:cwd":{"path":"${tmpPath}"`;
    const saves = { last: '', sentAt: 0, pending: 0 };
    page.on('request', request => {
      if (isWorkspaceSave(request)) {
        saves.last = request.postData() ?? '';
        saves.sentAt = Date.now();
        saves.pending++;
      }
    });
    const saveEnded = (request: Request) => {
      if (isWorkspaceSave(request)) {
        saves.pending--;
      }
    };
    page.on('requestfinished', saveEnded);
    page.on('requestfailed', saveEnded);
    await page.evaluate(async folder => {
      const { commands } = (window as any).jupyterapp;
      await commands.execute('filebrowser:go-to-path', { path: '/' });
      await commands.execute('filebrowser:go-to-path', { path: folder });
    }, tmpPath);
    const movedAt = Date.now();
    await expect
      .poll(
        () =>
          saves.pending === 0 &&
          saves.last.includes(folderState) &&
          Date.now() - Math.max(movedAt, saves.sentAt) > 1500,
        { message: "Lab's saves of its workspace settle", timeout: 15000 }
      )
      .toBe(true);
    const link =
      `${baseURL}/bookshelf/clone?s3_bucket=examples` +
      `&s3_key=${encodeURIComponent('reports/2026/q3.ipynb')}` +
      `&target_path=${encodeURIComponent(tmpPath + '/')}`;
    await page.evaluate(url => window.location.assign(url), link);
    await page.waitForURL(/\/lab/);
    const dialog = cloneDialog(page);
    await expect(dialog).toBeVisible({ timeout: 30000 });
    await dialog.getByRole('button', { name: 'Clone' }).click();
    await expect(toast(page, 'Cloned s3://examples/')).toBeVisible({
      timeout: 30000
    });
    await expect
      .poll(() => held, {
        message: "Lab restores the browser's folder from the workspace",
        timeout: 15000
      })
      .toBeGreaterThan(0);
    // The browser shows the folder, with the file, and no error: not the
    // folder inside itself ("Directory not found"), then the root.
    const item = page.locator('.jp-DirListing-item', { hasText: 'q3.ipynb' });
    await expect(item).toBeVisible({ timeout: 15000 });
    await expect(item).toHaveClass(/jp-mod-selected/);
    await page.waitForTimeout(1500);
    await expect(page.locator('.jp-Dialog')).toHaveCount(0);
    await expect(item).toBeVisible();
    expect(await listFolder(page, tmpPath)).toEqual(['q3.ipynb']);
  });

  test('the in-app link names the free name when the file exists', async ({
    page,
    tmpPath
  }) => {
    await callBookshelf(page, 'clone', {
      s3_bucket: 'examples',
      s3_key: 'intro.ipynb',
      target_path: `${tmpPath}/`
    });
    await openInAppLink(
      page,
      `s3_bucket=examples&s3_key=intro.ipynb&target_path=${encodeURIComponent(tmpPath + '/')}`
    );
    const dialog = page.locator('.jp-Dialog');
    await expect(dialog).toContainText(
      `"intro.ipynb" exists already: the copy will be saved as "${tmpPath}/intro-1.ipynb".`
    );
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await listFolder(page, tmpPath)).toEqual(['intro.ipynb']);
  });

  test("a link's folder that does not exist yet is made by the clone", async ({
    page,
    tmpPath
  }) => {
    const folder = `${tmpPath}/shared/week 1`;
    await openInAppLink(
      page,
      `s3_bucket=examples&s3_key=intro.ipynb&target_path=${encodeURIComponent(folder + '/')}`
    );
    const dialog = page.locator('.jp-Dialog');
    await expect(dialog).toContainText(
      `Will be saved as "${folder}/intro.ipynb".`
    );
    // Nothing is made before the click.
    expect(await listFolder(page, tmpPath)).toEqual([]);
    await dialog.getByRole('button', { name: 'Clone' }).click();
    await expect(
      toast(page, `Cloned s3://examples/intro.ipynb to ${folder}/intro.ipynb.`)
    ).toBeVisible();
    const original = await getObject('examples', 'intro.ipynb');
    expect(await readFile(page, `${folder}/intro.ipynb`)).toBe(
      original!.body.toString('utf8')
    );
  });

  for (const link of ['in-app', 'server'] as const) {
    test(`a ${link} link without target_path proposes the file browser's folder, and clones there`, async ({
      page,
      tmpPath
    }) => {
      const folder = `${tmpPath}/lessons`;
      await page.contents.createDirectory(folder);
      // The person browses to the folder; Lab keeps it in the workspace.
      const saved = page.waitForRequest(
        request =>
          request.method() === 'PUT' &&
          /\/api\/workspaces\//.test(request.url()) &&
          (request.postData() ?? '').includes(`"path":"${folder}"`)
      );
      await page.filebrowser.refresh();
      expect(await page.filebrowser.openDirectory(folder)).toBe(true);
      await saved;
      if (link === 'in-app') {
        await openInAppLink(page, 's3_bucket=examples&s3_key=intro.ipynb');
      } else {
        // The landing page on the server hands off to Lab.
        await page.evaluate(
          url => window.location.assign(url),
          '/bookshelf/clone?s3_bucket=examples&s3_key=intro.ipynb'
        );
        await page.waitForURL(/\/lab/);
        await page.locator('.jp-Dialog').waitFor({ timeout: 30000 });
      }
      const dialog = cloneDialog(page);
      await expect(dialog.locator('input[name="folder"]')).toHaveValue(folder);
      await expect(dialog).toContainText(
        `Will be saved as "${folder}/intro.ipynb".`
      );
      // The file browser shows the same folder.
      expect(await page.filebrowser.getCurrentDirectory()).toBe(folder);
      await confirmClone(
        page,
        's3://examples/intro.ipynb',
        `${folder}/intro.ipynb`
      );
      const original = await getObject('examples', 'intro.ipynb');
      expect(filesInFolder(folder)).toEqual(['intro.ipynb']);
      expect(await readFile(page, `${folder}/intro.ipynb`)).toBe(
        original!.body.toString('utf8')
      );
      expect(namesOnDisk(tmpPath)).toEqual(['lessons']);
    });
  }

  for (const opened of ['the folder', 'a notebook in the folder'] as const) {
    test(`a link on a /lab/tree address of ${opened} proposes that folder, and clones there`, async ({
      page,
      tmpPath
    }) => {
      const folder = `${tmpPath}/week 1`;
      await page.contents.createDirectory(folder);
      await page.contents.uploadContent(
        JSON.stringify({
          cells: [],
          metadata: {},
          nbformat: 4,
          nbformat_minor: 5
        }),
        'text',
        `${folder}/notes.ipynb`
      );
      // The person's workspace keeps another folder, which Lab restores
      // first, before it goes to the address's.
      const elsewhere = `${tmpPath}/elsewhere`;
      await page.contents.createDirectory(elsewhere);
      const saved = page.waitForRequest(
        request =>
          request.method() === 'PUT' &&
          /\/api\/workspaces\//.test(request.url()) &&
          (request.postData() ?? '').includes(`"path":"${elsewhere}"`)
      );
      await page.filebrowser.refresh();
      expect(await page.filebrowser.openDirectory(elsewhere)).toBe(true);
      await saved;
      const tree = opened === 'the folder' ? folder : `${folder}/notes.ipynb`;
      // As a person who follows a link that a course page built from the
      // folder's address: Lab opens there, and the dialog over it.
      const dialog = await followCloneLink(
        page,
        `/lab/tree/${tree.split('/').map(encodeURIComponent).join('/')}?bookshelf-clone&s3_bucket=examples&s3_key=intro.ipynb`,
        /\/lab/
      );
      await expect(dialog.locator('input[name="folder"]')).toHaveValue(folder);
      await confirmClone(
        page,
        's3://examples/intro.ipynb',
        `${folder}/intro.ipynb`
      );
      const original = await getObject('examples', 'intro.ipynb');
      expect(filesInFolder(folder)).toEqual(['intro.ipynb', 'notes.ipynb']);
      expect(await readFile(page, `${folder}/intro.ipynb`)).toBe(
        original!.body.toString('utf8')
      );
      expect(namesOnDisk(tmpPath)).toEqual(['elsewhere', 'week 1']);
    });
  }

  test('a bucket outside allowedBuckets is refused in the dialog', async ({
    page,
    tmpPath
  }) => {
    await openInAppLink(
      page,
      `s3_bucket=secret-reports&s3_key=q3.ipynb&target_path=${encodeURIComponent(tmpPath + '/')}`
    );
    const dialog = page.locator('.jp-Dialog');
    await expect(dialog.locator('.jp-Bookshelf-field-error')).toContainText(
      'allowedBuckets'
    );
    await expect(dialog.getByRole('button', { name: 'Clone' })).toBeDisabled();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await listFolder(page, tmpPath)).toEqual([]);
  });

  test('an invalid link gives a 400 page that says what is wrong', async ({
    page,
    baseURL
  }) => {
    const response = await page.request.get(
      `${baseURL}/bookshelf/clone?s3_bucket=Bad_Bucket&s3_key=${encodeURIComponent('<script>x</script>')}`
    );
    expect(response.status()).toBe(400);
    const html = await response.text();
    expect(html).toContain('s3_bucket');
    expect(html).not.toContain('<script>x</script>');
  });
});

/**
 * Open the clone dialog for examples/intro.ipynb into `folder`, as the
 * palette command does, once it shows the name the file will get.
 */
async function openCloneDialog(page: IJupyterLabPageFixture, folder: string) {
  await startCommand(page, 'bookshelf:clone', {
    s3_bucket: 'examples',
    s3_key: 'intro.ipynb',
    target_path: `${folder}/`
  });
  const dialog = page.locator('.jp-Dialog');
  await expect(dialog.locator('input[name="name"]')).toHaveValue('intro.ipynb');
  return dialog;
}

test.describe('after the click', () => {
  test('the clone opens and says so without waiting for the file browser', async ({
    page,
    tmpPath
  }) => {
    const dialog = await openCloneDialog(page, tmpPath);
    // From now on the folder's listing does not answer, as when the file
    // browser's periodic refresh is seconds away: the result must not
    // wait for it (it used to, for about ten seconds).
    let release = () => undefined as void;
    const held = new Promise<void>(resolve => (release = resolve));
    await page.route(
      url =>
        url.pathname.endsWith(`/api/contents/${tmpPath}`) &&
        url.searchParams.get('content') === '1',
      async route => {
        await held;
        await route.continue();
      }
    );
    await dialog.getByRole('button', { name: 'Clone' }).click();
    await expect(
      toast(page, `Cloned s3://examples/intro.ipynb to ${tmpPath}/intro.ipynb.`)
    ).toBeVisible();
    await expect(
      page.getByRole('main').getByRole('tab', { name: /intro\.ipynb/ })
    ).toBeVisible();
    release();
    // Then the file browser shows it, selected.
    await expect(
      page.locator('.jp-DirListing-item.jp-mod-selected', {
        hasText: 'intro.ipynb'
      })
    ).toBeVisible();
  });
});

test.describe('a clone larger than openAfterCloneMaxMB', () => {
  test.use({
    mockSettings: coreSettings({ openAfterCloneMaxMB: 0.001 })
  });

  test('is offered for opening, not opened by itself', async ({
    page,
    tmpPath
  }) => {
    // intro.ipynb is a few kilobytes, over the 1 KB limit of this test.
    const dialog = await openCloneDialog(page, tmpPath);
    await dialog.getByRole('button', { name: 'Clone' }).click();
    const notification = toast(
      page,
      `Cloned s3://examples/intro.ipynb to ${tmpPath}/intro.ipynb. It is`
    );
    // (Lab shortens long notifications: the start says enough.)
    await expect(notification).toBeVisible();
    expect(await listFolder(page, tmpPath)).toEqual(['intro.ipynb']);
    const tab = page
      .getByRole('main')
      .getByRole('tab', { name: /intro\.ipynb/ });
    await expect(tab).toHaveCount(0);
    // The person chooses to open it.
    await clickInToast(notification, 'Open');
    await expect(tab).toBeVisible();
  });
});

test.describe('clone through the API', () => {
  test('the same key three times gives three names', async ({
    lab,
    tmpPath
  }) => {
    const paths: string[] = [];
    for (let i = 0; i < 3; i++) {
      const model = await callBookshelf<any>(lab, 'clone', {
        s3_bucket: 'examples',
        s3_key: 'reports/2026/q3.ipynb',
        target_path: `${tmpPath}/`
      });
      paths.push(model.path);
      expect(model.type).toBe('notebook');
    }
    expect(paths).toEqual([
      `${tmpPath}/q3.ipynb`,
      `${tmpPath}/q3-1.ipynb`,
      `${tmpPath}/q3-2.ipynb`
    ]);
    expect(await listFolder(lab, tmpPath)).toEqual([
      'q3-1.ipynb',
      'q3-2.ipynb',
      'q3.ipynb'
    ]);
    // A cloned notebook is not trusted: its outputs run no script until
    // the user trusts it.
    const trust = await lab.evaluate(async path => {
      const model = await (
        window as any
      ).jupyterapp.serviceManager.contents.get(path);
      return model.content.cells
        .filter((cell: any) => cell.cell_type === 'code')
        .map((cell: any) => cell.metadata.trusted);
    }, paths[0]);
    expect(trust.length).toBeGreaterThan(0);
    expect(trust.every((trusted: unknown) => trusted === false)).toBe(true);
  });

  test('a given version is cloned, not the latest', async ({
    lab,
    tmpPath
  }) => {
    const versions = fixture().version_ids[
      'versioned-examples/history.ipynb'
    ] as string[];
    expect(versions).toHaveLength(2);
    const model = await callBookshelf<any>(lab, 'clone', {
      s3_bucket: 'versioned-examples',
      s3_key: 'history.ipynb',
      s3_version_id: versions[0],
      target_path: `${tmpPath}/`
    });
    const saved = await readFile(lab, model.path);
    const first = await getObject(
      'versioned-examples',
      'history.ipynb',
      versions[0]
    );
    const latest = await getObject('versioned-examples', 'history.ipynb');
    expect(saved).toBe(first!.body.toString('utf8'));
    expect(saved).not.toBe(latest!.body.toString('utf8'));
  });

  test('text and binary objects keep their bytes', async ({ lab, tmpPath }) => {
    const text = await callBookshelf<any>(lab, 'clone', {
      s3_bucket: 'examples',
      s3_key: 'data/readme.txt',
      target_path: `${tmpPath}/`
    });
    expect(text.path).toBe(`${tmpPath}/readme.txt`);
    const readme = await getObject('examples', 'data/readme.txt');
    expect(await readFile(lab, text.path)).toBe(readme!.body.toString('utf8'));

    const binary = await callBookshelf<any>(lab, 'clone', {
      s3_bucket: 'examples',
      s3_key: 'data/logo.png',
      target_path: `${tmpPath}/`
    });
    const logo = await getObject('examples', 'data/logo.png');
    expect(await readBase64(lab, binary.path)).toBe(
      logo!.body.toString('base64')
    );
  });

  test('an object above 100 MiB goes to the server in one request, byte for byte, no temporary file left', async ({
    lab,
    tmpPath
  }) => {
    // 101 MiB of varied bytes (saved in chunks while it downloaded, until
    // the create path took objects of every size).
    const bytes = pseudoRandomBytes(101 * 1024 * 1024, 7);
    const key = `whole/${Date.now()}/data.bin`;
    await putObject('examples', key, bytes);
    const { model, writes } = await cloneWithWrites(lab, {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    });
    expect(model.path).toBe(`${tmpPath}/data.bin`);
    expect(writes).toEqual(['POST /api/bookshelf/create']);
    // Its progress as the bytes go to the server, not only at the end.
    const again = await cloneRecordingProgress(lab, {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    });
    const sent = again.steps
      .filter(step => step.phase === 'save')
      .map(step => step.loaded);
    expect(sent.some(loaded => loaded > 0 && loaded < bytes.length)).toBe(true);
    expect(sent[sent.length - 1]).toBe(bytes.length);
    const saved = fs.readFileSync(
      path.join(fixture().root_dir, tmpPath, 'data.bin')
    );
    expect(saved.equals(bytes)).toBe(true);
    expect(await listFolder(lab, tmpPath)).toEqual(['data-1.bin', 'data.bin']);
  });

  test('a clone cancelled while its bytes go to the server stops the request, and nothing is written', async ({
    page,
    tmpPath
  }) => {
    const bytes = Buffer.alloc(24 * 1024 * 1024, 7);
    const key = `cancelled/${Date.now()}/data.bin`;
    await putObject('examples', key, bytes);
    // A page of its own: its uploads go at 8 MiB/s, as to a distant
    // server, and its XMLHttpRequests record how they ended (0: no answer,
    // the request was stopped).
    const cdp = await page.context().newCDPSession((page as any).page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 8 * 1024 * 1024
    });
    await callBookshelf(page, 'info');
    const { code, statuses } = await page.evaluate(
      async request => {
        const statuses: number[] = [];
        const send = XMLHttpRequest.prototype.send;
        XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, body) {
          this.addEventListener('loadend', () => statuses.push(this.status));
          return send.call(this, body);
        };
        const controller = new AbortController();
        let code = 'not cancelled';
        try {
          await (window as any).bookshelfUnderTest.clone(request, {
            signal: controller.signal,
            onProgress: (step: any) => {
              if (
                step.phase === 'save' &&
                step.loaded > 0 &&
                step.loaded < step.total
              ) {
                controller.abort();
              }
            }
          });
        } catch (error: any) {
          code = String(error.code);
        }
        await new Promise(resolve => setTimeout(resolve, 1000));
        return { code, statuses };
      },
      {
        s3_bucket: 'examples',
        s3_key: key,
        target_path: `${tmpPath}/`
      }
    );
    expect(code).toBe('Cancelled');
    expect(statuses).toEqual([0]);
    expect(namesOnDisk(tmpPath)).toEqual([]);
    expect(await listFolder(page, tmpPath)).toEqual([]);
  });

  test('without the create path, a notebook above 8 MiB is saved in chunks, from its Blob and then as it downloads, checked by the server, without its byte order mark', async ({
    page,
    tmpPath
  }) => {
    // Two clones of 13 MB through base64 chunks, each checked by the server.
    test.setTimeout(180000);
    // A page of its own, as the page learns that the create path is
    // missing. An older server extension: the first clone has gathered a Blob for
    // the create path, and saves it in chunks once that is missing; the
    // page knows then, and the second saves while it downloads.
    await withoutCreatePath(page);
    const notebook = markdownNotebook('big', [
      '# Big\n',
      // 12.6 MB: above the 8 MiB from which a clone without the create path
      // saves in chunks; larger ones take the same path in more chunks.
      'é'.repeat(6 * 1024 * 1024)
    ]);
    const key = `streamed/${Date.now()}/big.ipynb`;
    await putObject(
      'examples',
      key,
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(notebook)]),
      'application/x-ipynb+json'
    );
    const paths: string[] = [];
    const creates: number[] = [];
    for (let round = 0; round < 2; round++) {
      let offered = 0;
      const count = (request: any) => {
        offered += request.url().includes('/api/bookshelf/create') ? 1 : 0;
      };
      page.on('request', count);
      const checked = page.waitForResponse(
        response =>
          response.url().includes('/api/bookshelf/check') &&
          response.status() === 200
      );
      const model = await callBookshelf<any>(page, 'clone', {
        s3_bucket: 'examples',
        s3_key: key,
        target_path: `${tmpPath}/`
      });
      await checked;
      page.off('request', count);
      paths.push(model.path);
      creates.push(offered);
    }
    // Offered to the create path once, in vain; not again.
    expect(creates).toEqual([1, 0]);
    expect(paths).toEqual([`${tmpPath}/big.ipynb`, `${tmpPath}/big-1.ipynb`]);
    for (const name of ['big.ipynb', 'big-1.ipynb']) {
      const saved = fs.readFileSync(
        path.join(fixture().root_dir, tmpPath, name)
      );
      expect(saved.equals(Buffer.from(notebook))).toBe(true);
    }
    expect(await listFolder(page, tmpPath)).toEqual([
      'big-1.ipynb',
      'big.ipynb'
    ]);
  });

  test('a body a proxy refuses as too large (413) is saved in chunks, and so are larger ones after it; smaller ones still go in one request', async ({
    page,
    tmpPath
  }) => {
    // A page of its own, as it learns the proxy's limit. The first create
    // is refused as an ingress with a body limit refuses it; the others
    // reach the server.
    let refused = 0;
    await page.route('**/api/bookshelf/create*', route => {
      if (refused++ === 0) {
        return route.fulfill({
          status: 413,
          contentType: 'text/html',
          body: '<html>413 Request Entity Too Large</html>'
        });
      }
      return route.continue();
    });
    const big = pseudoRandomBytes(20 * 1024 * 1024, 11);
    const small = big.subarray(0, 1024 * 1024);
    const key = `proxied/${Date.now()}/big.bin`;
    await putObject('examples', key, big);
    await putObject('examples', `${key}.small`, small);
    const request = (s3_key: string) => ({
      s3_bucket: 'examples',
      s3_key,
      target_path: `${tmpPath}/`
    });
    const first = await cloneWithWrites(page, request(key));
    const second = await cloneWithWrites(page, request(key));
    const third = await cloneWithWrites(page, request(`${key}.small`));
    const creates = (writes: string[]) =>
      writes.filter(write => write.includes('/api/bookshelf/create')).length;
    // Offered, refused, then saved in chunks and committed.
    expect(creates(first.writes)).toBe(1);
    expect(first.writes).toContain('POST /api/bookshelf/commit');
    // Not offered again at that size; a smaller object still is, alone.
    expect(creates(second.writes)).toBe(0);
    expect(second.writes).toContain('POST /api/bookshelf/commit');
    expect(third.writes).toEqual(['POST /api/bookshelf/create']);
    const onDisk = (name: string) =>
      fs.readFileSync(path.join(fixture().root_dir, tmpPath, name));
    expect(onDisk(path.basename(first.model.path)).equals(big)).toBe(true);
    expect(onDisk(path.basename(second.model.path)).equals(big)).toBe(true);
    expect(onDisk(path.basename(third.model.path)).equals(small)).toBe(true);
    expect(await listFolder(page, tmpPath)).toHaveLength(3);
  });

  test('behind nginx with client_max_body_size 3m, large clones are saved in pieces it lets through, byte for byte; behind 64k, the clone says what to raise', async ({
    browser,
    tmpPath
  }) => {
    const binary = pseudoRandomBytes(20 * 1024 * 1024, 23);
    // A notebook with characters of two, three and four bytes, quotes and
    // backslashes (escaped in the JSON of a save), and a byte order mark.
    const notebook = Buffer.from(
      '\ufeff' +
        JSON.stringify({
          cells: [
            {
              cell_type: 'markdown',
              metadata: {},
              source: ['Grüße — 数据 😀 "quoted" \\ back\n'.repeat(250000)]
            }
          ],
          metadata: {},
          nbformat: 4,
          nbformat_minor: 5
        }),
      'utf-8'
    );
    const key = `nginx/${Date.now()}/big`;
    await putObject('examples', `${key}.bin`, binary);
    await putObject('examples', `${key}.ipynb`, notebook);
    const request = (s3_key: string) => ({
      s3_bucket: 'examples',
      s3_key,
      target_path: `${tmpPath}/`
    });
    const onDisk = (model: any) =>
      fs.readFileSync(path.join(fixture().root_dir, model.path));
    for (const limit of ['3m', '64k']) {
      const nginx = await startNginx(limit);
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await openApp(page, `${nginx.url}/lab`);
        const lab = page as unknown as IJupyterLabPageFixture;
        if (limit === '3m') {
          const first = await callBookshelf<any>(
            lab,
            'clone',
            request(`${key}.bin`)
          );
          const second = await callBookshelf<any>(
            lab,
            'clone',
            request(`${key}.ipynb`)
          );
          expect(onDisk(first).equals(binary)).toBe(true);
          // Without its byte order mark, which Jupyter's reader refuses.
          expect(onDisk(second).equals(notebook.subarray(3))).toBe(true);
          // nginx refused the larger bodies; the pieces went through it.
          expect(nginx.refusedBodies()).toBeGreaterThan(0);
        } else {
          const error = await cloneError(lab, request(`${key}.bin`));
          expect(error.code).toBe('SaveFailed');
          expect(error.message).toContain('client_max_body_size');
        }
      } finally {
        // nginx is stopped whatever closing the browser does (after a
        // timeout it throws).
        await context.close().finally(() => nginx.stop());
      }
    }
    expect(
      fs.readdirSync(path.join(fixture().root_dir, tmpPath)).sort()
    ).toEqual(['big.bin', 'big.ipynb']);
  });

  test('a notebook above 100 MiB that is not one is refused by the server, and nothing is written', async ({
    lab,
    tmpPath
  }) => {
    const key = `streamed/${Date.now()}/bad.ipynb`;
    const notNotebook = JSON.stringify({
      cells: [],
      metadata: { filler: 'x'.repeat(101 * 1024 * 1024) },
      nbformat: 9,
      nbformat_minor: 0
    });
    await putObject('examples', key, notNotebook, 'application/x-ipynb+json');
    const error = await cloneError(lab, {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    });
    expect(error.code).toBe('NotANotebook');
    expect(error.message).toContain('nbformat');
    expect(await listFolder(lab, tmpPath)).toEqual([]);
  });

  test('a notebook goes to the server in one request, as it came, checked there', async ({
    lab,
    tmpPath
  }) => {
    // 24 MiB of a notebook with a byte order mark, non-ASCII text and CRLF.
    const notebook = markdownNotebook('mid', [
      '# Mittel\r\n',
      'ü'.repeat(12 * 1024 * 1024)
    ]);
    const key = `whole/${Date.now()}/mid +?#%.ipynb`;
    await putObject(
      'examples',
      key,
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(notebook)]),
      'application/x-ipynb+json'
    );
    const { model, writes } = await cloneWithWrites(lab, {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    });
    expect(model.path).toBe(`${tmpPath}/mid +?#%.ipynb`);
    // Beside the folder check (a GET), no save of a temporary file, no
    // commit, no check: one request.
    expect(writes).toEqual(['POST /api/bookshelf/create']);
    const saved = fs.readFileSync(
      path.join(fixture().root_dir, tmpPath, 'mid +?#%.ipynb')
    );
    expect(saved.equals(Buffer.from(notebook))).toBe(true);
    expect(await listFolder(lab, tmpPath)).toEqual(['mid +?#%.ipynb']);
  });

  test('an invalid notebook is refused and nothing is written', async ({
    lab,
    tmpPath
  }) => {
    const key = `broken/${Date.now()}/not-a-notebook.ipynb`;
    await putObject('examples', key, '{"cells": "nope"', 'application/json');
    const error = await cloneError(lab, {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    });
    expect(error.code).toBe('NotANotebook');
    expect(await listFolder(lab, tmpPath)).toEqual([]);
  });

  test('a missing key and a missing bucket say so', async ({
    lab,
    tmpPath
  }) => {
    const missingKey = await cloneError(lab, {
      s3_bucket: 'examples',
      s3_key: 'no/such/notebook.ipynb',
      target_path: `${tmpPath}/`
    });
    expect(missingKey.code).toBe('NoSuchKey');
    expect(missingKey.message).toContain(
      's3://examples/no/such/notebook.ipynb'
    );

    // A bucket that does not exist has no CORS rule either, so the browser
    // sees what it sees for a CORS refusal; the message names both causes.
    const missingBucket = await cloneError(lab, {
      s3_bucket: 'missing-bucket',
      s3_key: 'intro.ipynb',
      target_path: `${tmpPath}/`
    });
    expect(missingBucket.code).toBe('CorsRefused');
    expect(missingBucket.message).toContain('missing-bucket');
    expect(await listFolder(lab, tmpPath)).toEqual([]);
  });

  test('ten clones at once give ten files and keep the existing one', async ({
    lab,
    tmpPath
  }) => {
    await lab.contents.uploadContent(
      'my own notes',
      'text',
      `${tmpPath}/intro.ipynb`
    );
    const paths = await lab.evaluate(
      async ({ tmpPath }) => {
        const app = (window as any).jupyterapp;
        const services: Map<any, string> = app.pluginRegistry._services;
        const token = [...services.keys()].find(
          key => key.name === 'jupyterlab-bookshelf:IBookshelf'
        );
        const bookshelf = await app.resolveRequiredService(token);
        const models = await Promise.all(
          Array.from({ length: 10 }, () =>
            bookshelf.clone({
              s3_bucket: 'examples',
              s3_key: 'intro.ipynb',
              target_path: `${tmpPath}/`
            })
          )
        );
        return models.map((model: any) => model.path);
      },
      { tmpPath }
    );
    expect(new Set(paths).size).toBe(10);
    const names = await listFolder(lab, tmpPath);
    expect(names).toHaveLength(11);
    expect(names).toContain('intro.ipynb');
    for (let i = 1; i <= 10; i++) {
      expect(names).toContain(`intro-${i}.ipynb`);
    }
    expect(await readFile(lab, `${tmpPath}/intro.ipynb`)).toBe('my own notes');
  });
});

/**
 * Clone through the API, with the requests other than GETs the page sent
 * to the Jupyter server's contents and Bookshelf paths meanwhile (Lab's
 * own, workspace saves and the like, aside).
 */
async function cloneWithWrites(
  page: IJupyterLabPageFixture,
  request: object
): Promise<{ model: any; writes: string[] }> {
  const writes: string[] = [];
  const record = (sent: any) => {
    const url = new URL(sent.url());
    if (
      sent.method() !== 'GET' &&
      /\/api\/(bookshelf|contents)/.test(url.pathname)
    ) {
      writes.push(`${sent.method()} ${url.pathname}`);
    }
  };
  page.on('request', record);
  try {
    const model = await callBookshelf<any>(page, 'clone', request);
    return { model, writes };
  } finally {
    page.off('request', record);
  }
}

/** Whether a request is Lab's save of its workspace (layout and state). */
function isWorkspaceSave(request: Request): boolean {
  return (
    request.method() === 'PUT' && request.url().includes('/lab/api/workspaces/')
  );
}
