import { PathExt } from '@jupyterlab/coreutils';

/**
 * Where the clone dialog proposes to put the file.
 */
export interface IDialogTarget {
  /**
   * The folder, relative to the root ('' for the root).
   */
  folder: string;
  /**
   * The file name; '' when the request names none (the key's base name then).
   */
  name: string;
}

/**
 * What the clone command was given to choose its target.
 */
export interface IDialogTargetSource {
  /**
   * A link's or caller's target_path: a folder when it ends in '/', else a
   * file path. It wins over everything else.
   */
  targetPath: string;
  /**
   * The folder a caller names (the launcher passes the one it shows).
   */
  cwd?: string;
  /**
   * The folder the file browser shows, once it has settled: Lab restores
   * the browser's folder (from the workspace, or a /lab/tree/… address)
   * only after start-up, and a link's dialog opens during it. Called only
   * when neither targetPath nor cwd names the folder.
   */
  browserFolder: () => Promise<string>;
}

/**
 * The folder and name the clone dialog proposes: an explicit target_path
 * first, then the caller's folder, then the folder the file browser shows.
 */
export async function dialogTarget(
  source: IDialogTargetSource
): Promise<IDialogTarget> {
  const { targetPath, cwd, browserFolder } = source;
  let folder: string;
  let name = '';
  if (targetPath) {
    if (targetPath.endsWith('/')) {
      folder = targetPath.replace(/\/+$/, '');
    } else {
      folder = PathExt.dirname(targetPath);
      name = PathExt.basename(targetPath);
    }
  } else if (typeof cwd === 'string') {
    folder = cwd;
  } else {
    folder = await browserFolder();
  }
  return { folder: folder === '.' ? '' : folder, name };
}

/**
 * The folder a /lab/tree/… (or Notebook's /tree/…) address makes the file
 * browser show: its `file-browser-path`, else the path itself when it is a
 * folder, else the path's folder (a file is opened, its folder shown).
 * Null without a tree address, or when its path cannot be read. Lab goes
 * there after restoring the workspace's folder, so a link's dialog cannot
 * wait for the file browser instead.
 */
export async function treeFolder(
  paths: { browser: string; file: string } | null,
  isDirectory: (path: string) => Promise<boolean>
): Promise<string | null> {
  const clean = (path: string) => path.replace(/^\/+|\/+$/g, '');
  if (!paths) {
    return null;
  }
  if (clean(paths.browser)) {
    return clean(paths.browser);
  }
  const file = clean(paths.file ?? '');
  if (!file) {
    return null;
  }
  try {
    if (await isDirectory(file)) {
      return file;
    }
    const folder = PathExt.dirname(file);
    return folder === '.' ? '' : folder;
  } catch {
    return null;
  }
}
