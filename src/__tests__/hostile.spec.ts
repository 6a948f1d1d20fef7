/**
 * Hostile input, table by table: what links, the API, the dialog's fields
 * and objects' contents may carry. Each case either names its problem (the
 * field and the rule) or, being legal, gives the right result; nothing is
 * ever written outside the intended folder. The browser's part (script
 * execution, the file tree, the shim's pages) is in
 * ui-tests/tests/hostile.spec.ts.
 */
import { nullTranslator } from '@jupyterlab/translation';

import { cloneObject } from '../clone/clone';
import { MAX_NOTEBOOK_DEPTH } from '../clone/content';
import { MemoryFolderLocks } from '../clone/locks';
import { validateCloneRequest } from '../clone/request';
import { BookshelfError } from '../errors/errors';
import { checkPublishDestination } from '../publish/destination';
import { publishNotebook } from '../publish/publish';
import { DEFAULT_SETTINGS } from '../settings/checks';
import { formProblems, ICloneFormValues } from '../widgets/CloneDialog';
import { bytesEqual, notebookText, randomBytes, utf8 } from './fakes/bytes';
import { FakeContentsManager } from './fakes/contents';
import { conditionsHonoured, etagOf, FakeObjectStore } from './fakes/store';
import { rejection } from './fakes/rejection';

const trans = nullTranslator.load('jupyterlab_bookshelf');

const XSS = '<img src=x onerror="window.__bookshelfCanary=1">';

/**
 * Clone requests: [name, request, field at fault or null when legal,
 * words the message has].
 */
