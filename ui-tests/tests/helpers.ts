/**
 * Helpers of the UI tests: the S3 fixture server started by
 * scripts/serve.py (see playwright.config.js), and the IBookshelf service of
 * the page under test.
 */
import {
  expect,
  galata,
  IJupyterLabPageFixture,
  test
} from '@jupyterlab/galata';
import type { Page } from '@playwright/test';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { toast } from './pages';

/**
 * What scripts/serve.py wrote about the servers it started.
 */
export interface IFixtureInfo {
  endpoint_url: string;
  /** The fault-injecting proxy in front of the S3 server. */
  proxy_url: string | null;
  /** The signature-verifying s3rver (scripts/s3rver_fixture.py) and its keys. */
  s3rver: {
    endpoint_url: string;
    access_key_id: string;
    secret_access_key: string;
  } | null;
  version_ids: { [name: string]: string | string[] };
  root_dir: string;
  lab_port: number;
  /** The port of the nginx that tests start in front of Lab (nginx.ts). */
  nginx_port: number;
  nginx_tls_port: number;
  /** The JupyterLite site of scripts/lite_fixture.py. */
  lite_url: string | null;
  /** The JupyterHub of scripts/hub_fixture.py: its URL, users and their homes. */
  hub: {
    url: string;
    users: string[];
    password: string;
    homes: { [user: string]: string };
  } | null;
}

export function fixture(): IFixtureInfo {
  return JSON.parse(
    fs.readFileSync(path.join(runDir(), 'fixture.json'), 'utf8')
  );
}

/**
 * A part of the test set-up that scripts/serve.py may not have started
 * (`name` in fixture.json); `started` says how it is started.
 */
export function startedPart<K extends 'hub' | 's3rver'>(
  name: K,
  started: string
): NonNullable<IFixtureInfo[K]> {
  const info = fixture()[name];
  if (!info) {
    throw new Error(`scripts/serve.py started no ${started}`);
  }
  return info as NonNullable<IFixtureInfo[K]>;
}

/**
 * `test.use` options for a browser of a spec file's own: the project's
 * launch options with `args` added (and another `executablePath`, if
 * given). Launch options are the worker's: such a file gets a worker, and
 * a browser, of its own.
 */
export function ownBrowser(args: string[], executablePath?: string): any {
  return {
    launchOptions: [
      async ({ launchOptions }: any, use: any) =>
        use({
          ...launchOptions,
          ...(executablePath ? { executablePath } : {}),
          args: [...(launchOptions.args ?? []), ...args]
        }),
      { scope: 'worker' }
    ]
  };
}

/**
 * The servers' state folder (playwright.config.js sets it).
 */
export function runDir(): string {
  return (
    process.env.BOOKSHELF_TEST_RUN_DIR ??
    path.join(__dirname, '..', '..', '.run', 'test')
  );
}

/**
 * The names `count` clones of `stem` + `extension` into one folder get
 * (`q3.ipynb`, `q3-1.ipynb`, …), sorted as a listing is.
 */
export function cloneNames(
  stem: string,
  extension: string,
  count: number
): string[] {
  return Array.from({ length: count }, (_, n) =>
    n === 0 ? `${stem}${extension}` : `${stem}-${n}${extension}`
  ).sort();
}

/**
 * `size` bytes that look random (a linear congruential generator from
 * `seed`) and are the same in every run: no compression or pattern helps
 * a transfer of them.
 */
export function pseudoRandomBytes(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0, x = seed; i < size; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    bytes[i] = x >>> 16;
  }
  return bytes;
}

/**
 * The URL of an object on the S3 fixture server (path style), or on
 * another S3 server at `endpoint`.
 */
export function objectUrl(
  bucket: string,
  key: string,
  endpoint = fixture().endpoint_url
): string {
  const encodedKey = key.split('/').map(encodeURIComponent).join('/');
  return `${endpoint}/${bucket}/${encodedKey}`;
}

/**
 * Headers that make a request to the fixture server a signed one. moto does
 * not check signatures, so a well-formed Authorization header with the demo
 * key is enough; the fixture's objects refuse unsigned reads, as private
 * objects do.
 */
export function s3Headers(): { [name: string]: string } {
  const date = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  return {
    Authorization:
      `AWS4-HMAC-SHA256 Credential=bookshelf-demo/${date.slice(0, 8)}/us-east-1/s3/aws4_request, ` +
      'SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=' +
      '0'.repeat(64),
    'x-amz-date': date,
    'x-amz-content-sha256': 'UNSIGNED-PAYLOAD'
  };
}

