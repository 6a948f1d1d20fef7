import { candidateNames, incrementName, resolveTarget } from '../clone/naming';
import { sharedCases } from './fakes/cases';

/**
 * The cases the server's commit path is tested on too
 * (jupyterlab_bookshelf/tests/test_naming_parity.py): the browser and the
 * server number copies alike.
 */
const cases = sharedCases<{ name: string; n: number; expected: string }>(
  'naming_cases.json'
);

describe('incrementName', () => {
  it('has the shared cases', () => {
    expect(cases.length).toBeGreaterThan(20);
  });

  test.each(cases.map(c => [c.name, c.n, c.expected]))(
    '%s, %i → %s',
    (name, n, expected) => {
      expect(incrementName(name as string, n as number)).toBe(expected);
    }
  );
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
