/**
 * The info panel and the info JSON against the real servers: every check
 * passes on the demo configuration (the admin overrides of
 * scripts/serve.py), and each broken configuration fails the right check
 * with the right fix. The browser's IBookshelf.info() and the shim's
 * GET /api/bookshelf report the same features.
 */
import {
  callBookshelf,
  closedPort,
  coreSettings,
  fixture,
  s3Headers
} from './helpers';
import { infoCheck, infoStates, openInfoPanel } from './pages';
import { expect, scanServerLogs, test } from './secrets';

const CHECKS = [
  'shim',
  'settings',
  'credentials',
  'service',
  'cors',
  'publish-bucket',
  'versioning',
  'conditional-writes'
];

/**
 * The test Lab's allowedBuckets (scripts/serve.py), each checked in its own
 * row: two of them are broken on purpose (for the link tests), and the
 * panel must say so.
 */
const CLONE_ROWS: { [id: string]: string } = {
  'clone-bucket:examples': 'pass',
  'clone-bucket:published': 'pass',
  'clone-bucket:nocors': 'fail',
  'clone-bucket:versioned-examples': 'pass',
  'clone-bucket:missing-bucket': 'fail'
};

test.afterAll(() => {
  expect(scanServerLogs()).toEqual([]);
});

test.describe('on the demo configuration', () => {
  test('every check passes and says what was checked', async ({ page }) => {
    const panel = await openInfoPanel(page);
    expect(await infoStates(panel)).toEqual({
      ...Object.fromEntries(CHECKS.map(id => [id, 'pass'])),
      ...CLONE_ROWS
    });
    await expect(infoCheck(panel, 'shim')).toContainText(
      'jupyterlab_bookshelf 0.1.0 answers'
    );
    await expect(infoCheck(panel, 'service')).toContainText(
      `Something answers HTTP at ${fixture().endpoint_url}.`
    );
    await expect(infoCheck(panel, 'cors')).toContainText(
      'allow GET, HEAD and PUT from this page'
    );
    await expect(infoCheck(panel, 'publish-bucket')).toContainText(
      's3://published exists and answered a HEAD request'
    );
    await expect(infoCheck(panel, 'publish-bucket')).toContainText(
      'Nothing was written'
    );
    await expect(infoCheck(panel, 'versioning')).toContainText(
      'Versioning is on for s3://published'
    );
    await expect(
      panel.locator('[data-state="pass"] .jp-Bookshelf-check-fix')
    ).toHaveCount(0);
    await expect(panel).toContainText('Pass');
  });

  test('each bucket links clone from has its row; a broken one says what to do', async ({
    page,
    baseURL
  }) => {
    const panel = await openInfoPanel(page);
    await expect(infoCheck(panel, 'clone-bucket:examples')).toContainText(
      'Clone bucket s3://examples'
    );
    await expect(infoCheck(panel, 'clone-bucket:examples')).toContainText(
      'allow GET from this page'
    );
    const nocors = infoCheck(panel, 'clone-bucket:nocors');
    await expect(nocors).toContainText('clone links to it fail');
    await expect(nocors.locator('.jp-Bookshelf-check-fix')).toContainText(
      'Check the name in "allowedBuckets"'
    );
    const rule = JSON.parse(
      (await nocors.locator('.jp-Bookshelf-check-rule pre').textContent())!
    );
    expect(rule.AllowedOrigins).toEqual([baseURL]);
    // A bucket that does not exist cannot be told from one whose CORS
    // rules refuse this page: the fix names both.
    await expect(
      infoCheck(panel, 'clone-bucket:missing-bucket').locator(
        '.jp-Bookshelf-check-fix'
      )
    ).toContainText('Check the name in "allowedBuckets"');
  });

  test('"Check again" runs the checks again', async ({ page, network }) => {
    const panel = await openInfoPanel(page);
    const heads = () =>
      network
        .s3Requests()
        .filter(r => r.method === 'HEAD' && /\/published\/?$/.test(r.url))
        .length;
    const before = heads();
    expect(before).toBeGreaterThan(0);
    await panel.getByRole('button', { name: 'Check again' }).click();
    await expect.poll(heads).toBeGreaterThan(before);
    await expect(infoCheck(panel, 'versioning')).toHaveAttribute(
      'data-state',
      'pass'
    );
  });

  test("the browser's info and the shim's report the same features", async ({
    page,
    baseURL
  }) => {
    const browser = await callBookshelf<any>(page, 'info');
    const response = await page.request.get(`${baseURL}/api/bookshelf`);
    const shim = await response.json();
    // What only the server knows: its settings files, nothing wrong in
    // them, and its own mode (the test Lab runs in server-side mode).
    const { settings_files_problems, server_access, ...shared } = shim;
    expect(settings_files_problems).toEqual([]);
    expect(server_access).toBe(true);
    expect(browser).toEqual(shared);
    expect(shim.features.publish_valid).toBe(true);
    const live = await callBookshelf<any>(page, 'info', { live: true });
    expect(live.features).toEqual(shim.features);
    expect(live.checks.map((c: any) => c.id)).toEqual([
      ...CHECKS,
      ...Object.keys(CLONE_ROWS)
    ]);
  });
});

