/**
 * Faults on the way to S3 and to the Jupyter server, for clone and publish.
 *
 * The extension reaches S3 through the fault-injecting proxy
 * (scripts/fault_proxy.py, started by scripts/serve.py in front of the moto
 * server): each test tells it what to break. The Jupyter server's answers
 * are broken with Playwright's page.route. After each fault: no partial or
 * temporary file in the file tree, an existing file unchanged, the
 * published object the old one or the new one whole, and the person was
 * told what happened.
 */
import { expect, test } from './fixtures';
import { ChildProcess, spawn } from 'child_process';
import { createHash } from 'crypto';

import {
  addFault,
  bookshelfError,
  bookshelfSettings,
  callBookshelf,
  clearFaults,
  expectFaultsApplied,
  expectNotification,
  filesOnDisk,
  fixture,
  IFaultRule,
  IProxyLogEntry,
  getObject,
  listFolder,
  listVersions,
  md5,
  notebookText,
  proxyLog,
  proxyUrl,
  putObject,
  readFile,
  uid,
  withoutCreatePath
} from './helpers';
import {
  clickInToast,
  cloneInDialog,
  errorDetails,
  publishDialog,
  publishInDialog,
  toast
} from './pages';

const PARTIAL = /\.bookshelf-partial$/;

/**
 * A notebook of about `size` bytes (a long output), unique by `title`.
 */
function notebook(title: string, size = 200 * 1024): string {
  const line = 'All work and no play makes a dull notebook. ';
  const text = line.repeat(Math.ceil(size / line.length)).slice(0, size);
  return notebookText([
    {
      cell_type: 'markdown',
      id: 'title',
      metadata: {},
      source: [`# ${title}`]
    },
    {
      cell_type: 'code',
      execution_count: 1,
      id: 'output',
      metadata: {},
      outputs: [{ name: 'stdout', output_type: 'stream', text: [text] }],
      source: ['print(text)']
    }
  ]);
}

async function noPartialFiles(): Promise<void> {
  await expect.poll(() => filesOnDisk(PARTIAL), { timeout: 15000 }).toEqual([]);
}

test.use({ mockSettings: bookshelfSettings({ endpointUrl: proxyUrl() }) });

test.afterEach(async () => {
  try {
    await expectFaultsApplied();
  } finally {
    await clearFaults();
  }
});

/**
 * A fault on the way to S3 that a transfer must survive: it is tried again
 * and the result is whole.
 */
interface IPassingFault {
  title: string;
  /** How many requests it breaks (default 1). */
  times?: number;
  fault: IFaultRule['fault'];
  /** What the proxy saw, beyond the result being whole. */
  requests?: (log: IProxyLogEntry[]) => void;
}

/**
 * A fault on every try: the transfer is given up, the person is told what
 * happened, and nothing is written.
 */
interface IReportedFault {
  title: string;
  fault: IFaultRule['fault'];
  /** The notification's words. */
  message: string;
  /** Words of its Details dialog. */
  details?: string[];
  requests?: (log: IProxyLogEntry[]) => void;
  /** The least time the tries took, in ms (a back-off between them). */
  atLeastMs?: number;
}

const CLONE_PASSES: IPassingFault[] = [
  {
    title: 'a download cut off once is tried again and saved whole',
    fault: { type: 'drop', after: 50000 },
    requests: gets =>
      expect(gets.map(entry => entry.outcome)).toEqual(['dropped', 'forwarded'])
  },
  {
    title: 'a 503 that passes is not the person’s concern',
    times: 2,
    fault: { type: 'status', status: 503 }
  },
  {
    title: 'bytes corrupted once are downloaded again and saved whole',
    fault: { type: 'corrupt', offset: 1234 }
  }
];

const CLONE_REPORTS: IReportedFault[] = [
  {
    title: 'a download cut off every time',
    fault: { type: 'drop', after: 50000 },
    message: 'Connection to the S3 service lost',
    details: ['Connection lost', '(tried 3 times)', 'no file was written'],
    // Each of the three downloads was cut off.
    requests: gets =>
      expect(gets.filter(entry => entry.outcome === 'dropped')).toHaveLength(3)
  },
  {
    title: '503 SlowDown, retried with backoff',
    fault: { type: 'status', status: 503, code: 'SlowDown' },
    message: 'asked to slow down',
    // The SDK tried four times, waiting between the tries.
    requests: gets =>
      expect(gets.map(entry => entry.status)).toEqual([503, 503, 503, 503]),
    atLeastMs: 200
  },
  {
    title: '500',
    fault: { type: 'status', status: 500 },
    message: 'The S3 service failed (HTTP 500)'
  },
  {
    title: 'bytes corrupted every time',
    fault: { type: 'corrupt', offset: 1234 },
    message: 'Damaged download',
    details: ['do not match the checksum (ETag)']
  }
];

