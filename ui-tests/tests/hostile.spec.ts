/**
 * Hostile input in the browser, against the real shim, Lab and S3 server:
 * link parameters (the shim's /bookshelf/clone page and the in-app link),
 * the dialog's fields, the API, objects' contents, publish destinations.
 *
 * Each case checks: a clear error naming the problem (or, for legal input,
 * the right result); nothing written outside the test's folder; no script
 * run from any value (a canary that injected script would set, and no
 * JavaScript dialog); the page or dialog still usable. Cases are batched
 * in few pages to keep the run short; jest runs the same kinds of cases,
 * and more, on the core (src/__tests__/hostile.spec.ts).
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import type { Page } from '@playwright/test';

import {
  bookshelfError,
  bookshelfSettings,
  callBookshelf,
  filesOnDisk,
  getObject,
  listFolder,
  notebookText,
  putObject,
  readFile
} from './helpers';
import { expect, test } from './fixtures';
import { cloneDialog, toast } from './pages';

/** What injected script would do; the tests check it never happens. */
const CANARY = 'window.__bookshelfCanary';
const XSS = `<img src=x onerror="${CANARY}=1">`;
const SCRIPT = `<script>${CANARY}=2</script>`;
const SVG = `<svg onload="${CANARY}=3">`;

async function canary(page: IJupyterLabPageFixture): Promise<unknown> {
  return page.evaluate(() => (window as any).__bookshelfCanary);
}

/**
 * Fail the test on any alert(), confirm() or prompt() a payload may open.
 */
function watchDialogs(page: Page): string[] {
  const opened: string[] = [];
  page.on('dialog', dialog => {
    opened.push(dialog.message());
    void dialog.dismiss();
  });
  return opened;
}

/**
 * Every file on disk below the Jupyter root, to compare before and after.
 */
function allFiles(): string[] {
  return filesOnDisk(/./);
}

/**
 * Files that appeared outside `folder` since `before`.
 */
function writtenOutside(before: string[], folder: string): string[] {
  const known = new Set(before);
  return allFiles().filter(
    file => !known.has(file) && !file.startsWith(`${folder}/`)
  );
}

function html(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#34;/g, '"')
    .replace(/&amp;/g, '&');
}

const enc = encodeURIComponent;

/**
 * Links to the shim's landing page: [name, query, status, words the page
 * says (after HTML unescaping)].
 */