test.describe('the settings button', () => {
  // Lab's settings editor shows the keys of settings mode (the mode's
  // documented trade-off): this test runs in session mode.
  test.use({
    mockSettings: coreSettings({ credentials: { mode: 'session' } })
  });

  test('"Open settings" opens the Bookshelf settings', async ({ page }) => {
    const panel = await openInfoPanel(page);
    await panel.getByRole('button', { name: 'Open settings' }).click();
    await expect(
      page.getByRole('main').getByRole('tab', { name: /Settings/ })
    ).toBeVisible();
  });
});

/**
 * A broken configuration: its settings, the checks that fail, and what
 * their text says.
 */
const BROKEN: {
  name: string;
  settings: () => object;
  expected: { [id: string]: string };
  texts: { [id: string]: string[] };
}[] = [
  {
    name: 'a publish bucket without a CORS rule',
    settings: () => ({ publishBucket: 'nocors' }),
    expected: { cors: 'fail', 'publish-bucket': 'fail', versioning: 'skip' },
    texts: {
      cors: [
        'A HEAD request for s3://nocors from this page',
        'the bucket does not exist, or its CORS rules do not allow this origin',
        'add this rule at the start of its CORS configuration'
      ]
    }
  },
  {
    name: 'a publish bucket that does not exist',
    settings: () => ({ publishBucket: 'missing-bucket' }),
    expected: { cors: 'fail', 'publish-bucket': 'fail' },
    texts: {
      'publish-bucket': ['Check the name in "Publish bucket"']
    }
  },
  {
    name: 'a publish bucket whose policy denies uploads',
    settings: () => ({ publishBucket: 'denied' }),
    expected: { cors: 'pass', 'publish-bucket': 'fail', versioning: 'fail' },
    texts: {
      'publish-bucket': [
        'Its bucket policy denies uploads (s3:PutObject) below s3://denied to everyone',
        'lift the Deny statement'
      ]
    }
  },
  {
    name: 'a publish bucket without versioning',
    settings: () => ({ publishBucket: 'examples' }),
    expected: { cors: 'pass', 'publish-bucket': 'pass', versioning: 'fail' },
    texts: {
      versioning: [
        'Versioning is off for s3://examples',
        'turn versioning on for the bucket'
      ]
    }
  },
  {
    name: 'no publish bucket',
    settings: () => ({ publishBucket: '' }),
    expected: { 'publish-bucket': 'fail', cors: 'skip', versioning: 'skip' },
    texts: { 'publish-bucket': ['Set "Publish bucket"'] }
  },
  {
    // moto does not check who makes bucket requests (HEAD, ?cors, ?policy,
    // ?versioning), so unsigned ones pass there; AWS would refuse them on
    // a private bucket and the publish bucket check would fail.
    name: 'anonymous mode',
    settings: () => ({ credentials: { mode: 'anonymous' } }),
    expected: { credentials: 'pass' },
    texts: {
      credentials: ['unsigned', 'only public buckets and objects'],
      'publish-bucket': ['only an upload proves']
    }
  }
];

