/**
 * A Galata `test` with one more fixture, `lab`: a JupyterLab page that the
 * tests of a worker share, for tests that only call the extension's API in
 * the page (`callBookshelf`) and read results back outside it. Loading Lab
 * costs seconds of a core per test; a person also clones many times from
 * one page. Tests that look at the page, route its requests or open
 * dialogs use Galata's own `page`, fresh for each test.
 *
 * One page per worker, opened again when a test's mocked settings
 * (`test.use({ mockSettings })`) differ from the last test's; at the root
 * folder (each test's `tmpPath` goes away after it). After each test the
 * page must be as it was: no dialog open.
 *
 * And `secondBrowser`: Lab at the test's folder in a browser context of
 * its own, closed after the test. Two contexts share no Web Locks, storage
 * or cache: they stand for two browsers (or two people) on one server.
 */
import {
  expect,
  galata,
  IJupyterLabPageFixture,
  test as base
} from '@jupyterlab/galata';

export { expect };

export const test = base.extend<
  { lab: IJupyterLabPageFixture; secondBrowser: IJupyterLabPageFixture },
  { labs: ISharedLab }
>({
  labs: [
    async ({}, use) => {
      const shared: ISharedLab = { page: null, settings: '' };
      await use(shared);
      await shared.page?.context().close();
    },
    { scope: 'worker' }
  ],
  lab: async (
    { labs, browser, baseURL, mockSettings, waitForApplication },
    use
  ) => {
    const settings = JSON.stringify(mockSettings);
    if (!labs.page || labs.page.isClosed() || labs.settings !== settings) {
      // One page at a time: an idle Lab still polls the server.
      await labs.page?.context().close();
      const { page } = await galata.newPage({
        autoGoto: false,
        baseURL: baseURL!,
        browser,
        mockSettings,
        waitForApplication
      });
      // Lab at its root folder (Galata's goto opens the test's folder).
      await page.goto();
      labs.page = page;
      labs.settings = settings;
    }
    await use(labs.page);
    // What a test leaves open would meet the next one.
    await expect(labs.page.locator('.jp-Dialog')).toHaveCount(0);
  },
  secondBrowser: async (
    { browser, baseURL, mockSettings, waitForApplication, tmpPath },
    use
  ) => {
    const { page } = await galata.newPage({
      baseURL: baseURL!,
      browser,
      mockSettings,
      waitForApplication,
      // Galata opens /lab/tree/<tmpPath>; an empty one is refused by Lab.
      tmpPath
    });
    await use(page);
    await page.context().close();
  }
});

/** A worker's shared page, and the settings it was opened with. */
interface ISharedLab {
  page: IJupyterLabPageFixture | null;
  settings: string;
}