/**
 * Read an object outside the browser; null when it does not exist.
 */
export async function getObject(
  bucket: string,
  key: string,
  versionId?: string,
  endpoint?: string
): Promise<{ body: Buffer; versionId: string | null } | null> {
  const url =
    objectUrl(bucket, key, endpoint) +
    (versionId ? `?versionId=${encodeURIComponent(versionId)}` : '');
  const response = await fetch(url, { headers: s3Headers() });
  if (response.status === 404) {
    return null;
  }
  if (!response.ok) {
    throw new Error(`GET ${url}: ${response.status}`);
  }
  return {
    body: Buffer.from(await response.arrayBuffer()),
    versionId: response.headers.get('x-amz-version-id')
  };
}

/**
 * An object's ETag and version outside the browser; null when it does not
 * exist.
 */
export async function headObject(
  bucket: string,
  key: string
): Promise<{ etag: string; versionId: string | null } | null> {
  const response = await fetch(objectUrl(bucket, key), {
    method: 'HEAD',
    headers: s3Headers()
  });
  if (response.status === 404) {
    return null;
  }
  if (!response.ok) {
    throw new Error(`HEAD ${bucket}/${key}: ${response.status}`);
  }
  return {
    etag: response.headers.get('ETag') ?? '',
    versionId: response.headers.get('x-amz-version-id')
  };
}

/**
 * The keys of a bucket's multipart uploads that were neither completed nor
 * aborted (their parts are stored, and billed, until then).
 */
export async function openUploads(bucket: string): Promise<string[]> {
  const url = `${fixture().endpoint_url}/${bucket}?uploads`;
  const response = await fetch(url, { headers: s3Headers() });
  if (!response.ok) {
    throw new Error(`GET ${url}: ${response.status}`);
  }
  const xml = await response.text();
  return [...xml.matchAll(/<Upload>[\s\S]*?<Key>([^<]*)<\/Key>/g)].map(
    match => match[1]
  );
}

/**
 * Write a file below the Jupyter root on disk, as another program would
 * (a large one is faster so than through the contents API).
 */
export function writeOnDisk(relativePath: string, data: string | Buffer): void {
  fs.writeFileSync(path.join(fixture().root_dir, relativePath), data);
}

/**
 * Save `relativePath` again with `data` (as another program would) once
 * the server's check of a publish has read it, and hold the browser's
 * range reads of saved files until then: the bytes the browser uploads are
 * not those the server checked. Resolves to the function that ends it.
 */
export async function saveAgainAfterServerCheck(
  page: IJupyterLabPageFixture,
  relativePath: string,
  data: Buffer
): Promise<() => Promise<void>> {
  let checked!: () => void;
  const afterCheck = new Promise<void>(resolve => (checked = resolve));
  const check = /api\/bookshelf\/check/;
  const files = /\/files\//;
  await page.route(check, async route => {
    const response = await route.fetch();
    writeOnDisk(relativePath, data);
    checked();
    await route.fulfill({ response });
  });
  await page.route(files, async route => {
    if (route.request().headers()['range']) {
      await afterCheck;
    }
    await route.fallback();
  });
  return async () => {
    await page.unroute(check);
    await page.unroute(files);
  };
}

/**
 * Write an object outside the browser (the fixture's buckets allow it).
 */
export async function putObject(
  bucket: string,
  key: string,
  body: string | Buffer,
  contentType = 'application/octet-stream',
  endpoint?: string,
  headers: { [name: string]: string } = {}
): Promise<string | null> {
  const response = await fetch(objectUrl(bucket, key, endpoint), {
    method: 'PUT',
    body,
    headers: { ...s3Headers(), 'Content-Type': contentType, ...headers }
  });
  if (!response.ok) {
    throw new Error(`PUT ${bucket}/${key}: ${response.status}`);
  }
  return response.headers.get('x-amz-version-id');
}

/**
 * Call a method of the page's IBookshelf service. Galata's test server
 * exposes the app as window.jupyterapp; the service is found by its token's
 * name.
 */
export async function callBookshelf<T>(
  page: Page,
  method: 'clone' | 'publish' | 'info',
  ...args: unknown[]
): Promise<T> {
  await exposeBookshelf(page);
  return page.evaluate(
    async ({ method, args }) => {
      const bookshelf = (window as any).bookshelfUnderTest;
      try {
        return await bookshelf[method](...args);
      } catch (error: any) {
        // Errors cross to the test as plain objects.
        throw new Error(
          JSON.stringify({ code: error.code, message: error.message })
        );
      }
    },
    { method, args }
  );
}

