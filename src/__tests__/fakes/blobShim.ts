import { ReadableStream as WebReadableStream } from 'stream/web';
import { Buffer as NodeBuffer } from 'buffer';

/**
 * jsdom's Blob has no `arrayBuffer()`, which every browser JupyterLab runs
 * in has: read through jsdom's FileReader instead, as the browser answers.
 */
if (typeof Blob !== 'undefined' && !Blob.prototype.arrayBuffer) {
  Blob.prototype.arrayBuffer = function (this: Blob): Promise<ArrayBuffer> {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result as ArrayBuffer);
      reader.onerror = () => reject(reader.error);
      reader.readAsArrayBuffer(this);
    });
  };
}

/**
 * Nor `stream()`: the bytes in pieces of 64 KiB, as Chromium reads a Blob
 * (a web stream: jsdom has none, Node's is the same standard's).
 */
if (typeof Blob !== 'undefined' && !Blob.prototype.stream) {
  Blob.prototype.stream = function (this: Blob) {
    let offset = 0;
    return new WebReadableStream<Uint8Array>({
      pull: async controller => {
        if (offset >= this.size) {
          controller.close();
          return;
        }
        const piece = this.slice(offset, offset + 64 * 1024);
        offset += piece.size;
        controller.enqueue(new Uint8Array(await piece.arrayBuffer()));
      }
    });
  } as any;
}

/**
 * jsdom's `atob` and `btoa` are written in JavaScript, a character at a
 * time: the megabytes of a large clone through them took most of a test's
 * 22 s, mostly in garbage collection. Browsers' are native. The same results
 * and the same InvalidCharacterError here, through Node's Buffer; decoding
 * follows the HTML standard's forgiving-base64 (ASCII whitespace dropped, at
 * most two `=` at the end of a whole quantum).
 */
const BASE64_DIGITS = /^[+/0-9A-Za-z]*$/;

function invalidCharacter(message: string): DOMException {
  return new DOMException(message, 'InvalidCharacterError');
}

globalThis.atob = (data: string): string => {
  let text = String(data).replace(/[\t\n\f\r ]/g, '');
  if (text.length % 4 === 0) {
    text = text.replace(/={1,2}$/, '');
  }
  if (text.length % 4 === 1 || !BASE64_DIGITS.test(text)) {
    throw invalidCharacter(
      'The string to be decoded is not correctly encoded.'
    );
  }
  return NodeBuffer.from(text, 'base64').toString('latin1');
};

globalThis.btoa = (data: string): string => {
  const text = String(data);
  // eslint-disable-next-line no-control-regex
  if (/[^\u0000-\u00ff]/.test(text)) {
    throw invalidCharacter('The string contains characters outside Latin1.');
  }
  return NodeBuffer.from(text, 'latin1').toString('base64');
};