test.describe('clone through a failing network', () => {
  let key: string;
  let body: string;

  test.beforeEach(async () => {
    key = `faults/${uid()}/report.ipynb`;
    body = notebook(`Report ${key}`);
    await putObject('examples', key, body, 'application/x-ipynb+json');
  });

  for (const row of CLONE_PASSES) {
    test(row.title, async ({ lab, tmpPath }) => {
      await addFault({
        method: 'GET',
        path: `/examples/${key}`,
        times: row.times,
        fault: row.fault
      });
      const model = await callBookshelf<any>(lab, 'clone', {
        s3_bucket: 'examples',
        s3_key: key,
        target_path: `${tmpPath}/`
      });
      expect(model.path).toBe(`${tmpPath}/report.ipynb`);
      expect(md5(await readFile(lab, model.path))).toBe(md5(body));
      row.requests?.(await proxyLog(`/examples/${key}`));
      await noPartialFiles();
    });
  }

  for (const row of CLONE_REPORTS) {
    test(`${row.title} is reported; nothing is written and the existing file is kept`, async ({
      page,
      tmpPath
    }) => {
      await page.contents.uploadContent(
        'my own report',
        'text',
        `${tmpPath}/report.ipynb`
      );
      await addFault({
        method: 'GET',
        path: `/examples/${key}`,
        times: 0,
        fault: row.fault
      });
      const started = Date.now();
      await cloneInDialog(page, {
        s3_bucket: 'examples',
        s3_key: key,
        target_path: `${tmpPath}/`
      });
      await expect(toast(page, row.message)).toBeVisible({ timeout: 30000 });
      if (row.atLeastMs) {
        expect(Date.now() - started).toBeGreaterThan(row.atLeastMs);
      }
      if (row.details) {
        const whole = await errorDetails(page, row.message);
        for (const words of row.details) {
          expect(whole).toContain(words);
        }
      }
      row.requests?.(await proxyLog(`/examples/${key}`));
      expect(await listFolder(page, tmpPath)).toEqual(['report.ipynb']);
      expect(await readFile(page, `${tmpPath}/report.ipynb`)).toBe(
        'my own report'
      );
      await noPartialFiles();
    });
  }

  test('a download above 8 MiB cut off once is cloned again whole', async ({
    lab,
    tmpPath
  }) => {
    const bigKey = `faults/${uid()}/big.ipynb`;
    const big = notebook(`Big ${bigKey}`, 12 * 1024 * 1024);
    await putObject('examples', bigKey, big, 'application/x-ipynb+json');
    await addFault({
      method: 'GET',
      path: `/examples/${bigKey}`,
      fault: { type: 'drop', after: 9 * 1024 * 1024 }
    });
    const model = await callBookshelf<any>(lab, 'clone', {
      s3_bucket: 'examples',
      s3_key: bigKey,
      target_path: `${tmpPath}/`
    });
    expect(model.path).toBe(`${tmpPath}/big.ipynb`);
    expect(md5(await readFile(lab, model.path))).toBe(md5(big));
    const gets = await proxyLog(`/examples/${bigKey}`);
    expect(gets.map(entry => entry.outcome)).toEqual(['dropped', 'forwarded']);
    expect(await listFolder(lab, tmpPath)).toEqual(['big.ipynb']);
    await noPartialFiles();
  });

  test('a body cut short with a matching length is caught by the checksum', async ({
    lab,
    tmpPath
  }) => {
    await addFault({
      method: 'GET',
      path: `/examples/${key}`,
      times: 0,
      fault: { type: 'truncate', keep: 100000 }
    });
    const error = await bookshelfError(lab, 'clone', {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    });
    expect(error.code).toBe('Corrupted');
    expect(error.message).toContain('do not match the checksum');
    expect(error.message).toContain('(tried 3 times)');
    expect(await listFolder(lab, tmpPath)).toEqual([]);
    await noPartialFiles();
  });

  test('a slow S3 service shows progress and the clone completes', async ({
    page,
    tmpPath
  }) => {
    await addFault({
      method: 'GET',
      path: `/examples/${key}`,
      fault: { type: 'throttle', bytes_per_second: 100 * 1024 }
    });
    await cloneInDialog(page, {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    });
    await expect(toast(page, `Cloning s3://examples/${key}`)).toBeVisible();
    // A bar, not only text, that moves.
    const bar = toast(page, `Cloning s3://examples/${key}`).getByRole(
      'progressbar',
      { name: `Cloning s3://examples/${key}` }
    );
    await expect(bar).toBeVisible();
    await expect
      .poll(() => bar.evaluate(node => (node as HTMLProgressElement).value))
      .toBeGreaterThan(0);
    // And the bytes in words.
    await expect(
      toast(page, new RegExp(`Cloning s3://examples/${key} \\(.+ of .+\\)`))
    ).toBeVisible();
    await expect(toast(page, 'Cloned s3://examples/')).toBeVisible({
      timeout: 30000
    });
    // The progress is gone with the transfer, not left behind.
    await expect(toast(page, 'Cloning s3://examples/')).toHaveCount(0);
    expect(await readFile(page, `${tmpPath}/report.ipynb`)).toBe(body);
  });
});