const REQUESTS: [string, unknown, string | null, string][] = [
  // Bucket names that break S3's rules.
  [
    'bucket too short',
    { s3_bucket: 'ab', s3_key: 'k' },
    's3_bucket',
    '3 to 63 characters (got 2)'
  ],
  [
    'bucket too long',
    { s3_bucket: 'a'.repeat(64), s3_key: 'k' },
    's3_bucket',
    '(got 64)'
  ],
  [
    'bucket in uppercase',
    { s3_bucket: 'Examples', s3_key: 'k' },
    's3_bucket',
    "found 'E'"
  ],
  [
    'bucket with an underscore',
    { s3_bucket: 'my_bucket', s3_key: 'k' },
    's3_bucket',
    "found '_'"
  ],
  [
    'bucket like an IP address',
    { s3_bucket: '192.168.5.4', s3_key: 'k' },
    's3_bucket',
    'IP address'
  ],
  [
    'bucket with two dots',
    { s3_bucket: 'my..bucket', s3_key: 'k' },
    's3_bucket',
    'two adjacent dots'
  ],
  [
    'bucket starting with a hyphen',
    { s3_bucket: '-bucket', s3_key: 'k' },
    's3_bucket',
    'starts and ends'
  ],
  [
    'bucket ending with a dot',
    { s3_bucket: 'bucket.', s3_key: 'k' },
    's3_bucket',
    'starts and ends'
  ],
  [
    'bucket with a reserved prefix',
    { s3_bucket: 'xn--bucket', s3_key: 'k' },
    's3_bucket',
    "'xn--'"
  ],
  [
    'bucket with a reserved suffix',
    { s3_bucket: 'b-s3alias', s3_key: 'k' },
    's3_bucket',
    "'-s3alias'"
  ],
  [
    'bucket with HTML',
    { s3_bucket: '<b>x</b>', s3_key: 'k' },
    's3_bucket',
    "found '<'"
  ],
  [
    'bucket with a space',
    { s3_bucket: 'my bucket', s3_key: 'k' },
    's3_bucket',
    'U+0020'
  ],
  [
    'bucket with a NUL',
    { s3_bucket: 'abc\u0000', s3_key: 'k' },
    's3_bucket',
    'U+0000'
  ],
  [
    'bucket empty',
    { s3_bucket: '', s3_key: 'k' },
    's3_bucket',
    'a bucket name is required'
  ],
  ['bucket missing', { s3_key: 'k' }, 's3_bucket', 'a bucket name is required'],
  [
    'bucket a number',
    { s3_bucket: 42, s3_key: 'k' },
    's3_bucket',
    'must be text (got number)'
  ],
  [
    'bucket an object',
    { s3_bucket: { a: 1 }, s3_key: 'k' },
    's3_bucket',
    'must be text (got object)'
  ],
  [
    'bucket given twice',
    { s3_bucket: ['a1b', 'c2d'], s3_key: 'k' },
    's3_bucket',
    'given more than once'
  ],
  // Keys.
  [
    'key empty',
    { s3_bucket: 'examples', s3_key: '' },
    's3_key',
    'an object key is required'
  ],
  [
    'key missing',
    { s3_bucket: 'examples' },
    's3_key',
    'an object key is required'
  ],
  [
    'key too long',
    { s3_bucket: 'examples', s3_key: 'k'.repeat(1025) },
    's3_key',
    '(got 1025)'
  ],
  [
    'key too long in UTF-8',
    { s3_bucket: 'examples', s3_key: 'é'.repeat(513) },
    's3_key',
    '(got 1026)'
  ],
  [
    'key with a NUL',
    { s3_bucket: 'examples', s3_key: 'a\u0000.ipynb' },
    's3_key',
    'U+0000'
  ],
  [
    'key with a newline',
    { s3_bucket: 'examples', s3_key: 'a\n.ipynb' },
    's3_key',
    'U+000A'
  ],
  [
    'key with DEL',
    { s3_bucket: 'examples', s3_key: 'a\u007f.ipynb' },
    's3_key',
    'U+007F'
  ],
  [
    'key with a C1 control',
    { s3_bucket: 'examples', s3_key: 'a\u0085.ipynb' },
    's3_key',
    'U+0085'
  ],
  [
    'key with a right-to-left override',
    { s3_bucket: 'examples', s3_key: 'evil\u202Ebynpi.exe' },
    's3_key',
    'U+202E'
  ],
  [
    'key with a left-to-right isolate',
    { s3_bucket: 'examples', s3_key: 'a\u2066b.ipynb' },
    's3_key',
    'U+2066'
  ],
  [
    'key naming a folder',
    { s3_bucket: 'examples', s3_key: 'reports/' },
    's3_key',
    "ends with '/'"
  ],
  [
    'key ending in ..',
    { s3_bucket: 'examples', s3_key: 'a/..' },
    's3_key',
    "must not be '..'"
  ],
  [
    'key with a hidden name',
    { s3_bucket: 'examples', s3_key: 'a/.env' },
    's3_key',
    'starts with a dot'
  ],
  [
    'key whose name is too long',
    { s3_bucket: 'examples', s3_key: `${'n'.repeat(256)}.ipynb` },
    's3_key',
    'give a target_path'
  ],
  [
    'key given twice',
    { s3_bucket: 'examples', s3_key: ['a', 'b'] },
    's3_key',
    'given more than once'
  ],
  [
    'key a list of one',
    { s3_bucket: 'examples', s3_key: ['a'] },
    's3_key',
    'must be text (got a list)'
  ],
  // A browser would resolve the dot segments and read another object.
  [
    'key going up to another bucket',
    { s3_bucket: 'examples', s3_key: '../secret/passwd.ipynb' },
    's3_key',
    "no '.' or '..' segment"
  ],
  [
    'key with a dot segment',
    { s3_bucket: 'examples', s3_key: 'a/./b.ipynb' },
    's3_key',
    "no '.' or '..' segment"
  ],
  // Legal keys: only the base name becomes a file name.
  [
    'key with dots inside names (legal)',
    { s3_bucket: 'examples', s3_key: 'a..b/...c/d...ipynb' },
    null,
    ''
  ],
  [
    'key with HTML (legal)',
    { s3_bucket: 'examples', s3_key: `${XSS}.ipynb` },
    null,
    ''
  ],
  [
    'key with a script tag (legal)',
    { s3_bucket: 'examples', s3_key: '<script>alert(1)</script>.ipynb' },
    null,
    ''
  ],
  [
    'key with spaces and Unicode (legal)',
    { s3_bucket: 'examples', s3_key: 'Отчёт 2026 ✓.ipynb' },
    null,
    ''
  ],
  // Target paths.
  [
    'target absolute',
    { s3_bucket: 'examples', s3_key: 'k', target_path: '/etc/x.ipynb' },
    'target_path',
    "remove the leading '/'"
  ],
  [
    'target with ..',
    { s3_bucket: 'examples', s3_key: 'k', target_path: 'a/../../x.ipynb' },
    'target_path',
    "must not contain '..'"
  ],
  [
    'target only ..',
    { s3_bucket: 'examples', s3_key: 'k', target_path: '..' },
    'target_path',
    "must not contain '..'"
  ],
  [
    'target with a backslash',
    { s3_bucket: 'examples', s3_key: 'k', target_path: 'a\\..\\x.ipynb' },
    'target_path',
    "not '\\'"
  ],
  [
    'target with a NUL',
    { s3_bucket: 'examples', s3_key: 'k', target_path: 'x\u0000.ipynb' },
    'target_path',
    'U+0000'
  ],
  [
    'target only dots',
    { s3_bucket: 'examples', s3_key: 'k', target_path: '...' },
    'target_path',
    "only of dots (found '...')"
  ],
  [
    'target a single dot',
    { s3_bucket: 'examples', s3_key: 'k', target_path: './' },
    'target_path',
    "only of dots (found '.')"
  ],
  [
    'target with an empty segment',
    { s3_bucket: 'examples', s3_key: 'k', target_path: 'a//b.ipynb' },
    'target_path',
    'empty segment'
  ],
  [
    'target with two trailing slashes',
    { s3_bucket: 'examples', s3_key: 'k', target_path: 'a//' },
    'target_path',
    'empty segment'
  ],
  [
    'target hidden',
    { s3_bucket: 'examples', s3_key: 'k', target_path: '.ssh/x' },
    'target_path',
    'starts with a dot'
  ],
  [
    'target with a right-to-left override',
    { s3_bucket: 'examples', s3_key: 'k', target_path: 'x\u202Egnp.ipynb' },
    'target_path',
    'U+202E'
  ],
  [
    'target with a tab',
    { s3_bucket: 'examples', s3_key: 'k', target_path: 'a\tb.ipynb' },
    'target_path',
    'U+0009'
  ],
  [
    'target too long',
    { s3_bucket: 'examples', s3_key: 'k', target_path: 'ab/'.repeat(342) },
    'target_path',
    'at most 1024 bytes'
  ],
  [
    'target name too long',
    {
      s3_bucket: 'examples',
      s3_key: 'k',
      target_path: `${'n'.repeat(300)}.ipynb`
    },
    'target_path',
    'at most 255 bytes'
  ],
  [
    'target a number',
    { s3_bucket: 'examples', s3_key: 'k', target_path: 7 },
    'target_path',
    'must be text'
  ],
  [
    'target given twice',
    { s3_bucket: 'examples', s3_key: 'k', target_path: ['a/', 'b/'] },
    'target_path',
    'given more than once'
  ],
  [
    'target a folder (legal)',
    { s3_bucket: 'examples', s3_key: 'k.ipynb', target_path: 'work/' },
    null,
    ''
  ],
  [
    'target with HTML (legal)',
    { s3_bucket: 'examples', s3_key: 'k', target_path: `work/${XSS}.ipynb` },
    null,
    ''
  ],
  [
    'target empty counts as not given (legal)',
    { s3_bucket: 'examples', s3_key: 'k', target_path: '' },
    null,
    ''
  ],
  // Version ids.
  [
    'version with a space',
    { s3_bucket: 'examples', s3_key: 'k', s3_version_id: 'a b' },
    's3_version_id',
    'U+0020'
  ],
  [
    'version with HTML',
    { s3_bucket: 'examples', s3_key: 'k', s3_version_id: '<b>' },
    's3_version_id',
    "found '<'"
  ],
  [
    'version too long',
    { s3_bucket: 'examples', s3_key: 'k', s3_version_id: 'v'.repeat(1025) },
    's3_version_id',
    '(got 1025)'
  ],
  // Requests that are not objects.
  ['request null', null, 'request', 'an object with s3_bucket and s3_key'],
  ['request a list', [], 'request', 'an object'],
  ['request text', 's3://examples/k', 'request', 'an object']
];

