import { readResponse } from '../service/savedFile';

/**
 * A response whose body arrives in the given pieces, as fetch's does.
 */
function response(pieces: Uint8Array[], contentLength?: number): Response {
  let index = 0;
  return {
    headers: new Headers(
      contentLength === undefined
        ? {}
        : { 'Content-Length': String(contentLength) }
    ),
    body: {
      getReader: () => ({
        read: async () =>
          index < pieces.length
            ? { done: false, value: pieces[index++] }
            : { done: true, value: undefined }
      })
    },
    arrayBuffer: async () => {
      const all = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
      let offset = 0;
      for (const piece of pieces) {
        all.set(piece, offset);
        offset += piece.length;
      }
      return all.buffer;
    }
  } as unknown as Response;
}

const pieces = [
  new Uint8Array([1, 2, 3]),
  new Uint8Array([4]),
  new Uint8Array(70000).fill(5),
  new Uint8Array([6, 7])
];
const whole = [1, 2, 3, 4, ...new Array(70000).fill(5), 6, 7];

describe('readResponse', () => {
  it.each([
    ['the announced length', whole.length],
    ['no length', undefined],
    ['a length too small (a compressed body)', 10],
    ['a length too large', whole.length + 100]
  ])('joins the pieces in order with %s', async (_, length) => {
    const seen: number[] = [];
    const bytes = await readResponse(response(pieces, length), chunk =>
      seen.push(...chunk)
    );
    expect(Array.from(bytes)).toEqual(whole);
    expect(seen).toEqual(whole);
  });

  it('reads the body whole without a callback', async () => {
    const bytes = await readResponse(response(pieces, whole.length));
    expect(Array.from(bytes)).toEqual(whole);
  });
});
