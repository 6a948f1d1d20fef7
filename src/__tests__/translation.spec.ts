/**
 * The messages the core logic builds go through the translation bundle it
 * is given, so that a translated Lab shows them translated; without one
 * they are the English texts the other tests assert.
 */
import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';

import { cloneObject } from '../clone/clone';
import { checkNotebook, checkSize, classifyObject } from '../clone/content';
import { MemoryFolderLocks } from '../clone/locks';
import {
  checkCloneRequest,
  checkFileName,
  validateCloneRequest
} from '../clone/request';
import { checkBucket, checkKey } from '../s3/names';
import { asSaveFailed } from '../clone/contentsSave';
import { writeNewFile } from '../clone/writer';
import { BookshelfError } from '../errors/errors';
import { describeError } from '../errors/describe';
import {
  checkPublishBucket,
  checkPublishDestination
} from '../publish/destination';
import { decideOverwrite } from '../publish/overwrite';
import { publishNotebook, readPublishTarget } from '../publish/publish';
import { DEFAULT_SETTINGS } from '../settings/checks';
import type { IBookshelfSettings } from '../tokens';
import { utf8 } from './fakes/bytes';
import { FakeContentsManager, responseError } from './fakes/contents';
import { conditionsHonoured, FakeObjectStore, rejection } from './fakes/store';

function fill(msgid: string, args: unknown[]): string {
  return msgid.replace(/%(\d+)/g, (_, n) => String(args[Number(n) - 1]));
}

/**
 * A translation bundle that marks what it translated: «text». `_n` puts
 * the number first, as JupyterLab's does.
 */
const marked = {
  __: (msgid: string, ...args: unknown[]) => '«' + fill(msgid, args) + '»',
  _n: (singular: string, plural: string, n: number, ...args: unknown[]) =>
    '«' + fill(n === 1 ? singular : plural, [n, ...args]) + '»'
} as unknown as TranslationBundle;

const nullTranslatorBundle = () => nullTranslator.load('jupyterlab_bookshelf');

const translated = (text: string) => /^«[\s\S]*»$/.test(text);

function thrown(action: () => unknown): BookshelfError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(BookshelfError);
    return error as BookshelfError;
  }
  throw new Error('Nothing was thrown');
}

const NOTEBOOK =
  '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}';

const trans = marked;