describe('hostile clone requests (links and the API)', () => {
  it.each(REQUESTS)('%s', (_, request, field, words) => {
    const problems = validateCloneRequest(request);
    if (field === null) {
      expect(problems).toEqual([]);
      return;
    }
    const problem = problems.find(candidate => candidate.field === field);
    expect(problem).toBeDefined();
    // The message names the field first, then the rule.
    expect(problem!.message.startsWith(`${field}: `)).toBe(true);
    expect(problem!.message).toContain(words);
    // A message never carries control or formatting characters itself.
    expect(problem!.message).not.toMatch(
      // eslint-disable-next-line no-control-regex -- the point is to find them
      /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/
    );
  });

  it('has at least 40 cases', () => {
    expect(REQUESTS.length).toBeGreaterThanOrEqual(40);
  });
});

/**
 * The dialog's inputs: [name, values changed from a valid form, input at
 * fault or null, words of the message].
 */
const FORMS: [string, Partial<ICloneFormValues>, string | null, string][] = [
  [
    'folder going up',
    { folder: '../outside' },
    'folder',
    "must not contain '..'"
  ],
  ['folder with a backslash', { folder: 'a\\b' }, 'folder', "not '\\'"],
  ['folder hidden', { folder: '.ssh' }, 'folder', 'starts with a dot'],
  [
    'folder with an empty segment',
    { folder: 'a//b' },
    'folder',
    'empty segment'
  ],
  ['folder with a NUL', { folder: 'a\u0000' }, 'folder', 'U+0000'],
  ['name ..', { name: '..' }, 'name', "must not contain '..'"],
  ['name with a slash', { name: 'sub/x.ipynb' }, 'name', 'has no "/"'],
  ['name hidden', { name: '.bashrc' }, 'name', 'starts with a dot'],
  [
    'name with a right-to-left override',
    { name: 'x\u202Egnp.ipynb' },
    'name',
    'U+202E'
  ],
  [
    'name too long',
    { name: `${'n'.repeat(300)}.ipynb` },
    'name',
    'at most 255 bytes'
  ],
  ['bucket invalid', { bucket: 'Not_Valid' }, 'bucket', "found 'N'"],
  [
    'key empty',
    { key: '', name: 'x.ipynb' },
    'key',
    'an object key is required'
  ],
  ['key with a control character', { key: 'a\u0007' }, 'key', 'U+0007'],
  ['version with a space', { versionId: 'a b' }, 'versionId', 'U+0020'],
  ['name with HTML (legal)', { name: `${XSS}.ipynb` }, null, ''],
  ['folder with spaces (legal)', { folder: 'my work/2026' }, null, ''],
  [
    'folder with a leading slash, taken from the root (legal)',
    { folder: '/work' },
    null,
    ''
  ]
];