/**
 * `IBookshelf.clone` of `request`, with the progress it reported.
 */
export async function cloneRecordingProgress(
  page: IJupyterLabPageFixture,
  request: object
): Promise<{ model: any; steps: any[] }> {
  await exposeBookshelf(page);
  return page.evaluate(async request => {
    const steps: any[] = [];
    const model = await (window as any).bookshelfUnderTest.clone(request, {
      onProgress: (step: any) => steps.push(step)
    });
    return { model, steps };
  }, request);
}

/**
 * The page's IBookshelf service as `window.bookshelfUnderTest`.
 */
async function exposeBookshelf(page: Page): Promise<void> {
  await page.evaluate(async () => {
    if ((window as any).bookshelfUnderTest) {
      return;
    }
    const app = (window as any).jupyterapp;
    const services: Map<any, string> = app.pluginRegistry._services;
    const token = [...services.keys()].find(
      key => key.name === 'jupyterlab-bookshelf:IBookshelf'
    );
    if (!token) {
      throw new Error('The IBookshelf token is not registered');
    }
    (window as any).bookshelfUnderTest =
      await app.resolveRequiredService(token);
  });
}

/**
 * Names of the files of a folder of the Jupyter file tree, with the
 * temporary files on disk that listings leave out (a test that expects a
 * folder's names must see one left behind).
 */
export async function listFolder(
  page: IJupyterLabPageFixture,
  folder: string
): Promise<string[]> {
  const model = await page.contents.getContentMetadata(folder, 'directory');
  const listed = ((model?.content as { name: string }[]) ?? []).map(
    item => item.name
  );
  const temporary = namesOnDisk(folder).filter(name =>
    name.endsWith('.bookshelf-partial')
  );
  return [...listed, ...temporary].sort();
}

/**
 * A file's text from the Jupyter file tree.
 */
export async function readFile(page: Page, filePath: string): Promise<string> {
  return page.evaluate(async p => {
    const app = (window as any).jupyterapp;
    const model = await app.serviceManager.contents.get(p, {
      type: 'file',
      format: 'text',
      content: true
    });
    return model.content as string;
  }, filePath);
}

/**
 * The keys of a bucket, listed outside the browser (moto does not apply
 * bucket policies to listings, so this works on the denied bucket too).
 */
