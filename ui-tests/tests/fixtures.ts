/**
 * A Galata `test` with one more fixture, `lab`: a JupyterLab page that the
 * tests of a worker share, for tests that only call the extension's API in
 * the page (`callBookshelf`) and read results back outside it. Loading Lab
 * costs seconds of a core per test; a person also clones many times from
 * one page. Tests that look at the page, route its requests or open
 * dialogs use Galata's own `page`, fresh for each test.
 *
 * One page per set of mocked settings (`test.use({ mockSettings })`), opened
 * at the root folder (each test's `tmpPath` goes away after it). After each
 * test the page must be as it was: no dialog open.
 */
import {
  expect,
  galata,
  IJupyterLabPageFixture,
  test as base
} from '@jupyterlab/galata';

export { expect };

export const test = base.extend<
  { lab: IJupyterLabPageFixture },
  { labs: Map<string, IJupyterLabPageFixture> }
>({
  labs: [
    async ({}, use) => {
      const labs = new Map<string, IJupyterLabPageFixture>();
      await use(labs);
      for (const lab of labs.values()) {
        await lab.context().close();
      }
    },
    { scope: 'worker' }
  ],
  lab: async (
    { labs, browser, baseURL, mockSettings, waitForApplication },
    use
  ) => {
    const id = JSON.stringify(mockSettings);
    let lab = labs.get(id);
    if (!lab || lab.isClosed()) {
      ({ page: lab } = await galata.newPage({
        autoGoto: false,
        baseURL: baseURL!,
        browser,
        mockSettings,
        waitForApplication
      }));
      // Lab at its root folder (Galata's goto opens the test's folder).
      await lab.goto();
      labs.set(id, lab);
    }
    await use(lab);
    // What a test leaves open would meet the next one.
    await expect(lab.locator('.jp-Dialog')).toHaveCount(0);
  }
});
