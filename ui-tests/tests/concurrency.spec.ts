/**
 * Concurrency: many clones of one key into one folder, from one browser
 * and from two, a clone and a publish of the same notebook at once, and two
 * publishers racing for one key under each overwrite policy, from one page
 * and, with notebooks large enough to go up in parts, from two browsers. The fault
 * proxy holds requests back so that the races really overlap.
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import * as fs from 'fs';
import * as path from 'path';

import { expect, test } from './fixtures';
import {
  addFault,
  bookshelfSettings,
  clearFaults,
  expectFaultsApplied,
  faultRules,
  filesOnDisk,
  fixture,
  getObject,
  headObject,
  IFaultRule,
  largeNotebook,
  listFolder,
  listVersions,
  md5,
  namesOnDisk,
  openUploads,
  proxyLog,
  proxyUrl,
  putObject,
  readFile,
  settleBookshelf,
  titledNotebook,
  uid,
  writeOnDisk
} from './helpers';
import {
  confirmPublish,
  publishDialog,
  publishFromContextMenu,
  toast
} from './pages';

/**
 * Run calls of the page's IBookshelf at once; each settles to its result
 * or its error's code and message.
 */
function together(
  page: IJupyterLabPageFixture,
  calls: { method: 'clone' | 'publish'; args: unknown[] }[]
) {
  return Promise.all(
    calls.map(({ method, args }) => settleBookshelf(page, method, ...args))
  );
}

test.use({ mockSettings: bookshelfSettings({ endpointUrl: proxyUrl() }) });

test.afterEach(async () => {
  try {
    // The races are real only when the proxy held their requests back.
    await expectFaultsApplied();
  } finally {
    await clearFaults();
  }
});

test.describe('clones at once', () => {
  test('20 clones of one key into one folder give 20 files and keep the one there', async ({
    lab,
    tmpPath
  }) => {
    const key = `concurrency/${uid()}/shared.ipynb`;
    const body = titledNotebook('Shared');
    await putObject('examples', key, body, 'application/x-ipynb+json');
    await lab.contents.uploadContent(
      'already here',
      'text',
      `${tmpPath}/shared.ipynb`
    );
    // Downloads finish in a scattered order.
    await addFault({
      method: 'GET',
      path: `/examples/${key}`,
      times: 7,
      fault: { type: 'delay', ms: 700 }
    });
    const results = await together(
      lab,
      Array.from({ length: 20 }, () => ({
        method: 'clone' as const,
        args: [
          { s3_bucket: 'examples', s3_key: key, target_path: `${tmpPath}/` }
        ]
      }))
    );
    expect(results.filter(result => !result.ok)).toEqual([]);
    const paths = results.map(result => result.value.path);
    expect(new Set(paths).size).toBe(20);
    const names = await listFolder(lab, tmpPath);
    expect(names).toEqual(
      [
        'shared.ipynb',
        ...Array.from({ length: 20 }, (_, i) => `shared-${i + 1}.ipynb`)
      ].sort()
    );
    expect(await readFile(lab, `${tmpPath}/shared.ipynb`)).toBe('already here');
    for (const path of paths) {
      expect(md5(await readFile(lab, path)), path).toBe(md5(body));
    }
    expect(filesOnDisk(/\.bookshelf-partial$/)).toEqual([]);
  });
});

