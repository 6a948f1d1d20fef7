import { candidateNames, incrementName, resolveTarget } from '../clone/naming';

describe('incrementName', () => {
  test.each([
    ['q3.ipynb', 0, 'q3.ipynb'],
    ['q3.ipynb', 1, 'q3-1.ipynb'],
    ['q3.ipynb', 2, 'q3-2.ipynb'],
    ['q3.v2.ipynb', 1, 'q3.v2-1.ipynb'],
    ['data.tar.gz', 1, 'data-1.tar.gz'],
    ['data.tar.gz', 12, 'data-12.tar.gz'],
    ['README', 1, 'README-1'],
    ['README', 3, 'README-3'],
    ['q3-1.ipynb', 1, 'q3-1-1.ipynb'],
    ['report-2024.csv', 1, 'report-2024-1.csv'],
    ['2024.01.data', 1, '2024-1.01.data'],
    ['notes.IPYNB', 1, 'notes-1.IPYNB'],
    ['archive.', 1, 'archive-1.'],
    ['résumé.txt', 1, 'résumé-1.txt']
  ])('%s, %i → %s', (name, n, expected) => {
    expect(incrementName(name, n)).toBe(expected);
  });
});

describe('candidateNames', () => {
  it('starts with the name and counts up', () => {
    const names: string[] = [];
    for (const name of candidateNames('q3.ipynb')) {
      names.push(name);
      if (names.length === 4) {
        break;
      }
    }
    expect(names).toEqual([
      'q3.ipynb',
      'q3-1.ipynb',
      'q3-2.ipynb',
      'q3-3.ipynb'
    ]);
  });
});

describe('resolveTarget', () => {
  const request = { s3_bucket: 'abc', s3_key: 'shared/2024/q3.ipynb' };

  test.each([
    ['no target_path', undefined, '', { folder: '', name: 'q3.ipynb' }],
    [
      'no target_path, a default folder',
      undefined,
      'work/reports',
      { folder: 'work/reports', name: 'q3.ipynb' }
    ],
    [
      'a default folder with slashes',
      undefined,
      '/work/',
      { folder: 'work', name: 'q3.ipynb' }
    ],
    [
      'a folder (trailing slash)',
      'mine/',
      'ignored',
      { folder: 'mine', name: 'q3.ipynb' }
    ],
    ['a nested folder', 'a/b/c/', '', { folder: 'a/b/c', name: 'q3.ipynb' }],
    [
      'a file name at the root',
      'copy.ipynb',
      'ignored',
      { folder: '', name: 'copy.ipynb' }
    ],
    [
      'a file in a folder',
      'a/b/copy.ipynb',
      '',
      { folder: 'a/b', name: 'copy.ipynb' }
    ]
  ])('%s', (_, targetPath, defaultFolder, expected) => {
    expect(
      resolveTarget({ ...request, target_path: targetPath }, defaultFolder)
    ).toEqual(expected);
  });
});
