const os = require('os');
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
  // Jest's default (one worker fewer than the cores) is one worker on a
  // two-core machine; the tests wait on timers and I/O, so two go faster.
  maxWorkers: Math.max(2, os.cpus().length - 1),
  // ts-jest only transpiles: type-checking every test file in every jest
  // worker took most of jest's time; \`jlpm lint:check\` type-checks the
  // sources and the tests once (tsconfig.test.json).
  transform: {
    ...baseConfig.transform,
    '^.+\\.tsx?$': [
      'ts-jest/legacy',
      { tsconfig: './tsconfig.test.json', isolatedModules: true }
    ]
  },
  // jsdom's Blob lacks arrayBuffer(), which the clone reads a Blob with.
  setupFiles: [
    ...baseConfig.setupFiles,
    '<rootDir>/src/__tests__/fakes/blobShim.ts'
  ],
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
