/**
 * Helpers of the bench scripts (measure.js, large.js, profile.js): the
 * browser, Lab's page and the page's memory.
 */
const fs = require('fs');
const path = require('path');
const { performance } = require('perf_hooks');

// Playwright as the UI tests install it (ui-tests/node_modules).
const { chromium } = require(
  path.join(__dirname, '..', 'ui-tests', 'node_modules', '@playwright', 'test')
);

const LAUNCH = {
  executablePath: process.env.BOOKSHELF_CHROMIUM || '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--enable-precise-memory-info'
  ]
};

/** Lab asks before it uploads a file above this size (its file browser). */
const LAB_LARGE_FILE_SIZE = 15 * 1024 * 1024;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? sorted[middle]
    : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Headers of a signed request; the fixture server does not check them. */
function s3Headers() {
  const date = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  return {
    Authorization:
      `AWS4-HMAC-SHA256 Credential=bookshelf-demo/${date.slice(0, 8)}/us-east-1/s3/aws4_request, ` +
      `SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${'0'.repeat(64)}`,
    'x-amz-date': date,
    'x-amz-content-sha256': 'UNSIGNED-PAYLOAD'
  };
}

/** Open Lab and wait until it is ready; resolves to the time it took. */
async function openLab(page, url) {
  const start = performance.now();
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(
    () => !!window.jupyterapp && !document.querySelector('#jupyterlab-splash'),
    null,
    { timeout: 120000, polling: 20 }
  );
  await page.evaluate(() => window.jupyterapp.restored);
  return performance.now() - start;
}

/** Resolve the page's IBookshelf service onto window.bookshelf. */
async function exposeBookshelf(page) {
  await page.evaluate(async () => {
    const app = window.jupyterapp;
    const services = app.pluginRegistry._services;
    const token = [...services.keys()].find(
      key => key.name === 'jupyterlab-bookshelf:IBookshelf'
    );
    window.bookshelf = await app.resolveRequiredService(token);
  });
}

/** The resident memory of a process, from /proc (Linux), in bytes. */
function residentBytes(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * The browser's processes by their PIDs: the renderers (the tab), and all
 * of them (also the browser process, which holds Blobs, and the network
 * and GPU processes).
 */
async function browserPids(browserSession) {
  const { processInfo } = await browserSession.send(
    'SystemInfo.getProcessInfo'
  );
  return {
    renderers: processInfo
      .filter(process => process.type === 'renderer')
      .map(process => process.id),
    all: processInfo.map(process => process.id),
    byType: processInfo.reduce((types, process) => {
      (types[process.type] ??= []).push(process.id);
      return types;
    }, {})
  };
}

/**
 * Peak memory above the start while `task` runs in the page, in bytes: the
 * V8 heap alone; the V8 heap plus ArrayBuffers (where downloaded and
 * uploaded bytes live: `backingStorageSize`); and the resident memory of
 * the renderer processes (the tab's memory as the system sees it, which
 * also holds Blink's and the network's copies); and the resident memory of
 * all the browser's processes (where a Blob's bytes live, outside the tab).
 */
async function peakMemory(page, session, browserSession, task, arg) {
  await session.send('HeapProfiler.collectGarbage');
  const pids = await browserPids(browserSession);
  const resident = list =>
    list.reduce((sum, pid) => sum + residentBytes(pid), 0);
  const usage = async () => {
    const heap = await session.send('Runtime.getHeapUsage');
    return {
      heap: heap.usedSize,
      buffers: heap.usedSize + (heap.backingStorageSize ?? 0),
      rss: resident(pids.renderers),
      browserRss: resident(pids.all),
      // Which of the browser's processes holds what (`rss:<type>`).
      ...Object.fromEntries(
        Object.entries(pids.byType).map(([type, list]) => [
          `rss:${type}`,
          resident(list)
        ])
      )
    };
  };
  const before = await usage();
  const peak = { ...before };
  let running = true;
  const poll = (async () => {
    while (running) {
      const now = await usage();
      for (const name of Object.keys(peak)) {
        peak[name] = Math.max(peak[name], now[name]);
      }
      await new Promise(resolve => setTimeout(resolve, 10));
    }
  })();
  await page.evaluate(task, arg);
  running = false;
  await poll;
  return Object.fromEntries(
    Object.keys(peak).map(name => [name, peak[name] - before[name]])
  );
}

module.exports = {
  chromium,
  exposeBookshelf,
  LAB_LARGE_FILE_SIZE,
  LAUNCH,
  median,
  openLab,
  peakMemory,
  s3Headers
};
