/**
 * Page objects: the extension's dialogs, its notifications and its info
 * panel, located once for every spec, in JupyterLab and Notebook 7 alike.
 * A spec says what a person does ("clone from the dialog"); how the page
 * shows it lives here, so that a change of markup is one change.
 */
import { expect } from '@jupyterlab/galata';
import type { Locator, Page } from '@playwright/test';

import { COMMAND_LOG_PREFIX } from './fixtures';

/**
 * Run a command of the page's application without waiting for it: a
 * command that opens a dialog resolves only when the dialog closes.
 */
export async function startCommand(
  page: Page,
  id: string,
  args: object = {}
): Promise<void> {
  await page.evaluate(
    ({ id, args, prefix }) => {
      // Not awaited (a command with a dialog ends when the dialog does); its
      // end or failure goes to the console, which the network log records.
      console.info(`${prefix} ${id} started`);
      (window as any).jupyterapp.commands.execute(id, args).then(
        () => console.info(`${prefix} ${id} ended`),
        (error: any) =>
          console.error(`${prefix} ${id} failed: ${error?.stack ?? error}`)
      );
    },
    { id, args, prefix: COMMAND_LOG_PREFIX }
  );
}

/** The clone dialog. */
export function cloneDialog(page: Page): Locator {
  return page.locator('.jp-Dialog', { hasText: 'Clone from S3' });
}

/** The publish dialog. */
export function publishDialog(page: Page): Locator {
  return page.locator('.jp-Dialog', { hasText: 'Publish Notebook' });
}

/**
 * After the publish command: when the notebook is open with changes not
 * saved, publish its saved version, as a person who changed nothing does;
 * then the publish dialog is there. Lite marks an open notebook changed
 * once a kernel is chosen; a hub user's Lab once did so for a clone it had
 * just opened, under load, with no edit (not reproduced alone).
 */
export async function publishSavedVersionIfAsked(page: Page): Promise<void> {
  const unsaved = page.locator('.jp-Dialog', { hasText: 'Unsaved changes' });
  await expect(unsaved.or(publishDialog(page))).toBeVisible({
    timeout: 30000
  });
  if (await unsaved.isVisible()) {
    await unsaved
      .getByRole('button', { name: 'Publish Saved Version' })
      .click();
  }
  await expect(publishDialog(page)).toBeVisible({ timeout: 30000 });
}

/**
 * In the publish dialog, once it has looked at the destination and found
 * nothing there (`new`) or an object (`exists`), click Publish or Replace.
 */
export async function confirmPublish(
  page: Page,
  found: 'new' | 'exists'
): Promise<void> {
  const dialog = publishDialog(page);
  await expect(
    dialog.locator(`.jp-Bookshelf-publish-status[data-state="${found}"]`)
  ).toBeVisible();
  await dialog
    .getByRole('button', { name: found === 'new' ? 'Publish' : 'Replace' })
    .click();
}

/**
 * Right-click a file in the file browser's listing, then Publish: as a
 * person publishes a saved notebook.
 */
export async function publishFromContextMenu(
  page: Page,
  name: string
): Promise<void> {
  await page
    .locator('.jp-DirListing-item', { hasText: name })
    .first()
    .click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Publish', exact: true }).click();
}

/** A notification shown as a toast, by some of its words. */
export function toast(page: Page, text: string | RegExp): Locator {
  return page.locator('.Toastify__toast', { hasText: text });
}

/**
 * Click the button `name` of a toast once the toast has stopped moving in:
 * a click during its entrance animation was once taken by the toast, not
 * the button. Endless animations (none today) are not waited for, nor
 * those cancelled meanwhile.
 */
export async function clickInToast(
  notification: Locator,
  name: string
): Promise<void> {
  const button = notification.getByRole('button', { name });
  await expect(button).toBeVisible();
  await notification.evaluate(element =>
    Promise.all(
      element
        .getAnimations({ subtree: true })
        .filter(animation =>
          Number.isFinite(Number(animation.effect?.getComputedTiming().endTime))
        )
        // (Cancelled, as when the toast is updated: it rejects.)
        .map(animation => animation.finished.catch(() => undefined))
    )
  );
  await button.click();
}

