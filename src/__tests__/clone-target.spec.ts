import { dialogTarget } from '../clone/target';

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
