/**
 * Helpers of the UI tests: the S3 fixture server started by
 * scripts/serve.py (see playwright.config.js), and the IBookshelf service of
 * the page under test.
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import * as fs from 'fs';
import * as path from 'path';

/**
 * What scripts/serve.py wrote about the servers it started.
 */
export interface IFixtureInfo {
  endpoint_url: string;
  version_ids: { [name: string]: string | string[] };
  root_dir: string;
  lab_port: number;
}

export function fixture(): IFixtureInfo {
  const runDir =
    process.env.BOOKSHELF_TEST_RUN_DIR ??
    path.join(__dirname, '..', '..', '.run', 'test');
  const file = path.join(runDir, 'fixture.json');
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/**
 * The URL of an object on the S3 fixture server (path style).
 */
export function objectUrl(bucket: string, key: string): string {
  const encodedKey = key.split('/').map(encodeURIComponent).join('/');
  return `${fixture().endpoint_url}/${bucket}/${encodedKey}`;
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
  versionId?: string
): Promise<{ body: Buffer; versionId: string | null } | null> {
  const url =
    objectUrl(bucket, key) +
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
 * Write an object outside the browser (the fixture's buckets allow it).
 */
export async function putObject(
  bucket: string,
  key: string,
  body: string | Buffer,
  contentType = 'application/octet-stream'
): Promise<string | null> {
  const response = await fetch(objectUrl(bucket, key), {
    method: 'PUT',
    body,
    headers: { ...s3Headers(), 'Content-Type': contentType }
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
  page: IJupyterLabPageFixture,
  method: 'clone' | 'publish' | 'info',
  ...args: unknown[]
): Promise<T> {
  return page.evaluate(
    async ({ method, args }) => {
      const app = (window as any).jupyterapp;
      const registry = app.pluginRegistry;
      const services: Map<any, string> = registry._services;
      let token: any = null;
      for (const key of services.keys()) {
        if (key.name === 'jupyterlab-bookshelf:IBookshelf') {
          token = key;
        }
      }
      if (!token) {
        throw new Error('The IBookshelf token is not registered');
      }
      const bookshelf = await app.resolveRequiredService(token);
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
 * Names of the files of a folder of the Jupyter file tree.
 */
export async function listFolder(
  page: IJupyterLabPageFixture,
  folder: string
): Promise<string[]> {
  const model = await page.contents.getContentMetadata(folder, 'directory');
  return ((model?.content as { name: string }[]) ?? [])
    .map(item => item.name)
    .sort();
}

/**
 * A file's text from the Jupyter file tree.
 */
export async function readFile(
  page: IJupyterLabPageFixture,
  filePath: string
): Promise<string> {
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