/**
 * The clone dialog, prefilled with `request`, then its Clone button: as a
 * person clones.
 */
export async function cloneInDialog(
  page: Page,
  request: { s3_bucket: string; s3_key: string; target_path?: string }
): Promise<void> {
  await startCommand(page, 'bookshelf:clone', request);
  const dialog = cloneDialog(page);
  const clone = dialog.getByRole('button', { name: 'Clone' });
  await expect(clone).toBeEnabled();
  await clone.click();
  await expect(dialog).toHaveCount(0);
}

/**
 * Open a page of JupyterLab (a Lite site's, or one behind a proxy) at
 * `url`, and wait until its main area is there.
 */
export async function openApp(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('#jp-main-dock-panel').waitFor({ timeout: 60000 });
}

/**
 * Follow a clone link as a person's click does (Galata's goto expects an
 * application page), to the page at `landsAt`; resolves to its clone
 * dialog, once shown.
 */
export async function followCloneLink(
  page: Page,
  url: string,
  landsAt: RegExp
): Promise<Locator> {
  await page.evaluate(url => window.location.assign(url), url);
  await page.waitForURL(landsAt);
  const dialog = cloneDialog(page);
  await expect(dialog).toBeVisible({ timeout: 30000 });
  return dialog;
}

/**
 * The open clone dialog's Clone button, then the notification that
 * `source` (s3://bucket/key) was cloned to `path`.
 */
export async function confirmClone(
  page: Page,
  source: string,
  path: string
): Promise<void> {
  await cloneDialog(page).getByRole('button', { name: 'Clone' }).click();
  await expect(toast(page, `Cloned ${source} to ${path}`)).toBeVisible({
    timeout: 30000
  });
}

/**
 * The publish dialog for `path`, then its accept button ("Publish", or
 * "Replace" when the object exists) once it knows what S3 holds.
 */
export async function publishInDialog(page: Page, path: string): Promise<void> {
  await startCommand(page, 'bookshelf:publish', { path });
  const dialog = publishDialog(page);
  const accept = dialog.locator('.jp-Dialog-button.jp-mod-accept');
  await expect(
    dialog.locator('.jp-Bookshelf-publish-status[data-state]')
  ).toBeVisible();
  await expect(accept).toBeEnabled();
  await accept.click();
  await expect(dialog).toHaveCount(0);
}

/**
 * Open the Details of an error notification; resolves to the dialog that
 * shows them (the whole message: Lab shortens long notifications).
 */
export async function openErrorDetails(
  page: Page,
  notification: Locator
): Promise<Locator> {
  await clickInToast(notification, 'Show Details');
  const dialog = page.locator('.jp-Dialog');
  await expect(dialog.locator('.jp-Bookshelf-errorDetails')).toBeVisible();
  return dialog;
}

/**
 * The whole text behind the Details of the notification with `text`; the
 * dialog is closed again.
 */
export async function errorDetails(
  page: Page,
  text: string | RegExp
): Promise<string> {
  const dialog = await openErrorDetails(page, toast(page, text));
  const whole = (await dialog.locator('.jp-Dialog-content').innerText()).trim();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toHaveCount(0);
  return whole;
}

/** One check of the info panel, by its id. */
export function infoCheck(panel: Locator, id: string): Locator {
  return panel.locator(`[data-check="${id}"]`);
}

/** Every check of the info panel and its state (pass, fail, …). */
export async function infoStates(
  panel: Locator
): Promise<{ [id: string]: string }> {
  const result: { [id: string]: string } = {};
  for (const item of await panel.locator('[data-check]').all()) {
    result[(await item.getAttribute('data-check'))!] =
      (await item.getAttribute('data-state'))!;
  }
  return result;
}

/**
 * Open the info panel and wait until its checks are done.
 */
export async function openInfoPanel(page: Page): Promise<Locator> {
  await startCommand(page, 'bookshelf:info');
  const panel = page.locator('.jp-Bookshelf-infoPanel');
  await expect(infoCheck(panel, 'versioning')).toBeVisible({
    timeout: 30000
  });
  await expect(panel.locator('.jp-Bookshelf-info-checks')).toHaveAttribute(
    'aria-busy',
    'false'
  );
  return panel;
}
