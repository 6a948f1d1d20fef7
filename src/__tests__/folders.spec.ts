import * as fs from 'fs';
import * as path from 'path';

/**
 * The folders of src/ depend one way: no folder imports itself back
 * through others. The logic folders: clone/ and publish/ use s3/ and
 * settings/; settings/ uses s3/ (its naming rules); s3/ uses neither (the
 * rules shared by several folders are in s3/names.ts and src/rules/). The
 * user interface: plugins/ load actions/ on first use, and both take the
 * command ids from src/commands.ts.
 */
const SRC = path.join(__dirname, '..');

function importedFolders(folder: string): Set<string> {
  const found = new Set<string>();
  for (const file of fs.readdirSync(path.join(SRC, folder))) {
    if (!/\.tsx?$/.test(file)) {
      continue;
    }
    const text = fs.readFileSync(path.join(SRC, folder, file), 'utf8');
    for (const match of text.matchAll(/from '\.\.\/([^/']+)\//g)) {
      found.add(match[1]);
    }
  }
  return found;
}

describe('the logic folders', () => {
  it.each([
    ['s3', ['settings', 'clone', 'publish']],
    ['settings', ['clone', 'publish']]
  ])('%s/ imports nothing from %j', (folder, forbidden) => {
    const imported = importedFolders(folder as string);
    expect(imported.size).toBeGreaterThan(0);
    for (const other of forbidden as string[]) {
      expect([folder, imported.has(other)]).toEqual([folder, false]);
    }
  });
});

describe('the folders of src/', () => {
  const folders = fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter(entry => entry.isDirectory() && entry.name !== '__tests__')
    .map(entry => entry.name);

  /** A chain of imports that leads from a folder back to itself, if any. */
  function cycleFrom(start: string): string[] | null {
    const seen = new Set<string>();
    const walk = (folder: string, chain: string[]): string[] | null => {
      for (const next of importedFolders(folder)) {
        if (next === start) {
          return [...chain, next];
        }
        if (folders.includes(next) && !seen.has(next)) {
          seen.add(next);
          const found = walk(next, [...chain, next]);
          if (found) {
            return found;
          }
        }
      }
      return null;
    };
    return walk(start, [start]);
  }

  it('are many, so that the check below means something', () => {
    expect(folders).toEqual(
      expect.arrayContaining(['actions', 'clone', 'errors', 'plugins', 's3'])
    );
  });

  it.each(folders.map(folder => [folder]))(
    '%s/ is not imported back by what it imports',
    folder => {
      expect(cycleFrom(folder)).toBeNull();
    }
  );
});
