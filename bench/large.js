/**
 * The browser side of `make bench-large`: large notebooks (200 MB and 1 GB
 * by default) cloned and published by the extension, beside what a person
 * would use instead from the same page, each timed and with the page's
 * memory watched: JupyterLab's "Open from URL" done in its two steps (fetch
 * the URL into a Blob, upload it through the file browser's model, which
 * saves large files in chunks) on a presigned URL of the same object, and a
 * plain `fetch` PUT of the saved file to S3. bench/run.py --large starts the
 * servers and passes the configuration as JSON in argv[2]; the results are
 * printed as JSON. BOOKSHELF_BENCH_ONLY (names of TASKS, comma-separated)
 * runs some variants only; BOOKSHELF_BENCH_VERBOSE=1 says which one runs
 * and passes on the page's console.
 */
const os = require('os');

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

/** Allow the largest object to be cloned, in this page's settings. */
async function allowSize(page, megabytes) {
  await page.evaluate(async limit => {
    const app = window.jupyterapp;
    const services = app.pluginRegistry._services;
    const token = [...services.keys()].find(
      key => key.name === '@jupyterlab/coreutils:ISettingRegistry'
    );
    const registry = await app.resolveRequiredService(token);
    await registry.set('jupyterlab-bookshelf:core', 'maxObjectSizeMB', limit);
  }, megabytes);
}

/** Run `task` in the page, with its time and the memory it took. */
async function measure(page, session, browserSession, task, arg) {
  const load = os.loadavg()[0];
  const start = Date.now();
  const memory = await peakMemory(page, session, browserSession, task, arg);
  if (process.env.BOOKSHELF_BENCH_VERBOSE) {
    const mib = bytes => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
    console.error(
      'peak above the start:',
      Object.entries(memory)
        .map(([name, bytes]) => `${name} ${mib(bytes)}`)
        .join(', ')
    );
  }
  return { ms: Date.now() - start, memory, load };
}

const TASKS = {
  clone: async ({ key }) => {
    const model = await window.bookshelf.clone({
      s3_bucket: 'examples',
      s3_key: key,
      target_path: 'bench-large-clones/'
    });
    await window.jupyterapp.serviceManager.contents.delete(model.path);
  },
  openUrl: async ({ url, name }) => {
    // JupyterLab's filebrowser:open-url, but for opening the document: the
    // URL fetched into a Blob, then uploaded as a file by the file
    // browser's model (in 1 MiB chunks above 15 MB).
    const app = window.jupyterapp;
    const services = app.pluginRegistry._services;
    const token = [...services.keys()].find(
      key => key.name === '@jupyterlab/filebrowser:IDefaultFileBrowser'
    );
    const browser = await app.resolveRequiredService(token);
    await browser.model.cd('/bench-large-url');
    const response = await fetch(url);
    if (!response.ok) {
      throw new Error(`GET ${response.status}`);
    }
    const blob = await response.blob();
    const model = await browser.model.upload(
      new File([blob], name, { type: blob.type })
    );
    await app.serviceManager.contents.delete(model.path);
  },
  publish: async ({ source, destination }) => {
    await window.bookshelf.publish(source, { destination });
  },
  fetchPut: async ({ source, putUrl, headers }) => {
    // The saved file as a Blob, PUT as it is: the floor of a publish.
    const file = await (await fetch(`/files/${source}`)).blob();
    const put = await fetch(putUrl, {
      method: 'PUT',
      body: file,
      headers: { ...headers, 'Content-Type': 'application/x-ipynb+json' }
    });
    if (!put.ok) {
      throw new Error(`PUT ${put.status}`);
    }
  }
};

/**
 * A publish cancelled once half of it is stored (as Cancel in its
 * notification does): how long the publish took to end after the Cancel,
 * and where; bench/run.py then asks S3 whether anything was left behind.
 */
async function cancelHalfway({ source, destination }) {
  const controller = new AbortController();
  let abortedAt = null;
  let loadedAtAbort = 0;
  const start = performance.now();
  try {
    await window.bookshelf.publish(source, {
      destination,
      signal: controller.signal,
      onProgress: ({ loaded, total }) => {
        if (abortedAt === null && total && loaded >= total / 2) {
          abortedAt = performance.now();
          loadedAtAbort = loaded;
          controller.abort();
        }
      }
    });
    return { destination, error: 'published, not cancelled' };
  } catch (error) {
    const end = performance.now();
    return {
      destination,
      code: error.code ?? String(error),
      loadedAtAbort,
      msToAbort: abortedAt === null ? null : abortedAt - start,
      msAfterAbort: abortedAt === null ? null : end - abortedAt
    };
  }
}

(async () => {
  const browser = await chromium.launch(LAUNCH);
  const results = {};
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('crash', () => console.error('the page crashed'));
    page.on(
      'console',
      message =>
        process.env.BOOKSHELF_BENCH_VERBOSE && console.error(message.text())
    );
    await openLab(page, `${config.labUrl}/lab`);
    await exposeBookshelf(page);
    await allowSize(page, config.maxObjectSizeMB);
    const session = await context.newCDPSession(page);
    const browserSession = await browser.newBrowserCDPSession();
    for (const [label, object] of Object.entries(config.large)) {
      const runs = {};
      for (let round = 0; round < config.rounds; round++) {
        const args = {
          clone: { key: object.key },
          openUrl: { url: object.presignedUrl, name: `${label}.ipynb` },
          publish: {
            source: object.source,
            destination: `bench-large/${label}-${Date.now()}.ipynb`
          },
          fetchPut: {
            source: object.source,
            putUrl: object.putUrl,
            headers: s3Headers()
          }
        };
        for (const [name, task] of Object.entries(TASKS)) {
          if (
            process.env.BOOKSHELF_BENCH_ONLY &&
            !process.env.BOOKSHELF_BENCH_ONLY.split(',').includes(name)
          ) {
            continue;
          }
          if (process.env.BOOKSHELF_BENCH_VERBOSE) {
            console.error(new Date().toISOString(), label, round, name);
          }
          // Lab asks before it uploads a file above 15 MiB; a person clicks
          // Upload (in the timing, as for them).
          const accept =
            name === 'openUrl' && object.size > LAB_LARGE_FILE_SIZE
              ? page
                  .locator('.jp-Dialog .jp-mod-accept')
                  .click({ timeout: 600000 })
                  .catch(() => undefined)
              : null;
          (runs[name] ??= []).push(
            await measure(page, session, browserSession, task, args[name])
          );
          await accept;
        }
      }
      const cancelled =
        !process.env.BOOKSHELF_BENCH_ONLY ||
        process.env.BOOKSHELF_BENCH_ONLY.split(',').includes('cancel')
          ? await page.evaluate(cancelHalfway, {
              source: object.source,
              destination: `bench-large/${label}-cancelled-${Date.now()}.ipynb`
            })
          : undefined;
      results[label] = {
        size: object.size,
        cancelled,
        ...Object.fromEntries(
          Object.entries(runs).map(([name, list]) => [
            name,
            {
              ms: median(list.map(run => run.ms)),
              msRange: [
                Math.min(...list.map(run => run.ms)),
                Math.max(...list.map(run => run.ms))
              ],
              buffers: median(list.map(run => run.memory.buffers)),
              rss: median(list.map(run => run.memory.rss)),
              browserRss: median(list.map(run => run.memory.browserRss)),
              load: median(list.map(run => run.load))
            }
          ])
        )
      };
    }
    await context.close();
    console.log(JSON.stringify({ browser: browser.version(), results }));
  } finally {
    await browser.close();
  }
})().catch(error => {
  console.error(error);
  process.exit(1);
});
