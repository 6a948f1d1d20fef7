import { BookshelfError } from '../errors/errors';
import {
  checkCloneRequest,
  cloneLinkQuery,
  normalizeCloneRequest,
  readCloneQuery,
  validateCloneRequest
} from '../clone/request';
import { isBucketAllowed, parseS3Url, utf8Length } from '../s3/names';

const valid = { s3_bucket: 'my-bucket', s3_key: 'notebooks/q3.ipynb' };

describe('validateCloneRequest', () => {
  test.each([
    ['a plain request', valid],
    ['a bucket of 3 characters', { ...valid, s3_bucket: 'abc' }],
    ['a bucket of 63 characters', { ...valid, s3_bucket: 'a'.repeat(63) }],
    ['a bucket with dots and digits', { ...valid, s3_bucket: 'data.2024-q3' }],
    ['a bucket like a domain', { ...valid, s3_bucket: 'www.example.com' }],
    ['a bucket with xn in the middle', { ...valid, s3_bucket: 'my-xn--b' }],
    ['a bucket like 3 numbers', { ...valid, s3_bucket: '192.168.5' }],
    ['a key of one byte', { ...valid, s3_key: 'a' }],
    ['a key of 1024 bytes', { ...valid, s3_key: 'k/'.repeat(511) + 'kk' }],
    [
      'a key with spaces and unicode',
      { ...valid, s3_key: 'Q3 résumé/ß.ipynb' }
    ],
    ['a key with .. inside a segment', { ...valid, s3_key: 'a/..b/q3.ipynb' }],
    ['a key whose base name has dots inside', { ...valid, s3_key: 'x/a..b' }],
    ['a target folder', { ...valid, target_path: 'work/' }],
    ['a target file', { ...valid, target_path: 'work/copy.ipynb' }],
    ['a target name at the root', { ...valid, target_path: 'copy.ipynb' }],
    ['an empty target_path', { ...valid, target_path: '' }],
    ['a null target_path', { ...valid, target_path: null }],
    [
      'a target segment of 255 bytes',
      { ...valid, target_path: 'é'.repeat(127) + 'a' }
    ],
    [
      'a target with dots inside names',
      { ...valid, target_path: 'a.b/c..d.ipynb' }
    ],
    [
      'a hidden key name with a target file',
      { ...valid, s3_key: '.env', target_path: 'env.txt' }
    ],
    [
      'a version id',
      {
        ...valid,
        s3_version_id:
          '3/L4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY+MTRCxf3vjVBH40Nr8X8gdRQBpUMLUo'
      }
    ],
    ['an empty version id', { ...valid, s3_version_id: '' }],
    [
      'a version id of 1024 characters',
      { ...valid, s3_version_id: 'v'.repeat(1024) }
    ],
    ['unknown fields', { ...valid, 'bookshelf-clone': '' }]
  ])('accepts %s', (_, request) => {
    expect(validateCloneRequest(request)).toEqual([]);
  });

  test.each([
    [
      'no bucket',
      { s3_key: 'a' },
      's3_bucket',
      's3_bucket: a bucket name is required'
    ],
    [
      'an empty bucket',
      { ...valid, s3_bucket: '' },
      's3_bucket',
      's3_bucket: a bucket name is required'
    ],
    [
      'a bucket that is a number',
      { ...valid, s3_bucket: 42 },
      's3_bucket',
      's3_bucket: must be text (got number)'
    ],
    [
      'a bucket of 2 characters',
      { ...valid, s3_bucket: 'ab' },
      's3_bucket',
      's3_bucket: a bucket name has 3 to 63 characters (got 2)'
    ],
    [
      'a bucket of 64 characters',
      { ...valid, s3_bucket: 'a'.repeat(64) },
      's3_bucket',
      's3_bucket: a bucket name has 3 to 63 characters (got 64)'
    ],
    [
      'an uppercase bucket',
      { ...valid, s3_bucket: 'My-bucket' },
      's3_bucket',
      "s3_bucket: a bucket name has only lowercase letters a-z, digits, dots and hyphens (found 'M')"
    ],
    [
      'a bucket with an underscore',
      { ...valid, s3_bucket: 'my_bucket' },
      's3_bucket',
      "(found '_')"
    ],
    [
      'a bucket with a space',
      { ...valid, s3_bucket: 'my bucket' },
      's3_bucket',
      '(found U+0020)'
    ],
    [
      'a bucket starting with a hyphen',
      { ...valid, s3_bucket: '-bucket' },
      's3_bucket',
      's3_bucket: a bucket name starts and ends with a letter or digit'
    ],
    [
      'a bucket ending with a dot',
      { ...valid, s3_bucket: 'bucket.' },
      's3_bucket',
      'starts and ends with a letter or digit'
    ],
    [
      'a bucket with two adjacent dots',
      { ...valid, s3_bucket: 'my..bucket' },
      's3_bucket',
      's3_bucket: a bucket name has no two adjacent dots'
    ],
    [
      'a bucket like an IP address',
      { ...valid, s3_bucket: '192.168.5.4' },
      's3_bucket',
      's3_bucket: a bucket name must not be formatted like an IP address'
    ],
    [
      'a bucket starting with xn--',
      { ...valid, s3_bucket: 'xn--bucket' },
      's3_bucket',
      "must not start with 'xn--'"
    ],
    [
      'a bucket starting with sthree-',
      { ...valid, s3_bucket: 'sthree-bucket' },
      's3_bucket',
      "must not start with 'sthree-'"
    ],
    [
      'a bucket starting with amzn-s3-demo-',
      { ...valid, s3_bucket: 'amzn-s3-demo-x' },
      's3_bucket',
      "must not start with 'amzn-s3-demo-'"
    ],
    [
      'a bucket ending with -s3alias',
      { ...valid, s3_bucket: 'bucket-s3alias' },
      's3_bucket',
      "must not end with '-s3alias'"
    ],
    [
      'a bucket ending with --ol-s3',
      { ...valid, s3_bucket: 'bucket--ol-s3' },
      's3_bucket',
      "must not end with '--ol-s3'"
    ],
    [
      'a bucket ending with .mrap',
      { ...valid, s3_bucket: 'bucket.mrap' },
      's3_bucket',
      "must not end with '.mrap'"
    ],
    [
      'a bucket ending with --x-s3',
      { ...valid, s3_bucket: 'bucket--x-s3' },
      's3_bucket',
      "must not end with '--x-s3'"
    ],
    [
      'a bucket ending with --table-s3',
      { ...valid, s3_bucket: 'bucket--table-s3' },
      's3_bucket',
      "must not end with '--table-s3'"
    ],
    [
      'a bucket given twice',
      { ...valid, s3_bucket: ['abc', 'def'] },
      's3_bucket',
      's3_bucket: given more than once'
    ],
    [
      'no key',
      { s3_bucket: 'abc' },
      's3_key',
      's3_key: an object key is required'
    ],
    [
      'an empty key',
      { ...valid, s3_key: '' },
      's3_key',
      's3_key: an object key is required'
    ],
    [
      'a key of 1025 bytes',
      { ...valid, s3_key: 'k'.repeat(1025) },
      's3_key',
      's3_key: a key has 1 to 1024 bytes of UTF-8 (got 1025)'
    ],
    [
      'a key of 513 two-byte characters',
      { ...valid, s3_key: 'é'.repeat(513) },
      's3_key',
      '(got 1026)'
    ],
    [
      'a key with a newline',
      { ...valid, s3_key: 'a\nb.ipynb' },
      's3_key',
      's3_key: a key has no control characters (found U+000A)'
    ],
    [
      'a key with NUL',
      { ...valid, s3_key: 'a\u0000b' },
      's3_key',
      '(found U+0000)'
    ],
    [
      'a key with DEL',
      { ...valid, s3_key: 'a\u007fb' },
      's3_key',
      '(found U+007F)'
    ],
    [
      'a key with a C1 control',
      { ...valid, s3_key: 'a\u0085b' },
      's3_key',
      '(found U+0085)'
    ],
    [
      'a key with a right-to-left override',
      { ...valid, s3_key: 'cod\u202Egnp.ipynb' },
      's3_key',
      's3_key: a key has no bidirectional formatting characters'
    ],
    [
      'a key with U+200E',
      { ...valid, s3_key: 'a\u200eb' },
      's3_key',
      '(found U+200E)'
    ],
    [
      'a key with U+2068',
      { ...valid, s3_key: 'a\u2068b' },
      's3_key',
      '(found U+2068)'
    ],
    [
      'a key ending with /',
      { ...valid, s3_key: 'notebooks/' },
      's3_key',
      "s3_key: the key ends with '/', which names a folder, not an object"
    ],
    [
      'a key ending with /.',
      { ...valid, s3_key: 'a/.' },
      's3_key',
      "s3_key: the key's last segment must not be '.'"
    ],
    [
      'a key that is ..',
      { ...valid, s3_key: '..' },
      's3_key',
      "must not be '..'"
    ],
    [
      // A browser would request /bucket/b/q3.ipynb instead.
      'a key with ../ in its folders',
      { ...valid, s3_key: 'a/../b/q3.ipynb' },
      's3_key',
      "s3_key: a key has no '.' or '..' segment: a browser would resolve it and read another object"
    ],
    [
      'a key with ./ in its folders',
      { ...valid, s3_key: './q3.ipynb' },
      's3_key',
      "a key has no '.' or '..' segment"
    ],
    [
      'a key given twice',
      { ...valid, s3_key: ['a', 'b'] },
      's3_key',
      's3_key: given more than once'
    ],
    [
      'a key given as a list',
      { ...valid, s3_key: ['a'] },
      's3_key',
      's3_key: must be text (got a list)'
    ],
    [
      'a hidden key name',
      { ...valid, s3_key: 'config/.env' },
      's3_key',
      "s3_key: the object's name '.env' starts with a dot, which Jupyter hides; give a target_path"
    ],
    [
      'a hidden key name into a folder',
      { ...valid, s3_key: '.env', target_path: 'work/' },
      's3_key',
      'starts with a dot'
    ],
    [
      'a key name of 256 bytes',
      { ...valid, s3_key: 'a/' + 'n'.repeat(256) },
      's3_key',
      "s3_key: the object's name has 256 bytes of UTF-8, more than the 255 a file name may have; give a target_path"
    ],
    [
      'a target_path that is a number',
      { ...valid, target_path: 7 },
      'target_path',
      'target_path: must be text (got number)'
    ],
    [
      'an absolute target_path',
      { ...valid, target_path: '/work/a.ipynb' },
      'target_path',
      "target_path: a path is relative to the Jupyter root: remove the leading '/'"
    ],
    [
      'a target_path of /',
      { ...valid, target_path: '/' },
      'target_path',
      'leading'
    ],
    [
      'a target_path with a backslash',
      { ...valid, target_path: 'work\\a.ipynb' },
      'target_path',
      "target_path: a path separates folders with '/'"
    ],
    [
      'a target_path with a tab',
      { ...valid, target_path: 'a\tb' },
      'target_path',
      'target_path: a path has no control characters (found U+0009)'
    ],
    [
      'a target_path with NUL',
      { ...valid, target_path: 'a\u0000' },
      'target_path',
      '(found U+0000)'
    ],
    [
      'a target_path with U+202D',
      { ...valid, target_path: 'a\u202db' },
      'target_path',
      'target_path: a path has no bidirectional formatting characters'
    ],
    [
      'a target_path with ..',
      { ...valid, target_path: 'work/../../etc/' },
      'target_path',
      "target_path: a path must not contain '..'"
    ],
    [
      'a target_path of ..',
      { ...valid, target_path: '..' },
      'target_path',
      "must not contain '..'"
    ],
    [
      'a target_path with a . segment',
      { ...valid, target_path: './work/' },
      'target_path',
      "target_path: a path has no segment made only of dots (found '.')"
    ],
    [
      'a target_path with ...',
      { ...valid, target_path: 'a/.../b' },
      'target_path',
      "(found '...')"
    ],
    [
      'a target_path with //',
      { ...valid, target_path: 'a//b' },
      'target_path',
      "target_path: a path has no empty segment ('//')"
    ],
    [
      'a target_path ending with //',
      { ...valid, target_path: 'a//' },
      'target_path',
      'empty segment'
    ],
    [
      'a hidden target folder',
      { ...valid, target_path: '.ssh/' },
      'target_path',
      "target_path: '.ssh' starts with a dot, which Jupyter hides"
    ],
    [
      'a hidden target file',
      { ...valid, target_path: 'work/.a.ipynb' },
      'target_path',
      "'.a.ipynb' starts with a dot"
    ],
    [
      'a target segment of 256 bytes',
      { ...valid, target_path: 'é'.repeat(128) },
      'target_path',
      'target_path: each name in a path has at most 255 bytes of UTF-8 (got 256)'
    ],
    [
      'a target_path of 1025 bytes',
      {
        ...valid,
        target_path: ('d'.repeat(200) + '/').repeat(5) + 'abcdefghijklmnopqrst'
      },
      'target_path',
      'target_path: a path has at most 1024 bytes of UTF-8 (got 1025)'
    ],
    [
      'a target_path given twice',
      { ...valid, target_path: ['a/', 'b/'] },
      'target_path',
      'target_path: given more than once'
    ],
    [
      'a version id with a space',
      { ...valid, s3_version_id: 'abc def' },
      's3_version_id',
      's3_version_id: a version id has only letters, digits and . _ - + / = (found U+0020)'
    ],
    [
      'a version id with a colon',
      { ...valid, s3_version_id: 'a:b' },
      's3_version_id',
      "(found ':')"
    ],
    [
      'a version id with unicode',
      { ...valid, s3_version_id: 'vé' },
      's3_version_id',
      "(found 'é')"
    ],
    [
      'a version id of 1025 characters',
      { ...valid, s3_version_id: 'v'.repeat(1025) },
      's3_version_id',
      's3_version_id: a version id has 1 to 1024 characters (got 1025)'
    ],
    [
      'a version id that is a number',
      { ...valid, s3_version_id: 3 },
      's3_version_id',
      's3_version_id: must be text (got number)'
    ],
    [
      'a version id given twice',
      { ...valid, s3_version_id: ['a', 'b'] },
      's3_version_id',
      's3_version_id: given more than once'
    ]
  ])('refuses %s', (_, request, field, message) => {
    const problems = validateCloneRequest(request);
    expect(problems).toHaveLength(1);
    expect(problems[0].field).toBe(field);
    expect(problems[0].message.startsWith(`${field}: `)).toBe(true);
    expect(problems[0].message).toContain(message);
  });

  test.each([null, undefined, 'abc', 42, ['a']])(
    'refuses a request that is not an object: %p',
    request => {
      expect(validateCloneRequest(request)).toEqual([
        {
          field: 'request',
          message:
            'request: a clone request is an object with s3_bucket and s3_key'
        }
      ]);
    }
  );

  it('reports one problem per field, for every field at fault', () => {
    const problems = validateCloneRequest({
      s3_bucket: 'AB',
      s3_key: 'a/',
      target_path: '/x',
      s3_version_id: 'a b'
    });
    expect(problems.map(problem => problem.field)).toEqual([
      's3_bucket',
      's3_key',
      'target_path',
      's3_version_id'
    ]);
  });
});

