const jestJupyterLab = require('@jupyterlab/testutils/lib/jest-config');

// The base list from @jupyterlab/testing plus the packages this project
// imports; leaving one out fails with "Unexpected token 'export'".
const esModules = [
  '@codemirror',
  '@jupyter/ydoc',
  '@jupyter/react-components',
  '@jupyter/web-components',
  '@jupyterlab/',
  '@microsoft',
  'exenv-es6',
  'lib0',
  'nanoid',
  'vscode-ws-jsonrpc',
  'y-protocols',
  'y-websocket',
  'yjs'
].join('|');

const baseConfig = jestJupyterLab(__dirname);

module.exports = {
  ...baseConfig,
  automock: false,
  // Only the sources: the virtualenv, the build and the UI tests hold
  // thousands of files that jest would otherwise index.
  roots: ['<rootDir>/src'],
  // Some tests move megabytes through the fakes: room for a loaded machine.
  testTimeout: 30000,
  collectCoverageFrom: [
    'src/**/*.{ts,tsx}',
    '!src/**/*.d.ts',
    '!src/**/.ipynb_checkpoints/*'
  ],
  coverageReporters: ['lcov', 'text-summary'],
  testRegex: 'src/.*/.*.spec.ts[x]?$',
  transformIgnorePatterns: [`/node_modules/(?!${esModules}).+`]
};