const LINKS: [string, string, number, string][] = [
  ['no parameters', '', 400, 's3_bucket: a bucket name is required'],
  [
    'no bucket',
    `s3_key=${enc('a.ipynb')}`,
    400,
    's3_bucket: a bucket name is required'
  ],
  ['no key', 's3_bucket=examples', 400, 's3_key: an object key is required'],
  [
    'an empty bucket',
    's3_bucket=&s3_key=a.ipynb',
    400,
    's3_bucket: a bucket name is required'
  ],
  [
    'an empty key',
    's3_bucket=examples&s3_key=',
    400,
    's3_key: an object key is required'
  ],
  [
    'a bucket in uppercase',
    's3_bucket=Examples&s3_key=a.ipynb',
    400,
    "s3_bucket: a bucket name has only lowercase letters a-z, digits, dots and hyphens (found 'E')"
  ],
  [
    'a bucket too short',
    's3_bucket=ab&s3_key=a.ipynb',
    400,
    's3_bucket: a bucket name has 3 to 63 characters (got 2)'
  ],
  [
    'a bucket too long',
    `s3_bucket=${'b'.repeat(64)}&s3_key=a.ipynb`,
    400,
    '(got 64)'
  ],
  [
    'a bucket like an IP address',
    's3_bucket=10.0.0.1&s3_key=a.ipynb',
    400,
    'formatted like an IP address'
  ],
  [
    'a bucket with ..',
    's3_bucket=a..b&s3_key=a.ipynb',
    400,
    'no two adjacent dots'
  ],
  [
    'a bucket with HTML',
    `s3_bucket=${enc(SVG)}&s3_key=a.ipynb`,
    400,
    "s3_bucket: a bucket name has only lowercase letters a-z, digits, dots and hyphens (found '<')"
  ],
  [
    'a key with NUL',
    's3_bucket=examples&s3_key=a%00.ipynb',
    400,
    's3_key: a key has no control characters (found U+0000)'
  ],
  [
    'a key with a right-to-left override',
    `s3_bucket=examples&s3_key=${enc('evil\u202Ebynpi.exe')}`,
    400,
    'found U+202E'
  ],
  [
    'a key too long',
    `s3_bucket=examples&s3_key=${'k'.repeat(1025)}`,
    400,
    'a key has 1 to 1024 bytes of UTF-8 (got 1025)'
  ],
  [
    'a key naming a folder',
    `s3_bucket=examples&s3_key=${enc('reports/')}`,
    400,
    "ends with '/'"
  ],
  [
    'a key going up',
    `s3_bucket=examples&s3_key=${enc('../published/x.ipynb')}`,
    400,
    "s3_key: a key has no '.' or '..' segment"
  ],
  [
    'an absolute target',
    `s3_bucket=examples&s3_key=a.ipynb&target_path=${enc('/etc/x.ipynb')}`,
    400,
    "target_path: a path is relative to the Jupyter root: remove the leading '/'"
  ],
  [
    'a target going up',
    `s3_bucket=examples&s3_key=a.ipynb&target_path=${enc('../x/')}`,
    400,
    "target_path: a path must not contain '..'"
  ],
  [
    'a target with a backslash',
    `s3_bucket=examples&s3_key=a.ipynb&target_path=${enc('a\\b')}`,
    400,
    "separates folders with '/', not '\\'"
  ],
  [
    'a target with NUL',
    's3_bucket=examples&s3_key=a.ipynb&target_path=x%00',
    400,
    'found U+0000'
  ],
  [
    'a target of dots',
    's3_bucket=examples&s3_key=a.ipynb&target_path=...',
    400,
    "only of dots (found '...')"
  ],
  [
    'a target with two trailing slashes',
    `s3_bucket=examples&s3_key=a.ipynb&target_path=${enc('work//')}`,
    400,
    'no empty segment'
  ],
  [
    'a target too long',
    `s3_bucket=examples&s3_key=a.ipynb&target_path=${'ab/'.repeat(400)}`,
    400,
    'at most 1024 bytes'
  ],
  [
    'a key given twice',
    's3_bucket=examples&s3_key=a.ipynb&s3_key=b.ipynb',
    400,
    's3_key: given more than once'
  ],
  [
    'a bucket given twice',
    's3_bucket=examples&s3_bucket=published&s3_key=a.ipynb',
    400,
    's3_bucket: given more than once'
  ],
  [
    'a version with HTML',
    `s3_bucket=examples&s3_key=a.ipynb&s3_version_id=${enc(SCRIPT)}`,
    400,
    's3_version_id: a version id has only letters, digits'
  ],
  [
    'a bucket links may not use',
    's3_bucket=secret-reports&s3_key=a.ipynb',
    403,
    'does not let links clone from this bucket'
  ],
  [
    'a key with HTML (legal)',
    `s3_bucket=examples&s3_key=${enc(`x/${XSS}.ipynb`)}`,
    200,
    'Opening the clone dialog'
  ],
  [
    'a target with script (legal)',
    `s3_bucket=examples&s3_key=a.ipynb&target_path=${enc(`w/${SVG}.ipynb`)}`,
    200,
    'Nothing is copied until you confirm'
  ]
];

