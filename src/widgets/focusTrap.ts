import { ReactWidget } from '@jupyterlab/apputils';
import type { Message } from '@lumino/messaging';

/**
 * What Tab can reach.
 */
const FOCUSABLE = [
  'a[href]',
  'button',
  'input:not([type="hidden"])',
  'select',
  'textarea',
  '[tabindex]'
].join(',');

/**
 * The elements Tab reaches in `node`, in order.
 */
export function tabStops(node: HTMLElement): HTMLElement[] {
  return Array.from(node.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    element =>
      !(element as HTMLButtonElement).disabled &&
      element.tabIndex >= 0 &&
      !element.closest('[hidden], [inert]')
  );
}

/**
 * Keep Tab and Shift+Tab inside a dialog: from its last stop Tab goes to
 * its first, from its first Shift+Tab to its last. JupyterLab's Dialog
 * wraps only a Tab on its last button (our Clone, often disabled, so never)
 * and otherwise lets the focus leave, to pull it back to the first field:
 * Shift+Tab on the first field went out to the page behind, which may act
 * on the focus (the shell activates what gets it). Returns the function
 * that removes the trap.
 */
export function trapFocus(node: HTMLElement): () => void {
  const onKeydown = (event: KeyboardEvent) => {
    if (event.key !== 'Tab' || event.defaultPrevented) {
      return;
    }
    const stops = tabStops(node);
    if (stops.length === 0) {
      return;
    }
    const first = stops[0];
    const last = stops[stops.length - 1];
    const active = document.activeElement as HTMLElement | null;
    const outside = !active || !node.contains(active);
    let next: HTMLElement | null = null;
    if (event.shiftKey && (outside || active === first)) {
      next = last;
    } else if (!event.shiftKey && (outside || active === last)) {
      next = first;
    }
    if (next) {
      event.preventDefault();
      event.stopPropagation();
      next.focus();
    }
  };
  node.addEventListener('keydown', onKeydown, true);
  return () => node.removeEventListener('keydown', onKeydown, true);
}

/**
 * The body of a dialog that keeps Tab and Shift+Tab inside the dialog
 * while it is shown.
 */
export abstract class FocusTrappingBody extends ReactWidget {
  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    const dialog = this.node.closest<HTMLElement>('.jp-Dialog');
    if (dialog) {
      this._releaseFocus = trapFocus(dialog);
    }
  }

  protected onBeforeDetach(msg: Message): void {
    this._releaseFocus?.();
    this._releaseFocus = null;
    super.onBeforeDetach(msg);
  }

  private _releaseFocus: (() => void) | null = null;
}
