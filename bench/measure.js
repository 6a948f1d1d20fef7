/**
 * The browser side of `make bench`: clone, publish and their baselines, the
 * start-up cost, the first use and the memory, measured in Debian's chromium
 * with Playwright. bench/run.py starts the servers and passes the
 * configuration as JSON in argv[2]; the results are printed as JSON.
 */
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const { performance } = require('perf_hooks');
const {
  chromium,
  exposeBookshelf,
  LAB_LARGE_FILE_SIZE,
  LAUNCH,
  median,
  openLab,
  peakMemory,
  s3Headers
} = require('./page');

const config = JSON.parse(process.argv[2]);

function curl(args) {
  const start = performance.now();
  execFileSync('curl', ['-sS', '-f', '-o', '/dev/null', ...args]);
  return performance.now() - start;
}

/** Median and spread of the runs of one measure, with the runs. */
function summary(values) {
  return {
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    runs: values
  };
}

/**
 * `curl` GET of the object from S3, then `curl` PUT of a contents model of
 * its bytes (a JSON file built before timing) to `/api/contents`; the time
 * of both.
 */
function curlGetThenPut(size, model, prefix) {
  const headers = Object.entries(s3Headers()).flatMap(([k, v]) => [
    '-H',
    `${k}: ${v}`
  ]);
  const start = performance.now();
  execFileSync('curl', [
    '-sS',
    '-f',
    '-o',
    config.files[size].download,
    ...headers,
    `${config.s3Url}/examples/${config.objects[size]}`
  ]);
  curl([
    '-X',
    'PUT',
    '-H',
    'Content-Type: application/json',
    '--data-binary',
    `@${model}`,
    `${config.labUrl}/api/contents/bench-baseline/${prefix}-${size}.ipynb`
  ]);
  return performance.now() - start;
}

/** Start-up: bytes of the extension's JS and the time to Lab ready. */
async function measureStartup(browser) {
  const withExtension = [];
  const withoutExtension = [];
  let bytes = 0;
  let files = [];
  for (let round = 0; round < config.rounds; round++) {
    for (const variant of ['with', 'without']) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const ours = [];
      page.on('response', async response => {
        if (response.url().includes('/extensions/jupyterlab-bookshelf/')) {
          const body = await response.body().catch(() => Buffer.alloc(0));
          ours.push({ url: response.url(), size: body.length });
        }
      });
      const url = variant === 'with' ? config.labUrl : config.plainLabUrl;
      const time = await openLab(page, `${url}/lab`);
      (variant === 'with' ? withExtension : withoutExtension).push(time);
      if (variant === 'with') {
        await page.waitForTimeout(500);
        const scripts = ours.filter(item => /\.js(\?|$)/.test(item.url));
        bytes = scripts.reduce((sum, item) => sum + item.size, 0);
        files = scripts.map(item => path.basename(item.url.split('?')[0]));
      }
      await context.close();
    }
  }
  return {
    startupBytes: bytes,
    startupFiles: files,
    readyWith: summary(withExtension),
    readyWithout: summary(withoutExtension)
  };
}

/**
 * Clone an object in the page and delete the copy; resolves to the time
 * from the call to the file saved.
 */
function timeClone(page, key, folder) {
  return page.evaluate(
    async ({ key, folder }) => {
      const start = performance.now();
      const model = await window.bookshelf.clone({
        s3_bucket: 'examples',
        s3_key: key,
        target_path: folder
      });
      const time = performance.now() - start;
      await window.jupyterapp.serviceManager.contents.delete(model.path);
      return time;
    },
    { key, folder }
  );
}

/**
 * The first clone of a page against the next ones, in `config.rounds` pages
 * of their own (each a new browser context, with an empty cache): the JS it
 * loads, and its extra time, the first clone's less the median of the next
 * ones in the same page.
 */
async function measureFirstUse(browser) {
  const firsts = [];
  const extras = [];
  const again = [];
  let scripts = [];
  for (let round = 0; round < config.rounds; round++) {
    const page = await (await browser.newContext()).newPage();
    await openLab(page, `${config.labUrl}/lab`);
    await exposeBookshelf(page);
    const loaded = [];
    page.on('response', async response => {
      if (response.url().includes('/extensions/jupyterlab-bookshelf/')) {
        const body = await response.body().catch(() => Buffer.alloc(0));
        loaded.push({
          url: response.url(),
          size: body.length,
          // The S3 code: the SDK's chunk (it names itself in its user
          // agent) and the client module that imports it.
          s3:
            /\/bookshelf-s3\./.test(response.url()) ||
            body.includes('aws-sdk-js')
        });
      }
    });
    const key = config.objects['100KB'];
    const first = await timeClone(page, key, 'bench-first-use/');
    const next = [];
    for (let i = 0; i < config.rounds; i++) {
      next.push(await timeClone(page, key, 'bench-first-use/'));
    }
    await page.context().close();
    firsts.push(first);
    extras.push(first - median(next));
    again.push(...next);
    scripts = loaded.filter(item => /\.js(\?|$)/.test(item.url));
  }
  return {
    firstUseBytes: scripts.reduce((sum, item) => sum + item.size, 0),
    firstUseFiles: scripts.map(item => path.basename(item.url.split('?')[0])),
    firstUseS3Bytes: scripts
      .filter(item => item.s3)
      .reduce((sum, item) => sum + item.size, 0),
    firstUseMs: summary(firsts),
    firstUseAgain: summary(again),
    firstUseExtraMs: summary(extras)
  };
}