test.describe('hostile clone links', () => {
  test('the landing page refuses each bad link, naming the problem, and runs no script', async ({
    page,
    baseURL
  }) => {
    const dialogs = watchDialogs(page);
    const before = allFiles();
    for (const [name, query, status, words] of LINKS) {
      for (const path of ['bookshelf/clone', 'api/bookshelf/cloned']) {
        const response = await page.request.get(`${baseURL}/${path}?${query}`);
        const body = await response.text();
        expect(response.status(), `${name} (${path})`).toBe(status);
        expect(html(body), `${name} (${path})`).toContain(words);
        // Values are shown as text, never as markup.
        expect(body, name).not.toMatch(/<(script|img|svg)\b/i);
      }
    }
    // The pages themselves in a browser tab of their own: nothing runs.
    const tab = await page.context().newPage();
    const tabDialogs = watchDialogs(tab);
    for (const [name, query] of LINKS.filter(([, , s]) => s !== 200)) {
      await tab.goto(`${baseURL}/bookshelf/clone?${query}`);
      await expect(tab.locator('h1'), name).toHaveText(
        'Cannot open this clone link'
      );
      await expect(tab.locator('li').first(), name).toBeVisible();
      expect(
        await tab.evaluate(() => (window as any).__bookshelfCanary),
        name
      ).toBeUndefined();
    }
    await tab.close();
    expect(tabDialogs).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(writtenOutside(before, '')).toEqual([]);
  });

  test('a legal link with markup in its values lands in the dialog as text', async ({
    page,
    baseURL,
    tmpPath
  }) => {
    const dialogs = watchDialogs(page);
    const key = `hostile/${XSS}.ipynb`;
    await putObject('examples', key, NOTEBOOK, 'application/x-ipynb+json');
    // As a person following the link: the landing page hands off to Lab.
    await page.evaluate(
      url => window.location.assign(url),
      `${baseURL}/bookshelf/clone?s3_bucket=examples&s3_key=${enc(key)}&target_path=${enc(`${tmpPath}/`)}`
    );
    await page.waitForURL(/\/lab/);
    const dialog = cloneDialog(page);
    await expect(dialog).toBeVisible({ timeout: 30000 });
    await expect(dialog.locator('input[name="key"]')).toHaveValue(key);
    await expect(dialog.locator('input[name="name"]')).toHaveValue(
      `${XSS}.ipynb`
    );
    await expect(dialog.locator('.jp-Bookshelf-clone-destination')).toHaveText(
      `Will be saved as "${tmpPath}/${XSS}.ipynb".`
    );
    await dialog.getByRole('button', { name: 'Clone' }).click();
    await expect(toast(page, 'Cloned s3://examples/')).toBeVisible({
      timeout: 30000
    });
    expect(await listFolder(page, tmpPath)).toEqual([`${XSS}.ipynb`]);
    await expect(
      page.locator('.jp-DirListing-item', { hasText: `${XSS}.ipynb` })
    ).toBeVisible();
    expect(await canary(page)).toBeUndefined();
    expect(dialogs).toEqual([]);
  });
});

/**
 * In-app links (/lab?bookshelf-clone&…), opened in one page through the
 * routed command: [name, query, what to expect].
 */
