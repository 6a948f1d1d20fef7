import { ReadableStream as WebReadableStream } from 'stream/web';

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