describe('checkCloneRequest', () => {
  it('returns the normalized request', () => {
    expect(
      checkCloneRequest({ ...valid, target_path: '', s3_version_id: '' })
    ).toEqual(valid);
  });

  it('throws InvalidRequest with every message and the first field', () => {
    let error: BookshelfError | undefined;
    try {
      checkCloneRequest({ s3_bucket: 'ab', s3_key: '' });
    } catch (caught) {
      error = caught as BookshelfError;
    }
    expect(error).toBeInstanceOf(BookshelfError);
    expect(error!.code).toBe('InvalidRequest');
    expect(error!.message).toBe(
      's3_bucket: a bucket name has 3 to 63 characters (got 2); s3_key: an object key is required.'
    );
    expect(error!.detail).toEqual({
      field: 's3_bucket',
      message: error!.message
    });
  });
});

describe('normalizeCloneRequest', () => {
  it('drops empty optional fields and unknown fields, and trims nothing', () => {
    const request = {
      s3_bucket: 'abc',
      s3_key: ' spaced key ',
      target_path: '',
      s3_version_id: '',
      extra: 'x'
    };
    expect(normalizeCloneRequest(request)).toEqual({
      s3_bucket: 'abc',
      s3_key: ' spaced key '
    });
  });

  it('keeps optional fields that are set', () => {
    const request = { ...valid, target_path: 'a/', s3_version_id: 'v1' };
    expect(normalizeCloneRequest(request)).toEqual(request);
  });
});