export async function listKeys(bucket: string): Promise<string[]> {
  const response = await fetch(
    `${fixture().endpoint_url}/${bucket}?list-type=2`,
    { headers: s3Headers() }
  );
  if (!response.ok) {
    throw new Error(`LIST ${bucket}: ${response.status}`);
  }
  const xml = await response.text();
  return [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map(match => match[1]);
}

/**
 * A port on 127.0.0.1 where nothing listens (just freed by the system).
 */
export async function closedPort(): Promise<number> {
  const net = await import('net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Galata's settings plus user settings for the Bookshelf core plugin (on
 * top of the administrator's overrides of scripts/serve.py).
 */
export function coreSettings(settings: object): { [id: string]: unknown } {
  return {
    ...galata.DEFAULT_SETTINGS,
    'jupyterlab-bookshelf:core': settings
  };
}

/**
 * The text of an nbformat 4.5 notebook with these cells and a Python
 * kernelspec, as Jupyter writes one (one-space indent, a final newline).
 */
export function notebookText(cells: object[] = []): string {
  const notebook = {
    cells,
    metadata: {
      kernelspec: {
        display_name: 'Python 3',
        language: 'python',
        name: 'python3'
      }
    },
    nbformat: 4,
    nbformat_minor: 5
  };
  return JSON.stringify(notebook, null, 1) + '\n';
}

/**
 * A notebook of `size` bytes whose text outputs hold most of it, with
 * non-ASCII text, as people's large notebooks are.
 */
export function largeNotebook(size: number, marker: string): Buffer {
  const line = `${marker} é ✓ ${'x'.repeat(60)}\n`;
  const empty = Buffer.byteLength(notebookText([]));
  const count = Math.floor(
    (size - empty - 400) / (Buffer.byteLength(line) + 3)
  );
  const text = notebookText([
    {
      cell_type: 'code',
      execution_count: 1,
      id: 'big',
      metadata: {},
      outputs: [
        {
          name: 'stdout',
          output_type: 'stream',
          text: new Array(count).fill(line)
        }
      ],
      source: ['print(data)']
    }
  ]);
  return Buffer.from(text);
}

/**
 * A notebook with one markdown cell: a title and `size` bytes of text.
 */
export function titledNotebook(title: string, size = 100 * 1024): string {
  return notebookText([
    {
      cell_type: 'markdown',
      id: 'title',
      metadata: {},
      source: [`# ${title}\n`, 'x'.repeat(size)]
    }
  ]);
}

/**
 * The MD5 of some bytes, in hex: compares files and objects.
 */
export function md5(data: string | Buffer): string {
  return createHash('md5').update(data).digest('hex');
}

/**
 * A string unique to this call, for S3 keys and file names.
 */
export function uid(): string {
  return `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * The versions of an object, newest first (outside the browser).
 */
export async function listVersions(
  bucket: string,
  key: string
): Promise<string[]> {
  const url = `${fixture().endpoint_url}/${bucket}?versions&prefix=${encodeURIComponent(key)}`;
  const response = await fetch(url, { headers: s3Headers() });
  if (!response.ok) {
    throw new Error(`GET ${url}: ${response.status}`);
  }
  const xml = await response.text();
  const ids: string[] = [];
  for (const match of xml.matchAll(
    /<Version>[\s\S]*?<Key>([^<]*)<\/Key>[\s\S]*?<VersionId>([^<]*)<\/VersionId>[\s\S]*?<\/Version>/g
  )) {
    if (unescapeXml(match[1]) === key) {
      ids.push(match[2]);
    }
  }
  return ids;
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/**
 * The outcome of a call of the page's IBookshelf service: its value, or
 * its error's code and message. Calls made together run concurrently in
 * the page.
 */
export async function settleBookshelf(
  page: IJupyterLabPageFixture,
  method: 'clone' | 'publish' | 'info',
  ...args: unknown[]
): Promise<{ ok: boolean; value?: any; code?: string; message?: string }> {
  try {
    return { ok: true, value: await callBookshelf(page, method, ...args) };
  } catch (error) {
    const text = (error as Error).message;
    const { code, message } = JSON.parse(
      text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)
    );
    return { ok: false, code, message };
  }
}

/**
 * Call a method of the page's IBookshelf service that must fail; resolves
 * to the error's code and message.
 */
export async function bookshelfError(
  page: IJupyterLabPageFixture,
  method: 'clone' | 'publish' | 'info',
  ...args: unknown[]
): Promise<{ code: string; message: string }> {
  const result = await settleBookshelf(page, method, ...args);
  if (result.ok) {
    throw new Error(`The ${method} succeeded`);
  }
  return { code: result.code!, message: result.message! };
}

/**
 * The fault-injecting proxy the tests start in front of the S3 server
 * (scripts/fault_proxy.py, port BOOKSHELF_TEST_PROXY_PORT).
 */
export function proxyUrl(): string {
  return `http://127.0.0.1:${process.env.BOOKSHELF_TEST_PROXY_PORT}`;
}

/**
 * A rule of the fault proxy: which requests, and what to do to them.
 */
export interface IFaultRule {
  method?: string;
  /** Prefix of the URL-decoded path, e.g. `/examples/faults/`. */
  path?: string;
  query?: string;
  skip?: number;
  /** How many requests to break; 0 for every one. Default 1. */
  times?: number;
  fault: {
    type:
      | 'status'
      | 'delay'
      | 'drop'
      | 'truncate'
      | 'corrupt'
      | 'throttle'
      | 'headers';
    where?: 'request' | 'response';
    [option: string]: unknown;
  };
}

/**
 * One request as the proxy saw it.
 */
export interface IProxyLogEntry {
  n: number;
  method: string;
  path: string;
  query: string;
  rule: number | null;
  fault: string | null;
  status: number | null;
  outcome: string;
  headers: { [name: string]: string };
}

async function control(
  method: string,
  route: string,
  body?: unknown,
  proxy = proxyUrl()
): Promise<any> {
  const response = await fetch(`${proxy}/__fault_proxy__/${route}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' }
  });
  if (!response.ok) {
    throw new Error(
      `${method} ${route} on the fault proxy: ${response.status} ${await response.text()}`
    );
  }
  return response.json();
}

/**
 * Add a fault rule; resolves to its id.
 */
export async function addFault(
  rule: IFaultRule,
  proxy?: string
): Promise<number> {
  return (await control('POST', 'rules', rule, proxy)).id;
}

/**
 * The fault rules, with how many matching requests reached the proxy
 * (`seen`) and how many of them were broken (`applied`).
 */
export async function faultRules(
  proxy?: string
): Promise<(IFaultRule & { id: number; seen: number; applied: number })[]> {
  return (await control('GET', 'rules', undefined, proxy)).rules;
}

/**
 * Fail unless every fault rule broke at least one request: a fault test
 * passes only when its request really reached the proxy, so an answer from
 * the browser's cache can never pass as a survived fault.
 */
export async function expectFaultsApplied(proxy?: string): Promise<void> {
  const unused = (await faultRules(proxy)).filter(rule => rule.applied === 0);
  expect(
    unused.map(rule => `${rule.method ?? '*'} ${rule.path ?? '/'}`),
    'fault rules that no request reached'
  ).toEqual([]);
}

/**
 * Remove every fault rule and forget the log.
 */
export async function clearFaults(proxy?: string): Promise<void> {
  await control('DELETE', 'rules', undefined, proxy);
  await control('DELETE', 'log', undefined, proxy);
}

/**
 * The requests the proxy saw (all, or those whose path starts with `path`).
 */
export async function proxyLog(
  path?: string,
  proxy?: string
): Promise<IProxyLogEntry[]> {
  const entries: IProxyLogEntry[] = (
    await control('GET', 'log', undefined, proxy)
  ).log;
  return path ? entries.filter(entry => entry.path.startsWith(path)) : entries;
}

/**
 * Every file below the Jupyter root on disk whose name matches, as paths
 * relative to the root: e.g. the clone's temporary files. The folders of
 * the tests running beside this one are left out.
 */
export function filesOnDisk(pattern: RegExp): string[] {
  const root = fixture().root_dir;
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (folder === root && isOtherTestsFolder(entry.name)) {
          continue;
        }
        walk(full);
      } else if (pattern.test(entry.name)) {
        found.push(path.relative(root, full));
      }
    }
  };
  walk(root);
  return found.sort();
}

/**
 * The folders of the tests that run beside this one: Galata gives each test
 * a folder at the root named after its file and title (tmpPath, the
 * basename of the test's output folder). Their files are theirs.
 */
function isOtherTestsFolder(name: string): boolean {
  let own = '';
  try {
    own = path.basename(test.info().outputDir);
  } catch {
    // Outside a test (a hook of the file): every test folder is another's.
  }
  return name.startsWith('tests-') && name !== own;
}

/**
 * The names of the files of a folder on disk, below the Jupyter root.
 */
export function namesOnDisk(folder: string): string[] {
  const full = path.join(fixture().root_dir, folder);
  return fs.existsSync(full) ? fs.readdirSync(full).sort() : [];
}

/**
 * The names in a folder on disk but Jupyter's checkpoint folder (made when
 * a notebook is opened).
 */
export function filesInFolder(folder: string): string[] {
  return namesOnDisk(folder).filter(name => name !== '.ipynb_checkpoints');
}

/**
 * Settings for `test.use({ mockSettings })`: Galata's defaults, with these
 * Bookshelf settings on top of the administrator's.
 */
export function bookshelfSettings(settings: object): any {
  return {
    ...galata.DEFAULT_SETTINGS,
    'jupyterlab-bookshelf:core': settings
  };
}

/**
 * Wait for a notification whose whole message contains `text`, and for its
 * toast. Lab shortens a long message in the toast, and the test folder's
 * name (in many messages) is as long as the test's title, so the text is
 * looked for in the notification itself.
 */
export async function expectNotification(
  page: IJupyterLabPageFixture,
  text: string,
  timeout = 30000
): Promise<void> {
  const find = async () =>
    (await page.notifications).find(item => item.message.includes(text));
  await expect
    .poll(async () => (await find())?.message, { timeout })
    .toContain(text);
  const { message } = (await find())!;
  await expect(toast(page, message.slice(0, 60))).toBeVisible();
}

/**
 * Check on disk that the file at `relative` (below the server's root)
 * holds exactly the bytes of the object on S3.
 */
export async function expectFileIsObject(
  bucket: string,
  key: string,
  relative: string
): Promise<void> {
  const stored = await getObject(bucket, key);
  expect(fs.readFileSync(path.join(fixture().root_dir, relative))).toEqual(
    stored!.body
  );
}

/**
 * Answer the create path as a server without it (an older server
 * extension) does: 404, with Jupyter's page, not a Bookshelf error.
 */
export async function withoutCreatePath(
  page: IJupyterLabPageFixture
): Promise<void> {
  await page.route('**/api/bookshelf/create*', route =>
    route.fulfill({ status: 404, body: '<html>404: Not Found</html>' })
  );
}
