/**
 * Part of `make bench-large`: saves in chunks from the page (8 MiB each)
 * as a person's browser makes them, with each Chromium process's memory.
 *
 * Playwright enables DevTools' network instrumentation on every page it
 * drives, and with it Chromium hands each request's body to DevTools: a
 * text body is copied into the protocol's messages (a clone saved in text
 * chunks took 26 s instead of 10 under Playwright), and a Blob body is
 * not. So here Chromium is started without Playwright and driven over the
 * DevTools protocol's Runtime domain only (Node's WebSocket: run with
 * `--experimental-websocket`), and the resident memory of each of its
 * processes is read from /proc while a variant runs.
 *
 * Variants, on the same notebook in the same run, interleaved:
 * - cloneInChunks: Bookshelf's clone where a proxy in front of the server
 *   refused the create path's one request (413): saved in chunks through
 *   the contents API while it downloads;
 * - labChunks: the same number of bytes of text saved in 8 MiB chunks by
 *   JupyterLab's contents manager (`contents.save(..., {chunk})`), which
 *   sends each save's JSON as a File;
 * - textChunks: the same saves sent by `fetch` with the JSON as text, as
 *   the clone sends them.
 * bench/run.py --large passes the configuration as JSON in argv[2]; the
 * results are printed as JSON.
 */
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { LAUNCH, median } = require('./page');

const config = JSON.parse(process.argv[2]);
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

/** The resident memory of a browser's processes (`root` and those it
 * started), by their type. */
