/**
 * JupyterLite: the extension in a Lite site (scripts/lite_fixture.py), where
 * there is no Jupyter server: files live in the browser's storage, and the
 * server extension's commit path and checks are absent. A person follows a
 * clone link, clones, and publishes the notebook back; checked in the
 * browser's storage and on S3.
 */
import { expect, test } from './fixtures';

import {
  callBookshelf,
  fixture,
  getObject,
  md5,
  notebookText,
  putObject,
  uid,
  pseudoRandomBytes
} from './helpers';
import {
  confirmClone,
  confirmPublish,
  followCloneLink,
  infoCheck,
  infoStates,
  openApp,
  openInfoPanel,
  publishSavedVersionIfAsked,
  startCommand
} from './pages';
import {
  expectTabsCloneWithoutLoss,
  liteBase64,
  liteFile,
  liteFolder
} from './lite';

test.describe('JupyterLite', () => {
  test('a link clones into the browser, and the clone publishes back', async ({
    browser
  }) => {
    const lite = fixture().lite_url;
    expect(lite).toBeTruthy();
    const name = `lite-${uid()}.ipynb`;
    const key = `lite/${name}`;
    const text = notebookText([
      { cell_type: 'markdown', metadata: {}, source: ['# Lite ✓ café'] }
    ]);
    await putObject('examples', key, text, 'application/x-ipynb+json');

    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await openApp(page, `${lite}/lab/index.html`);
      const dialog = await followCloneLink(
        page,
        `${lite}/lab/index.html?bookshelf-clone&s3_bucket=examples` +
          `&s3_key=${encodeURIComponent(key)}`,
        /\/lab\//
      );
      await expect(dialog.locator('input[name="name"]')).toHaveValue(name);
      // Nothing is written before the click.
      expect(await liteFile(page, name)).toBeNull();
      await confirmClone(page, `s3://examples/${key}`, name);
      // In the browser's storage, byte for byte.
      await expect.poll(() => liteFile(page, name)).toBe(text);
      // The clone opens; this site has no kernel, and Lite asks for one.
      const kernel = page.locator('.jp-Dialog', { hasText: 'Select Kernel' });
      await kernel.getByRole('button', { name: 'No Kernel' }).click();
      await expect(kernel).toHaveCount(0);

      // Publish it back, as a person does from the menu.
      await startCommand(page, 'bookshelf:publish', { path: name });
      // Lite may mark the open notebook changed (its kernel choice): the
      // saved version is the clone's bytes.
      await publishSavedVersionIfAsked(page);
      await confirmPublish(page, 'new');
      await expect
        .poll(async () => (await getObject('published', name))?.body)
        .toBeTruthy();
      const published = await getObject('published', name);
      expect(md5(published!.body)).toBe(md5(text));
    } finally {
      await context.close();
    }
  });

  test('a notebook above 8 MiB and a binary file are cloned into the browser byte for byte, and a name taken is never overwritten', async ({
    browser
  }) => {
    // Three clones of 9-10 MiB into IndexedDB, a publish and a second page:
    // under a minute on a quiet machine, 90 s on a loaded one.
    test.setTimeout(240000);
    const lite = fixture().lite_url;
    const folder = `lite-large-${uid()}`;
    // A notebook of 12 MiB whose middle is one long base64 string (an
    // image output): saved while it downloads, in chunks.
    const image = pseudoRandomBytes(9 * 1024 * 1024, 5);
    const text = notebookText([
      { cell_type: 'markdown', metadata: {}, source: ['# Grüße 😀'] },
      {
        cell_type: 'code',
        execution_count: 1,
        metadata: {},
        source: ['plot()'],
        outputs: [
          {
            output_type: 'display_data',
            metadata: {},
            data: { 'image/png': image.toString('base64') }
          }
        ]
      }
    ]);
    const binary = image.subarray(0, 10 * 1024 * 1024 - 7);
    await putObject('examples', `${folder}/big.ipynb`, text);
    await putObject('examples', `${folder}/data.bin`, binary);

    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await openApp(page, `${lite}/lab/index.html`);
      await page.evaluate(
        folder =>
          (window as any).jupyterapp.serviceManager.contents.save(folder, {
            type: 'directory'
          }),
        folder
      );
      const clone = (s3_key: string) =>
        callBookshelf<any>(page, 'clone', {
          s3_bucket: 'examples',
          s3_key,
          target_path: `${folder}/`
        });
      const first = await clone(`${folder}/big.ipynb`);
      expect(first.path).toBe(`${folder}/big.ipynb`);
      expect(await liteFile(page, first.path)).toBe(text);
      // Cloned again, under the next free name; the first is unchanged.
      const second = await clone(`${folder}/big.ipynb`);
      expect(second.path).toBe(`${folder}/big-1.ipynb`);
      expect(await liteFile(page, second.path)).toBe(text);
      const data = await clone(`${folder}/data.bin`);
      expect(
        md5(Buffer.from(await liteBase64(page, data.path), 'base64'))
      ).toBe(md5(binary));
      // It publishes back as it is stored (read and checked in the page).
      const published = await callBookshelf<any>(page, 'publish', second.path, {
        destination: `${folder}/big.ipynb`
      });
      expect(published.s3_path).toBe(`s3://published/${folder}/big.ipynb`);
      const stored = await getObject('published', `${folder}/big.ipynb`);
      expect(md5(stored!.body)).toBe(md5(text));
      // Its link opens this site's JupyterLab with the clone dialog (a Lite
      // site has no server to answer a landing page).
      expect(published.link_form).toBe('lite');
      expect(published.clone_url).toMatch(
        new RegExp(
          `^${lite}/lab/index\\.html\\?bookshelf-clone&s3_bucket=published&`
        )
      );
      const follower = await context.newPage();
      await openApp(follower, `${lite}/lab/index.html`);
      const dialog = await followCloneLink(
        follower,
        published.clone_url,
        /\/lab\//
      );
      await expect(dialog.locator('input[name="name"]')).toHaveValue(
        'big.ipynb'
      );
      await follower.close();
      // And it opens as a notebook (Lite keeps it as the chunks' base64).
      await page.evaluate(
        path =>
          (window as any).jupyterapp.commands.execute('docmanager:open', {
            path
          }),
        second.path
      );
      const kernel = page.locator('.jp-Dialog', { hasText: 'Select Kernel' });
      await kernel.getByRole('button', { name: 'No Kernel' }).click();
      await expect(
        page.locator('.jp-RenderedMarkdown h1', { hasText: 'Grüße 😀' })
      ).toBeVisible();
      expect(await liteFolder(page, folder)).toEqual([
        'big-1.ipynb',
        'big.ipynb',
        'data.bin'
      ]);
    } finally {
      await context.close();
    }
  });

  test('two tabs of the site clone one key at once: every clone gets a name of its own, none is lost', async ({
    browser
  }) => {
    await expectTabsCloneWithoutLoss(browser, fixture().lite_url!);
  });

  test('a version 3 notebook is refused with what to do, and nothing is stored (JupyterLab would show it empty here)', async ({
    browser
  }) => {
    const lite = fixture().lite_url;
    const name = `old-${uid()}.ipynb`;
    const v3 = JSON.stringify({
      metadata: { name: 'old' },
      nbformat: 3,
      nbformat_minor: 0,
      worksheets: [
        {
          metadata: {},
          cells: [{ cell_type: 'markdown', metadata: {}, source: '# Old' }]
        }
      ]
    });
    await putObject('examples', `lite/${name}`, v3, 'application/x-ipynb+json');
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await openApp(page, `${lite}/lab/index.html`);
      let error: { code: string; message: string } | null = null;
      try {
        await callBookshelf(page, 'clone', {
          s3_bucket: 'examples',
          s3_key: `lite/${name}`
        });
      } catch (thrown) {
        const text = (thrown as Error).message;
        error = JSON.parse(
          text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)
        );
      }
      expect(error?.code).toBe('NotANotebook');
      expect(error?.message).toContain('JupyterLite opens only version 4');
      expect(error?.message).toContain('jupyter nbconvert');
      expect(await liteFile(page, name)).toBeNull();
      expect(
        (await liteFolder(page, '')).filter(item => item.includes('old-'))
      ).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('the info panel does not ask for a server extension, and says the keys of the settings are public here', async ({
    browser
  }) => {
    const lite = fixture().lite_url;
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await openApp(page, `${lite}/lab/index.html`);
      const panel = await openInfoPanel(page);
      const shim = infoCheck(panel, 'shim');
      await expect(shim).toHaveAttribute('data-state', 'skip');
      await expect(shim).toContainText('This is a JupyterLite site');
      await expect(shim).not.toContainText('pip');
      await expect(infoCheck(panel, 'credentials')).toContainText(
        'anyone who can open the site can read'
      );
      // The S3 checks run as in Lab.
      expect(await infoStates(panel)).toMatchObject({
        service: 'pass',
        cors: 'pass'
      });
    } finally {
      await context.close();
    }
  });
});
