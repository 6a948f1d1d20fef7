/**
 * The S3 GET alone, in the page (`bench/run.py --get`): the extension's
 * `getObject` (as a clone calls it) against a plain `fetch` of a presigned
 * URL of the same object (the floor's GET) and a plain `fetch` with the
 * headers of a signed request (a preflighted GET without the SDK), and the
 * clone and the floor of measure.js around them, on the 100 KB and 1 MB
 * notebooks, interleaved, `config.getRounds` rounds (30).
 *
 * `getObject` is split at the page's `fetch`, which is wrapped to time it:
 * "before fetch" is the call to the request leaving the page's code
 * (credentials, client, middleware, signing), "to headers" the browser's
 * part up to the answer's headers (with the CORS preflight, if one is
 * sent), "after headers" the body and the checks. Preflights are counted
 * in the S3 server's log (`config.s3Log`). Prints the results as JSON.
 */
const fs = require('fs');

const {
  chromium,
  exposeBookshelf,
  LAUNCH,
  median,
  openLab,
  s3Headers
} = require('./page');

const config = JSON.parse(process.argv[2]);
const rounds = config.getRounds ?? 30;

function preflights() {
  if (!config.s3Log) {
    return 0;
  }
  return fs
    .readFileSync(config.s3Log, 'utf8')
    .split('\n')
    .filter(line => line.includes('"OPTIONS ')).length;
}

/** Wrap the page's fetch to time the requests to S3, and get a store. */
async function instrument(page) {
  await page.evaluate(async s3Url => {
    const original = window.fetch.bind(window);
    window.__s3Timings = [];
    window.fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input.url;
      if (!url.startsWith(s3Url)) {
        return original(input, init);
      }
      const entry = { sent: performance.now() };
      window.__s3Timings.push(entry);
      const response = await original(input, init);
      entry.headers = performance.now();
      return response;
    };
    // A clone first: the service loads its model and the S3 code.
    await window.bookshelf.settings;
    const backend =
      window.bookshelf._backend ?? (await window.bookshelf._loaded());
    window.__store = await backend.objectStore();
  }, config.s3Url);
}

/** A `fetch` of `url` with `headers` in the page, without the SDK, timed. */
function plainGet(page, url, headers) {
  return page.evaluate(
    async ({ url, headers }) => {
      const start = performance.now();
      const response = await fetch(url, { cache: 'no-store', headers });
      const got = performance.now();
      await response.arrayBuffer();
      const end = performance.now();
      return {
        total: end - start,
        beforeFetch: 0,
        toHeaders: got - start,
        afterHeaders: end - got,
        requests: 1
      };
    },
    { url, headers }
  );
}

const VARIANTS = {
  // The whole clone, from call to the file saved, and the floor beside it
  // (as in measure.js): what the GET's time is part of.
  clone: (page, size) =>
    page.evaluate(async key => {
      const start = performance.now();
      const model = await window.bookshelf.clone({
        s3_bucket: 'examples',
        s3_key: key,
        target_path: 'bench-clones/'
      });
      const total = performance.now() - start;
      await window.jupyterapp.serviceManager.contents.delete(model.path);
      return { total, beforeFetch: 0, toHeaders: 0, afterHeaders: 0 };
    }, config.objects[size]),
  floor: (page, size) =>
    page.evaluate(
      async ({ url, path }) => {
        const contents = window.jupyterapp.serviceManager.contents;
        const start = performance.now();
        const response = await fetch(url, { cache: 'no-store' });
        const content = await response.text();
        await contents.save(path, { type: 'file', format: 'text', content });
        const total = performance.now() - start;
        await contents.delete(path);
        return { total, beforeFetch: 0, toHeaders: 0, afterHeaders: 0 };
      },
      {
        url: config.presignedUrls[size],
        path: `bench-floor/floor-${size}.ipynb`
      }
    ),
  // The extension's getObject, as a clone calls it.
  getObject: (page, size) =>
    page.evaluate(async key => {
      window.__s3Timings.length = 0;
      const start = performance.now();
      const data = await window.__store.getObject('examples', key, {
        deferChecksum: true,
        maxBytes: 100 * 1024 * 1024,
        streamAbove: 8 * 1024 * 1024
      });
      const end = performance.now();
      data.verify?.();
      const last = window.__s3Timings[window.__s3Timings.length - 1];
      return {
        total: end - start,
        beforeFetch: last.sent - start,
        toHeaders: last.headers - last.sent,
        afterHeaders: end - last.headers,
        requests: window.__s3Timings.length
      };
    }, config.objects[size]),
  // The floor's GET: a presigned URL, no preflight.
  presigned: (page, size) => plainGet(page, config.presignedUrls[size], {}),
  // A GET with a signed request's headers (not checked by the fixture),
  // without the SDK: what the preflight costs by itself.
  signedHeaders: (page, size) =>
    plainGet(
      page,
      `${config.s3Url}/examples/${config.objects[size]}`,
      s3Headers()
    )
};

(async () => {
  const browser = await chromium.launch(LAUNCH);
  const page = await browser.newPage();
  await openLab(page, `${config.labUrl}/lab`);
  await exposeBookshelf(page);
  await instrument(page);
  const names = Object.keys(VARIANTS).filter(name =>
    (config.getVariants ?? Object.keys(VARIANTS)).includes(name)
  );
  const sizes = Object.keys(config.objects).filter(size =>
    (config.getSizes ?? ['100KB', '1MB']).includes(size)
  );
  const results = {};
  const options = {};
  for (const size of sizes) {
    results[size] = Object.fromEntries(names.map(name => [name, []]));
    options[size] = Object.fromEntries(names.map(name => [name, 0]));
  }
  // Warm up, untimed.
  for (const size of sizes) {
    for (const name of names) {
      await VARIANTS[name](page, size);
    }
  }
  for (let round = 0; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const size of sizes) {
      for (const name of order) {
        const before = preflights();
        results[size][name].push(await VARIANTS[name](page, size));
        options[size][name] += preflights() - before;
      }
    }
  }
  await browser.close();
  const summary = {};
  for (const size of sizes) {
    summary[size] = {};
    for (const name of names) {
      const runs = results[size][name];
      const part = key => Math.round(median(runs.map(r => r[key])) * 10) / 10;
      summary[size][name] = {
        total: part('total'),
        beforeFetch: part('beforeFetch'),
        toHeaders: part('toHeaders'),
        afterHeaders: part('afterHeaders'),
        preflightsPerGet: options[size][name] / rounds
      };
    }
    if (results[size].clone.length && results[size].floor.length) {
      // Within each round, where both ran side by side.
      const differences = results[size].clone.map(
        (run, i) => run.total - results[size].floor[i].total
      );
      summary[size].cloneMinusFloor = Math.round(median(differences) * 10) / 10;
    }
  }
  console.log(JSON.stringify({ rounds, summary }));
})().catch(error => {
  console.error(error);
  process.exit(1);
});