function residentByType(root) {
  const parents = new Map();
  const pids = fs.readdirSync('/proc').filter(name => /^\d+$/.test(name));
  for (const pid of pids) {
    try {
      // The parent is the 4th field, after the name in parentheses.
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      parents.set(
        Number(pid),
        Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      );
    } catch {
      // Ended meanwhile.
    }
  }
  const ours = pid => {
    for (let at = pid; at > 1; at = parents.get(at) ?? 0) {
      if (at === root) {
        return true;
      }
    }
    return false;
  };
  const types = {};
  for (const pid of parents.keys()) {
    if (!ours(pid)) {
      continue;
    }
    let command;
    let status;
    try {
      command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch {
      continue;
    }
    const type = /--type=([a-z-]+)/.exec(command)?.[1] ?? 'browser';
    const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
    types[type] = (types[type] ?? 0) + kb * 1024;
  }
  return types;
}

/** A page of Chromium driven over the DevTools protocol's Runtime domain. */
async function connect(port) {
  let targets;
  for (let attempt = 0; !targets; attempt++) {
    try {
      targets = await (
        await fetch(`http://127.0.0.1:${port}/json/list`)
      ).json();
    } catch (error) {
      if (attempt > 100) {
        throw error;
      }
      await sleep(100);
    }
  }
  const target = targets.find(candidate => candidate.type === 'page');
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let lastId = 0;
  const waiting = new Map();
  socket.onmessage = event => {
    const message = JSON.parse(event.data);
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  };
  const send = (method, params = {}) =>
    new Promise(resolve => {
      const id = ++lastId;
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  const evaluate = async (expression, arg) => {
    const { result } = await send('Runtime.evaluate', {
      expression: `(${expression})(${JSON.stringify(arg ?? null)})`,
      awaitPromise: true,
      returnByValue: true
    });
    if (result.exceptionDetails) {
      throw new Error(
        result.exceptionDetails.exception?.description ??
          result.exceptionDetails.text
      );
    }
    return result.result.value;
  };
  return { send, evaluate, close: () => socket.close() };
}

const TASKS = {
  cloneInChunks: async ({ key }) => {
    // The page's committer (made by the clone before the runs) is told, as
    // a proxy's refusal would tell it.
    const committer = window.bookshelf._backend._committer;
    committer.createRefusedFrom = 1;
    try {
      const model = await window.bookshelf.clone({
        s3_bucket: 'examples',
        s3_key: key,
        target_path: 'bench-large-clones/'
      });
      await window.jupyterapp.serviceManager.contents.delete(model.path);
    } finally {
      committer.createRefusedFrom = undefined;
    }
  },
  labChunks: async ({ size }) => {
    const contents = window.jupyterapp.serviceManager.contents;
    const chunk = 8 * 1024 * 1024;
    const count = Math.ceil(size / chunk);
    const piece = 'x'.repeat(chunk);
    const path = 'bench-large-clones/lab-chunks.txt';
    for (let index = 1; index <= count; index++) {
      await contents.save(path, {
        type: 'file',
        format: 'text',
        content: piece,
        chunk: index === count ? -1 : index
      });
    }
    await contents.delete(path);
  },
  textChunks: async ({ size }) => {
    const settings = window.jupyterapp.serviceManager.serverSettings;
    const chunk = 8 * 1024 * 1024;
    const count = Math.ceil(size / chunk);
    const piece = 'x'.repeat(chunk);
    const path = 'bench-large-clones/text-chunks.txt';
    const xsrf = /(?:^|; )_xsrf=([^;]*)/.exec(document.cookie)?.[1];
    const headers = {
      'Content-Type': 'application/json',
      ...(settings.token ? { Authorization: `token ${settings.token}` } : {}),
      ...(xsrf ? { 'X-XSRFToken': decodeURIComponent(xsrf) } : {})
    };
    for (let index = 1; index <= count; index++) {
      const response = await fetch(`${settings.baseUrl}api/contents/${path}`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({
          type: 'file',
          format: 'text',
          content: piece,
          chunk: index === count ? -1 : index
        })
      });
      if (!response.ok) {
        throw new Error(`save ${response.status}`);
      }
    }
    await window.jupyterapp.serviceManager.contents.delete(path);
  }
};

(async () => {
  const port = config.debuggingPort;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'bookshelf-bench-'));
  const chromium = spawn(
    LAUNCH.executablePath,
    [
      '--headless=new',
      `--remote-debugging-port=${port}`,
      `--user-data-dir=${profile}`,
      ...LAUNCH.args,
      'about:blank'
    ],
    { stdio: 'ignore' }
  );
  const results = {};
  try {
    const page = await connect(port);
    await page.send('Page.enable');
    await page.send('Page.navigate', { url: `${config.labUrl}/lab` });
    for (let waited = 0; ; waited += 250) {
      const ready = await page
        .evaluate(() => !!window.jupyterapp?.started)
        .catch(() => false);
      if (ready) {
        break;
      }
      if (waited > 120000) {
        throw new Error('Lab did not start');
      }
      await sleep(250);
    }
    await page.evaluate(
      async ({ limit, key }) => {
        const app = window.jupyterapp;
        await app.restored;
        const services = app.pluginRegistry._services;
        const find = name =>
          [...services.keys()].find(key => key.name === name);
        window.bookshelf = await app.resolveRequiredService(
          find('jupyterlab-bookshelf:IBookshelf')
        );
        const registry = await app.resolveRequiredService(
          find('@jupyterlab/coreutils:ISettingRegistry')
        );
        await registry.set(
          'jupyterlab-bookshelf:core',
          'maxObjectSizeMB',
          limit
        );
        // A first clone makes the page's committer (see cloneInChunks).
        const model = await window.bookshelf.clone({
          s3_bucket: 'examples',
          s3_key: key,
          target_path: 'bench-large-clones/'
        });
        await app.serviceManager.contents.delete(model.path);
      },
      { limit: config.maxObjectSizeMB, key: config.object.key }
    );
    const names = Object.keys(TASKS);
    const runs = Object.fromEntries(names.map(name => [name, []]));
    for (let round = 0; round < config.rounds; round++) {
      // Each round starts one variant further along.
      const order = names.map(
        (_, index) => names[(index + round) % names.length]
      );
      for (const name of order) {
        if (process.env.BOOKSHELF_BENCH_VERBOSE) {
          console.error(
            new Date().toISOString(),
            'uninstrumented',
            round,
            name
          );
        }
        await page.send('HeapProfiler.collectGarbage');
        await sleep(1000);
        const before = residentByType(chromium.pid);
        const peak = { ...before, all: 0 };
        const sum = types => Object.values(types).reduce((a, b) => a + b, 0);
        const beforeAll = sum(before);
        let running = true;
        const poll = (async () => {
          while (running) {
            const now = residentByType(chromium.pid);
            for (const [type, bytes] of Object.entries(now)) {
              peak[type] = Math.max(peak[type] ?? 0, bytes);
            }
            peak.all = Math.max(peak.all, sum(now));
            await sleep(20);
          }
        })();
        const load = os.loadavg()[0];
        const start = Date.now();
        await page.evaluate(TASKS[name], {
          key: config.object.key,
          size: config.object.size
        });
        const ms = Date.now() - start;
        running = false;
        await poll;
        runs[name].push({
          ms,
          load,
          browser: peak.browser - (before.browser ?? 0),
          renderer: peak.renderer - (before.renderer ?? 0),
          all: peak.all - beforeAll
        });
      }
    }
    for (const [name, list] of Object.entries(runs)) {
      const of = field => list.map(run => run[field]);
      results[name] = {
        ms: median(of('ms')),
        msRange: [Math.min(...of('ms')), Math.max(...of('ms'))],
        browser: median(of('browser')),
        renderer: median(of('renderer')),
        all: median(of('all')),
        load: median(of('load'))
      };
    }
    page.close();
  } finally {
    chromium.kill();
    await new Promise(resolve => chromium.once('exit', resolve));
    // Chromium's other processes may still write there for a moment after
    // the browser's: removed again until they are gone, and a profile left
    // behind does not fail the run.
    try {
      fs.rmSync(profile, {
        recursive: true,
        force: true,
        maxRetries: 20,
        retryDelay: 100
      });
    } catch (error) {
      console.error(`left ${profile}: ${error.message}`);
    }
  }
  console.log(JSON.stringify({ size: config.object.size, results }));
})().catch(error => {
  console.error(error);
  process.exit(1);
});
