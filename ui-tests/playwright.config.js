/**
 * Playwright configuration: Galata's defaults, Debian's Chromium headless
 * shell (Playwright cannot download browsers here), and the project's own
 * servers.
 */
const path = require('path');
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

const labPort = Number(process.env.BOOKSHELF_TEST_LAB_PORT || 18888);
process.env.BOOKSHELF_TEST_LAB_PORT = String(labPort);
const s3Port = Number(process.env.BOOKSHELF_TEST_S3_PORT || 19000);
// The fault-injecting proxy in front of the S3 server; the fault tests use
// the next two ports too, for an S3 server of their own that they stop.
const proxyPort = Number(process.env.BOOKSHELF_TEST_PROXY_PORT || s3Port + 1);
process.env.BOOKSHELF_TEST_PROXY_PORT = String(proxyPort);
// Notebook 7, started beside Lab with the same files, settings and S3 server.
const notebookPort = Number(
  process.env.BOOKSHELF_TEST_NOTEBOOK_PORT || labPort + 1
);
process.env.BOOKSHELF_TEST_NOTEBOOK_PORT = String(notebookPort);
// The signature-verifying s3rver (ignores conditional writes) beside moto.
const s3rverPort = Number(process.env.BOOKSHELF_TEST_S3RVER_PORT || s3Port + 5);
process.env.BOOKSHELF_TEST_S3RVER_PORT = String(s3rverPort);
// A JupyterHub with two users (scripts/hub_fixture.py) on the same S3 server.
const hubPort = Number(process.env.BOOKSHELF_TEST_HUB_PORT || labPort + 2);
process.env.BOOKSHELF_TEST_HUB_PORT = String(hubPort);
// A JupyterLite site with the extension (scripts/lite_fixture.py).
const litePort = Number(process.env.BOOKSHELF_TEST_LITE_PORT || labPort + 3);
// The nginx that tests start in front of Lab (tests/nginx.ts).
const nginxPort = Number(process.env.BOOKSHELF_TEST_NGINX_PORT || labPort + 4);
// The nginx that ends TLS in front of Lab (tests/nginx.ts, `tls`).
const nginxTlsPort = Number(
  process.env.BOOKSHELF_TEST_NGINX_TLS_PORT || labPort + 5
);
// The servers' state folder; tests read fixture.json from it.
const runDir = path.resolve(
  process.env.BOOKSHELF_TEST_RUN_DIR ||
    path.join(__dirname, '..', '.run', 'test')
);
process.env.BOOKSHELF_TEST_RUN_DIR = runDir;

// Traces of failed tests: recording one for every test cost a quarter of the
// run's time on two cores, most of it in screenshots, and DOM snapshots
// another tenth (34 tests: 117-120 s against 105-108 s). By default a failed
// test keeps its actions and console; its network is in the `network`
// attachment of tests/fixtures.ts, which costs next to nothing.
// BOOKSHELF_TEST_TRACE=light adds DOM snapshots (and Playwright's own network
// record), =full adds screenshots, =off records nothing.
const TRACE = {
  off: 'off',
  full: 'retain-on-failure',
  light: {
    mode: 'retain-on-failure',
    screenshots: false,
    snapshots: true,
    sources: false
  },
  actions: {
    mode: 'retain-on-failure',
    screenshots: false,
    snapshots: false,
    sources: false
  }
}[process.env.BOOKSHELF_TEST_TRACE || 'actions'];

// Files whose tests change state that the other files share (see projects).
const PROXY_FILES = [
  '**/faults.spec.ts',
  '**/concurrency.spec.ts',
  '**/server-side.spec.ts'
];
const SERVER_SETTINGS_FILES = [
  '**/fresh-reads.spec.ts',
  '**/server-settings.spec.ts'
];

module.exports = {
  ...baseConfig,
  // Three browsers at a time against the one Lab and S3 server. Each test has
  // its own folder (Galata's tmpPath), its own S3 keys and its own settings
  // (Galata's mocked settings), so most files run side by side; the projects
  // below keep apart the few that change what every test would see.
  workers: Number(process.env.BOOKSHELF_TEST_WORKERS || 3),
  projects: [
    {
      // The fault proxy's rules hold for every request through it: one file
      // at a time, beside the others. First in the list, so that its long
      // files start first instead of running alone at the end.
      name: 'fault-proxy',
      testMatch: PROXY_FILES,
      workers: 1
    },
    {
      name: 'side-by-side',
      testIgnore: [...PROXY_FILES, ...SERVER_SETTINGS_FILES]
    },
    {
      // The server's own user settings (read by the server extension and by
      // every page that does not mock them): alone, after everything else.
      name: 'server-settings',
      testMatch: SERVER_SETTINGS_FILES,
      dependencies: ['side-by-side', 'fault-proxy'],
      workers: 1
    }
  ],
  retries: 0,
  timeout: 90 * 1000,
  // A loaded two-core machine is slow to start Lab: wait longer than 5 s.
  expect: { timeout: 15000 },
  reporter: [
    ['list'],
    [
      'json',
      {
        outputFile:
          process.env.BOOKSHELF_TEST_REPORT || '../.test-results/galata.json'
      }
    ],
    ['html', { open: 'never' }]
  ],
  use: {
    ...baseConfig.use,
    baseURL: `http://127.0.0.1:${labPort}`,
    appPath: '/lab',
    autoGoto: true,
    video: 'off',
    trace: TRACE,
    launchOptions: {
      // Chromium's headless shell (see the Makefile: a third less CPU per
      // page load than the full browser, with the same engine).
      executablePath:
        process.env.BOOKSHELF_CHROMIUM || '/usr/bin/chromium-headless-shell',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run'
      ]
    }
  },
  webServer: {
    command: `python ../scripts/serve.py --mode test --s3-port ${s3Port} --lab-port ${labPort} --proxy-port ${proxyPort} --notebook-port ${notebookPort} --s3rver-port ${s3rverPort} --hub-port ${hubPort} --lite-port ${litePort} --nginx-port ${nginxPort} --nginx-tls-port ${nginxTlsPort} --run-dir "${runDir}"`,
    url: `http://127.0.0.1:${labPort}/lab`,
    timeout: 120 * 1000,
    reuseExistingServer: false,
    gracefulShutdown: { signal: 'SIGTERM', timeout: 15000 },
    stdout: 'pipe',
    stderr: 'pipe'
  }
};