test.describe('clone while the Jupyter server fails', () => {
  let key: string;
  let body: string;

  test.beforeEach(async () => {
    key = `faults/${uid()}/saved.ipynb`;
    body = notebook(`Saved ${key}`);
    await putObject('examples', key, body, 'application/x-ipynb+json');
  });

  // Without the create path (`withoutCreatePath`), the clone saves through
  // the contents API and commits: the way those two requests fail is tested.

  /** The clone request of the object into the test's folder. */
  const into = (tmpPath: string) => ({
    s3_bucket: 'examples',
    s3_key: key,
    target_path: `${tmpPath}/`
  });

  test('a save answered with 500 is reported and leaves nothing', async ({
    page,
    tmpPath
  }) => {
    await withoutCreatePath(page);
    await page.contents.uploadContent(
      'kept as it is',
      'text',
      `${tmpPath}/saved.ipynb`
    );
    await page.route('**/api/contents/**', route =>
      route.request().method() === 'PUT'
        ? route.fulfill({
            status: 500,
            contentType: 'application/json',
            body: JSON.stringify({ message: 'Disk full (injected)' })
          })
        : route.fallback()
    );
    await cloneInDialog(page, into(tmpPath));
    await expectNotification(
      page,
      'The Jupyter server could not save the file'
    );
    await expectNotification(page, '(HTTP 500');
    await page.unroute('**/api/contents/**');
    expect(await listFolder(page, tmpPath)).toEqual(['saved.ipynb']);
    expect(await readFile(page, `${tmpPath}/saved.ipynb`)).toBe(
      'kept as it is'
    );
    await noPartialFiles();
  });

  test('a save that the server did but answered with 500 is removed again', async ({
    page,
    tmpPath
  }) => {
    await withoutCreatePath(page);
    await page.route('**/api/contents/**', async route => {
      if (route.request().method() !== 'PUT') {
        return route.fallback();
      }
      const response = await route.fetch();
      expect(response.status()).toBeLessThan(300);
      return route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ message: 'Lost answer (injected)' })
      });
    });
    const error = await bookshelfError(page, 'clone', into(tmpPath));
    await page.unroute('**/api/contents/**');
    expect(error.code).toBe('SaveFailed');
    expect(await listFolder(page, tmpPath)).toEqual([]);
    await noPartialFiles();
  });

  test('a commit answered with 500 leaves no temporary file', async ({
    page,
    tmpPath
  }) => {
    await withoutCreatePath(page);
    await page.route('**/api/bookshelf/commit*', route =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({
          code: 'SaveFailed',
          message: 'Commit failed (injected)'
        })
      })
    );
    const error = await bookshelfError(page, 'clone', into(tmpPath));
    await page.unroute('**/api/bookshelf/commit*');
    expect(error.code).toBe('SaveFailed');
    expect(error.message).toContain('Commit failed (injected)');
    expect(await listFolder(page, tmpPath)).toEqual([]);
    await noPartialFiles();
  });

  test('a commit the server did but whose answer was lost gives one file', async ({
    page,
    tmpPath
  }) => {
    await withoutCreatePath(page);
    let lost = 0;
    await page.route('**/api/bookshelf/commit*', async route => {
      const response = await route.fetch();
      if (lost++ > 0) {
        return route.fulfill({ response });
      }
      // Committed; a proxy between browser and server loses the answer.
      expect(response.status()).toBe(201);
      return route.fulfill({ status: 502, body: 'Bad Gateway (injected)' });
    });
    const model = await callBookshelf<any>(page, 'clone', into(tmpPath));
    await page.unroute('**/api/bookshelf/commit*');
    expect(lost).toBe(2);
    expect(model.path).toBe(`${tmpPath}/saved.ipynb`);
    expect(await listFolder(page, tmpPath)).toEqual(['saved.ipynb']);
    expect(await readFile(page, model.path)).toBe(body);
    await noPartialFiles();
  });

  test('without the commit path, a rename answered with 500 leaves no temporary file', async ({
    page,
    tmpPath
  }) => {
    await withoutCreatePath(page);
    // As a server without the server extension answers.
    await page.route('**/api/bookshelf/commit*', route =>
      route.fulfill({ status: 404, body: '<html>404: Not Found</html>' })
    );
    await page.route('**/api/contents/**', route =>
      route.request().method() === 'PATCH'
        ? route.fulfill({
            status: 500,
            contentType: 'application/json',
            body: JSON.stringify({ message: 'Rename failed (injected)' })
          })
        : route.fallback()
    );
    const error = await bookshelfError(page, 'clone', into(tmpPath));
    await page.unroute('**/api/contents/**');
    expect(error.code).toBe('SaveFailed');
    expect(error.message).toContain('Rename failed (injected)');
    expect(await listFolder(page, tmpPath)).toEqual([]);
    await noPartialFiles();

    // And the rename itself works.
    const model = await callBookshelf<any>(page, 'clone', into(tmpPath));
    await page.unroute('**/api/bookshelf/commit*');
    expect(model.path).toBe(`${tmpPath}/saved.ipynb`);
    expect(await readFile(page, model.path)).toBe(body);
    await noPartialFiles();
  });

  test('a create answered with 500 is reported and leaves nothing', async ({
    page,
    tmpPath
  }) => {
    await page.route('**/api/bookshelf/create*', route =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ message: 'Disk full (injected)' })
      })
    );
    const error = await bookshelfError(page, 'clone', into(tmpPath));
    await page.unroute('**/api/bookshelf/create*');
    expect(error.code).toBe('SaveFailed');
    expect(error.message).toContain('(HTTP 500: Disk full (injected))');
    expect(await listFolder(page, tmpPath)).toEqual([]);
    await noPartialFiles();
  });

  for (const status of [500, 502]) {
    test(`a create the server did but answered with ${status} gives its one file`, async ({
      page,
      tmpPath
    }) => {
      let answered = 0;
      await page.route('**/api/bookshelf/create*', async route => {
        const response = await route.fetch();
        answered++;
        // Created; the answer is lost on the way back.
        expect(response.status()).toBe(201);
        return route.fulfill({ status, body: 'Lost answer (injected)' });
      });
      const commits: number[] = [];
      page.on('response', response => {
        if (response.url().includes('/api/bookshelf/commit')) {
          commits.push(response.status());
        }
      });
      const model = await callBookshelf<any>(page, 'clone', into(tmpPath));
      await page.unroute('**/api/bookshelf/create*');
      expect(answered).toBe(1);
      // The commit path gave the create's answer.
      expect(commits).toEqual([201]);
      expect(model.path).toBe(`${tmpPath}/saved.ipynb`);
      expect(await listFolder(page, tmpPath)).toEqual(['saved.ipynb']);
      expect(await readFile(page, model.path)).toBe(body);
      await noPartialFiles();
    });
  }

  for (const slow of ['create', 'save'] as const) {
    test(`a slow ${slow} completes, and a clone cancelled meanwhile says so at once and leaves nothing`, async ({
      page,
      tmpPath
    }) => {
      // The create path's request, or (without it) the contents API's save.
      const url =
        slow === 'create' ? '**/api/bookshelf/create*' : '**/api/contents/**';
      if (slow === 'save') {
        await withoutCreatePath(page);
      }
      await page.route(url, async route => {
        if (slow === 'create' || route.request().method() === 'PUT') {
          await new Promise(resolve => setTimeout(resolve, 3000));
        }
        return route.fallback();
      });
      const model = await callBookshelf<any>(page, 'clone', into(tmpPath));
      expect(await readFile(page, model.path)).toBe(body);

      // Again, and cancel while the server is still at it.
      await cloneInDialog(page, into(tmpPath));
      const progress = toast(page, `Cloning s3://examples/${key}`);
      await clickInToast(progress, 'Cancel');
      await expect(toast(page, 'The clone was cancelled')).toBeVisible({
        timeout: 2000
      });
      // What the request made is removed once it answers.
      await expect
        .poll(() => listFolder(page, tmpPath), { timeout: 15000 })
        .toEqual(['saved.ipynb']);
      await page.unroute(url);
      await noPartialFiles();
    });
  }
});