const IN_APP: [
  string,
  string,
  { field?: string; words: string } | { notification: string } | 'valid'
][] = [
  [
    'a bucket in uppercase',
    's3_bucket=Examples&s3_key=a.ipynb',
    { field: 'bucket', words: "found 'E'" }
  ],
  [
    'no bucket',
    's3_key=a.ipynb',
    { field: 'bucket', words: 'a bucket name is required' }
  ],
  [
    'no key',
    's3_bucket=examples',
    { field: 'key', words: 'an object key is required' }
  ],
  [
    'a key with a right-to-left override',
    `s3_bucket=examples&s3_key=${enc('evil\u202Ebynpi.exe')}`,
    { field: 'key', words: 'U+202E' }
  ],
  [
    'a key going up to another bucket',
    `s3_bucket=examples&s3_key=${enc('../published/x.ipynb')}`,
    { field: 'key', words: "no '.' or '..' segment" }
  ],
  [
    'a key with a control character',
    's3_bucket=examples&s3_key=a%07b',
    { field: 'key', words: 'U+0007' }
  ],
  [
    'a version with HTML',
    `s3_bucket=examples&s3_key=a.ipynb&s3_version_id=${enc(SCRIPT)}`,
    { field: 'versionId', words: "found '<'" }
  ],
  [
    'a bucket links may not use',
    's3_bucket=secret-reports&s3_key=a.ipynb',
    { field: 'bucket', words: 'allowedBuckets' }
  ],
  [
    'an absolute target',
    `s3_bucket=examples&s3_key=a.ipynb&target_path=${enc('/etc/x.ipynb')}`,
    { notification: "remove the leading '/'" }
  ],
  [
    'a target going up',
    `s3_bucket=examples&s3_key=a.ipynb&target_path=${enc('work/../../x.ipynb')}`,
    { notification: "must not contain '..'" }
  ],
  [
    'a target with a backslash',
    `s3_bucket=examples&s3_key=a.ipynb&target_path=${enc('a\\b.ipynb')}`,
    { notification: "not '\\'" }
  ],
  [
    'a target with NUL',
    's3_bucket=examples&s3_key=a.ipynb&target_path=x%00.ipynb',
    { notification: 'U+0000' }
  ],
  [
    'a target of dots',
    's3_bucket=examples&s3_key=a.ipynb&target_path=..',
    { notification: "must not contain '..'" }
  ],
  [
    'a key given twice',
    's3_bucket=examples&s3_key=a&s3_key=b',
    { notification: 's3_key more than once' }
  ],
  [
    'a key with markup (legal)',
    `s3_bucket=examples&s3_key=${enc(`${SVG}.ipynb`)}`,
    'valid'
  ],
  [
    'a target name with markup (legal)',
    `s3_bucket=examples&s3_key=a.ipynb&target_path=${enc(`${SCRIPT}.ipynb`)}`,
    'valid'
  ]
];