for (const broken of BROKEN) {
  test.describe(`with ${broken.name}`, () => {
    test.use({ mockSettings: coreSettings(broken.settings()) });

    test('the right checks fail with the right fix', async ({ page }) => {
      const panel = await openInfoPanel(page);
      const found = await infoStates(panel);
      expect(found).toMatchObject(broken.expected);
      expect(found.shim).toBe('pass');
      for (const [id, texts] of Object.entries(broken.texts)) {
        for (const text of texts) {
          await expect(infoCheck(panel, id)).toContainText(text);
        }
      }
      for (const [id, state] of Object.entries(broken.expected)) {
        if (state === 'fail') {
          await expect(
            infoCheck(panel, id).locator('.jp-Bookshelf-check-fix')
          ).not.toBeEmpty();
        }
      }
    });
  });
}

test.describe('with CORS refused', () => {
  test.use({ mockSettings: coreSettings({ publishBucket: 'nocors' }) });

  test('the rule to add names this origin', async ({ page, baseURL }) => {
    const panel = await openInfoPanel(page);
    // One rule to add, not a configuration that would replace the rules
    // other sites rely on; the page cannot read this bucket's rules, so
    // no merged configuration is shown.
    const rule = JSON.parse(
      (await infoCheck(panel, 'cors').locator('pre').textContent())!
    );
    expect(rule.AllowedOrigins).toEqual([baseURL]);
    await expect(
      infoCheck(panel, 'cors').locator('.jp-Bookshelf-check-configuration')
    ).toHaveCount(0);
    // The encryption header tells whether an ETag is the MD5 of the bytes.
    expect(rule.ExposeHeaders).toEqual([
      'ETag',
      'x-amz-version-id',
      'x-amz-server-side-encryption'
    ]);
  });
});

/**
 * The CORS configuration of a bucket as S3's PutBucketCors takes it.
 */
function corsXml(rules: any[]): string {
  const list = (name: string, values: string[] = []) =>
    values.map(value => `<${name}>${value}</${name}>`).join('');
  return (
    '<CORSConfiguration>' +
    rules
      .map(
        rule =>
          '<CORSRule>' +
          (rule.ID ? `<ID>${rule.ID}</ID>` : '') +
          list('AllowedOrigin', rule.AllowedOrigins) +
          list('AllowedMethod', rule.AllowedMethods) +
          list('AllowedHeader', rule.AllowedHeaders) +
          list('ExposeHeader', rule.ExposeHeaders) +
          (rule.MaxAgeSeconds !== undefined
            ? `<MaxAgeSeconds>${rule.MaxAgeSeconds}</MaxAgeSeconds>`
            : '') +
          '</CORSRule>'
      )
      .join('') +
    '</CORSConfiguration>'
  );
}

async function putBucketCors(bucket: string, xml: string): Promise<void> {
  const response = await fetch(`${fixture().endpoint_url}/${bucket}?cors`, {
    method: 'PUT',
    body: xml,
    headers: { ...s3Headers(), 'Content-Type': 'application/xml' }
  });
  expect(response.status).toBe(200);
}

async function getBucketCors(bucket: string): Promise<string> {
  const response = await fetch(`${fixture().endpoint_url}/${bucket}?cors`, {
    headers: s3Headers()
  });
  expect(response.status).toBe(200);
  return response.text();
}