describe('hostile values in the clone dialog', () => {
  const valid: ICloneFormValues = {
    bucket: 'examples',
    key: 'reports/q3.ipynb',
    versionId: '',
    folder: 'work',
    name: 'q3.ipynb'
  };

  it.each(FORMS)('%s', (_, change, input, words) => {
    const problems = formProblems(
      { ...valid, ...change },
      { fromLink: true, allowedBuckets: [] },
      trans
    );
    if (input === null) {
      expect(problems).toEqual({});
      return;
    }
    expect(Object.keys(problems)).toContain(input);
    expect(problems[input as keyof ICloneFormValues]).toContain(words);
  });

  it('refuses a bucket that links may not clone from', () => {
    const problems = formProblems(
      { ...valid, bucket: 'secret-reports' },
      { fromLink: true, allowedBuckets: ['examples', 'team-*'] },
      trans
    );
    expect(problems.bucket).toContain('allowedBuckets');
    // Typed in by the person, the bucket is not restricted.
    expect(
      formProblems(
        { ...valid, bucket: 'secret-reports' },
        { fromLink: false, allowedBuckets: ['examples'] },
        trans
      )
    ).toEqual({});
  });
});

/**
 * Objects: [name, key, body, error code or null when legal, words].
 */
const deep = (depth: number) =>
  `{"cells": [], "metadata": {"x": ${'['.repeat(depth)}1${']'.repeat(depth)}}, "nbformat": 4, "nbformat_minor": 5}`;