const PUBLISH_PASSES: IPassingFault[] = [
  {
    title: 'an upload cut off once is sent again and published whole',
    fault: { type: 'drop', where: 'request', after: 60000 },
    requests: log =>
      expect(log.filter(e => e.method === 'PUT').map(e => e.outcome)).toContain(
        'dropped'
      )
  },
  {
    // The server stores the notebook, the answer never arrives: the SDK
    // sends the put again, which fails its own If-Match.
    title: 'an upload whose answer was lost is recognised as published',
    fault: { type: 'drop', head: false }
  },
  {
    // No answer to any try: the SDK gives up on a lost connection, and the
    // object there holds the notebook's bytes.
    title: 'an upload none of whose answers came is recognised as published',
    times: 0,
    fault: { type: 'drop', head: false }
  },
  {
    title: 'a byte flipped once is refused, then sent again whole',
    fault: { type: 'corrupt', where: 'request', offset: 500 }
  }
];

const PUBLISH_REPORTS: IReportedFault[] = [
  {
    title: 'an upload cut off every time',
    fault: { type: 'drop', where: 'request', after: 60000 },
    message: 'Connection to the S3 service lost'
  },
  {
    title: '503 SlowDown, retried',
    fault: { type: 'status', status: 503, code: 'SlowDown' },
    message: 'asked to slow down',
    requests: log => expect(log.filter(e => e.method === 'PUT')).toHaveLength(4)
  },
  {
    title: '500',
    fault: { type: 'status', status: 500 },
    message: 'The S3 service failed (HTTP 500)'
  },
  {
    title: 'an upload damaged on the way, refused by its Content-MD5,',
    fault: { type: 'truncate', where: 'request', keep: 1000 },
    message: 'Damaged upload',
    details: ['stored nothing. (tried 3 times)'],
    requests: log => {
      const puts = log.filter(e => e.method === 'PUT');
      expect(puts.map(e => e.status)).toEqual([400, 400, 400]);
    }
  }
];