describe('clone request rules', () => {
  // One request per rule, so that every text is seen translated.
  it.each([
    ['not an object', 'a string'],
    ['a list', { s3_bucket: ['a', 'b'], s3_key: 'k' }],
    ['not text', { s3_bucket: 7, s3_key: ['k'] }],
    ['missing fields', {}],
    ['a short bucket', { s3_bucket: 'ab', s3_key: 'k' }],
    ['an upper-case bucket', { s3_bucket: 'Shared', s3_key: 'k' }],
    ['a bucket ending in a hyphen', { s3_bucket: 'shared-', s3_key: 'k' }],
    ['adjacent dots', { s3_bucket: 'a..b', s3_key: 'k' }],
    ['an IP address', { s3_bucket: '192.168.5.4', s3_key: 'k' }],
    ['a reserved prefix', { s3_bucket: 'xn--abc', s3_key: 'k' }],
    ['a reserved suffix', { s3_bucket: 'abc-s3alias', s3_key: 'k' }],
    ['a long key', { s3_bucket: 'shared', s3_key: 'k'.repeat(1025) }],
    ['a control character', { s3_bucket: 'shared', s3_key: 'a\u0007b' }],
    ['a bidi character', { s3_bucket: 'shared', s3_key: 'a\u202eb' }],
    ['a folder key', { s3_bucket: 'shared', s3_key: 'reports/' }],
    ['a dot name', { s3_bucket: 'shared', s3_key: 'reports/..' }],
    ['a dot segment', { s3_bucket: 'shared', s3_key: 'a/../b' }],
    ['a hidden name', { s3_bucket: 'shared', s3_key: '.env' }],
    [
      'a long name',
      { s3_bucket: 'shared', s3_key: `reports/${'n'.repeat(256)}` }
    ],
    [
      'an absolute target',
      { s3_bucket: 'shared', s3_key: 'k', target_path: '/a' }
    ],
    ['a backslash', { s3_bucket: 'shared', s3_key: 'k', target_path: 'a\\b' }],
    [
      'a control character in the target',
      { s3_bucket: 'shared', s3_key: 'k', target_path: 'a\nb' }
    ],
    [
      'a bidi character in the target',
      { s3_bucket: 'shared', s3_key: 'k', target_path: 'a\u2066b' }
    ],
    [
      'a long target',
      { s3_bucket: 'shared', s3_key: 'k', target_path: 'p'.repeat(1025) }
    ],
    [
      'an empty segment',
      { s3_bucket: 'shared', s3_key: 'k', target_path: 'a//b' }
    ],
    ['a parent', { s3_bucket: 'shared', s3_key: 'k', target_path: 'a/..' }],
    [
      'a dots segment',
      { s3_bucket: 'shared', s3_key: 'k', target_path: 'a/.../b' }
    ],
    [
      'a hidden segment',
      { s3_bucket: 'shared', s3_key: 'k', target_path: '.work/b' }
    ],
    [
      'a long segment',
      { s3_bucket: 'shared', s3_key: 'k', target_path: 'x'.repeat(256) }
    ],
    [
      'a long version id',
      { s3_bucket: 'shared', s3_key: 'k', s3_version_id: 'v'.repeat(1025) }
    ],
    [
      'a bad version id',
      { s3_bucket: 'shared', s3_key: 'k', s3_version_id: 'v 1' }
    ]
  ])('translates the problem of %s', (_, request) => {
    const problems = validateCloneRequest(request, trans);
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems) {
      // The field prefix and the rule are each translated, the rule as a
      // whole sentence with its values in placeholders.
      expect(problem.message).toMatch(/^«[^«]*«[^«»]+»»$|^«[^«»]+»$/);
    }
  });

  it('keeps the English texts without a bundle', () => {
    expect(validateCloneRequest({ s3_bucket: 'ab', s3_key: 'k' })).toEqual([
      {
        field: 's3_bucket',
        message: 's3_bucket: a bucket name has 3 to 63 characters (got 2)'
      }
    ]);
  });

  it('throws InvalidRequest with the translated problems', () => {
    const error = thrown(() =>
      checkCloneRequest({ s3_bucket: 'Shared', s3_key: '' }, trans)
    );
    expect(error.code).toBe('InvalidRequest');
    expect(error.message).toBe(
      "«s3_bucket: «a bucket name has only lowercase letters a-z, digits, dots and hyphens (found 'S')»»; «s3_key: «an object key is required»»."
    );
    const description = describeError(error, trans);
    expect(description.message).toBe(error.message);
    expect(translated(description.title)).toBe(true);
    expect(translated(description.fix)).toBe(true);
  });

  it('translates the single rules it exports', () => {
    expect(checkBucket('a', trans)).toBe(
      '«a bucket name has 3 to 63 characters (got 1)»'
    );
    expect(checkKey('a/', trans)).toBe(
      "«the key ends with '/', which names a folder, not an object»"
    );
    expect(checkFileName('.env', 'target_path', trans)).toBe(
      "«the file name '.env' starts with a dot, which Jupyter hides; choose another name»"
    );
  });
});

