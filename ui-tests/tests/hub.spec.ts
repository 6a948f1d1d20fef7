/**
 * Sharing between the users of a real JupyterHub (scripts/hub_fixture.py:
 * JupyterHub, configurable-http-proxy, the dummy authenticator, one local
 * server per user, the same S3 server as the other tests). Each user is a
 * browser of their own; every result is checked on the users' disks and on
 * S3, not only on the page.
 */
import { expect, test } from './fixtures';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import { getObject, headObject, largeNotebook, notebookText } from './helpers';
import { cloneFromLink, fileOnDisk, hub, logIn, publish } from './hub';
import { clickInToast, toast } from './pages';

test.describe('on a JupyterHub', () => {
  // Two users' servers on a two-core machine start slowly.
  test.setTimeout(240000);

  test("a user-redirect link clones into the opener's own tree", async ({
    browser,
    networkLog
  }) => {
    const folder = `redirect-${Date.now()}`;
    const bob = await logIn(browser, 'bob', networkLog);
    await cloneFromLink(
      bob,
      `${hub().url}/hub/user-redirect/bookshelf/clone?s3_bucket=examples` +
        `&s3_key=${encodeURIComponent('reports/2026/q3.ipynb')}` +
        `&target_path=${encodeURIComponent(folder + '/')}`
    );
    const file = await fileOnDisk('bob', `${folder}/q3.ipynb`);
    const stored = await getObject('examples', 'reports/2026/q3.ipynb');
    expect(fs.readFileSync(file)).toEqual(stored!.body);
    // Nothing in the other user's tree.
    expect(fs.existsSync(path.join(hub().homes.ana, folder))).toBe(false);
    await bob.context().close();
  });

  test("Ana publishes below her own prefix, and Bob clones Ana's version from the link she copied", async ({
    browser,
    networkLog
  }) => {
    const name = `shared-${Date.now()}.ipynb`;
    // Above 16 MiB: uploaded in parts read as byte ranges of the saved
    // file, through the hub's proxy to Ana's server, which checks it.
    const text = largeNotebook(18 * 1024 * 1024, 'Ana’s shared report');
    fs.mkdirSync(hub().homes.ana, { recursive: true });
    fs.writeFileSync(path.join(hub().homes.ana, name), text);

    const ana = await logIn(browser, 'ana', networkLog);
    const notification = await publish(ana, name, 'ana');
    const stored = await getObject('published', `users/ana/${name}`);
    expect(stored!.body.equals(text)).toBe(true);
    const parts = Math.ceil(text.length / (8 * 1024 * 1024));
    expect((await headObject('published', `users/ana/${name}`))!.etag).toMatch(
      new RegExp(`^"[0-9a-f]{32}-${parts}"$`)
    );

    // The link's form is said next to it: a hub link.
    await clickInToast(notification, 'Copy Hub Link');
    await expect(
      notification.getByRole('button', { name: 'Hub Link Copied' })
    ).toBeVisible();
    const link = await ana.evaluate(() => navigator.clipboard.readText());
    expect(link).toBe(
      `${hub().url}/hub/user-redirect/bookshelf/clone?s3_bucket=published` +
        `&s3_key=${encodeURIComponent(`users/ana/${name}`)}` +
        `&s3_version_id=${encodeURIComponent(stored!.versionId!)}`
    );
    expect(link).not.toContain('/user/ana/');

    // A few MiB: checked by her server and put in one upload of the bytes
    // it checked, through the hub's proxy as well.
    const smaller = `smaller-${Date.now()}.ipynb`;
    const smallerText = largeNotebook(3 * 1024 * 1024, 'Ana’s summary');
    fs.writeFileSync(path.join(hub().homes.ana, smaller), smallerText);
    await publish(ana, smaller, 'ana');
    const smallerStored = await getObject('published', `users/ana/${smaller}`);
    expect(smallerStored!.body.equals(smallerText)).toBe(true);
    expect((await headObject('published', `users/ana/${smaller}`))!.etag).toBe(
      `"${createHash('md5').update(smallerText).digest('hex')}"`
    );

    const bob = await logIn(browser, 'bob', networkLog);
    const proposed = await cloneFromLink(bob, link);
    expect(path.basename(proposed)).toBe(name);
    const file = await fileOnDisk('bob', proposed);
    expect(fs.readFileSync(file).equals(text)).toBe(true);
    await ana.context().close();
    await bob.context().close();
  });

  test("a link to a missing object reads well in the opener's server", async ({
    browser,
    networkLog
  }) => {
    const bob = await logIn(browser, 'bob', networkLog);
    const key = `missing/${Date.now()}.ipynb`;
    await cloneFromLink(
      bob,
      `${hub().url}/hub/user-redirect/bookshelf/clone?s3_bucket=examples` +
        `&s3_key=${encodeURIComponent(key)}`
    );
    // The error names the object and what to check, in Bob's own Lab.
    const error = toast(bob, `There is no object s3://examples/${key}`);
    await expect(error).toBeVisible({ timeout: 30000 });
    await expect(error).toContainText('Check the key');
    expect(fs.existsSync(path.join(hub().homes.bob, path.basename(key)))).toBe(
      false
    );
    await bob.context().close();
  });

  test('after logging out and in again, a link still clones', async ({
    browser,
    networkLog
  }) => {
    const ana = await logIn(browser, 'ana', networkLog);
    await ana.goto(`${hub().url}/hub/logout`);
    await ana.waitForURL(/\/hub\/login/);
    await ana.locator('#username_input').fill('ana');
    await ana.locator('#password_input').fill(hub().password);
    await ana.locator('#login_submit').click();
    await ana.waitForURL(/\/user\/ana\/lab/, { timeout: 90000 });
    const folder = `again-${Date.now()}`;
    await cloneFromLink(
      ana,
      `${hub().url}/hub/user-redirect/bookshelf/clone?s3_bucket=examples` +
        `&s3_key=${encodeURIComponent('reports/2026/q3.ipynb')}` +
        `&target_path=${encodeURIComponent(folder + '/')}`
    );
    await fileOnDisk('ana', `${folder}/q3.ipynb`);
    await ana.context().close();
  });

  test('with the credentials the hub hands out, Bob publishes below his own prefix, and no key shows', async ({
    browser,
    networkLog
  }) => {
    // Bob's own settings: the endpoint mode, asking his server, which asks
    // the hub's credentials service with his hub token.
    const settingsFile = path.join(
      hub().homes.bob,
      '.jupyter/lab/user-settings/jupyterlab-bookshelf/core.jupyterlab-settings'
    );
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    fs.writeFileSync(
      settingsFile,
      JSON.stringify({
        credentials: {
          mode: 'endpoint',
          endpoint: 'api/bookshelf/credentials',
          accessKeyId: '',
          secretAccessKey: '',
          sessionToken: ''
        }
      })
    );
    try {
      const name = `hub-keys-${Date.now()}.ipynb`;
      const text = notebookText();
      fs.writeFileSync(path.join(hub().homes.bob, name), text);
      const bob = await logIn(browser, 'bob', networkLog);
      const urls: string[] = [];
      bob.on('request', request => urls.push(request.url()));
      const answer = await bob.evaluate(async () => {
        // As Lab's ServerConnection asks: with the XSRF token, which the
        // hub requires of cookie-authenticated API requests.
        const xsrf = document.cookie.match(/(?:^|; )_xsrf=([^;]*)/)?.[1] ?? '';
        const response = await fetch('api/bookshelf/credentials', {
          cache: 'no-store',
          headers: { 'X-XSRFToken': decodeURIComponent(xsrf) }
        });
        return { status: response.status, body: await response.json() };
      });
      // Temporary keys of STS, with their expiry.
      expect(answer.status).toBe(200);
      expect(answer.body.AccessKeyId).toMatch(/^ASIA/);
      expect(answer.body.SessionToken).toBeTruthy();
      expect(Date.parse(answer.body.Expiration)).toBeGreaterThan(Date.now());

      await publish(bob, name, 'bob');
      const stored = await getObject('published', `users/bob/${name}`);
      expect(stored!.body.toString('utf8')).toBe(text);

      // No key in a URL, in the page's storage or in the hub's log.
      const storage = await bob.evaluate(() =>
        JSON.stringify({ ...localStorage, ...sessionStorage })
      );
      for (const secret of [
        answer.body.AccessKeyId,
        answer.body.SecretAccessKey,
        answer.body.SessionToken
      ]) {
        expect(urls.some(url => url.includes(secret))).toBe(false);
        expect(storage).not.toContain(secret);
        expect(
          fs.readFileSync(
            path.join(hub().homes.bob, '..', '..', 'hub.log'),
            'utf8'
          )
        ).not.toContain(secret);
      }
      await bob.context().close();
    } finally {
      fs.rmSync(settingsFile);
    }
  });
});
