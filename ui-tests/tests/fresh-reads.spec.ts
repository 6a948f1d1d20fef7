/**
 * Fresh reads: every clone reads what S3 holds now, never an answer from
 * the browser's HTTP cache. S3 sends Last-Modified and no Cache-Control,
 * so Chromium caches GetObject answers heuristically (for about a tenth of
 * the object's age), and an uploader may set a long max-age.
 *
 * The extension reaches S3 through the fault proxy, which counts the
 * requests that reach it: a clone answered from the cache never gets
 * there. The proxy also makes objects look as old as a real notebook
 * unchanged for a month (a headers fault setting Last-Modified), which a
 * test cannot wait for.
 *
 * The tests use a plain browser page, not Galata's `page`: Galata mocks
 * the settings with request routing, and Playwright turns the HTTP cache
 * off while routing is on, so such a page would never show the bug. The
 * Bookshelf settings are the user's own, set through the settings API as
 * the Settings Editor does, and put back afterwards.
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { expect, test } from './fixtures';
import * as fs from 'fs';
import * as path from 'path';

import {
  addFault,
  bookshelfError,
  callBookshelf,
  clearFaults,
  faultRules,
  filesOnDisk,
  fixture,
  namesOnDisk,
  notebookText,
  objectUrl,
  proxyLog,
  proxyUrl,
  putObject,
  s3Headers
} from './helpers';

const MONTH_AGO = new Date(Date.now() - 30 * 24 * 3600 * 1000).toUTCString();

function uid(): string {
  return `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
}

function notebook(title: string): string {
  return notebookText([
    {
      cell_type: 'markdown',
      id: 'title',
      metadata: {},
      source: [`# ${title}`]
    }
  ]);
}

function onDisk(relative: string): string {
  return fs.readFileSync(path.join(fixture().root_dir, relative), 'utf8');
}

async function cloneTo(
  page: IJupyterLabPageFixture,
  key: string,
  folder: string
): Promise<string> {
  const model = await callBookshelf<any>(page, 'clone', {
    s3_bucket: 'examples',
    s3_key: key,
    target_path: `${folder}/`
  });
  return model.path;
}

/** GETs of the key that reached the S3 service (through the proxy). */
async function getsOf(key: string): Promise<number> {
  return (await proxyLog(`/examples/${key}`)).filter(
    entry => entry.method === 'GET' && entry.status === 200
  ).length;
}

/**
 * Change the Bookshelf settings in the running page, as the Settings
 * Editor does: the page, and its HTTP cache, stay.
 */
async function changeSettings(
  page: IJupyterLabPageFixture,
  key: string,
  value: unknown
): Promise<void> {
  await page.evaluate(
    async ({ key, value }) => {
      const app = (window as any).jupyterapp;
      const services: Map<any, string> = app.pluginRegistry._services;
      const token = [...services.keys()].find((candidate: any) =>
        String(candidate.name).endsWith(':ISettingRegistry')
      );
      const registry = await app.resolveRequiredService(token);
      await registry.set('jupyterlab-bookshelf:core', key, value);
    },
    { key, value }
  );
}

const SETTINGS_ID = 'jupyterlab-bookshelf:core';

/**
 * The user's own Bookshelf settings (the raw JSON the Settings Editor
 * writes), returning what was there before.
 */
async function putUserSettings(baseURL: string, raw: string): Promise<string> {
  const url = `${baseURL}/lab/api/settings/${SETTINGS_ID}`;
  const before = await (await fetch(url)).json();
  const response = await fetch(url, {
    method: 'PUT',
    body: JSON.stringify({ raw }),
    headers: { 'Content-Type': 'application/json' }
  });
  expect(response.status).toBe(204);
  return before.raw ?? '{}';
}

/**
 * A JupyterLab page with the browser's HTTP cache on (no request routing),
 * its Bookshelf reaching S3 through the fault proxy.
 */
const it = test.extend<{ cachedLab: IJupyterLabPageFixture }>({
  cachedLab: async ({ browser, baseURL, networkLog }, use) => {
    const before = await putUserSettings(
      baseURL!,
      JSON.stringify({ endpointUrl: proxyUrl() })
    );
    const context = await browser.newContext();
    networkLog.watch(context, 'page');
    try {
      const lab = await context.newPage();
      await lab.goto(`${baseURL}/lab`);
      await lab.waitForFunction(
        () => (window as any).jupyterapp?.restored !== undefined
      );
      await lab.evaluate(() => (window as any).jupyterapp.restored);
      // The helpers use only what a Playwright page has.
      await use(lab as unknown as IJupyterLabPageFixture);
    } finally {
      await context.close();
      await putUserSettings(baseURL!, before);
    }
  }
});

it.afterEach(async () => {
  await clearFaults();
});