/**
 * 50 clones of a 20 KB notebook in a row, and 20 at once (each under its
 * own collision-safe name), as a class's links or a script's loop.
 */
async function measureManyClones(browser) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await openLab(page, `${config.labUrl}/lab`);
  await exposeBookshelf(page);
  const key = config.smallKey;
  const run = (count, atOnce) =>
    page.evaluate(
      async ({ key, count, atOnce }) => {
        const clone = () =>
          window.bookshelf.clone({
            s3_bucket: 'examples',
            s3_key: key,
            target_path: 'bench-many/'
          });
        const start = performance.now();
        const models = [];
        if (atOnce) {
          models.push(
            ...(await Promise.all(Array.from({ length: count }, clone)))
          );
        } else {
          for (let i = 0; i < count; i++) {
            models.push(await clone());
          }
        }
        const time = performance.now() - start;
        const contents = window.jupyterapp.serviceManager.contents;
        for (const model of models) {
          await contents.delete(model.path);
        }
        return time;
      },
      { key, count, atOnce }
    );
  await run(5, false); // warm up: the S3 code is loaded
  const inRow = [];
  const atOnce = [];
  for (let round = 0; round < config.rounds; round++) {
    inRow.push(await run(50, false));
    atOnce.push(await run(20, true));
  }
  await context.close();
  return { many: { inRow: summary(inRow), atOnce: summary(atOnce) } };
}

/**
 * The variants timed for each size, in the order of the first round; each
 * round starts one further along, so that no variant always comes first
 * (after the page sat idle) or right after the same one.
 */
const TRANSFER_VARIANTS = [
  'clone',
  'floor',
  'openUrl',
  'a',
  'b',
  'publish',
  'c'
];

