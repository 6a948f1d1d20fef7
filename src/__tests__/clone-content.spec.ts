import {
  bytesToBase64,
  checkSize,
  classifyObject,
  jsonDepth,
  sizeLimitBytes,
  utf8Text
} from '../clone/content';
import { BookshelfError } from '../errors/errors';
import { bytesEqual, notebookText, randomBytes, utf8 } from './fakes/bytes';

/** Classify as a clone does, with the notebook check it runs later. */
function classifyAndCheck(name: string, bytes: Uint8Array) {
  const result = classifyObject(name, bytes);
  result.check?.();
  return result;
}

function notANotebookMessage(text: string): string {
  try {
    classifyAndCheck('q3.ipynb', utf8(text));
  } catch (error) {
    expect(error).toBeInstanceOf(BookshelfError);
    expect((error as BookshelfError).code).toBe('NotANotebook');
    return (error as BookshelfError).message;
  }
  throw new Error('The content was accepted as a notebook');
}

describe('classifyObject', () => {
  it('keeps a notebook byte for byte, as text', () => {
    // Unusual spacing and key order that a parse and stringify would lose.
    const text =
      '{ "nbformat_minor": 5,\r\n  "cells": [],  "metadata": {"a": 1.50},\r\n "nbformat": 4 }';
    const bytes = utf8(text);
    const result = classifyAndCheck('q3.ipynb', bytes);
    expect(result.kind).toBe('notebook');
    expect(result.format).toBe('text');
    expect(bytesEqual(result.bytes, bytes)).toBe(true);
  });

  // Notebooks of every era Jupyter opens: version 3 (converted by Jupyter
  // when it reads it) and 4.0-4.5 (cell ids only from 4.5).
  test.each([
    [
      '3.0',
      {
        nbformat: 3,
        nbformat_minor: 0,
        metadata: { name: 'old' },
        worksheets: [
          {
            metadata: {},
            cells: [
              {
                cell_type: 'code',
                language: 'python',
                input: ['1 + 1'],
                outputs: [],
                prompt_number: 1
              }
            ]
          }
        ]
      }
    ],
    ['4.0', { nbformat: 4, nbformat_minor: 0, metadata: {}, cells: [] }],
    [
      '4.4',
      {
        nbformat: 4,
        nbformat_minor: 4,
        metadata: {},
        cells: [{ cell_type: 'markdown', metadata: {}, source: '# a' }]
      }
    ],
    [
      '4.5',
      {
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {},
        cells: [{ cell_type: 'raw', id: 'a1', metadata: {}, source: '' }]
      }
    ]
  ])('accepts an nbformat %s notebook byte for byte', (_, notebook) => {
    const bytes = utf8(JSON.stringify(notebook, null, 1));
    const result = classifyAndCheck('old.ipynb', bytes);
    expect(result.kind).toBe('notebook');
    expect(bytesEqual(result.bytes, bytes)).toBe(true);
  });

  it('refuses a version 3 notebook for JupyterLite, which nothing converts there, and says what to do', () => {
    const v3 = utf8(
      JSON.stringify({
        nbformat: 3,
        nbformat_minor: 0,
        metadata: {},
        worksheets: [{ metadata: {}, cells: [] }]
      })
    );
    const v4 = utf8(notebookText());
    const v5 = utf8(
      JSON.stringify({
        nbformat: 5,
        nbformat_minor: 0,
        metadata: {},
        cells: []
      })
    );
    const refusal = (bytes: Uint8Array) => {
      try {
        classifyObject('q3.ipynb', bytes, undefined, 'clone-lite').check?.();
      } catch (error) {
        expect((error as BookshelfError).code).toBe('NotANotebook');
        return (error as BookshelfError).message;
      }
      return null;
    };
    expect(refusal(v3)).toBe(
      "The object is not a Jupyter notebook: 'nbformat' is 3, and JupyterLite opens only version 4 notebooks (a Jupyter server converts version 3 when it opens one; JupyterLite would show it empty). Convert it with 'jupyter nbconvert --to notebook --nbformat 4', or clone it into JupyterLab or Jupyter Notebook with a Jupyter server."
    );
    expect(refusal(v5)).toBe(
      "The object is not a Jupyter notebook: 'nbformat' is 5; only version 4 notebooks can be cloned into JupyterLite."
    );
    expect(refusal(v4)).toBeNull();
    // Into a Jupyter server's file tree, version 3 is cloned as it is.
    expect(() => classifyObject('q3.ipynb', v3).check?.()).not.toThrow();
  });

  it('drops a byte order mark before a notebook, which Jupyter cannot read', () => {
    const text = notebookText();
    const bytes = utf8(`\ufeff${text}`);
    const result = classifyObject('q3.ipynb', bytes);
    expect(bytesEqual(result.bytes, utf8(text))).toBe(true);
  });

  test.each([
    ['cells', { nbformat: 4, nbformat_minor: 5, metadata: {} }],
    ['metadata', { nbformat: 4, nbformat_minor: 5, cells: [] }],
    ['nbformat', { nbformat_minor: 5, metadata: {}, cells: [] }],
    ['nbformat_minor', { nbformat: 4, metadata: {}, cells: [] }]
  ])("names a missing '%s'", (field, notebook) => {
    expect(notANotebookMessage(JSON.stringify(notebook))).toBe(
      `The object is not a Jupyter notebook: '${field}' is missing.`
    );
  });

  test.each([
    [
      'nbformat 2',
      { nbformat: 2, nbformat_minor: 0, metadata: {}, worksheets: [] },
      "'nbformat' is 2; only version 3 and 4 notebooks can be cloned."
    ],
    [
      'nbformat 3 without worksheets',
      { nbformat: 3, nbformat_minor: 0, metadata: {}, cells: [] },
      "'worksheets' is missing."
    ],
    [
      'nbformat 3 with a worksheet without cells',
      { nbformat: 3, nbformat_minor: 0, metadata: {}, worksheets: [{}] },
      "'worksheets' is not a list of worksheets with cells."
    ],
    [
      'nbformat 3 whose worksheets are no list',
      { nbformat: 3, nbformat_minor: 0, metadata: {}, worksheets: {} },
      "'worksheets' is not a list of worksheets with cells."
    ],
    [
      "nbformat '4'",
      { nbformat: '4', nbformat_minor: 5, metadata: {}, cells: [] },
      '\'nbformat\' is "4"'
    ],
    [
      'a fractional nbformat_minor',
      { nbformat: 4, nbformat_minor: 5.5, metadata: {}, cells: [] },
      "'nbformat_minor' is not an integer."
    ],
    [
      'list metadata',
      { nbformat: 4, nbformat_minor: 5, metadata: [], cells: [] },
      "'metadata' is not an object."
    ],
    [
      'null metadata',
      { nbformat: 4, nbformat_minor: 5, metadata: null, cells: [] },
      "'metadata' is not an object."
    ],
    [
      'object cells',
      { nbformat: 4, nbformat_minor: 5, metadata: {}, cells: {} },
      "'cells' is not a list."
    ],
    ['a JSON list', [], 'it is JSON, but not an object.'],
    ['a JSON string', 'abc', 'it is JSON, but not an object.']
  ])('refuses %s', (_, value, reason) => {
    expect(notANotebookMessage(JSON.stringify(value))).toContain(reason);
  });

  it('refuses invalid JSON without quoting the content', () => {
    const secretLooking = 'x'.repeat(5000);
    const message = notANotebookMessage(`{"cells": [${secretLooking}`);
    expect(message).toMatch(
      /^The object is not a Jupyter notebook: it is not valid JSON/
    );
    expect(message).not.toContain('xxx');
    expect(message.length).toBeLessThan(120);
  });

  it('refuses a notebook that is not UTF-8', () => {
    const bytes = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
    expect(() => classifyObject('q3.ipynb', bytes)).toThrow(
      'The object is not a Jupyter notebook: it is not UTF-8 text.'
    );
  });

  it('refuses an empty notebook', () => {
    expect(notANotebookMessage('')).toContain('not valid JSON');
  });

  it('checks notebooks by the target name, not the content', () => {
    const text = notebookText();
    expect(classifyObject('q3.json', utf8(text)).kind).toBe('text');
    expect(() => classifyAndCheck('q3.ipynb', utf8('hello'))).toThrow(
      BookshelfError
    );
    expect(classifyAndCheck('q3.ipynb', utf8(text)).kind).toBe('notebook');
  });

  test.each([
    ['ASCII text', utf8('a,b\n1,2\n'), 'text'],
    ['UTF-8 text', utf8('Grüße, 世界 😀\n'), 'text'],
    ['text with a byte order mark', utf8('\ufeffbom'), 'text'],
    ['an empty file', new Uint8Array(0), 'text'],
    ['bytes with NUL', utf8('a\u0000b'), 'binary'],
    ['invalid UTF-8', new Uint8Array([0x61, 0xc3, 0x28]), 'binary'],
    ['a truncated UTF-8 character', new Uint8Array([0xe2, 0x82]), 'binary'],
    [
      'a PNG header',
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10]),
      'binary'
    ],
    ['random bytes', randomBytes(4096), 'binary']
  ])('saves %s as %s', (_, bytes, kind) => {
    const result = classifyObject('data.bin', bytes);
    expect(result.kind).toBe(kind);
    expect(result.format).toBe(kind === 'text' ? 'text' : 'base64');
    expect(bytesEqual(result.bytes, bytes)).toBe(true);
  });

  it('utf8Text agrees', () => {
    expect(utf8Text(utf8('plain'))).toBe('plain');
    expect(utf8Text(new Uint8Array([0xff]))).toBeNull();
  });
});