it.describe('every clone reads S3, not the HTTP cache', () => {
  it('an object a month old, replaced after a clone, clones anew with the new bytes', async ({
    cachedLab: page,
    tmpPath
  }) => {
    const key = `fresh/${uid()}/report.ipynb`;
    const first = notebook('First version');
    const second = notebook('Second version');
    await putObject('examples', key, first, 'application/x-ipynb+json');
    // Every answer for the key says it was last changed a month ago: the
    // browser would keep it for about three days.
    const rule = await addFault({
      method: 'GET',
      path: `/examples/${key}`,
      times: 0,
      fault: { type: 'headers', set: { 'Last-Modified': MONTH_AGO } }
    });

    const firstPath = await cloneTo(page, key, tmpPath);
    expect(onDisk(firstPath)).toBe(first);
    await putObject('examples', key, second, 'application/x-ipynb+json');
    const secondPath = await cloneTo(page, key, tmpPath);

    expect(secondPath).toBe(`${tmpPath}/report-1.ipynb`);
    expect(onDisk(secondPath)).toBe(second);
    expect(onDisk(firstPath)).toBe(first);
    // Both downloads reached S3.
    expect(await getsOf(key)).toBe(2);
    const [used] = (await faultRules()).filter(r => r.id === rule);
    expect(used.applied).toBe(2);
  });

  it('an object its uploader gave Cache-Control max-age=3600 is read from S3 each time', async ({
    cachedLab: page,
    tmpPath
  }) => {
    const key = `fresh/${uid()}/cached.ipynb`;
    const first = notebook('Cached first');
    const second = notebook('Cached second');
    const longLived = { 'Cache-Control': 'max-age=3600' };
    await putObject(
      'examples',
      key,
      first,
      'application/x-ipynb+json',
      undefined,
      longLived
    );
    // The S3 service does send the uploader's max-age with the object.
    const direct = await fetch(objectUrl('examples', key), {
      headers: s3Headers()
    });
    expect(direct.headers.get('cache-control')).toBe('max-age=3600');

    const firstPath = await cloneTo(page, key, tmpPath);
    await putObject(
      'examples',
      key,
      second,
      'application/x-ipynb+json',
      undefined,
      longLived
    );
    const secondPath = await cloneTo(page, key, tmpPath);
    // A third read of the same bytes still goes to S3.
    const thirdPath = await cloneTo(page, key, tmpPath);

    expect(onDisk(firstPath)).toBe(first);
    expect(onDisk(secondPath)).toBe(second);
    expect(onDisk(thirdPath)).toBe(second);
    expect(await getsOf(key)).toBe(3);
  });

  it('a private object read with keys is refused once the page is anonymous', async ({
    cachedLab: page,
    tmpPath
  }) => {
    const key = `fresh/${uid()}/private.ipynb`;
    const body = notebook('Private');
    await putObject('examples', key, body, 'application/x-ipynb+json');
    await addFault({
      method: 'GET',
      path: `/examples/${key}`,
      times: 0,
      fault: {
        type: 'headers',
        set: { 'Last-Modified': MONTH_AGO, 'Cache-Control': 'max-age=3600' }
      }
    });
    const signed = await cloneTo(page, key, tmpPath);
    expect(onDisk(signed)).toBe(body);

    await changeSettings(page, 'credentials', { mode: 'anonymous' });
    const error = await bookshelfError(page, 'clone', {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    });
    expect(error.code).toBe('AccessDenied');
    // The unsigned GET reached S3, which refused it; nothing was written.
    const refused = (await proxyLog(`/examples/${key}`)).filter(
      entry => entry.method === 'GET' && entry.status === 403
    );
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every(entry => !entry.headers['authorization'])).toBe(true);
    expect(namesOnDisk(tmpPath).filter(name => !name.startsWith('.'))).toEqual([
      'private.ipynb'
    ]);
    expect(filesOnDisk(/\.bookshelf-partial$/)).toEqual([]);
  });

  it('a download damaged once is read again from S3, not from the cache', async ({
    cachedLab: page,
    tmpPath
  }) => {
    const key = `fresh/${uid()}/damaged.ipynb`;
    const body = notebook('Damaged once');
    // Cacheable for an hour, the damaged answer too.
    await putObject(
      'examples',
      key,
      body,
      'application/x-ipynb+json',
      undefined,
      { 'Cache-Control': 'max-age=3600' }
    );
    const corrupt = await addFault({
      method: 'GET',
      path: `/examples/${key}`,
      times: 1,
      fault: { type: 'corrupt' }
    });

    const cloned = await cloneTo(page, key, tmpPath);
    expect(onDisk(cloned)).toBe(body);
    const [used] = (await faultRules()).filter(r => r.id === corrupt);
    expect(used.applied).toBe(1);
    // The retry reached S3 and got whole bytes.
    expect(await getsOf(key)).toBe(2);
  });
});
