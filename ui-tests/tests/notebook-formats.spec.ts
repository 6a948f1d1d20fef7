/**
 * The notebooks people really have: every nbformat era Jupyter opens
 * (version 3, which Jupyter converts when it reads it, and 4.0-4.5) clones
 * byte for byte and opens in JupyterLab.
 */
import { expect, test } from './fixtures';
import * as fs from 'fs';
import * as path from 'path';

import { callBookshelf, fixture, putObject } from './helpers';

function uid(): string {
  return `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
}

const ERAS: { [era: string]: (title: string) => object } = {
  '3.0': title => ({
    nbformat: 3,
    nbformat_minor: 0,
    metadata: { name: title },
    worksheets: [
      {
        metadata: {},
        cells: [
          {
            cell_type: 'heading',
            level: 1,
            metadata: {},
            source: title
          },
          {
            cell_type: 'code',
            collapsed: false,
            input: '6 * 7',
            language: 'python',
            metadata: {},
            outputs: [
              {
                metadata: {},
                output_type: 'pyout',
                prompt_number: 1,
                text: '42'
              }
            ],
            prompt_number: 1
          }
        ]
      }
    ]
  }),
  '4.0': title => ({
    nbformat: 4,
    nbformat_minor: 0,
    metadata: {},
    cells: [{ cell_type: 'markdown', metadata: {}, source: `# ${title}` }]
  }),
  '4.4': title => ({
    nbformat: 4,
    nbformat_minor: 4,
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
    cells: [
      { cell_type: 'markdown', metadata: {}, source: [`# ${title}`] },
      {
        cell_type: 'code',
        execution_count: null,
        metadata: {},
        outputs: [],
        source: ['6 * 7']
      }
    ]
  }),
  '4.5': title => ({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: [
      { cell_type: 'markdown', id: 'a1b2', metadata: {}, source: `# ${title}` }
    ]
  })
};

// A test, and a fresh page, per era: Lab's own dialogs on opening an old
// notebook (converted, no kernel named) stay out of the next one's way.
for (const [era, make] of Object.entries(ERAS)) {
  test(`nbformat ${era.replace('.', ' minor ')} clones as it came and opens`, async ({
    page,
    tmpPath
  }) => {
    const title = `Era ${era} ${uid()}`;
    const text = JSON.stringify(make(title), null, 1);
    const key = `formats/${uid()}/era.ipynb`;
    await putObject('examples', key, text, 'application/x-ipynb+json');

    const model = await callBookshelf<any>(page, 'clone', {
      s3_bucket: 'examples',
      s3_key: key,
      target_path: `${tmpPath}/`
    });
    expect(model.path).toBe(`${tmpPath}/era.ipynb`);
    // Stored as it came: Jupyter converts version 3 when it reads it.
    const onDisk = fs.readFileSync(
      path.join(fixture().root_dir, model.path),
      'utf8'
    );
    expect(onDisk).toBe(text);

    await page.filebrowser.open(model.path);
    await expect(
      page.locator('.jp-NotebookPanel').filter({ hasText: title })
    ).toBeVisible({ timeout: 20000 });
    if (era.startsWith('3')) {
      // JupyterLab's own note on a converted notebook, as a person sees it.
      await expect(
        page.locator('.jp-Dialog', { hasText: 'Notebook converted' })
      ).toBeVisible();
    }
  });
}

test('a notebook saved with a byte order mark clones without it and opens', async ({
  page,
  tmpPath
}) => {
  const title = `With BOM ${uid()}`;
  const text = JSON.stringify(ERAS['4.5'](title));
  const key = `formats/${uid()}/bom.ipynb`;
  await putObject(
    'examples',
    key,
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
    'application/x-ipynb+json'
  );
  const model = await callBookshelf<any>(page, 'clone', {
    s3_bucket: 'examples',
    s3_key: key,
    target_path: `${tmpPath}/`
  });
  const onDisk = fs.readFileSync(path.join(fixture().root_dir, model.path));
  expect(onDisk.toString('utf8')).toBe(text);
  await page.filebrowser.open(model.path);
  await expect(
    page.locator('.jp-NotebookPanel').filter({ hasText: title })
  ).toBeVisible({ timeout: 20000 });
});
