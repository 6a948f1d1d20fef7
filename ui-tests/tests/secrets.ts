/**
 * A Galata `test` that records what the browser shows, logs and sends
 * during a test, and fails the test when a secret shows up where it must
 * not: the page (text and HTML), the console, page errors, the browser's
 * storage, and every request and response URL and header (and request
 * body). Its `network` fixture also lets a test see which keys signed the
 * S3 requests.
 *
 * The secrets are the distinctive fake values the tests use: the demo's
 * secret key (admin settings), and every `settings-`, `session-` and
 * `endpoint-` `secret-`/`token-` value of the tests and of the test
 * credentials endpoint (ui-tests/test_server/bookshelf_test_credentials.py).
 * A session token has one legitimate place: the `x-amz-security-token`
 * header of a request to the S3 service, which is how S3 receives it.
 */
import type { BrowserContext, Request } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';

import { expect, test as base } from './fixtures';
import { fixture } from './helpers';

export { expect };

/** The secrets the scan looks for. */
export const SECRET_PATTERN =
  /bookshelf-demo-secret|(?:settings|session|endpoint)-(?:secret|token)-[A-Za-z0-9-]+/g;

/** Tokens, as opposed to secret keys: they may go to S3 in one header. */
const TOKEN_PATTERN = /^(?:settings|session|endpoint)-token-/;

/**
 * One thing the browser showed, logged or sent.
 */
interface IRecord {
  where: string;
  text: string;
  /** A header that carries a session token to S3. */
  tokenHeader?: boolean;
}

/**
 * A request as a test may inspect it.
 */
export interface IRecordedRequest {
  method: string;
  url: string;
  headers: { [name: string]: string };
  /** When the browser sent it (ms since the epoch). */
  time: number;
}

/**
 * What was recorded during one test.
 */
export class SecretLog {
  readonly records: IRecord[] = [];
  readonly requests: IRecordedRequest[] = [];

  /** The requests to the S3 service. */
  s3Requests(): IRecordedRequest[] {
    const origin = new URL(fixture().endpoint_url).origin;
    return this.requests.filter(
      request =>
        new URL(request.url).origin === origin && request.method !== 'OPTIONS'
    );
  }

  /**
   * The access key ids that signed the S3 requests, in order: in the
   * `Authorization` header, or in the URL (a download signed there).
   */
  signingKeys(): string[] {
    return this.s3Requests().map(request => {
      const match = /Credential=([^/]+)\//.exec(
        request.headers['authorization'] ?? ''
      );
      const inUrl = new URL(request.url).searchParams.get('X-Amz-Credential');
      return match ? match[1] : inUrl ? inUrl.split('/')[0] : '(unsigned)';
    });
  }

  /** Where secrets showed up where they must not, as "where: secret". */
  findings(): string[] {
    const found: string[] = [];
    for (const record of this.records) {
      for (const match of record.text.matchAll(SECRET_PATTERN)) {
        const secret = match[0];
        if (record.tokenHeader && TOKEN_PATTERN.test(secret)) {
          continue;
        }
        found.push(`${record.where}: ${secret}`);
      }
    }
    return found;
  }

  /** Forget the records (after a test planted a secret on purpose). */
  clear(): void {
    this.records.length = 0;
  }

  attach(context: BrowserContext): void {
    const s3Origin = new URL(fixture().endpoint_url).origin;
    const onRequest = async (request: Request) => {
      const time = Date.now();
      const url = request.url();
      this.records.push({ where: `request URL ${url}`, text: url });
      let headers: { [name: string]: string } = {};
      try {
        headers = await request.allHeaders();
      } catch {
        headers = request.headers();
      }
      this.requests.push({ method: request.method(), url, headers, time });
      const toS3 = new URL(url).origin === s3Origin;
      for (const [name, value] of Object.entries(headers)) {
        this.records.push({
          where: `request header ${name} of ${request.method()} ${url}`,
          text: value,
          tokenHeader: toS3 && name.toLowerCase() === 'x-amz-security-token'
        });
      }
      const body = request.postDataBuffer();
      if (body) {
        this.records.push({
          where: `request body of ${request.method()} ${url}`,
          text: body.toString('utf8')
        });
      }
    };
    context.on('request', request => {
      void onRequest(request);
    });
    context.on('response', async response => {
      let headers: { [name: string]: string } = {};
      try {
        headers = await response.allHeaders();
      } catch {
        headers = response.headers();
      }
      for (const [name, value] of Object.entries(headers)) {
        this.records.push({
          where: `response header ${name} of ${response.url()}`,
          text: value
        });
      }
    });
    const watchPage = (page: import('@playwright/test').Page) => {
      page.on('console', message => {
        this.records.push({
          where: `console ${message.type()}`,
          text: `${message.text()} ${JSON.stringify(message.location())}`
        });
      });
      page.on('pageerror', error => {
        this.records.push({
          where: 'page error',
          text: `${error.message}\n${error.stack ?? ''}`
        });
      });
    };
    context.pages().forEach(watchPage);
    context.on('page', watchPage);
  }

  /** Record what the open pages show and store now. */
  async snapshot(context: BrowserContext): Promise<void> {
    for (const page of context.pages()) {
      if (page.isClosed()) {
        continue;
      }
      try {
        const shown = await page.evaluate(() => ({
          text: document.body?.innerText ?? '',
          html: document.documentElement.outerHTML,
          storage: JSON.stringify({
            local: { ...window.localStorage },
            session: { ...window.sessionStorage }
          })
        }));
        this.records.push({ where: 'page text', text: shown.text });
        this.records.push({ where: 'page HTML', text: shown.html });
        this.records.push({ where: 'browser storage', text: shown.storage });
      } catch {
        // A page that navigates away at the end: nothing to read.
      }
    }
  }
}

/**
 * The project's test (./fixtures), with the recording and the final scan.
 */
export const test = base.extend<{ network: SecretLog }>({
  network: async ({}, use) => {
    await use(new SecretLog());
  },
  context: async ({ context, network }, use) => {
    network.attach(context);
    await use(context);
    await network.snapshot(context);
    expect(network.findings(), 'secrets where they must not be').toEqual([]);
  }
});

/**
 * Scan the servers' logs of this test run (Jupyter and the S3 server) for
 * secrets: no secret in a log line.
 */
export function scanServerLogs(): string[] {
  const runDir = process.env.BOOKSHELF_TEST_RUN_DIR!;
  const found: string[] = [];
  for (const name of ['lab.log', 's3.log']) {
    const file = path.join(runDir, name);
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    for (const match of text.matchAll(SECRET_PATTERN)) {
      found.push(`${name}: ${match[0]}`);
    }
  }
  return found;
}
