/**
 * Where a clone goes, and the names it may take.
 */

import type { ICloneRequest } from '../tokens';
import { keyBaseName } from '../s3/names';

/**
 * The folder and file name a clone is written to, before collisions are
 * resolved.
 */
export interface ICloneTarget {
  /** The folder, '' for the Jupyter root; no leading or trailing '/'. */
  folder: string;
  /** The file name wanted; the writer increments it when taken. */
  name: string;
}

/**
 * The `n`th alternative of a file name, as Jupyter numbers copies:
 * `q3.ipynb` → `q3-1.ipynb`; other names split at the first dot, so
 * `data.tar.gz` → `data-1.tar.gz` and `README` → `README-1`.
 * `n = 0` gives the name itself.
 */
export function incrementName(name: string, n: number): string {
  if (n === 0) {
    return name;
  }
  // Mirrors jupyter_server's increment_filename with insert='-'.
  const dot = name.endsWith('.ipynb')
    ? name.length - '.ipynb'.length
    : name.indexOf('.');
  const stem = dot === -1 ? name : name.slice(0, dot);
  const suffix = dot === -1 ? '' : name.slice(dot);
  return `${stem}-${n}${suffix}`;
}

/**
 * The names to try for a new file, in order: the name itself, then its
 * increments. Endless; the caller caps the attempts.
 */
export function* candidateNames(name: string): Generator<string, never> {
  for (let n = 0; ; n++) {
    yield incrementName(name, n);
  }
}

/**
 * Where a request's file goes, from the request alone. A `target_path`
 * ending in '/' is a folder and the name comes from the key; otherwise its
 * last segment is the file name. Without a `target_path` the key's base
 * name goes into `defaultFolder` ('' is the root).
 *
 * A `target_path` without a trailing '/' may still name an existing folder;
 * only the contents manager knows, so the caller checks (see `cloneObject`).
 */
export function resolveTarget(
  request: ICloneRequest,
  defaultFolder = ''
): ICloneTarget {
  const targetPath = request.target_path;
  if (!targetPath) {
    return {
      folder: trimSlashes(defaultFolder),
      name: keyBaseName(request.s3_key)
    };
  }
  if (targetPath.endsWith('/')) {
    return {
      folder: trimSlashes(targetPath),
      name: keyBaseName(request.s3_key)
    };
  }
  const slash = targetPath.lastIndexOf('/');
  return {
    folder: slash === -1 ? '' : targetPath.slice(0, slash),
    name: targetPath.slice(slash + 1)
  };
}

/**
 * Join a folder ('' for the root) and a name into a contents path.
 */
export function joinPath(folder: string, name: string): string {
  return folder ? `${folder}/${name}` : name;
}

/**
 * Whether `path` (a file or folder) is on another drive of the contents
 * manager (as Lab reads a path's first part): not files of this server.
 */
export function isOtherDrive(path: string): boolean {
  return path.split('/')[0].includes(':');
}

function trimSlashes(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}