test.describe('publish through a failing network', () => {
  let path: string;
  let key: string;
  const old = notebook('The published version');
  let mine: string;

  test.beforeEach(async ({ lab, tmpPath }) => {
    path = `${tmpPath}/forecast-${uid()}.ipynb`;
    key = path;
    mine = notebook(`My new version ${uid()}`);
    await lab.contents.uploadContent(mine, 'text', path);
    await putObject('published', key, old, 'application/x-ipynb+json');
  });

  async function publishedIs(expected: string): Promise<void> {
    const stored = await getObject('published', key);
    expect(md5(stored!.body)).toBe(md5(expected));
  }

  for (const row of PUBLISH_PASSES) {
    test(row.title, async ({ lab }) => {
      await addFault({
        method: 'PUT',
        path: `/published/${key}`,
        times: row.times,
        fault: row.fault
      });
      const before = await listVersions('published', key);
      const result = await callBookshelf<any>(lab, 'publish', path, {
        overwrite: true
      });
      await publishedIs(mine);
      // One new version, the one the publish answered.
      const latest = await getObject('published', key);
      expect(result.version_id).toBe(latest!.versionId);
      expect(await listVersions('published', key)).toHaveLength(
        before.length + 1
      );
      row.requests?.(await proxyLog(`/published/${key}`));
    });
  }

  for (const row of PUBLISH_REPORTS) {
    test(`${row.title} is reported; the old object stays whole`, async ({
      page
    }) => {
      await addFault({
        method: 'PUT',
        path: `/published/${key}`,
        times: 0,
        fault: row.fault
      });
      await publishInDialog(page, path);
      await expect(toast(page, row.message)).toBeVisible({ timeout: 30000 });
      if (row.details) {
        const whole = await errorDetails(page, row.message);
        for (const words of row.details) {
          expect(whole).toContain(words);
        }
      }
      const log = await proxyLog(`/published/${key}`);
      row.requests?.(log);
      // Every try carried the MD5 of the notebook as saved.
      for (const put of log.filter(e => e.method === 'PUT')) {
        expect(put.headers['content-md5']).toBe(
          createHash('md5').update(mine).digest('base64')
        );
      }
      await publishedIs(old);
    });
  }
});

