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
 *
 * Every test records the requests of its browser contexts (`networkLog`),
 * with their pages' errors, warnings and uncaught exceptions and the end of
 * the commands the tests start (`pages.startCommand`), and attaches them
 * to its results when it fails: a flaky failure in CI then shows what the
 * servers answered and whether a command failed or never ended. A trace with DOM snapshots records
 * the network too, but costs a tenth of the run's time on two cores.
 */
import {
  expect,
  galata,
  IJupyterLabPageFixture,
  test as base
} from '@jupyterlab/galata';
import type { BrowserContext } from '@playwright/test';
import * as fs from 'fs';

export { expect };

export const test = base.extend<
  {
    lab: IJupyterLabPageFixture;
    secondBrowser: IJupyterLabPageFixture;
    networkLog: NetworkLog;
  },
  { labs: ISharedLab }
>({
  networkLog: [
    async ({}, use, testInfo) => {
      const log = new NetworkLog();
      await use(log);
      log.stop();
      if (testInfo.status !== testInfo.expectedStatus) {
        // A file beside the trace, not a body the reporter would print.
        const file = testInfo.outputPath('network.txt');
        await fs.promises.writeFile(file, log.text());
        await testInfo.attach('network', {
          path: file,
          contentType: 'text/plain'
        });
      }
    },
    { auto: true }
  ],
  context: async ({ context, networkLog }, use) => {
    networkLog.watch(context, 'page');
    await use(context);
    await endRoutesQuietly(context);
  },
  labs: [
    async ({}, use) => {
      const shared: ISharedLab = { page: null, settings: '' };
      await use(shared);
      await shared.page?.context().close();
    },
    { scope: 'worker' }
  ],
  lab: async (
    { labs, browser, baseURL, mockSettings, waitForApplication, networkLog },
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
    const unwatch = networkLog.watch(labs.page.context(), 'lab');
    await use(labs.page);
    unwatch();
    // What a test leaves open would meet the next one.
    await expect(labs.page.locator('.jp-Dialog')).toHaveCount(0);
  },
  secondBrowser: async (
    { browser, baseURL, mockSettings, waitForApplication, tmpPath, networkLog },
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
    networkLog.watch(page.context(), 'second browser');
    await use(page);
    await endRoutesQuietly(page.context());
    await page.context().close();
  }
});

/**
 * Galata's routes proxy Lab's polls (sessions, kernels) through the
 * context's request API: one still running when the context closes fails
 * the test ("Request context disposed"). Let them end quietly.
 */
async function endRoutesQuietly(context: BrowserContext): Promise<void> {
  await Promise.all(
    context.pages().map(page => page.unrouteAll({ behavior: 'ignoreErrors' }))
  );
}

/** How the pages' log lines about the tests' commands begin. */
export const COMMAND_LOG_PREFIX = 'bookshelf test: command';

/** A worker's shared page, and the settings it was opened with. */
interface ISharedLab {
  page: IJupyterLabPageFixture | null;
  settings: string;
}

/**
 * The requests of a test's browser contexts, one line each: when, which
 * context, method, URL, and the answer's status (with the start of the
 * body of an error answer) or the failure. Strings only, and at most
 * `LIMIT` lines, so that recording costs next to nothing.
 */
export class NetworkLog {
  static readonly LIMIT = 5000;

  /** Start recording a context's requests; returns a function that stops. */
  watch(context: BrowserContext, label: string): () => void {
    const onRequest = (request: import('@playwright/test').Request) => {
      this._add(`${label} -> ${request.method()} ${request.url()}`);
    };
    const onResponse = (response: import('@playwright/test').Response) => {
      const request = response.request();
      const line = `${label} <- ${response.status()} ${request.method()} ${response.url()}`;
      if (response.status() < 400) {
        this._add(line);
        return;
      }
      // An error's body says why (a 404's message names the path).
      void response
        .text()
        .catch(() => '(body not available)')
        .then(body => this._add(`${line}\n      ${body.slice(0, 500)}`));
    };
    const onFailed = (request: import('@playwright/test').Request) => {
      this._add(
        `${label} xx ${request.method()} ${request.url()}: ${request.failure()?.errorText ?? 'failed'}`
      );
    };
    const onConsole = (message: import('@playwright/test').ConsoleMessage) => {
      const type = message.type();
      const text = message.text();
      if (
        type === 'error' ||
        type === 'warning' ||
        text.startsWith(COMMAND_LOG_PREFIX)
      ) {
        this._add(`${label} console.${type}: ${text.slice(0, 500)}`);
      }
    };
    const onError = (error: import('@playwright/test').WebError) => {
      this._add(`${label} uncaught: ${String(error.error()).slice(0, 500)}`);
    };
    context.on('request', onRequest);
    context.on('response', onResponse);
    context.on('requestfailed', onFailed);
    context.on('console', onConsole);
    context.on('weberror', onError);
    const unwatch = () => {
      context.off('request', onRequest);
      context.off('response', onResponse);
      context.off('requestfailed', onFailed);
      context.off('console', onConsole);
      context.off('weberror', onError);
    };
    this._unwatch.push(unwatch);
    return unwatch;
  }

  /** Stop recording every context. */
  stop(): void {
    this._unwatch.splice(0).forEach(unwatch => unwatch());
  }

  /** The lines recorded, oldest first. */
  text(): string {
    const dropped = this._dropped
      ? `(${this._dropped} earlier lines dropped)\n`
      : '';
    return dropped + this._lines.join('\n') + '\n';
  }

  private _add(line: string): void {
    const seconds = ((Date.now() - this._start) / 1000).toFixed(3);
    this._lines.push(`${seconds.padStart(8)}s ${line}`);
    if (this._lines.length > NetworkLog.LIMIT) {
      this._lines.shift();
      this._dropped++;
    }
  }

  private readonly _start = Date.now();
  private readonly _lines: string[] = [];
  private _dropped = 0;
  private readonly _unwatch: (() => void)[] = [];
}
