/**
 * A real JupyterHub of the UI tests (scripts/hub_fixture.py, started by
 * scripts/serve.py): its users, each in a browser of their own, their
 * homes, and what they do there as a person does.
 */
import type { Browser, Page } from '@playwright/test';
import * as fs from 'fs';
import * as path from 'path';

import { expect, NetworkLog } from './fixtures';
import { startedPart } from './helpers';
import {
  cloneDialog,
  publishDialog,
  publishSavedVersionIfAsked,
  startCommand,
  toast
} from './pages';

export function hub() {
  return startedPart('hub', 'JupyterHub (--hub-port)');
}

/**
 * Log a user in, in a browser of their own, and wait for their Lab; by
 * `origin`, the hub's own (127.0.0.1) by default.
 */
export async function logIn(
  browser: Browser,
  user: string,
  networkLog: NetworkLog,
  origin = hub().url
): Promise<Page> {
  const context = await browser.newContext();
  networkLog.watch(context, user);
  if (origin === hub().url) {
    // (Granted to secure contexts only.)
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  }
  const page = await context.newPage();
  await page.goto(`${origin}/hub/login`);
  await page.locator('#username_input').fill(user);
  await page.locator('#password_input').fill(hub().password);
  await page.locator('#login_submit').click();
  // The hub spawns the user's server on first login.
  await page.waitForURL(new RegExp(`/user/${user}/lab`), { timeout: 90000 });
  await page.locator('#jp-main-dock-panel').waitFor({ timeout: 60000 });
  // Lab is ready once it has restored the user's workspace (their open
  // notebooks start their kernels meanwhile), as a person waits for it; the
  // tab is the one in front, as theirs is.
  await page.waitForFunction(() => (window as any).jupyterapp, undefined, {
    timeout: 60000
  });
  await page.evaluate(() => (window as any).jupyterapp.restored);
  // And once the documents it restored are open (their files read, their
  // kernels started), as a person sees them. Until then the user's server
  // is busy reading the notebooks Bob cloned before (18 MiB each) on its one
  // event loop: on a loaded machine Lab's own chunks took 14 s to come, and
  // a publish started then waited as long for its code, past the dialog's
  // wait (2026-11-29, reproduced with both cores busy).
  await page.evaluate(async () => {
    const shell = (window as any).jupyterapp.shell;
    const widgets = Array.from(shell.widgets('main')) as any[];
    await Promise.all(
      widgets.map(widget =>
        Promise.all([widget.context?.ready, widget.sessionContext?.ready])
      )
    );
  });
  await page.bringToFront();
  return page;
}

/**
 * The path of a file in the user's home, once it exists (the clone ends
 * after the dialog closes).
 */
export async function fileOnDisk(
  user: string,
  relative: string
): Promise<string> {
  const file = path.join(hub().homes[user], relative);
  await expect.poll(() => fs.existsSync(file), { timeout: 30000 }).toBe(true);
  return file;
}

/**
 * Open a link as a person would, and clone from the dialog it opens;
 * resolves to the path the dialog proposed (a link without target_path
 * proposes the folder the user's file browser shows).
 */
export async function cloneFromLink(page: Page, link: string): Promise<string> {
  await page.goto(link);
  const dialog = cloneDialog(page);
  await expect(dialog).toBeVisible({ timeout: 60000 });
  const folder = await dialog.locator('input[name="folder"]').inputValue();
  const name = await dialog.locator('input[name="name"]').inputValue();
  await dialog.getByRole('button', { name: 'Clone', exact: true }).click();
  await expect(dialog).toBeHidden();
  return folder ? `${folder}/${name}` : name;
}

/**
 * Publish a notebook of the user's tree from the publish dialog, and wait
 * for the notification of the result (returned).
 */
export async function publish(page: Page, name: string, user: string) {
  // Not awaited: the command ends when the publish does.
  await startCommand(page, 'bookshelf:publish', { path: name });
  // A notebook the user has open (a clone) may be marked changed.
  await publishSavedVersionIfAsked(page);
  const dialog = publishDialog(page);
  // The destination shows the user's own prefix, {username} filled in.
  await expect(dialog).toContainText(`s3://published/users/${user}/`);
  await expect(dialog.locator('input[name="destination"]')).toHaveValue(name);
  await dialog.getByRole('button', { name: 'Publish' }).click();
  const notification = toast(page, 'Published version').filter({
    hasText: name
  });
  await expect(notification).toBeVisible({ timeout: 60000 });
  return notification;
}