describe('parseS3Url', () => {
  test.each([
    ['s3://bucket/key.ipynb', { s3_bucket: 'bucket', s3_key: 'key.ipynb' }],
    [
      's3://my.bucket/a/b/c d.ipynb',
      { s3_bucket: 'my.bucket', s3_key: 'a/b/c d.ipynb' }
    ],
    ['S3://bucket/a%20b', { s3_bucket: 'bucket', s3_key: 'a%20b' }],
    ['s3://bucket/folder/', { s3_bucket: 'bucket', s3_key: 'folder/' }]
  ])('splits %s', (text, expected) => {
    expect(parseS3Url(text)).toEqual(expected);
  });

  test.each([
    's3://bucket',
    's3://bucket/',
    's3:///key',
    'https://bucket.s3.amazonaws.com/key',
    'bucket/key',
    ' s3://bucket/key',
    ''
  ])('refuses %p', text => {
    expect(parseS3Url(text)).toBeNull();
  });
});

describe('isBucketAllowed', () => {
  test.each([
    ['team-a', [], true],
    ['team-a', ['team-a'], true],
    ['team-a', ['team-*'], true],
    ['team-', ['team-*'], true],
    ['my-team-a', ['team-*'], false],
    ['team-a-archive', ['*-archive'], true],
    ['Team-a', ['team-*'], false],
    ['team-a', ['Team-*'], false],
    ['data.x.y', ['data.*.y'], true],
    ['dataXxy', ['data.x.y'], false],
    ['abc', ['*'], true],
    ['abc', ['a*c'], true],
    ['abcd', ['a*c'], false],
    ['abc', ['x', 'y', 'abc'], true],
    ['abc', [''], false]
  ])('%s with %p: %p', (bucket, patterns, expected) => {
    expect(isBucketAllowed(bucket, patterns)).toBe(expected);
  });
});