const SCRIPTED = JSON.stringify({
  cells: [
    {
      cell_type: 'code',
      execution_count: 1,
      id: 'c1',
      metadata: { trusted: true },
      outputs: [
        {
          output_type: 'display_data',
          data: {
            'text/html': [`<script>window.__bookshelfCanary=2</script>${XSS}`],
            'application/javascript': ['window.__bookshelfCanary=3']
          },
          metadata: {}
        }
      ],
      source: ['display(HTML(...))']
    },
    {
      cell_type: 'markdown',
      id: 'c2',
      metadata: {},
      source: [XSS]
    }
  ],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5
});

const OBJECTS: [string, string, string | Uint8Array, string | null, string][] =
  [
    [
      'a notebook of zero bytes',
      'empty.ipynb',
      '',
      'NotANotebook',
      'not valid JSON'
    ],
    [
      'a notebook that is not JSON',
      'prose.ipynb',
      'Dear reader,',
      'NotANotebook',
      'not valid JSON'
    ],
    [
      'a notebook that is cut off JSON',
      'cut.ipynb',
      '{"cells": [',
      'NotANotebook',
      'not valid JSON'
    ],
    [
      'a notebook that is a JSON list',
      'list.ipynb',
      '[1, 2]',
      'NotANotebook',
      'not an object'
    ],
    [
      'a notebook that is a JSON string',
      'string.ipynb',
      '"cells"',
      'NotANotebook',
      'not an object'
    ],
    [
      'JSON without cells',
      'nocells.ipynb',
      '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}}',
      'NotANotebook',
      "'cells' is missing"
    ],
    [
      'nbformat 2',
      'v2.ipynb',
      '{"nbformat": 2, "nbformat_minor": 0, "metadata": {}, "worksheets": []}',
      'NotANotebook',
      'only version 3 and 4'
    ],
    [
      'nbformat as text',
      'v4text.ipynb',
      '{"nbformat": "4", "nbformat_minor": 5, "metadata": {}, "cells": []}',
      'NotANotebook',
      '\'nbformat\' is "4"'
    ],
    [
      'cells not a list',
      'cellsobj.ipynb',
      '{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": {}}',
      'NotANotebook',
      "'cells' is not a list"
    ],
    [
      'metadata null',
      'metanull.ipynb',
      '{"nbformat": 4, "nbformat_minor": 5, "metadata": null, "cells": []}',
      'NotANotebook',
      "'metadata' is not an object"
    ],
    [
      'deeply nested JSON',
      'deep.ipynb',
      deep(5000),
      'NotANotebook',
      `more than ${MAX_NOTEBOOK_DEPTH} levels deep`
    ],
    [
      'nested just within the limit (legal)',
      'deepok.ipynb',
      deep(MAX_NOTEBOOK_DEPTH - 3),
      null,
      ''
    ],
    [
      'binary named .ipynb',
      'binary.ipynb',
      randomBytes(2048),
      'NotANotebook',
      'not UTF-8'
    ],
    [
      'a notebook with script in its outputs (legal)',
      'scripted.ipynb',
      SCRIPTED,
      null,
      ''
    ],
    [
      'deeply nested JSON that is no notebook (legal)',
      'deep.json',
      '['.repeat(5000) + ']'.repeat(5000),
      null,
      ''
    ],
    ['a text file of zero bytes (legal)', 'empty.txt', '', null, ''],
    ['binary data (legal)', 'data.bin', randomBytes(4096), null, '']
  ];

