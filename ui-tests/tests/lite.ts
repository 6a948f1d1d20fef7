/**
 * A JupyterLite site's storage as the tests read it, and what they do
 * there in more than one place.
 */
import type { Browser, Page } from '@playwright/test';

import { expect } from './fixtures';
import {
  callBookshelf,
  cloneNames,
  notebookText,
  putObject,
  uid
} from './helpers';
import { openApp } from './pages';

/** A file's text in the Lite site's storage; null when there is none. */
export async function liteFile(
  page: Page,
  path: string
): Promise<string | null> {
  return page.evaluate(async path => {
    try {
      const model = await (
        window as any
      ).jupyterapp.serviceManager.contents.get(path, {
        content: true,
        type: 'file',
        format: 'text'
      });
      return model.content as string;
    } catch {
      return null;
    }
  }, path);
}

/** A file's bytes in the Lite site's storage, as base64. */
export async function liteBase64(page: Page, path: string): Promise<string> {
  return page.evaluate(async path => {
    const model = await (window as any).jupyterapp.serviceManager.contents.get(
      path,
      { content: true, type: 'file', format: 'base64' }
    );
    return (model.content as string).replace(/\s/g, '');
  }, path);
}

/** The names in a folder of the Lite site's storage, sorted. */
export async function liteFolder(
  page: Page,
  folder: string
): Promise<string[]> {
  return page.evaluate(async folder => {
    const model = await (window as any).jupyterapp.serviceManager.contents.get(
      folder,
      { content: true }
    );
    return (model.content as { name: string }[]).map(item => item.name).sort();
  }, folder);
}

/**
 * Two tabs of the Lite site at `site` clone one key three times each at
 * once, in each of `rounds` folders: six files with names of their own,
 * each the object. Both tabs keep their files in the same browser storage,
 * whose rename replaces what is there without a word: only the folder's
 * lock, shared by the tabs, keeps one clone from landing on another.
 */
export async function expectTabsCloneWithoutLoss(
  browser: Browser,
  site: string,
  rounds = 1
): Promise<void> {
  const context = await browser.newContext();
  try {
    const tabs = [await context.newPage(), await context.newPage()];
    for (const tab of tabs) {
      await openApp(tab, `${site}/lab/index.html`);
    }
    for (let round = 0; round < rounds; round++) {
      const folder = `lite-race-${uid()}`;
      const key = `${folder}/q3.ipynb`;
      const text = notebookText([
        { cell_type: 'markdown', metadata: {}, source: [`# Q3, ${round}`] }
      ]);
      await putObject('examples', key, text, 'application/x-ipynb+json');
      await tabs[0].evaluate(
        folder =>
          (window as any).jupyterapp.serviceManager.contents.save(folder, {
            type: 'directory'
          }),
        folder
      );
      const cloneThrice = (tab: Page) =>
        Promise.all(
          [0, 1, 2].map(() =>
            callBookshelf<any>(tab, 'clone', {
              s3_bucket: 'examples',
              s3_key: key,
              target_path: `${folder}/`
            })
          )
        );
      const models = (await Promise.all(tabs.map(cloneThrice))).flat();
      const paths = models.map(model => model.path).sort();
      expect(new Set(paths).size).toBe(6);
      expect(await liteFolder(tabs[1], folder)).toEqual(
        cloneNames('q3', '.ipynb', 6)
      );
      for (const path of paths) {
        expect(await liteFile(tabs[0], path)).toBe(text);
      }
    }
  } finally {
    await context.close();
  }
}