test.describe('clones at once from two browsers', () => {
  const rounds = 5;
  const perBrowser = 10;

  test('20 clones of one key into one folder, split between two browsers, give 20 files in every round', async ({
    page,
    secondBrowser,
    tmpPath
  }) => {
    test.setTimeout(rounds * 60 * 1000);
    // The server extension's create path (save and commit in one request)
    // does the naming.
    let commits = 0;
    for (const browserPage of [page, secondBrowser]) {
      browserPage.on('request', request => {
        if (
          request.method() === 'POST' &&
          new URL(request.url()).pathname.endsWith('/api/bookshelf/create')
        ) {
          commits++;
        }
      });
    }
    const key = `concurrency/${uid()}/shared.ipynb`;
    const body = titledNotebook('Shared');
    await putObject('examples', key, body, 'application/x-ipynb+json');
    const root = fixture().root_dir;
    const figures: { round: number; lost: number; problems: string[] }[] = [];
    for (let round = 1; round <= rounds; round++) {
      const folder = `${tmpPath}/round-${round}`;
      await page.contents.createDirectory(folder);
      await page.contents.uploadContent(
        'already here',
        'text',
        `${folder}/shared.ipynb`
      );
      const request = {
        s3_bucket: 'examples',
        s3_key: key,
        target_path: `${folder}/`
      };
      const clones = (browserPage: IJupyterLabPageFixture) =>
        Array.from({ length: perBrowser }, () =>
          settleBookshelf(browserPage, 'clone', request)
        );
      const results = await Promise.all([
        ...clones(page),
        ...clones(secondBrowser)
      ]);
      // Read back on disk, outside both browsers.
      // Files only: a rename also moves checkpoints (.ipynb_checkpoints).
      const names = namesOnDisk(folder).filter(name =>
        fs.statSync(path.join(root, folder, name)).isFile()
      );
      const partial = names.filter(name => name.endsWith('.bookshelf-partial'));
      const copies = names.filter(
        name => name !== 'shared.ipynb' && !partial.includes(name)
      );
      const problems: string[] = [];
      if (partial.length) {
        problems.push(`${partial.length} temporary files left`);
      }
      const failed = results.filter(result => !result.ok);
      if (failed.length) {
        problems.push(`${failed.length} clones failed: ${failed[0].message}`);
      }
      const reported = new Set(results.map(result => result.value?.path));
      if (reported.size !== results.length) {
        problems.push(`${reported.size} distinct paths reported`);
      }
      const original = fs.readFileSync(
        path.join(root, folder, 'shared.ipynb'),
        'utf8'
      );
      if (original !== 'already here') {
        problems.push('the file there was replaced');
      }
      for (const name of copies) {
        const bytes = fs.readFileSync(path.join(root, folder, name));
        if (md5(bytes) !== md5(body)) {
          problems.push(`${name} does not hold the object's bytes`);
        }
      }
      figures.push({
        round,
        lost: results.length - copies.length,
        problems
      });
    }
    console.log(
      `clones lost per round of ${2 * perBrowser}: ` +
        figures.map(figure => figure.lost).join(', ')
    );
    expect(figures).toEqual(
      figures.map(({ round }) => ({ round, lost: 0, problems: [] }))
    );
    expect(filesOnDisk(/\.bookshelf-partial$/)).toEqual([]);
    expect(commits).toBe(rounds * 2 * perBrowser);
  });
});

test.describe('a clone and a publish of the same notebook at once', () => {
  test('the clone gets the old or the new version whole, the source stays', async ({
    lab,
    tmpPath
  }) => {
    const path = `${tmpPath}/report-${uid()}.ipynb`;
    const name = path.slice(path.lastIndexOf('/') + 1);
    const old = titledNotebook('Old version', 300 * 1024);
    const mine = titledNotebook('New version', 300 * 1024);
    await putObject('published', path, old, 'application/x-ipynb+json');
    await lab.contents.uploadContent(mine, 'text', path);
    const before = await listVersions('published', path);

    const faults: IFaultRule['fault'][] = [
      // The download is slow: the publish lands while it streams.
      { type: 'throttle', bytes_per_second: 256 * 1024 },
      // The download starts late: it may read the new version.
      { type: 'delay', ms: 1500, where: 'request' }
    ];
    for (const [round, fault] of faults.entries()) {
      await clearFaults();
      await addFault({ method: 'GET', path: `/published/${path}`, fault });
      const [cloned, published] = await together(lab, [
        {
          method: 'clone',
          args: [
            {
              s3_bucket: 'published',
              s3_key: path,
              target_path: `${tmpPath}/`
            }
          ]
        },
        { method: 'publish', args: [path, { overwrite: true }] }
      ]);
      expect(published.ok, published.message).toBe(true);
      expect(cloned.ok, cloned.message).toBe(true);
      expect(cloned.value.path).toBe(
        `${tmpPath}/${name.replace('.ipynb', `-${round + 1}.ipynb`)}`
      );
      const copy = md5(await readFile(lab, cloned.value.path));
      expect([md5(old), md5(mine)]).toContain(copy);
      // The requests did overlap.
      const log = await proxyLog(`/published/${path}`);
      expect(log.some(entry => entry.method === 'PUT')).toBe(true);
    }
    expect(md5(await readFile(lab, path))).toBe(md5(mine));
    expect(md5((await getObject('published', path))!.body)).toBe(md5(mine));
    expect(await listVersions('published', path)).toHaveLength(
      before.length + 2
    );
    expect(filesOnDisk(/\.bookshelf-partial$/)).toEqual([]);
  });
});

