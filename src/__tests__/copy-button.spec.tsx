/**
 * The copy button: copies with the browser's copy command (Lab's
 * Clipboard.copyToSystem), which works where `navigator.clipboard` is
 * missing, and says so for a while.
 */
import '@testing-library/jest-dom';
import { act, render, screen } from '@testing-library/react';
import * as React from 'react';

import { COPIED_FOR_MS, CopyButton } from '../widgets/CopyButton';

/**
 * jsdom has no copy command: this one does what the browser's does, a
 * `copy` event at what is selected (Lab selects the body's contents first)
 * whose clipboardData the listeners fill; what they set is "the
 * clipboard". Lab's test shim replaces Range with a stub that cannot
 * select, so selecting is recorded here, without a Selection.
 */
function installCopyCommand(): { clipboard: () => string | null } {
  let clipboard: string | null = null;
  let selected: Node | null = null;
  jest.spyOn(window, 'getSelection').mockReturnValue(null);
  Object.defineProperty(document, 'createRange', {
    configurable: true,
    value: () => ({ selectNodeContents: (node: Node) => (selected = node) })
  });
  Object.defineProperty(document, 'execCommand', {
    configurable: true,
    value: (command: string) => {
      if (command !== 'copy' || !selected) {
        return false;
      }
      const data = new Map<string, string>();
      const event = new Event('copy', { bubbles: true, cancelable: true });
      Object.defineProperty(event, 'clipboardData', {
        value: {
          setData: (type: string, value: string) => data.set(type, value)
        }
      });
      selected.dispatchEvent(event);
      if (event.defaultPrevented) {
        clipboard = data.get('text') ?? data.get('text/plain') ?? null;
      }
      return true;
    }
  });
  return { clipboard: () => clipboard };
}

describe('CopyButton', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('copies its text without navigator.clipboard, and says it did for a while', () => {
    expect(navigator.clipboard).toBeUndefined(); // as outside a secure context
    const { clipboard } = installCopyCommand();
    render(
      <CopyButton text="{ rule }" label="Copy Rule" copiedLabel="Rule Copied" />
    );
    act(() => screen.getByRole('button', { name: 'Copy Rule' }).click());
    expect(clipboard()).toBe('{ rule }');
    expect(screen.getByRole('button')).toHaveTextContent('Rule Copied');
    act(() => jest.advanceTimersByTime(COPIED_FOR_MS - 1));
    expect(screen.getByRole('button')).toHaveTextContent('Rule Copied');
    act(() => jest.advanceTimersByTime(1));
    expect(screen.getByRole('button')).toHaveTextContent('Copy Rule');
  });

  it('no longer says it copied once its text changes', () => {
    installCopyCommand();
    const { rerender } = render(
      <CopyButton text="first" label="Copy" copiedLabel="Copied" />
    );
    act(() => screen.getByRole('button').click());
    expect(screen.getByRole('button')).toHaveTextContent('Copied');
    rerender(<CopyButton text="second" label="Copy" copiedLabel="Copied" />);
    expect(screen.getByRole('button')).toHaveTextContent('Copy');
  });
});