describe('bytesToBase64', () => {
  test.each([0, 1, 2, 3, 4, 5, 24575, 24576, 24577, 100000])(
    'encodes %i bytes like the platform',
    length => {
      const bytes = randomBytes(length, length + 7);
      expect(bytesToBase64(bytes)).toBe(
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString(
          'base64'
        )
      );
    }
  );

  it('encodes 50 MB', () => {
    // jsdom's btoa is a slow script; browsers and Node have a native one.
    const jsdomBtoa = globalThis.btoa;
    globalThis.btoa = jest.requireActual('buffer').btoa;
    try {
      const bytes = randomBytes(50 * 1024 * 1024, 3);
      const started = Date.now();
      const encoded = bytesToBase64(bytes);
      expect(Date.now() - started).toBeLessThan(8000);
      expect(encoded === Buffer.from(bytes.buffer).toString('base64')).toBe(
        true
      );
    } finally {
      globalThis.btoa = jsdomBtoa;
    }
  });

  it('encodes a view into a larger buffer', () => {
    const bytes = randomBytes(100).subarray(10, 20);
    expect(bytesToBase64(bytes)).toBe(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString(
        'base64'
      )
    );
  });
});

describe('sizeLimitBytes and checkSize', () => {
  test.each([
    [200, 200 * 1024 * 1024],
    [1, 1048576],
    [0.5, 524288],
    [0, 0],
    [-1, 0],
    [Number.NaN, 0]
  ])('%p MB is %p bytes', (mb, bytes) => {
    expect(sizeLimitBytes(mb)).toBe(bytes);
  });

  it('accepts an object at the limit and refuses one over it', () => {
    expect(() => checkSize(1048576, 1)).not.toThrow();
    let error: BookshelfError | undefined;
    try {
      checkSize(1048577, 1);
    } catch (caught) {
      error = caught as BookshelfError;
    }
    expect(error?.code).toBe('TooLarge');
    expect(error?.message).toBe(
      'The object is 1.0 MB, more than the limit of 1 MB.'
    );
    expect(error?.detail).toEqual({ size: 1048577, limitMB: 1 });
  });
});