/**
 * Two publishers at once, each with its own notebook for the same key;
 * both look at the object before either uploads (the proxy holds their
 * uploads back until both have looked).
 */
async function race(
  page: IJupyterLabPageFixture,
  tmpPath: string,
  existing: string | null
) {
  const key = `${tmpPath}/race-${uid()}.ipynb`;
  const bodies = [titledNotebook('Publisher A'), titledNotebook('Publisher B')];
  if (existing !== null) {
    await putObject('published', key, existing, 'application/x-ipynb+json');
  }
  const before = await listVersions('published', key);
  await addFault({
    method: 'PUT',
    path: `/published/${key}`,
    times: 2,
    fault: { type: 'delay', ms: 1000, where: 'request' }
  });
  const results = await together(
    page,
    bodies.map(body => ({
      method: 'publish' as const,
      args: [
        `${tmpPath}/source.ipynb`,
        {
          // Below the publish prefix, which is empty here.
          destination: key,
          overwrite: true,
          body: { type: 'notebook', content: JSON.parse(body) }
        }
      ]
    }))
  );
  const stored = await getObject('published', key);
  const after = await listVersions('published', key);
  return { key, bodies, results, stored, added: after.length - before.length };
}

for (const [policy, newKey, expected] of [
  ['never', true, 'one wins'],
  ['never', false, 'both refused'],
  ['confirm', true, 'one wins'],
  ['confirm', false, 'one wins'],
  ['always', true, 'both publish'],
  ['always', false, 'both publish']
] as const) {
  test.describe(`two publishers, overwrite policy "${policy}"`, () => {
    test.use({
      mockSettings: bookshelfSettings({
        endpointUrl: proxyUrl(),
        overwritePolicy: policy
      })
    });

    test(`${newKey ? 'a new key' : 'an existing key'}: ${expected}`, async ({
      lab,
      tmpPath
    }) => {
      const existing = newKey ? null : titledNotebook('Published before');
      const { bodies, results, stored, added } = await race(
        lab,
        tmpPath,
        existing
      );
      const written = JSON.stringify(JSON.parse(stored!.body.toString('utf8')));
      const compact = bodies.map(body => JSON.stringify(JSON.parse(body)));
      if (expected === 'both refused') {
        expect(results.map(result => result.code)).toEqual([
          'Conflict',
          'Conflict'
        ]);
        expect(results[0].message).toContain("overwrite policy is 'never'");
        expect(md5(stored!.body)).toBe(md5(existing!));
        expect(added).toBe(0);
        // Refused before uploading: no PUT ever reached the S3 service.
        const puts = (await faultRules()).filter(rule => rule.method === 'PUT');
        expect(puts.map(rule => rule.seen)).toEqual([0]);
        await clearFaults();
        return;
      }
      if (expected === 'one wins') {
        const winners = results.filter(result => result.ok);
        const losers = results.filter(result => !result.ok);
        expect(winners).toHaveLength(1);
        expect(losers).toHaveLength(1);
        expect(losers[0].code).toBe('Conflict');
        expect(losers[0].message).toContain('by someone else');
        // The object is the winner's, whole.
        const winner = results.indexOf(winners[0]);
        expect(written).toBe(compact[winner]);
        expect(winners[0].value.version_id).toBe(stored!.versionId);
        expect(added).toBe(1);
        return;
      }
      // 'always': both publish; the object is one of the two, whole, and
      // both versions are kept.
      expect(results.map(result => result.ok)).toEqual([true, true]);
      expect(compact).toContain(written);
      expect(added).toBe(2);
    });
  });
}