test.describe('publish while the Jupyter server fails', () => {
  test('a failed save before publishing publishes nothing, and says so', async ({
    page,
    tmpPath
  }) => {
    const path = `${tmpPath}/edited.ipynb`;
    await page.contents.uploadContent(notebook('Before'), 'text', path);
    await page.filebrowser.open(path);
    await page.notebook.setCell(0, 'markdown', '# After the edit');
    await page.route('**/api/contents/**', route =>
      route.request().method() === 'PUT'
        ? route.fulfill({
            status: 500,
            contentType: 'application/json',
            body: JSON.stringify({ message: 'Disk full (injected)' })
          })
        : route.fallback()
    );
    await page.evaluate(p => {
      void (window as any).jupyterapp.commands.execute('bookshelf:publish', {
        path: p
      });
    }, path);
    const ask = page.locator('.jp-Dialog', { hasText: 'Unsaved changes' });
    await ask.getByRole('button', { name: 'Save and Publish' }).click();
    await expect(
      toast(page, 'could not be saved, so nothing was published')
    ).toBeVisible({ timeout: 30000 });
    // Lab's own save error dialog.
    const saveError = page.locator('.jp-Dialog', { hasText: 'Save Error' });
    await expect(saveError).toBeVisible();
    await saveError.getByRole('button').last().click();
    await page.unroute('**/api/contents/**');
    expect(await getObject('published', path)).toBeNull();
  });

  test('a slow save is waited for, and the saved version is published', async ({
    page,
    tmpPath
  }) => {
    const path = `${tmpPath}/slow.ipynb`;
    await page.contents.uploadContent(notebook('Before'), 'text', path);
    await page.filebrowser.open(path);
    await page.notebook.setCell(0, 'markdown', '# Saved slowly');
    await page.route('**/api/contents/**', async route => {
      if (route.request().method() === 'PUT') {
        await new Promise(resolve => setTimeout(resolve, 3000));
      }
      return route.fallback();
    });
    await page.evaluate(p => {
      void (window as any).jupyterapp.commands.execute('bookshelf:publish', {
        path: p
      });
    }, path);
    const ask = page.locator('.jp-Dialog', { hasText: 'Unsaved changes' });
    await ask.getByRole('button', { name: 'Save and Publish' }).click();
    const dialog = publishDialog(page);
    await expect(
      dialog.locator('.jp-Bookshelf-publish-status[data-state="new"]')
    ).toBeVisible({ timeout: 30000 });
    await dialog.getByRole('button', { name: 'Publish' }).click();
    await expect(toast(page, 'Published version')).toBeVisible({
      timeout: 30000
    });
    await page.unroute('**/api/contents/**');
    const stored = await getObject('published', path);
    expect(stored!.body.toString('utf8')).toContain('Saved slowly');
    expect(stored!.body.toString('utf8')).toBe(await readFile(page, path));
  });

  test('a notebook the server cannot read is not published', async ({
    page,
    tmpPath
  }) => {
    const path = `${tmpPath}/unreadable.ipynb`;
    await page.contents.uploadContent(notebook('Unreadable'), 'text', path);
    // Publish reads the saved bytes from /files/ (or the contents API).
    const reads = (url: URL) =>
      url.pathname.endsWith('/unreadable.ipynb') &&
      (url.pathname.includes('/files/') ||
        url.searchParams.get('content') === '1');
    await page.route(reads, route =>
      route.request().method() === 'GET'
        ? route.fulfill({
            status: 500,
            contentType: 'application/json',
            body: JSON.stringify({ message: 'Read failed (injected)' })
          })
        : route.fallback()
    );
    await publishInDialog(page, path);
    await expect(toast(page, 'The Jupyter server could not read')).toBeVisible({
      timeout: 30000
    });
    await page.unroute(reads);
    expect(await getObject('published', path)).toBeNull();
  });
});