describe('not a notebook', () => {
  it.each([
    ['not UTF-8', new Uint8Array([0x7b, 0xff, 0x7d])],
    ['nested too deep', utf8('['.repeat(300) + ']'.repeat(300))],
    ['not JSON', utf8('{"cells": [')],
    ['a list', utf8('[]')],
    [
      'without cells',
      utf8('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}}')
    ],
    [
      'version 3',
      utf8('{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "cells": []}')
    ],
    [
      'a text minor version',
      utf8(
        '{"nbformat": 4, "nbformat_minor": "5", "metadata": {}, "cells": []}'
      )
    ],
    [
      'a list as metadata',
      utf8('{"nbformat": 4, "nbformat_minor": 5, "metadata": [], "cells": []}')
    ],
    [
      'an object as cells',
      utf8('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": {}}')
    ]
  ])('translates the reason of %s', (_, bytes) => {
    const error = thrown(() =>
      classifyObject('q3.ipynb', bytes, trans).check?.()
    );
    expect(error.code).toBe('NotANotebook');
    expect(error.message).toMatch(
      /^«The object is not a Jupyter notebook: «[^«»]+»»$/
    );
    expect(describeError(error, trans).message).toBe(error.message);
  });

  it('says cloned or published as the caller asks', () => {
    const v2 = utf8(
      '{"nbformat": 2, "nbformat_minor": 0, "metadata": {}, "worksheets": []}'
    );
    expect(thrown(() => checkNotebook(v2, trans)).message).toBe(
      "«The object is not a Jupyter notebook: «'nbformat' is 2; only version 3 and 4 notebooks can be cloned.»»"
    );
    expect(thrown(() => checkNotebook(v2, trans, 'publish')).message).toBe(
      "«The object is not a Jupyter notebook: «'nbformat' is 2; only version 4 notebooks can be published.»»"
    );
    const v3 = utf8(
      '{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}'
    );
    expect(() => checkNotebook(v3, trans)).not.toThrow();
    expect(thrown(() => checkNotebook(v3, trans, 'publish')).message).toBe(
      "«The object is not a Jupyter notebook: «'nbformat' is 3; open the notebook in Jupyter and save it, which converts it to version 4, then publish it.»»"
    );
  });

  it('translates the size limit', () => {
    const error = thrown(() => checkSize(3 * 1024 * 1024, 1));
    expect(describeError(error, trans).message).toBe(
      '«The object is 3.0 MB, more than the limit of 1 MB.»'
    );
  });
});

describe('publish destination rules', () => {
  it.each([
    ['no bucket', '', 'a.ipynb'],
    ['a bad bucket', 'B', 'a.ipynb'],
    ['an empty key', 'published', ''],
    ['a dot segment', 'published', 'a/../b.ipynb'],
    ['a bad key', 'published', 'a\u0000.ipynb'],
    ['not a notebook', 'published', 'a.txt'],
    ['a hidden name', 'published', 'work/.a.ipynb']
  ])('translates %s', (_, bucket, key) => {
    const problem = checkPublishDestination(bucket, key, trans);
    expect(problem).not.toBeNull();
    expect(translated(problem!)).toBe(true);
  });

  it('puts the bucket rule in the sentence, both translated', () => {
    expect(checkPublishBucket('ab', trans)).toBe(
      "«The publish bucket is not a valid bucket name («a bucket name has 3 to 63 characters (got 2)»): correct 'Publish bucket' in the Bookshelf settings.»"
    );
  });

  it('keeps the English texts without a bundle', () => {
    expect(checkPublishDestination('published', 'a.txt')).toBe(
      "Only notebooks are published, so the destination must end in '.ipynb': choose another path."
    );
  });
});