describe('hostile objects', () => {
  let store: FakeObjectStore;
  let contents: FakeContentsManager;

  beforeEach(() => {
    store = new FakeObjectStore();
    store.addBucket('examples');
    contents = new FakeContentsManager();
    contents.addDirectory('work');
    contents.addFile('outside.txt', 'untouched');
  });

  it.each(OBJECTS)('%s', async (_, name, body, code, words) => {
    const key = `hostile/${name}`;
    store.addObject('examples', key, body);
    const pending = cloneObject(
      { store, contents, locks: new MemoryFolderLocks() },
      { s3_bucket: 'examples', s3_key: key, target_path: 'work/' },
      { maxObjectSizeMB: 10 }
    );
    if (code === null) {
      const model = await pending;
      expect(model.path).toBe(`work/${name}`);
      const bytes = typeof body === 'string' ? utf8(body) : body;
      expect(bytesEqual(contents.readBytes(model.path), bytes)).toBe(true);
      expect(contents.files()).toEqual(['outside.txt', `work/${name}`]);
      return;
    }
    const error = await rejection(pending);
    expect(error).toBeInstanceOf(BookshelfError);
    expect(error.code).toBe(code);
    expect(error.message).toContain(words);
    expect(contents.files()).toEqual(['outside.txt']);
  });

  it('refuses an object over the size limit before saving anything', async () => {
    store.addObject('examples', 'big.ipynb', notebookText('x'.repeat(20000)));
    const error = await rejection(
      cloneObject(
        { store, contents, locks: new MemoryFolderLocks() },
        { s3_bucket: 'examples', s3_key: 'big.ipynb', target_path: 'work/' },
        { maxObjectSizeMB: 0.01 }
      )
    );
    expect(error.code).toBe('TooLarge');
    expect(error.message).toContain('more than the');
    expect(contents.files()).toEqual(['outside.txt']);
  });

  it.each([
    ['etc/passwd.ipynb', 'work/passwd.ipynb'],
    [`${XSS}.ipynb`, `work/${XSS}.ipynb`],
    ['<script>alert(1)</script>.ipynb', 'work/script>.ipynb'],
    ['a..b/x...ipynb', 'work/x...ipynb']
  ])(
    'clones the key %j into the folder asked for, as %j',
    async (key, path) => {
      store.addObject('examples', key, notebookText());
      const model = await cloneObject(
        { store, contents, locks: new MemoryFolderLocks() },
        { s3_bucket: 'examples', s3_key: key, target_path: 'work/' },
        { maxObjectSizeMB: 10 }
      );
      expect(model.path).toBe(path);
      expect(contents.files()).toEqual(['outside.txt', path]);
    }
  );
});

describe('hostile publish destinations', () => {
  it.each<[string, string, string | null]>([
    ['a/../outside.ipynb', "a '..' segment", null],
    ['./x.ipynb', "a '.' segment", null],
    ['x.txt', "must end in '.ipynb'", null],
    ['', 'is empty', null],
    ['x\u0000.ipynb', 'U+0000', null],
    ['evil\u202Ebynpi.exe', 'U+202E', null],
    ['.hidden.ipynb', 'starts with a dot', null],
    ['folder/', "ends with '/'", null],
    [`${'k'.repeat(1030)}.ipynb`, '1 to 1024 bytes', null],
    [`${XSS}.ipynb`, '', 'legal'],
    ['team/Отчёт ✓.ipynb', '', 'legal']
  ])('%j', (key, words, legal) => {
    const problem = checkPublishDestination('published', key);
    if (legal) {
      expect(problem).toBeNull();
    } else {
      expect(problem).toContain(words);
    }
  });

  const settings = {
    ...DEFAULT_SETTINGS,
    publishBucket: 'published'
  };

  function publish(path: unknown, options: object = {}) {
    const store = new FakeObjectStore();
    store.addBucket('published', 'Enabled');
    return {
      store,
      result: publishNotebook(
        {
          store,
          contents: new FakeContentsManager(),
          conditionalWrites: conditionsHonoured
        },
        path as string,
        {
          settings,
          serverOrigin: 'https://hub.example.org',
          baseUrl: '/',
          ...options
        }
      )
    };
  }

  it.each<[string, unknown, object, string, string]>([
    [
      'a path that is no text',
      42,
      {},
      'InvalidRequest',
      'must be a non-empty text'
    ],
    ['an empty path', '', {}, 'InvalidRequest', 'must be a non-empty text'],
    [
      'a destination that is no text',
      'a.ipynb',
      { destination: ['x'] },
      'InvalidRequest',
      'must be text'
    ],
    [
      'a destination going up',
      'a.ipynb',
      { destination: '../b.ipynb' },
      'InvalidRequest',
      "'..' segment"
    ],
    [
      'a body that is no notebook',
      'a.ipynb',
      { body: { type: 'notebook', content: 'x' } },
      'InvalidRequest',
      'The publish body must be'
    ],
    [
      'a body of another type',
      'a.ipynb',
      { body: { type: 'file', content: {} } },
      'InvalidRequest',
      'The publish body must be'
    ],
    [
      'a body of nbformat 3',
      'a.ipynb',
      {
        body: {
          type: 'notebook',
          content: { nbformat: 3, nbformat_minor: 0, metadata: {}, cells: [] }
        }
      },
      'NotANotebook',
      'which converts it to version 4'
    ],
    [
      'a body nested too deep',
      'a.ipynb',
      { body: { type: 'notebook', content: JSON.parse(deep(1000)) } },
      'NotANotebook',
      'levels deep'
    ],
    [
      'a path that is no notebook',
      'a.py',
      {},
      'NotANotebook',
      "does not end in '.ipynb'"
    ]
  ])(
    '%s is refused and nothing is uploaded',
    async (_, path, options, code, words) => {
      const { store, result } = publish(path, options);
      const error = await rejection(result);
      expect(error).toBeInstanceOf(BookshelfError);
      expect(error.code).toBe(code);
      expect(error.message).toContain(words);
      expect(store.puts).toEqual([]);
    }
  );
});