/**
 * An S3 server of the test's own, behind a proxy of its own, so that it can
 * be stopped in the middle of a transfer; started from the project's
 * scripts on the two ports after BOOKSHELF_TEST_PROXY_PORT, and stopped by
 * PID.
 */
const OWN_MOTO_PORT = Number(process.env.BOOKSHELF_TEST_PROXY_PORT) + 1;
const OWN_PROXY_PORT = Number(process.env.BOOKSHELF_TEST_PROXY_PORT) + 2;
const OWN_S3 = `http://127.0.0.1:${OWN_MOTO_PORT}`;
const OWN_PROXY = `http://127.0.0.1:${OWN_PROXY_PORT}`;

function startScript(args: string[], ready: string): Promise<ChildProcess> {
  const python = process.env.BOOKSHELF_TEST_PYTHON || 'python';
  const child = spawn(python, args, {
    cwd: `${__dirname}/../..`,
    stdio: ['ignore', 'pipe', 'pipe']
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`${args[0]} did not start:\n${output}`));
    }, 60000);
    const onData = (data: Buffer) => {
      output += data.toString();
      if (output.includes(ready)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', code => {
      clearTimeout(timer);
      reject(new Error(`${args[0]} exited with ${code}:\n${output}`));
    });
  });
}

function stop(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise(resolve => {
    child.once('exit', () => resolve());
    process.kill(child.pid!, 'SIGTERM');
  });
}

test.describe('the S3 server stopped during a transfer', () => {
  test.use({
    mockSettings: bookshelfSettings({ endpointUrl: OWN_PROXY })
  });
  let moto: ChildProcess | null = null;
  let proxy: ChildProcess | null = null;

  test.beforeEach(async () => {
    const origin = `http://127.0.0.1:${fixture().lab_port}`;
    moto = await startScript(
      [
        'scripts/s3_fixture.py',
        '--port',
        String(OWN_MOTO_PORT),
        '--origin',
        origin
      ],
      'S3 fixture ready'
    );
    proxy = await startScript(
      [
        'scripts/fault_proxy.py',
        '--port',
        String(OWN_PROXY_PORT),
        '--upstream',
        OWN_S3
      ],
      'fault proxy ready'
    );
  });

  test.afterEach(async () => {
    try {
      await expectFaultsApplied(OWN_PROXY);
    } finally {
      await stop(proxy);
      await stop(moto);
      proxy = moto = null;
    }
  });

  test('a clone is reported and writes nothing', async ({ page, tmpPath }) => {
    const key = `stopped/${uid()}/big.ipynb`;
    await putObject(
      'examples',
      key,
      notebook('Big', 24 * 1024 * 1024),
      'application/x-ipynb+json',
      OWN_S3
    );
    await addFault(
      {
        method: 'GET',
        path: `/examples/${key}`,
        fault: { type: 'throttle', bytes_per_second: 2 * 1024 * 1024 }
      },
      OWN_PROXY
    );
    await cloneInDialog(page, {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    });
    // Stop the server while the object is on its way.
    await expect(toast(page, `Cloning s3://examples/${key}`)).toBeVisible();
    await stop(moto);
    await expect(toast(page, `Nothing answers at ${OWN_PROXY}`)).toBeVisible({
      timeout: 60000
    });
    expect(await listFolder(page, tmpPath)).toEqual([]);
    await noPartialFiles();
  });

  test('a publish is reported and publishes nothing', async ({
    page,
    tmpPath
  }) => {
    const path = `${tmpPath}/big-${uid()}.ipynb`;
    const mine = notebook('Big to publish', 12 * 1024 * 1024);
    await page.contents.uploadContent(mine, 'text', path);
    await addFault(
      {
        method: 'PUT',
        path: `/published/${path}`,
        fault: {
          type: 'throttle',
          where: 'request',
          bytes_per_second: 2 * 1024 * 1024
        }
      },
      OWN_PROXY
    );
    await publishInDialog(page, path);
    await expect(toast(page, `Publishing ${path}`)).toBeVisible();
    await stop(moto);
    await expect(toast(page, `Nothing answers at ${OWN_PROXY}`)).toBeVisible({
      timeout: 60000
    });
    expect(await readFile(page, path)).toBe(mine);
  });
});
