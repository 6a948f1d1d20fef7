/**
 * The Bookshelf settings in JupyterLab's Settings Editor, as a user or an
 * administrator reads them: the secrets of the `settings` credentials mode
 * are password fields.
 */
import { expect, test } from './fixtures';

import { coreSettings } from './helpers';

const SECRET = 'secret-EDITOR-4k8Zq';
const TOKEN = 'token-EDITOR-2m7Hx';

test.use({
  mockSettings: coreSettings({
    credentials: {
      mode: 'settings',
      accessKeyId: 'AKIDEDITORTEST',
      secretAccessKey: SECRET,
      sessionToken: TOKEN,
      endpoint: ''
    }
  })
});

test('the secret access key and the session token are password fields', async ({
  page
}) => {
  await page.evaluate(() =>
    (window as any).jupyterapp.commands.execute('settingeditor:open', {
      query: 'Bookshelf'
    })
  );
  const field = (name: string) =>
    page.locator(`input[id$="jupyterlab-bookshelf:core_credentials_${name}"]`);
  await expect(field('secretAccessKey')).toBeVisible({ timeout: 30000 });
  await expect(field('secretAccessKey')).toHaveAttribute('type', 'password');
  await expect(field('sessionToken')).toHaveAttribute('type', 'password');
  await expect(field('accessKeyId')).toHaveAttribute('type', 'text');
  await expect(field('accessKeyId')).toHaveValue('AKIDEDITORTEST');
  // The values are there to edit, never shown as text.
  await expect(field('secretAccessKey')).toHaveValue(SECRET);
  const shown = await page.locator('.jp-SettingsPanel').innerText();
  expect(shown).not.toContain(SECRET);
  expect(shown).not.toContain(TOKEN);
  expect(shown).toContain('can read it there');
});
