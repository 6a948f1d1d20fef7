/**
 * The case files the browser and the server are both tested on
 * (jupyterlab_bookshelf/tests/*_cases.json).
 */
import * as fs from 'fs';
import * as path from 'path';

/**
 * The `cases` (or another list, `section`) of a shared case file.
 */
export function sharedCases<T>(file: string, section = 'cases'): T[] {
  const text = fs.readFileSync(
    path.join(
      __dirname,
      '..',
      '..',
      '..',
      'jupyterlab_bookshelf',
      'tests',
      file
    ),
    'utf8'
  );
  return (JSON.parse(text) as { [section: string]: T[] })[section];
}
