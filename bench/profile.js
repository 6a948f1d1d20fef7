/**
 * `python bench/run.py --profile`: where the time of a clone and a publish
 * of the largest notebook goes. Runs each once to warm up, then again under
 * the Chrome DevTools protocol's sampling profiler, and prints the
 * functions with the most self time (with their script) and the share of
 * the main thread that was idle (waiting for the network or the servers).
 * Build with `jlpm build` (development) first for readable function names.
 */
const path = require('path');

const { chromium, exposeBookshelf, openLab } = require('./page');

const config = JSON.parse(process.argv[2]);
const TOP = Number(process.env.BOOKSHELF_PROFILE_TOP || 25);

/** Self time per function of a CPU profile, largest first. */
function selfTimes(profile) {
  const byId = new Map(profile.nodes.map(node => [node.id, node]));
  const totals = new Map();
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const frame = node.callFrame;
    const script = frame.url ? path.basename(frame.url.split('?')[0]) : '';
    const name = `${frame.functionName || '(anonymous)'} ${script}${
      script ? `:${frame.lineNumber + 1}` : ''
    }`;
    totals.set(name, (totals.get(name) || 0) + (deltas[i + 1] || 0) / 1000);
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

async function profiled(session, page, task, arg) {
  await session.send('Profiler.enable');
  await session.send('Profiler.setSamplingInterval', { interval: 200 });
  await session.send('Profiler.start');
  const time = await page.evaluate(task, arg);
  const { profile } = await session.send('Profiler.stop');
  return { time, top: selfTimes(profile) };
}

function report(title, { time, top }) {
  const total = top.reduce((sum, [, ms]) => sum + ms, 0);
  console.log(`\n## ${title}: ${time.toFixed(0)} ms\n`);
  console.log('| self ms | share | function |');
  console.log('|---|---|---|');
  for (const [name, ms] of top.slice(0, TOP)) {
    console.log(
      `| ${ms.toFixed(0)} | ${((100 * ms) / total).toFixed(1)}% | ${name} |`
    );
  }
}

const clone = async key => {
  const start = performance.now();
  const model = await window.bookshelf.clone({
    s3_bucket: 'examples',
    s3_key: key,
    target_path: 'bench-clones/'
  });
  const time = performance.now() - start;
  await window.jupyterapp.serviceManager.contents.delete(model.path);
  return time;
};

const publish = async source => {
  const start = performance.now();
  await window.bookshelf.publish(source, { overwrite: true });
  return performance.now() - start;
};

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.BOOKSHELF_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run']
  });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    await openLab(page, `${config.labUrl}/lab`);
    await exposeBookshelf(page);
    const session = await context.newCDPSession(page);
    const size = process.env.BOOKSHELF_PROFILE_SIZE || '50MB';
    const key = config.objects[size];
    const source = config.sources[size];
    await page.evaluate(clone, key);
    await page.evaluate(publish, source);
    report(`clone of ${size}`, await profiled(session, page, clone, key));
    report(
      `publish of ${size}`,
      await profiled(session, page, publish, source)
    );
  } finally {
    await browser.close();
  }
})().catch(error => {
  console.error(error);
  process.exit(1);
});
