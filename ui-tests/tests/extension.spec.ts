import { expect, test } from './fixtures';
import { fixture, objectUrl, s3Headers } from './helpers';
import { startCommand } from './pages';

test.describe('the extension in JupyterLab', () => {
  test('activates its plugins', async ({ lab }) => {
    const active = await lab.evaluate(() => {
      const app = (window as any).jupyterapp;
      return [
        'jupyterlab-bookshelf:core',
        'jupyterlab-bookshelf:info',
        'jupyterlab-bookshelf:clone'
      ].map(id => app.isPluginActivated(id));
    });
    expect(active).toEqual([true, true, true]);
  });

  test("loads on JupyterLab's shared packages, with no warning or error from its loader", async ({
    page
  }) => {
    // The module federation runtime is partly the build's own
    // (buildutils/slim-runtime.js): a wrong version choice or a failed chunk
    // shows here as a console message, a missing plugin or a missing token.
    const messages: string[] = [];
    page.on('console', message => {
      if (['warning', 'error'].includes(message.type())) {
        messages.push(message.text());
      }
    });
    await page.reload();
    await page.waitForFunction(() =>
      (window as any).jupyterapp?.isPluginActivated(
        'jupyterlab-bookshelf:publish'
      )
    );
    const active = await page.evaluate(() => {
      const app = (window as any).jupyterapp;
      return app
        .listPlugins()
        .filter((id: string) => id.startsWith('jupyterlab-bookshelf:'))
        .map((id: string) => [id, app.isPluginActivated(id)]);
    });
    expect(active).toEqual([
      ['jupyterlab-bookshelf:core', true],
      ['jupyterlab-bookshelf:info', true],
      ['jupyterlab-bookshelf:clone', true],
      ['jupyterlab-bookshelf:publish', true],
      ['jupyterlab-bookshelf:settings-form', true]
    ]);
    expect(
      messages.filter(text =>
        /Unsatisfied version|Shared module|ChunkLoadError|Loading chunk|bookshelf/i.test(
          text
        )
      )
    ).toEqual([]);
  });

  test('lists the Bookshelf commands in the palette', async ({ page }) => {
    await page.evaluate(() =>
      (window as any).jupyterapp.commands.execute(
        'apputils:activate-command-palette'
      )
    );
    const palette = page.locator('#modal-command-palette');
    await expect(palette).toBeVisible();
    await palette.locator('input').fill('Bookshelf');
    const items = palette.locator('.lm-CommandPalette-item:visible');
    await expect(items.filter({ hasText: 'Bookshelf Info' })).toHaveCount(1);
    await expect(items.filter({ hasText: 'Clone from S3…' })).toHaveCount(1);
    await expect(
      items.filter({ hasText: 'Forget S3 Credentials' })
    ).toHaveCount(1);
  });

  test('the info panel shows the endpoint and passing checks', async ({
    page
  }) => {
    await page.evaluate(async () => {
      await (window as any).jupyterapp.commands.execute('bookshelf:info');
    });
    const panel = page.locator('.jp-Bookshelf-infoPanel');
    await expect(panel).toBeVisible();
    await expect(panel.locator('[data-setting="endpointUrl"] td')).toHaveText(
      fixture().endpoint_url
    );
    await expect(panel.locator('[data-setting="publishBucket"] td')).toHaveText(
      'published'
    );
    await expect(
      panel.locator('[data-check="publish-bucket"][data-ok="true"]')
    ).toBeVisible();
    await expect(
      panel.locator('[data-check="versioning"][data-ok="true"]')
    ).toBeVisible();
    await expect(
      panel.locator('[data-check="shim"][data-ok="true"]')
    ).toBeVisible();
    // The demo's keys are in the settings; the panel never shows them.
    await expect(panel).not.toContainText('bookshelf-demo-secret');
  });

  test('the S3 SDK is not loaded at start-up, only on first use', async ({
    page
  }) => {
    const scripts: string[] = [];
    page.on('request', request => {
      if (request.resourceType() === 'script') {
        scripts.push(request.url());
      }
    });
    await page.reload();
    await page.waitForSelector('#jupyterlab-splash', { state: 'detached' });
    const ours = scripts.filter(url =>
      url.includes('/extensions/jupyterlab-bookshelf/')
    );
    expect(ours.length).toBeGreaterThan(0);
    expect(ours.filter(url => url.includes('bookshelf-s3'))).toEqual([]);

    // The info panel's checks use S3: now the chunk is fetched.
    await page.evaluate(async () => {
      await (window as any).jupyterapp.commands.execute('bookshelf:info');
    });
    await expect(
      page.locator('[data-check="publish-bucket"][data-ok="true"]')
    ).toBeVisible();
    expect(scripts.some(url => url.includes('bookshelf-s3'))).toBe(true);
  });

  test('the clone dialog loads the S3 SDK while it is open, before the click', async ({
    page
  }) => {
    const scripts: string[] = [];
    const s3 = new URL(objectUrl('examples', 'intro.ipynb')).origin;
    const s3Requests: string[] = [];
    page.on('request', request => {
      if (request.resourceType() === 'script') {
        scripts.push(request.url());
      }
      if (request.url().startsWith(s3)) {
        s3Requests.push(request.url());
      }
    });
    await page.reload();
    await page.waitForSelector('#jupyterlab-splash', { state: 'detached' });
    expect(scripts.filter(url => url.includes('bookshelf-s3'))).toEqual([]);
    await startCommand(page, 'bookshelf:clone', {
      s3_bucket: 'examples',
      s3_key: 'intro.ipynb'
    });
    const dialog = page.locator('.jp-Dialog');
    await expect(dialog.locator('input[name="key"]')).toHaveValue(
      'intro.ipynb'
    );
    await expect
      .poll(() => scripts.some(url => url.includes('bookshelf-s3')))
      .toBe(true);
    // Cancelled: loading the code sent nothing to S3.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
    expect(s3Requests).toEqual([]);
  });
});

