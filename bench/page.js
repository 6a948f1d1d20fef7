/**
 * Helpers of the bench scripts (measure.js, profile.js) for Lab's page.
 */
const { performance } = require('perf_hooks');

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

module.exports = { exposeBookshelf, openLab };
