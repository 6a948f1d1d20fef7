import * as fs from 'fs';
import * as path from 'path';

/**
 * The logic folders depend one way: clone/ and publish/ use s3/ and
 * settings/; settings/ uses s3/ (its naming rules); s3/ uses neither, so
 * that no folder imports itself back through another (the rules shared by
 * several folders are in s3/names.ts and src/rules/).
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
