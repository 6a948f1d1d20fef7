import { dialogTarget, treeFolder } from '../clone/target';

describe('dialogTarget', () => {
  const browserAt = (folder: string) => {
    const browserFolder = jest.fn(async () => folder);
    return browserFolder;
  };

  it("proposes the file browser's folder when nothing names one", async () => {
    const browserFolder = browserAt('lessons/week-1');
    expect(await dialogTarget({ targetPath: '', browserFolder })).toEqual({
      folder: 'lessons/week-1',
      name: ''
    });
    expect(browserFolder).toHaveBeenCalledTimes(1);
  });

  it('waits for the file browser to settle before reading its folder', async () => {
    let settle: (folder: string) => void = () => undefined;
    const settled = new Promise<string>(resolve => (settle = resolve));
    const target = dialogTarget({
      targetPath: '',
      browserFolder: () => settled
    });
    settle('restored/folder');
    expect((await target).folder).toBe('restored/folder');
  });

  it('proposes the root when the file browser shows the root', async () => {
    expect(
      await dialogTarget({ targetPath: '', browserFolder: browserAt('') })
    ).toEqual({ folder: '', name: '' });
  });

  it("lets a link's target_path folder win, without asking the browser", async () => {
    const browserFolder = browserAt('lessons');
    expect(
      await dialogTarget({ targetPath: 'week-1/', cwd: 'x', browserFolder })
    ).toEqual({ folder: 'week-1', name: '' });
    expect(browserFolder).not.toHaveBeenCalled();
  });

  it("lets a link's target_path file win, split into folder and name", async () => {
    const browserFolder = browserAt('lessons');
    expect(
      await dialogTarget({ targetPath: 'a/b/q3.ipynb', browserFolder })
    ).toEqual({ folder: 'a/b', name: 'q3.ipynb' });
    expect(
      await dialogTarget({ targetPath: 'q3.ipynb', browserFolder })
    ).toEqual({ folder: '', name: 'q3.ipynb' });
    expect(browserFolder).not.toHaveBeenCalled();
  });

  it("uses the caller's folder (the launcher's) over the browser's", async () => {
    const browserFolder = browserAt('lessons');
    expect(
      await dialogTarget({ targetPath: '', cwd: 'other', browserFolder })
    ).toEqual({ folder: 'other', name: '' });
    expect(
      await dialogTarget({ targetPath: '', cwd: '', browserFolder })
    ).toEqual({ folder: '', name: '' });
    expect(browserFolder).not.toHaveBeenCalled();
  });
});

describe('treeFolder', () => {
  const folders = new Set(['lessons', 'lessons/week 1']);
  const isDirectory = async (path: string) => {
    if (path.includes('missing')) {
      throw new Error('404');
    }
    return folders.has(path);
  };

  it.each([
    ['no tree address', null, null],
    ['/lab/tree/ (the root)', { browser: '', file: '' }, null],
    ['a folder', { browser: '', file: 'lessons' }, 'lessons'],
    [
      'a folder with a space',
      { browser: '', file: 'lessons/week 1/' },
      'lessons/week 1'
    ],
    [
      'a file: its folder',
      { browser: '', file: 'lessons/intro.ipynb' },
      'lessons'
    ],
    ['a file at the root', { browser: '', file: 'intro.ipynb' }, ''],
    [
      'file-browser-path wins',
      { browser: 'lessons/week 1', file: 'other/intro.ipynb' },
      'lessons/week 1'
    ],
    ['a path that cannot be read', { browser: '', file: 'missing/x' }, null]
  ])('%s', async (_, paths, expected) => {
    expect(await treeFolder(paths, isDirectory)).toBe(expected);
  });
});