describe('a publish whose answer was lost', () => {
  const body = {
    type: 'notebook' as const,
    content: JSON.parse(notebookText('mine'))
  };
  const settings = { ...DEFAULT_SETTINGS, publishBucket: 'published' };
  const bytes = utf8(JSON.stringify(body.content, null, 1) + '\n');

  function publishTo(store: FakeObjectStore) {
    return publishNotebook(
      {
        store,
        contents: new FakeContentsManager(),
        conditionalWrites: conditionsHonoured
      },
      'a.ipynb',
      { settings, serverOrigin: 'https://h', baseUrl: '/', body }
    );
  }

  it('is recognised by the object holding exactly its bytes', async () => {
    let first = true;
    const store: FakeObjectStore = new FakeObjectStore({
      beforePut: (bucket, key) => {
        if (first) {
          // The put is carried out, its answer lost; the SDK sends it
          // again, and that one fails its own If-None-Match.
          first = false;
          store.addObject(bucket, key, bytes);
        }
      }
    });
    store.addBucket('published', 'Enabled');
    const result = await publishTo(store);
    expect(result.etag).toBe(etagOf(bytes));
    expect(result.version_id).toBeDefined();
  });

  /**
   * A store whose puts end as a connection lost on every try does (`code`:
   * as the page's fetch fails, or once the failure is diagnosed), after
   * `stores` the put's bytes, or not.
   */
  function answerlessStore(
    code: 'Unreachable' | 'Interrupted',
    stores: boolean
  ): FakeObjectStore {
    const store: FakeObjectStore = new FakeObjectStore({
      beforePut: (bucket, key) => {
        if (stores) {
          store.addObject(bucket, key, bytes);
        }
        throw new BookshelfError(
          code === 'Unreachable'
            ? { code, detail: { bucket, key, reason: 'network' } }
            : { code, detail: { bucket, key } }
        );
      }
    });
    store.addBucket('published', 'Enabled');
    return store;
  }

  it.each(['Unreachable', 'Interrupted'] as const)(
    'is recognised when no answer came at all (%s), and the object is its own',
    async code => {
      const result = await publishTo(answerlessStore(code, true));
      expect(result.etag).toBe(etagOf(bytes));
      expect(result.version_id).toBeDefined();
    }
  );

  it.each(['Unreachable', 'Interrupted'] as const)(
    'stays an error (%s) when no answer came and nothing was stored',
    async code => {
      const store = answerlessStore(code, false);
      const error = await rejection(publishTo(store));
      expect(error.code).toBe(code);
      expect(await store.headObject('published', 'a.ipynb')).toBeNull();
    }
  );

  it('is still a conflict when someone else wrote other bytes', async () => {
    const store: FakeObjectStore = new FakeObjectStore({
      beforePut: (bucket, key) => {
        if (!store.puts.slice(0, -1).length) {
          store.addObject(bucket, key, notebookText('theirs'));
        }
      }
    });
    store.addBucket('published', 'Enabled');
    const error = await rejection(publishTo(store));
    expect(error.code).toBe('Conflict');
    expect(error.detail.reason).toBe('changed');
  });
});