test.describe('two browsers publish large notebooks to one key at once', () => {
  const MiB = 1024 * 1024;

  test('one is published in parts, whole; the other is told and leaves no parts', async ({
    page,
    secondBrowser,
    tmpPath
  }) => {
    test.setTimeout(120 * 1000);
    const pages = [page, secondBrowser];
    const key = `${tmpPath}/shared-${uid()}.ipynb`;
    // Each person's own notebook, above the size that goes up in parts.
    const bodies = ['a', 'b'].map(name => {
      const body = largeNotebook(20 * MiB, `Publisher ${name}`);
      writeOnDisk(`${tmpPath}/${name}.ipynb`, body);
      return body;
    });
    // Both uploads are in flight before either completes: each one's
    // second part is held back.
    await addFault({
      method: 'PUT',
      path: `/published/${key}`,
      query: 'partNumber=2',
      times: 2,
      fault: { type: 'delay', ms: 2000, where: 'request' }
    });

    // Both dialogs look at the destination before either publishes: both
    // find nothing there.
    for (const [index, browserPage] of pages.entries()) {
      await browserPage.filebrowser.refresh();
      await publishFromContextMenu(browserPage, `${'ab'[index]}.ipynb`);
      const destination = publishDialog(browserPage).locator(
        'input[name="destination"]'
      );
      await destination.fill(key);
      await expect(
        publishDialog(browserPage).locator(
          '.jp-Bookshelf-publish-status[data-state="new"]'
        )
      ).toBeVisible();
    }
    await Promise.all(
      pages.map(browserPage => confirmPublish(browserPage, 'new'))
    );

    const outcome = async (browserPage: typeof page) => {
      const published = toast(browserPage, 'Published version');
      // Lab shortens a long notification: its start is enough.
      const refused = toast(browserPage, 'was created by');
      await expect(published.or(refused)).toBeVisible({ timeout: 60000 });
      return (await published.count()) > 0 ? 'published' : 'refused';
    };
    const outcomes = await Promise.all(pages.map(outcome));
    expect([...outcomes].sort()).toEqual(['published', 'refused']);
    const winner = outcomes.indexOf('published');

    // S3 holds the winner's notebook, byte for byte, as one version put
    // together from its parts; the loser's upload was aborted.
    const stored = await getObject('published', key);
    expect(md5(stored!.body)).toBe(md5(bodies[winner]));
    const parts = Math.ceil(bodies[winner].length / (8 * MiB));
    expect(parts).toBeGreaterThan(2);
    expect((await headObject('published', key))!.etag).toMatch(
      new RegExp(`-${parts}"$`)
    );
    expect(await listVersions('published', key)).toHaveLength(1);
    await expect
      .poll(() => openUploads('published'), { timeout: 10000 })
      .not.toContain(key);
    // The two uploads overlapped: both were started before either was
    // completed.
    const log = await proxyLog(`/published/${key}`);
    const posts = log.filter(entry => entry.method === 'POST');
    const starts = posts.filter(entry =>
      /(^|&)uploads(=|&|$)/.test(entry.query)
    );
    const completions = posts.filter(entry => /uploadId=/.test(entry.query));
    expect(starts).toHaveLength(2);
    expect(completions).toHaveLength(2);
    expect(Math.max(...starts.map(entry => entry.n))).toBeLessThan(
      Math.min(...completions.map(entry => entry.n))
    );
  });
});
