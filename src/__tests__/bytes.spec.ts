import { ByteCollector } from '../transfer/bytes';

const pieces = [
  new Uint8Array([1, 2, 3]),
  new Uint8Array([4]),
  new Uint8Array([5, 6])
];

describe('ByteCollector', () => {
  test.each([
    ['the exact size', 6],
    ['a size too small', 2],
    ['a size too large', 100],
    ['no size', undefined],
    ['a size that is no number', NaN]
  ])('gathers the pieces in order with %s', (_, hint) => {
    const collected = new ByteCollector(hint);
    for (const piece of pieces) {
      collected.add(piece);
    }
    expect(collected.length).toBe(6);
    expect(Array.from(collected.bytes())).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('answers its buffer itself when the size was exact', () => {
    const collected = new ByteCollector(4);
    collected.add(new Uint8Array([9, 8, 7, 6]));
    expect(collected.bytes()).toBe(collected.bytes());
    expect(collected.bytes().length).toBe(4);
  });

  it('is empty when nothing was added', () => {
    expect(new ByteCollector(10).bytes()).toEqual(new Uint8Array(0));
  });
});