test.describe('hostile in-app links', () => {
  test('each opens the dialog with the problem at its field, or says what is wrong', async ({
    page
  }) => {
    const dialogs = watchDialogs(page);
    const before = allFiles();
    for (const [name, query, expected] of IN_APP) {
      await page.evaluate(search => {
        void (window as any).jupyterapp.commands.execute(
          'bookshelf:open-clone-link',
          { search }
        );
      }, `?bookshelf-clone&${query}`);
      if (typeof expected === 'object' && 'notification' in expected) {
        const notification = toast(page, expected.notification);
        await expect(notification, name).toBeVisible();
        await expect(page.locator('.jp-Dialog'), name).toHaveCount(0);
        await notification
          .getByRole('button', { name: 'Hide notification' })
          .click();
        continue;
      }
      const dialog = cloneDialog(page);
      await expect(dialog, name).toBeVisible();
      const accept = dialog.getByRole('button', { name: 'Clone' });
      if (expected === 'valid') {
        await expect(dialog.locator('.jp-Bookshelf-field-error')).toHaveCount(
          0
        );
        await expect(accept, name).toBeEnabled();
      } else {
        await expect(
          dialog.locator(`#jp-bookshelf-clone-${expected.field}-error`),
          name
        ).toContainText(expected.words);
        await expect(accept, name).toBeDisabled();
        // Enter does not clone either.
        await dialog.locator(`input[name="${expected.field}"]`).press('Enter');
        await expect(dialog, name).toBeVisible();
      }
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(dialog, name).toHaveCount(0);
    }
    expect(await canary(page)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(writtenOutside(before, '')).toEqual([]);
  });
});

test.describe('hostile values typed into the dialog', () => {
  test('each field names its problem, Clone waits, and the dialog stays usable', async ({
    page,
    tmpPath
  }) => {
    const dialogs = watchDialogs(page);
    const before = allFiles();
    await page.evaluate(folder => {
      void (window as any).jupyterapp.commands.execute('bookshelf:clone', {
        s3_bucket: 'examples',
        s3_key: 'intro.ipynb',
        target_path: `${folder}/`
      });
    }, tmpPath);
    const dialog = cloneDialog(page);
    const accept = dialog.getByRole('button', { name: 'Clone' });
    await expect(accept).toBeEnabled();
    const cases: [string, string, string][] = [
      ['folder', '../outside', "must not contain '..'"],
      ['folder', 'a\\b', "not '\\'"],
      ['folder', '.ssh', 'starts with a dot'],
      ['folder', 'a//b', 'empty segment'],
      ['name', '..', "must not contain '..'"],
      ['name', 'sub/x.ipynb', 'has no "/"'],
      ['name', '.bashrc', 'starts with a dot'],
      ['name', 'x\u202Egnp.ipynb', 'U+202E'],
      ['name', 'n'.repeat(300), 'at most 255 bytes'],
      ['bucket', 'Bad_Bucket', "found 'B'"],
      ['bucket', '1.2.3.4', 'IP address'],
      ['key', 'reports/', "ends with '/'"],
      ['key', '../published/x.ipynb', "no '.' or '..' segment"],
      ['key', 'a\u0000b', 'U+0000'],
      ['versionId', `${XSS}`, "found '<'"]
    ];
    for (const [input, value, words] of cases) {
      const field = dialog.locator(`input[name="${input}"]`);
      const valid = await field.inputValue();
      await field.fill(value);
      await expect(
        dialog.locator(`#jp-bookshelf-clone-${input}-error`),
        `${input} = ${value}`
      ).toContainText(words);
      await expect(accept).toBeDisabled();
      await field.fill(valid);
      await expect(dialog.locator('.jp-Bookshelf-field-error')).toHaveCount(0);
      await expect(accept).toBeEnabled();
    }
    // Legal markup in the name: cloned under exactly that name.
    await dialog.locator('input[name="name"]').fill(`${XSS}.ipynb`);
    await expect(dialog.locator('.jp-Bookshelf-clone-destination')).toHaveText(
      `Will be saved as "${tmpPath}/${XSS}.ipynb".`
    );
    await accept.click();
    await expect(toast(page, 'Cloned s3://examples/')).toBeVisible({
      timeout: 30000
    });
    expect(await listFolder(page, tmpPath)).toEqual([`${XSS}.ipynb`]);
    expect(writtenOutside(before, tmpPath)).toEqual([]);
    expect(await canary(page)).toBeUndefined();
    expect(dialogs).toEqual([]);
  });
});

const NOTEBOOK = notebookText([
  { cell_type: 'markdown', id: 'a', metadata: {}, source: ['# Fine'] }
]);

const SCRIPTED = notebookText([
  {
    cell_type: 'code',
    execution_count: 1,
    id: 'c1',
    metadata: { trusted: true },
    outputs: [
      {
        output_type: 'display_data',
        data: {
          'text/html': [`${SCRIPT}${XSS}${SVG}<b>bold output</b>`],
          'application/javascript': [`${CANARY}=4`],
          'image/svg+xml': [
            `<svg xmlns="http://www.w3.org/2000/svg" onload="${CANARY}=5"><script>${CANARY}=6</script></svg>`
          ],
          'text/plain': ['<HTML object>']
        },
        metadata: {}
      }
    ],
    source: ['display(HTML(payload))']
  },
  {
    cell_type: 'markdown',
    id: 'c2',
    metadata: {},
    source: [
      `Markdown with ${XSS} and <a href="javascript:${CANARY}=7">a link</a>`
    ]
  }
]);

const deep = (depth: number) =>
  `{"cells": [], "metadata": {"x": ${'['.repeat(depth)}1${']'.repeat(depth)}}, "nbformat": 4, "nbformat_minor": 5}`;

/**
 * Objects: [key below hostile/<run>/, body, error code or null when legal,
 * words of the message].
 */
const OBJECTS: [string, string | Buffer, string | null, string][] = [
  ['empty.ipynb', '', 'NotANotebook', 'not valid JSON'],
  [
    'prose.ipynb',
    'Dear reader, this is not JSON.',
    'NotANotebook',
    'not valid JSON'
  ],
  ['list.ipynb', '[1, 2, 3]', 'NotANotebook', 'not an object'],
  [
    'nocells.ipynb',
    '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}}',
    'NotANotebook',
    "'cells' is missing"
  ],
  [
    'v2.ipynb',
    '{"nbformat": 2, "nbformat_minor": 0, "metadata": {}, "worksheets": []}',
    'NotANotebook',
    'only version 3 and 4'
  ],
  ['deep.ipynb', deep(3000), 'NotANotebook', 'levels deep'],
  [
    'binary.ipynb',
    Buffer.from([0x80, 0x81, 0xff, 0xfe, 0x00, 0x01]),
    'NotANotebook',
    'not UTF-8'
  ],
  [
    // Windows PowerShell's default: named, with what to do.
    'utf16.ipynb',
    Buffer.from('\ufeff' + NOTEBOOK, 'utf16le'),
    'NotANotebook',
    'it is UTF-16 text'
  ],
  ['scripted.ipynb', SCRIPTED, null, ''],
  ['deep.json', '['.repeat(3000) + ']'.repeat(3000), null, ''],
  ['empty.txt', '', null, ''],
  ['bom.ipynb', '\ufeff' + NOTEBOOK, null, '']
];

test.describe('hostile objects', () => {
  test('each is refused with its reason, or saved as it is; nothing runs when opened', async ({
    page,
    tmpPath
  }) => {
    const dialogs = watchDialogs(page);
    const run = `hostile/${Date.now()}`;
    for (const [name, body] of OBJECTS) {
      await putObject('examples', `${run}/${name}`, body);
    }
    const before = allFiles();
    const results: { code?: string; message?: string; path?: string }[] =
      await page.evaluate(
        async ({ run, names, folder }) => {
          const app = (window as any).jupyterapp;
          const services: Map<any, string> = app.pluginRegistry._services;
          const token = [...services.keys()].find(
            key => key.name === 'jupyterlab-bookshelf:IBookshelf'
          );
          const bookshelf = await app.resolveRequiredService(token);
          const outcomes = [];
          for (const name of names) {
            try {
              const model = await bookshelf.clone({
                s3_bucket: 'examples',
                s3_key: `${run}/${name}`,
                target_path: `${folder}/`
              });
              outcomes.push({ path: model.path });
            } catch (error: any) {
              outcomes.push({ code: error.code, message: error.message });
            }
          }
          return outcomes;
        },
        { run, names: OBJECTS.map(([name]) => name), folder: tmpPath }
      );
    const saved: string[] = [];
    OBJECTS.forEach(([name, , code, words], i) => {
      const result = results[i];
      if (code === null) {
        expect(result.path, name).toBe(`${tmpPath}/${name}`);
        saved.push(name);
      } else {
        expect(result.code, name).toBe(code);
        expect(result.message, name).toContain(words);
      }
    });
    expect(await listFolder(page, tmpPath)).toEqual(saved.sort());
    expect(await readFile(page, `${tmpPath}/scripted.ipynb`)).toBe(SCRIPTED);
    // The byte order mark, which Jupyter cannot read, is left out.
    expect(await readFile(page, `${tmpPath}/bom.ipynb`)).toBe(NOTEBOOK);
    expect(writtenOutside(before, tmpPath)).toEqual([]);

    // Opened, the cloned notebook is not trusted: its outputs run nothing.
    await page.evaluate(
      p =>
        (window as any).jupyterapp.commands.execute('docmanager:open', {
          path: p
        }),
      `${tmpPath}/scripted.ipynb`
    );
    const panel = page.locator('.jp-NotebookPanel', { hasText: 'a link' });
    await expect(panel).toBeVisible({ timeout: 30000 });
    await expect(panel.locator('.jp-OutputArea-output').first()).toBeVisible();
    await page.waitForTimeout(1000);
    expect(await canary(page)).toBeUndefined();
    expect(dialogs).toEqual([]);
  });
});

test.describe('an object over the size limit', () => {
  test.use({ mockSettings: bookshelfSettings({ maxObjectSizeMB: 0.01 }) });

  test('is refused with the limit, and nothing is written', async ({
    lab,
    tmpPath
  }) => {
    const key = `hostile/${Date.now()}/big.ipynb`;
    const big = NOTEBOOK.replace('# Fine', 'x'.repeat(20000));
    await putObject('examples', key, big);
    const error = await bookshelfError(lab, 'clone', {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    });
    expect(error.code).toBe('TooLarge');
    expect(error.message).toContain('more than the limit');
    expect(await listFolder(lab, tmpPath)).toEqual([]);
  });
});

test.describe('hostile API calls', () => {
  test('each clone request names its problem; publish refuses bad paths and bodies', async ({
    page,
    tmpPath
  }) => {
    const dialogs = watchDialogs(page);
    const before = allFiles();
    const requests: [string, unknown, string][] = [
      ['null', null, 'request: a clone request is an object'],
      [
        'a string',
        's3://examples/intro.ipynb',
        'request: a clone request is an object'
      ],
      [
        'a list',
        ['examples', 'intro.ipynb'],
        'request: a clone request is an object'
      ],
      [
        'a number bucket',
        { s3_bucket: 7, s3_key: 'intro.ipynb' },
        's3_bucket: must be text (got number)'
      ],
      [
        'a bucket list',
        { s3_bucket: ['examples', 'published'], s3_key: 'intro.ipynb' },
        's3_bucket: given more than once'
      ],
      [
        'an object key',
        { s3_bucket: 'examples', s3_key: { toString: 1 } },
        's3_key: must be text (got object)'
      ],
      [
        'an empty key',
        { s3_bucket: 'examples', s3_key: '' },
        's3_key: an object key is required'
      ],
      [
        'a key going up',
        { s3_bucket: 'examples', s3_key: '../published/x.ipynb' },
        "s3_key: a key has no '.' or '..' segment"
      ],
      [
        'a key with a dot segment',
        { s3_bucket: 'examples', s3_key: 'a/./intro.ipynb' },
        "s3_key: a key has no '.' or '..' segment"
      ],
      [
        'a target outside',
        {
          s3_bucket: 'examples',
          s3_key: 'intro.ipynb',
          target_path: `${tmpPath}/../../x.ipynb`
        },
        "target_path: a path must not contain '..'"
      ],
      [
        'an absolute target',
        {
          s3_bucket: 'examples',
          s3_key: 'intro.ipynb',
          target_path: '/tmp/x.ipynb'
        },
        "remove the leading '/'"
      ],
      [
        'a hidden target',
        {
          s3_bucket: 'examples',
          s3_key: 'intro.ipynb',
          target_path: `${tmpPath}/.bashrc`
        },
        'starts with a dot'
      ],
      [
        'a folder that does not exist',
        {
          s3_bucket: 'examples',
          s3_key: 'intro.ipynb',
          target_path: `${tmpPath}/missing/`
        },
        'does not exist'
      ],
      [
        'a target that is a file, used as a folder',
        {
          s3_bucket: 'examples',
          s3_key: 'intro.ipynb',
          target_path: `${tmpPath}/afile/x.ipynb`
        },
        'is a file, not a folder'
      ],
      [
        'a version with markup',
        { s3_bucket: 'examples', s3_key: 'intro.ipynb', s3_version_id: XSS },
        's3_version_id: a version id has only'
      ],
      [
        'a version that does not exist',
        {
          s3_bucket: 'versioned-examples',
          s3_key: 'history.ipynb',
          s3_version_id: 'nope',
          target_path: `${tmpPath}/`
        },
        'has no version'
      ]
    ];
    await page.contents.uploadContent('a file', 'text', `${tmpPath}/afile`);
    const outcomes: { code: string; message: string }[] = await page.evaluate(
      async list => {
        const app = (window as any).jupyterapp;
        const services: Map<any, string> = app.pluginRegistry._services;
        const token = [...services.keys()].find(
          key => key.name === 'jupyterlab-bookshelf:IBookshelf'
        );
        const bookshelf = await app.resolveRequiredService(token);
        const results = [];
        for (const request of list) {
          try {
            await bookshelf.clone(request);
            results.push({ code: 'none', message: 'cloned' });
          } catch (error: any) {
            results.push({ code: error.code, message: error.message });
          }
        }
        return results;
      },
      requests.map(([, request]) => request)
    );
    requests.forEach(([name, , words], i) => {
      expect(outcomes[i].message, name).toContain(words);
      expect(
        ['InvalidRequest', 'NoSuchVersion'],
        `${name}: ${outcomes[i].code}`
      ).toContain(outcomes[i].code);
    });
    expect(await listFolder(page, tmpPath)).toEqual(['afile']);

    // Publish: paths and bodies that must not reach the bucket.
    await page.contents.uploadContent(NOTEBOOK, 'text', `${tmpPath}/nb.ipynb`);
    const publishes: [string, unknown[], string, string][] = [
      [
        'a path that is no text',
        [42],
        'InvalidRequest',
        'must be a non-empty text'
      ],
      [
        'a path going up',
        [`${tmpPath}/../../nb.ipynb`],
        'InvalidRequest',
        "'..' segment"
      ],
      [
        'a destination going up',
        [`${tmpPath}/nb.ipynb`, { destination: '../outside.ipynb' }],
        'InvalidRequest',
        "'..' segment"
      ],
      [
        'a destination with a control character',
        [`${tmpPath}/nb.ipynb`, { destination: 'x\u0001.ipynb' }],
        'InvalidRequest',
        'U+0001'
      ],
      [
        'a destination with a right-to-left override',
        [`${tmpPath}/nb.ipynb`, { destination: 'x\u202Ebynpi.exe' }],
        'InvalidRequest',
        'U+202E'
      ],
      [
        'a destination that is no notebook',
        [`${tmpPath}/nb.ipynb`, { destination: 'x.html' }],
        'InvalidRequest',
        "must end in '.ipynb'"
      ],
      [
        'a body that is no notebook',
        [`${tmpPath}/nb.ipynb`, { body: { type: 'notebook', content: [] } }],
        'InvalidRequest',
        'The publish body must be'
      ],
      [
        'a body of nbformat 3',
        [
          `${tmpPath}/nb.ipynb`,
          {
            body: {
              type: 'notebook',
              content: {
                nbformat: 3,
                nbformat_minor: 0,
                metadata: {},
                cells: []
              }
            }
          }
        ],
        'NotANotebook',
        'which converts it to version 4'
      ],
      [
        'a file that is no notebook',
        [`${tmpPath}/afile`],
        'NotANotebook',
        "does not end in '.ipynb'"
      ]
    ];
    for (const [name, args, code, words] of publishes) {
      const error = await bookshelfError(page, 'publish', ...args);
      expect(error.code, name).toBe(code);
      expect(error.message, name).toContain(words);
    }
    for (const key of [
      'outside.ipynb',
      'nb.ipynb',
      `${tmpPath}/nb.ipynb`,
      'x.html'
    ]) {
      expect(await getObject('published', key), key).toBeNull();
    }
    // Still usable: a legal publish and clone work.
    const published = await callBookshelf<any>(
      page,
      'publish',
      `${tmpPath}/nb.ipynb`
    );
    expect(published.s3_path).toBe(`s3://published/${tmpPath}/nb.ipynb`);
    expect(writtenOutside(before, tmpPath)).toEqual([]);
    expect(await canary(page)).toBeUndefined();
    expect(dialogs).toEqual([]);
  });
});