test.describe('the S3 fixture server, as a browser sees it', () => {
  test('a page of Lab may read a sample notebook (CORS allows it)', async ({
    lab
  }) => {
    const url = objectUrl('examples', 'intro.ipynb');
    const result = await lab.evaluate(
      async ({ url, headers }) => {
        // The fixture's objects are private: the request carries an
        // Authorization header, as the SDK's would.
        const response = await fetch(url, { headers });
        const body = await response.json();
        return {
          status: response.status,
          nbformat: body.nbformat,
          etag: response.headers.get('ETag')
        };
      },
      { url, headers: s3Headers() }
    );
    expect(result.status).toBe(200);
    expect(result.nbformat).toBe(4);
    // ETag is an exposed header: the page can read it.
    expect(result.etag).toBeTruthy();
  });

  test('a bucket without a CORS rule refuses the page', async ({ lab }) => {
    const url = objectUrl('nocors', 'intro.ipynb');
    const outcome = await lab.evaluate(
      async ({ url, headers }) => {
        try {
          await fetch(url, { headers });
          return 'read';
        } catch (error) {
          return `${(error as Error).name}: ${(error as Error).message}`;
        }
      },
      { url, headers: s3Headers() }
    );
    expect(outcome).toBe('TypeError: Failed to fetch');
    // Outside the browser the object is there: it is the CORS check.
    const direct = await fetch(url, { headers: s3Headers() });
    expect(direct.status).toBe(200);
  });
});

test.describe('the server extension', () => {
  test('GET /api/bookshelf reports the demo configuration without secrets', async ({
    request,
    baseURL
  }) => {
    const response = await request.get(`${baseURL}/api/bookshelf`);
    expect(response.status()).toBe(200);
    const text = await response.text();
    const info = JSON.parse(text);
    expect(info.release).toBe('0.1.0');
    expect(info.features.clone_valid).toBe(true);
    expect(info.features.publish_valid).toBe(true);
    expect(text).not.toContain('bookshelf-demo-secret');
  });
});