describe('jsonDepth', () => {
  it.each([
    ['{}', 1],
    ['[[[]]]', 3],
    ['{"a": [1, {"b": []}]}', 4],
    // Brackets inside strings do not count, escaped quotes do not end them.
    ['{"a": "[[[{{{"}', 1],
    ['{"a": "\\"[[["}', 1],
    ['{"a": "\\\\", "b": [[]]}', 3],
    ['{"a": "\\\\\\"[", "b": []}', 2],
    ['["\\\\\\\\"]', 1],
    ['{"a": "x\\u0022[[["}', 1],
    ['"unterminated [[[', 0]
  ])('counts %j as %d deep', (text, depth) => {
    expect(jsonDepth(text)).toBe(depth);
  });

  it('agrees with the nesting of a notebook with tricky strings', () => {
    const value = {
      cells: Array.from({ length: 50 }, (_, i) => ({
        source: [`print("[${i}]\\n")`, '\\', '"{"'],
        outputs: [{ data: { 'text/plain': ['\\\\"]]', `${i}`] } }]
      })),
      metadata: { deep: [[[[['"\\[']]]]] },
      nbformat: 4,
      nbformat_minor: 5
    };
    // The nesting of the value itself.
    const nesting = (item: unknown): number =>
      typeof item === 'object' && item !== null
        ? 1 + Math.max(0, ...Object.values(item).map(nesting))
        : 0;
    expect(nesting(value)).toBe(7);
    expect(jsonDepth(JSON.stringify(value))).toBe(7);
    expect(jsonDepth(JSON.stringify(value, null, 1))).toBe(7);
  });

  it('stops counting past the limit', () => {
    expect(jsonDepth('['.repeat(50) + ']'.repeat(50), 10)).toBe(11);
  });
});
