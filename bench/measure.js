/**
 * The browser side of `make bench`: clone, publish and their baselines, the
 * start-up cost, the first use and the memory, measured in Debian's chromium
 * with Playwright. bench/run.py starts the servers and passes the
 * configuration as JSON in argv[2]; the results are printed as JSON.
 */
const path = require('path');
const { execFileSync } = require('child_process');
const { chromium } = require(
  path.join(__dirname, '..', 'ui-tests', 'node_modules', '@playwright', 'test')
);

const { performance } = require('perf_hooks');
const {
  exposeBookshelf,
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
    readyWith: median(withExtension),
    readyWithout: median(withoutExtension)
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

async function measureFirstUse(browser) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await openLab(page, `${config.labUrl}/lab`);
  await exposeBookshelf(page);
  const loaded = [];
  page.on('response', async response => {
    if (response.url().includes('/extensions/jupyterlab-bookshelf/')) {
      const body = await response.body().catch(() => Buffer.alloc(0));
      loaded.push({
        url: response.url(),
        size: body.length,
        // The S3 code: the SDK's chunk (it names itself in its user agent)
        // and the client module that imports it.
        s3:
          /\/bookshelf-s3\./.test(response.url()) || body.includes('aws-sdk-js')
      });
    }
  });
  const key = config.objects['100KB'];
  const first = await timeClone(page, key, 'bench-first-use/');
  const again = [];
  for (let i = 0; i < config.rounds; i++) {
    again.push(await timeClone(page, key, 'bench-first-use/'));
  }
  await context.close();
  const scripts = loaded.filter(item => /\.js(\?|$)/.test(item.url));
  return {
    firstUseBytes: scripts.reduce((sum, item) => sum + item.size, 0),
    firstUseFiles: scripts.map(item => path.basename(item.url.split('?')[0])),
    firstUseS3Bytes: scripts
      .filter(item => item.s3)
      .reduce((sum, item) => sum + item.size, 0),
    firstUseExtraMs: first - median(again)
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
  return { many: { inRow: median(inRow), atOnce: median(atOnce) } };
}

async function measureTransfers(browser) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await openLab(page, `${config.labUrl}/lab`);
  await exposeBookshelf(page);
  const session = await context.newCDPSession(page);
  const browserSession = await browser.newBrowserCDPSession();
  const times = {};
  for (const size of Object.keys(config.objects)) {
    times[size] = { clone: [], a: [], b: [], publish: [], c: [] };
  }
  for (let round = 0; round < config.rounds; round++) {
    for (const [size, key] of Object.entries(config.objects)) {
      const entry = times[size];
      // (a) curl GET from S3, then curl PUT of the same bytes as a file.
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
        `${config.s3Url}/examples/${key}`
      ]);
      curl([
        '-X',
        'PUT',
        '-H',
        'Content-Type: application/json',
        '--data-binary',
        `@${config.files[size].fileModel}`,
        `${config.labUrl}/api/contents/bench-baseline/a-${size}.ipynb`
      ]);
      entry.a.push(performance.now() - start);
      // (b) the same bytes PUT as a notebook model.
      entry.b.push(
        curl([
          '-X',
          'PUT',
          '-H',
          'Content-Type: application/json',
          '--data-binary',
          `@${config.files[size].notebookModel}`,
          `${config.labUrl}/api/contents/bench-baseline/b-${size}.ipynb`
        ])
      );
      // The extension's clone, from call to the file saved.
      entry.clone.push(await timeClone(page, key, 'bench-clones/'));
      // The extension's publish, from call to the object stored.
      entry.publish.push(
        await page.evaluate(async source => {
          const start = performance.now();
          // A new object each time, as a first publish (a replace on moto,
          // which ignores If-Match on completing an upload in parts, is put
          // whole).
          await window.bookshelf.publish(source, {
            destination: `bench-published/${performance.now()}.ipynb`
          });
          return performance.now() - start;
        }, config.sources[size])
      );
      // (c) a plain fetch PUT of the same bytes to the same S3 server.
      entry.c.push(
        await page.evaluate(
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
      );
    }
  }
  const largest = Object.keys(config.objects).pop();
  const cloneMemory = await peakMemory(
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
  );
  const publishMemory = await peakMemory(
    page,
    session,
    browserSession,
    async source => {
      await window.bookshelf.publish(source, {
        destination: `bench-published/${performance.now()}.ipynb`
      });
    },
    config.sources[largest]
  );
  await context.close();
  const medians = {};
  for (const [size, entry] of Object.entries(times)) {
    medians[size] = Object.fromEntries(
      Object.entries(entry).map(([name, values]) => [name, median(values)])
    );
  }
  return { medians, largest, cloneMemory, publishMemory };
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