describe('cloneLinkQuery and readCloneQuery', () => {
  it('lists the fields in a fixed order, encoded', () => {
    expect(
      cloneLinkQuery({
        s3_version_id: 'a+b/c=',
        target_path: 'my work/',
        s3_key: 'x y/q&3?.ipynb',
        s3_bucket: 'abc'
      })
    ).toBe(
      's3_bucket=abc&s3_key=x%20y%2Fq%263%3F.ipynb&target_path=my%20work%2F&s3_version_id=a%2Bb%2Fc%3D'
    );
  });

  it('leaves out optional fields that are not set', () => {
    expect(cloneLinkQuery({ ...valid, target_path: '' })).toBe(
      's3_bucket=my-bucket&s3_key=notebooks%2Fq3.ipynb'
    );
  });

  it('reads back what it writes', () => {
    const request = {
      s3_bucket: 'abc',
      s3_key: 'ü + 100%/a&b=c.ipynb',
      target_path: 'x/',
      s3_version_id: 'a+b'
    };
    expect(readCloneQuery(`?${cloneLinkQuery(request)}`)).toEqual(request);
  });

  it('keeps repeated parameters as a list, which validation reports', () => {
    const request = readCloneQuery(
      'bookshelf-clone&s3_bucket=abc&s3_key=a&s3_key=b'
    );
    expect(request).toEqual({ s3_bucket: 'abc', s3_key: ['a', 'b'] });
    expect(validateCloneRequest(request)).toEqual([
      { field: 's3_key', message: 's3_key: given more than once' }
    ]);
  });
});

describe('utf8Length', () => {
  test.each([
    ['', 0],
    ['abc', 3],
    ['é', 2],
    ['€', 3],
    ['😀', 4],
    ['\ud800', 3]
  ])('%p has %p bytes', (text, bytes) => {
    expect(utf8Length(text)).toBe(bytes);
  });
});