async function measureTransfers(browser) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await openLab(page, `${config.labUrl}/lab`);
  await exposeBookshelf(page);
  const session = await context.newCDPSession(page);
  const browserSession = await browser.newBrowserCDPSession();
  const times = {};
  for (const size of Object.keys(config.objects)) {
    times[size] = Object.fromEntries(TRANSFER_VARIANTS.map(name => [name, []]));
  }
  const load = [];
  const timers = {
    // The extension's clone, from call to the file saved.
    clone: (size, key) => timeClone(page, key, 'bench-clones/'),
    // The floor: what the page pays for these bytes without the extension:
    // a plain fetch of a presigned URL (bypassing the HTTP cache, as the
    // extension's reads do) and the contents manager's save of the text.
    floor: (size, key) =>
      page.evaluate(
        async ({ url, path }) => {
          const contents = window.jupyterapp.serviceManager.contents;
          const start = performance.now();
          const response = await fetch(url, { cache: 'no-store' });
          if (!response.ok) {
            throw new Error(`GET ${response.status}`);
          }
          const content = await response.text();
          await contents.save(path, { type: 'file', format: 'text', content });
          const time = performance.now() - start;
          await contents.delete(path);
          return time;
        },
        {
          url: config.presignedUrls[size],
          path: `bench-floor/floor-${size}.ipynb`
        }
      ),
    // JupyterLab's "Open from URL" (filebrowser:open-url) on a presigned
    // URL of the object, up to the uploaded file (not its opening, as the
    // clone is timed without opening it): see openUrl in large.js.
    openUrl: async (size, key) => {
      // Lab asks before it uploads a large file; a person clicks Upload
      // (in the timing, as for them).
      const accept =
        config.sizes[size] > LAB_LARGE_FILE_SIZE
          ? page
              .locator('.jp-Dialog .jp-mod-accept')
              .click({ timeout: 600000 })
              .catch(() => undefined)
          : null;
      const time = await page.evaluate(openFromUrl, {
        url: config.presignedUrls[size],
        name: `url-${size}.ipynb`
      });
      await accept;
      return time;
    },
    // (a) curl GET from S3, then curl PUT of the same bytes as a file.
    a: size => curlGetThenPut(size, config.files[size].fileModel, 'a'),
    // (b) the same as a notebook model: the bookstore-style server path
    // (the server reads the object from S3 and saves it as a notebook).
    b: size => curlGetThenPut(size, config.files[size].notebookModel, 'b'),
    // The extension's publish, from call to the object stored.
    publish: size =>
      page.evaluate(async source => {
        const start = performance.now();
        // A new object each time, as a first publish (a replace on moto,
        // which ignores If-Match on completing an upload in parts, is put
        // whole).
        await window.bookshelf.publish(source, {
          destination: `bench-published/${performance.now()}.ipynb`
        });
        return performance.now() - start;
      }, config.sources[size]),
    // (c) a plain fetch PUT of the same bytes to the same S3 server.
    c: size =>
      page.evaluate(
        async ({ source, url, headers }) => {
          const response = await fetch(`/files/${source}`);
          const bytes = new Uint8Array(await response.arrayBuffer());
          const start = performance.now();
          const put = await fetch(url, {
            method: 'PUT',
            body: bytes,
            headers: {
              ...headers,
              'Content-Type': 'application/x-ipynb+json'
            }
          });
          if (!put.ok) {
            throw new Error(`PUT ${put.status}`);
          }
          return performance.now() - start;
        },
        {
          source: config.sources[size],
          url: `${config.s3Url}/published/bench-baseline/${size}.ipynb`,
          headers: s3Headers()
        }
      )
  };
  // Warm up, untimed: the first clone and publish of a page load their
  // code (measured by measureFirstUse), the first fetch its connections.
  const smallest = Object.keys(config.objects)[0];
  for (const name of TRANSFER_VARIANTS) {
    await timers[name](smallest, config.objects[smallest]);
  }
  for (let round = 0; round < config.rounds; round++) {
    load.push(os.loadavg()[0]);
    const order = TRANSFER_VARIANTS.map(
      (_, i) => TRANSFER_VARIANTS[(i + round) % TRANSFER_VARIANTS.length]
    );
    for (const [size, key] of Object.entries(config.objects)) {
      for (const name of order) {
        times[size][name].push(await timers[name](size, key));
      }
    }
  }
  const largest = Object.keys(config.objects).pop();
  const cloneMemory = [];
  const publishMemory = [];
  for (let round = 0; round < config.rounds; round++) {
    cloneMemory.push(
      await peakMemory(
        page,
        session,
        browserSession,
        async key => {
          const model = await window.bookshelf.clone({
            s3_bucket: 'examples',
            s3_key: key,
            target_path: 'bench-clones/'
          });
          await window.jupyterapp.serviceManager.contents.delete(model.path);
        },
        config.objects[largest]
      )
    );
    publishMemory.push(
      await peakMemory(
        page,
        session,
        browserSession,
        async source => {
          await window.bookshelf.publish(source, {
            destination: `bench-published/${performance.now()}.ipynb`
          });
        },
        config.sources[largest]
      )
    );
  }
  await context.close();
  const memory = runs =>
    Object.fromEntries(
      Object.keys(runs[0]).map(name => [
        name,
        summary(runs.map(run => run[name]))
      ])
    );
  const transfers = {};
  for (const [size, entry] of Object.entries(times)) {
    transfers[size] = Object.fromEntries(
      Object.entries(entry).map(([name, values]) => [name, summary(values)])
    );
  }
  return {
    transfers,
    transferLoad: load,
    largest,
    cloneMemory: memory(cloneMemory),
    publishMemory: memory(publishMemory)
  };
}

/**
 * JupyterLab's "Open from URL" (`filebrowser:open-url`) in its two steps,
 * in the page: the URL fetched into a Blob, then uploaded as a file by the
 * default file browser's model into its folder (base64; in 1 MiB chunks
 * above 1 MiB), then the file deleted. Resolves to the time of the two
 * steps. The command's fetch uses the HTTP cache; `reload` makes each
 * round a first visit of the URL (to the network, the answer stored).
 */
async function openFromUrl({ url, name }) {
  const app = window.jupyterapp;
  const services = app.pluginRegistry._services;
  const token = [...services.keys()].find(
    key => key.name === '@jupyterlab/filebrowser:IDefaultFileBrowser'
  );
  const browser = await app.resolveRequiredService(token);
  if (browser.model.path !== 'bench-url') {
    await browser.model.cd('/bench-url');
  }
  const start = performance.now();
  const response = await fetch(url, { cache: 'reload' });
  if (!response.ok) {
    throw new Error(`GET ${response.status}`);
  }
  const blob = await response.blob();
  const type = response.headers.get('Content-Type') ?? '';
  const model = await browser.model.upload(new File([blob], name, { type }));
  const time = performance.now() - start;
  await app.serviceManager.contents.delete(model.path);
  return time;
}

(async () => {
  const browser = await chromium.launch(LAUNCH);
  try {
    const startup = await measureStartup(browser);
    const firstUse = await measureFirstUse(browser);
    const many = await measureManyClones(browser);
    const transfers = await measureTransfers(browser);
    console.log(
      JSON.stringify({
        browser: browser.version(),
        ...startup,
        ...firstUse,
        ...many,
        ...transfers
      })
    );
  } finally {
    await browser.close();
  }
})().catch(error => {
  console.error(error);
  process.exit(1);
});