test.describe('with a bucket another site shares', () => {
  // scripts/s3_fixture.py: othersite has a rule for https://other.example.org
  // first, then a read-only rule for the Lab origins. (Whether the other
  // site still gets in is read from the stored rules: moto's answers to
  // preflights are no measure of what S3 would answer.)
  const OTHER = 'https://other.example.org';
  test.use({
    mockSettings: coreSettings({
      publishBucket: 'othersite',
      allowedBuckets: ['othersite', 'team-*']
    })
  });

  test("the configuration shown keeps the other site's rule, and fixes this page", async ({
    page,
    baseURL
  }) => {
    const panel = await openInfoPanel(page);
    expect(await infoStates(panel)).toMatchObject({
      cors: 'fail',
      'publish-bucket': 'fail',
      'clone-bucket:othersite': 'fail',
      'clone-bucket:team-*': 'skip'
    });
    await expect(infoCheck(panel, 'clone-bucket:team-*')).toContainText(
      '"team-*" is a pattern'
    );
    await expect(infoCheck(panel, 'clone-bucket:othersite')).toContainText(
      'GET: x-amz-version-id'
    );
    for (const id of ['cors', 'clone-bucket:othersite']) {
      await expect(
        infoCheck(panel, id).locator('.jp-Bookshelf-check-fix')
      ).toContainText(
        "keeps the bucket's 2 rules for other origins as they are"
      );
    }
    const shown = JSON.parse(
      (await infoCheck(panel, 'cors')
        .locator('.jp-Bookshelf-check-configuration pre')
        .textContent())!
    );
    // This page's rule first, whole; the other site's exactly as it was;
    // the Lab origins' old rule without this one.
    expect(shown[0]).toEqual({
      AllowedOrigins: [baseURL],
      AllowedMethods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'],
      AllowedHeaders: ['*'],
      ExposeHeaders: [
        'ETag',
        'x-amz-version-id',
        'x-amz-server-side-encryption'
      ],
      MaxAgeSeconds: 3000
    });
    expect(shown[1]).toEqual({
      ID: 'other-site',
      AllowedOrigins: [OTHER],
      AllowedMethods: ['GET', 'PUT'],
      AllowedHeaders: ['*'],
      ExposeHeaders: ['ETag'],
      MaxAgeSeconds: 600
    });
    expect(shown[2].AllowedOrigins).not.toContain(baseURL);
    expect(shown[2].AllowedOrigins.length).toBeGreaterThan(0);
    expect(shown).toHaveLength(3);

    // Put on the bucket as an admin would, the configuration shown makes
    // the checks pass and still lets the other site in.
    const before = await getBucketCors('othersite');
    try {
      await putBucketCors('othersite', corsXml(shown));
      // Stored on S3: the other site's rule, as it was.
      const stored = await getBucketCors('othersite');
      const otherRule =
        /<CORSRule>(?:(?!<\/CORSRule>)[\s\S])*other-site[\s\S]*?<\/CORSRule>/.exec(
          stored
        )?.[0];
      expect(otherRule).toContain(`<AllowedOrigin>${OTHER}</AllowedOrigin>`);
      expect(otherRule).toContain('<AllowedMethod>PUT</AllowedMethod>');
      expect(otherRule).toContain('<MaxAgeSeconds>600</MaxAgeSeconds>');
      await panel.getByRole('button', { name: 'Check again' }).click();
      await expect(infoCheck(panel, 'cors')).toHaveAttribute(
        'data-state',
        'pass'
      );
      await expect(infoCheck(panel, 'clone-bucket:othersite')).toHaveAttribute(
        'data-state',
        'pass'
      );
    } finally {
      await putBucketCors('othersite', before);
    }
  });
});

test.describe('with the endpoint on a closed port', () => {
  let port = 0;
  test.beforeAll(async () => {
    port = await closedPort();
  });
  test.use({
    mockSettings: async ({}, use: (settings: object) => Promise<void>) => {
      await use(coreSettings({ endpointUrl: `http://127.0.0.1:${port}` }));
    }
  } as any);

  test('the service check fails, and the bucket checks wait for it', async ({
    page
  }) => {
    const panel = await openInfoPanel(page);
    expect(await infoStates(panel)).toMatchObject({
      service: 'fail',
      cors: 'skip',
      'publish-bucket': 'skip',
      versioning: 'skip'
    });
    await expect(infoCheck(panel, 'service')).toContainText(
      `Nothing answers at http://127.0.0.1:${port}.`
    );
    await expect(
      infoCheck(panel, 'service').locator('.jp-Bookshelf-check-fix')
    ).toContainText('Check the S3 endpoint URL');
  });
});
