import { screen, waitFor } from '@testing-library/react';

/**
 * JupyterLab's dialog once shown, with `title` as its first text.
 * JupyterLab shows its <dialog> element by CSS, not with showModal();
 * jsdom's own style sheet hides a dialog without `open`, which would hide
 * its contents from the queries by role.
 */
export async function shownDialog(title: string): Promise<HTMLElement> {
  const node = await waitFor(() => {
    const found = document.querySelector<HTMLElement>('dialog.jp-Dialog');
    if (!found) {
      throw new Error('no dialog yet');
    }
    return found;
  });
  node.setAttribute('open', '');
  // JupyterLab's dialog has no accessible name: its title is text.
  const dialog = screen.getByRole('dialog');
  if (!dialog.textContent?.startsWith(title)) {
    throw new Error(`The dialog shown is not "${title}"`);
  }
  return dialog;
}
