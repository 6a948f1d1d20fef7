import { Clipboard } from '@jupyterlab/apputils';
import { Button } from '@jupyterlab/ui-components';
import * as React from 'react';

/**
 * How long the button says it copied, in milliseconds.
 */
export const COPIED_FOR_MS = 3000;

/**
 * Properties of a copy button.
 */
export interface ICopyButtonProps {
  /** The text copied. */
  text: string;
  /** The button's label, such as "Copy Rule". */
  label: string;
  /** Its label once it has copied, such as "Rule Copied". */
  copiedLabel: string;
}

/**
 * A button that copies a text to the system clipboard and says so for a
 * while, as the person cannot see the clipboard.
 *
 * Copies with Lab's `Clipboard.copyToSystem` (the browser's copy command),
 * not `navigator.clipboard`: that is missing where the page is not a secure
 * context, as for a Jupyter server reached over plain HTTP by its network
 * address, where the button did nothing.
 */
export function CopyButton(props: ICopyButtonProps): JSX.Element {
  const [copied, setCopied] = React.useState(false);
  React.useEffect(() => {
    if (!copied) {
      return;
    }
    const timer = window.setTimeout(() => setCopied(false), COPIED_FOR_MS);
    return () => window.clearTimeout(timer);
  }, [copied]);
  // Another text: the label that it was copied no longer holds.
  React.useEffect(() => setCopied(false), [props.text]);
  return (
    <Button
      className="jp-mod-styled"
      onClick={() => {
        Clipboard.copyToSystem(props.text);
        setCopied(true);
      }}
    >
      {copied ? props.copiedLabel : props.label}
    </Button>
  );
}