describe('clone and publish pass the bundle on', () => {
  const settings: IBookshelfSettings = {
    ...DEFAULT_SETTINGS,
    publishBucket: 'published'
  };

  function setUp() {
    const store = new FakeObjectStore();
    store.addBucket('shared');
    store.addBucket('published', 'Enabled');
    store.addObject('shared', 'q3.ipynb', '{"cells": []}');
    const contents = new FakeContentsManager();
    contents.addFile('work/q3.ipynb', '{"nbformat": 3}');
    return { store, contents };
  }

  it('a clone of an invalid request', async () => {
    const { store, contents } = setUp();
    const error = await rejection(
      cloneObject(
        { store, contents },
        { s3_bucket: 'x', s3_key: 'q3.ipynb' },
        { maxObjectSizeMB: 1, trans }
      )
    );
    expect(error.code).toBe('InvalidRequest');
    expect(error.message).toBe(
      '«s3_bucket: «a bucket name has 3 to 63 characters (got 1)»».'
    );
  });

  it('a clone into a missing folder', async () => {
    const { store, contents } = setUp();
    const error = await rejection(
      cloneObject(
        { store, contents },
        { s3_bucket: 'shared', s3_key: 'q3.ipynb', target_path: 'gone/' },
        { maxObjectSizeMB: 1, trans }
      )
    );
    expect(error.message).toBe(
      "«target_path: the folder 'gone' does not exist; create it first or choose another folder.»"
    );
  });

  it('a clone of an object that is not a notebook', async () => {
    const { store, contents } = setUp();
    const error = await rejection(
      cloneObject(
        { store, contents, locks: new MemoryFolderLocks() },
        { s3_bucket: 'shared', s3_key: 'q3.ipynb' },
        { maxObjectSizeMB: 1, trans }
      )
    );
    expect(error.code).toBe('NotANotebook');
    expect(error.message).toBe(
      "«The object is not a Jupyter notebook: «'nbformat' is missing.»»"
    );
  });

  it('a save that fails, and no free name', async () => {
    const response = responseError(500, 'disk full');
    const saveFailed = asSaveFailed(response, 'work', trans) as BookshelfError;
    expect(saveFailed.message).toBe(
      "«The Jupyter server could not save the file in the folder 'work' (HTTP 500: disk full); nothing was written.»"
    );
    expect(saveFailed.cause).toBe(response);
    const contents = new FakeContentsManager();
    contents.addFile('q3.ipynb', NOTEBOOK);
    const error = await rejection(
      writeNewFile(
        contents,
        '',
        'q3.ipynb',
        { bytes: utf8(NOTEBOOK), format: 'text' },
        { maxAttempts: 1, locks: new MemoryFolderLocks(), trans }
      )
    );
    expect(error.message).toBe(
      "«No free name was found for 'q3.ipynb' in the root folder after 1 attempt; choose another name or folder, or remove some copies.»"
    );
  });

  it('a publish of a version 3 notebook', async () => {
    const { store, contents } = setUp();
    const error = await rejection(
      publishNotebook(
        { store, contents, conditionalWrites: conditionsHonoured },
        'work/q3.ipynb',
        {
          settings,
          serverOrigin: 'https://hub.example.org',
          baseUrl: '/',
          body: {
            type: 'notebook',
            content: { nbformat: 3, nbformat_minor: 0, metadata: {}, cells: [] }
          },
          trans
        }
      )
    );
    expect(error.code).toBe('NotANotebook');
    expect(error.message).toBe(
      "«'work/q3.ipynb' is not a valid Jupyter notebook, so it was not published: «'nbformat' is 3; open the notebook in Jupyter and save it, which converts it to version 4, then publish it.»»"
    );
    expect(describeError(error, trans).message).toBe(error.message);
  });

  it('a publish to a bad destination', async () => {
    const { store } = setUp();
    const error = await rejection(
      readPublishTarget(
        { store },
        'work/q3.ipynb',
        settings,
        'work/../q3.ipynb',
        trans
      )
    );
    expect(error.code).toBe('InvalidRequest');
    expect(error.message).toBe(
      "«The publish destination has a '..' segment, which would address another object: choose a path without it.»"
    );
    expect(describeError(error, trans).message).toBe(error.message);
  });

  it('a publish without a bucket', async () => {
    const { store } = setUp();
    const error = await rejection(
      readPublishTarget(
        { store },
        'work/q3.ipynb',
        { ...settings, publishBucket: '' },
        undefined,
        trans
      )
    );
    expect(error.code).toBe('PublishNotConfigured');
    expect(translated(describeError(error, trans).message)).toBe(true);
  });

  it('an overwrite the policy refuses', () => {
    const decision = decideOverwrite(
      'never',
      { etag: '"x"' },
      {},
      's3://published/a.ipynb',
      trans
    );
    expect(decision).toMatchObject({
      action: 'refuse',
      message:
        "«s3://published/a.ipynb exists and the overwrite policy is 'never': nothing was published; choose another path.»"
    });
  });
});

describe('describeError', () => {
  it("translates the S3 service's own conflict, which has no reason", () => {
    const error = new BookshelfError({
      code: 'PreconditionFailed',
      detail: { bucket: 'published', key: 'a.ipynb' }
    });
    expect(describeError(error, trans).message).toBe(
      '«s3://published/a.ipynb was changed by someone else meanwhile.»'
    );
    expect(describeError(error, nullTranslatorBundle()).message).toBe(
      error.message
    );
  });
});
