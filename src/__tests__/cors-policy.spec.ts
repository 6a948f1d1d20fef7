import {
  checkCorsRules,
  CLONE_METHODS,
  ICorsRule,
  IS3CorsRule,
  matchingRule,
  mergeCorsRules,
  requiredCorsRule,
  SDK_HEADERS
} from '../s3/cors';
import { policyDenies } from '../s3/policy';
import { corsRule } from '../errors/messages';
import { readFileSync } from 'fs';
import { join } from 'path';

const ORIGIN = 'http://127.0.0.1:8888';

function rule(overrides: Partial<ICorsRule> = {}): ICorsRule {
  return {
    allowedOrigins: [ORIGIN],
    allowedMethods: ['GET', 'PUT', 'HEAD'],
    allowedHeaders: ['*'],
    exposeHeaders: ['ETag', 'x-amz-version-id', 'x-amz-server-side-encryption'],
    ...overrides
  };
}

/** A rule as the info panel reads it back from S3. */
function fromS3(rule: IS3CorsRule): ICorsRule {
  return {
    ...(rule.ID !== undefined ? { id: rule.ID } : {}),
    allowedOrigins: rule.AllowedOrigins,
    allowedMethods: rule.AllowedMethods,
    allowedHeaders: rule.AllowedHeaders,
    exposeHeaders: rule.ExposeHeaders,
    ...(rule.MaxAgeSeconds !== undefined
      ? { maxAgeSeconds: rule.MaxAgeSeconds }
      : {})
  };
}

const PASSES = { refusedMethods: [], hiddenHeaders: [] };

describe('CORS rules', () => {
  it('the rule the messages propose passes the info panel check', () => {
    // One rule, to add to the bucket's list, not a whole configuration.
    const proposed = JSON.parse(corsRule(ORIGIN));
    expect(Array.isArray(proposed)).toBe(false);
    expect(checkCorsRules([fromS3(proposed)], ORIGIN)).toEqual(PASSES);
    expect(proposed).toEqual(requiredCorsRule(ORIGIN));
  });

  it('a clone needs GET only, with the headers it checks', () => {
    expect(CLONE_METHODS).toEqual(['GET']);
    const getOnly = rule({ allowedMethods: ['GET'] });
    expect(checkCorsRules([getOnly], ORIGIN, CLONE_METHODS)).toEqual(PASSES);
    expect(checkCorsRules([getOnly], ORIGIN).refusedMethods).toEqual([
      'HEAD',
      'PUT'
    ]);
    expect(
      checkCorsRules([rule({ exposeHeaders: ['ETag'] })], ORIGIN, CLONE_METHODS)
    ).toEqual({
      refusedMethods: [],
      hiddenHeaders: [
        'GET: x-amz-version-id',
        'GET: x-amz-server-side-encryption'
      ]
    });
  });

  it('the check needs every header the proposed rule exposes', () => {
    // Without the encryption header a KMS-encrypted download would be
    // checked against an ETag that is no MD5, and called damaged.
    const older = rule({ exposeHeaders: ['ETag', 'x-amz-version-id'] });
    expect(checkCorsRules([older], ORIGIN).hiddenHeaders).toEqual([
      'GET: x-amz-server-side-encryption',
      'HEAD: x-amz-server-side-encryption',
      'PUT: x-amz-server-side-encryption'
    ]);
  });

  it('the README shows the proposed rule', () => {
    const readme = readFileSync(
      join(__dirname, '..', '..', 'README.md'),
      'utf8'
    );
    const origin = 'https://hub.example.org';
    const shown = /### CORS[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(JSON.parse(shown ?? 'null')).toEqual(JSON.parse(corsRule(origin)));
  });

  it('matches origins with one wildcard, as S3 does', () => {
    const rules = [rule({ allowedOrigins: ['http://127.0.0.1:*'] })];
    expect(checkCorsRules(rules, ORIGIN).refusedMethods).toEqual([]);
    expect(
      checkCorsRules(rules, 'http://localhost:8888').refusedMethods
    ).toEqual(['GET', 'HEAD', 'PUT']);
    expect(
      checkCorsRules([rule({ allowedOrigins: ['*'] })], 'https://x.org')
        .refusedMethods
    ).toEqual([]);
  });

  it('needs every header the SDK sends, case-insensitively', () => {
    const listed = [
      ...SDK_HEADERS,
      'Content-MD5',
      'Content-Type',
      'If-Match',
      'If-None-Match'
    ];
    expect(
      checkCorsRules([rule({ allowedHeaders: listed })], ORIGIN).refusedMethods
    ).toEqual([]);
    // Uploads carry Content-MD5: a rule without it refuses every publish.
    const withoutMd5 = listed.filter(name => name !== 'Content-MD5');
    expect(
      checkCorsRules([rule({ allowedHeaders: withoutMd5 })], ORIGIN)
        .refusedMethods
    ).toEqual(['PUT']);
    expect(
      checkCorsRules(
        [rule({ allowedHeaders: ['authorization', 'x-amz-*', 'amz-sdk-*'] })],
        ORIGIN
      ).refusedMethods
    ).toEqual(['PUT']);
  });

  it('uses the first matching rule, whose exposed headers count', () => {
    const rules = [
      rule({ allowedMethods: ['GET'], exposeHeaders: [] }),
      rule()
    ];
    expect(checkCorsRules(rules, ORIGIN).hiddenHeaders).toEqual([
      'GET: ETag',
      'GET: x-amz-version-id',
      'GET: x-amz-server-side-encryption'
    ]);
    expect(matchingRule(rules, ORIGIN, 'PUT', [])).toBe(rules[1]);
    expect(matchingRule(rules, ORIGIN, 'DELETE', [])).toBeNull();
  });

  it('reads no rules as refusing everything', () => {
    expect(checkCorsRules([], ORIGIN).refusedMethods).toEqual([
      'GET',
      'HEAD',
      'PUT'
    ]);
  });
});

describe('mergeCorsRules', () => {
  const OTHER: ICorsRule = {
    id: 'other-site',
    allowedOrigins: ['https://other.example.org'],
    allowedMethods: ['GET'],
    allowedHeaders: ['authorization'],
    exposeHeaders: ['ETag'],
    maxAgeSeconds: 60
  };
  const ANYONE: ICorsRule = {
    allowedOrigins: ['*'],
    allowedMethods: ['GET'],
    allowedHeaders: [],
    exposeHeaders: []
  };

  /** The merged configuration passes the check and keeps the others. */
  function expectFixes(rules: ICorsRule[]): IS3CorsRule[] {
    const merged = mergeCorsRules(rules, ORIGIN);
    expect(checkCorsRules(merged.map(fromS3), ORIGIN)).toEqual(PASSES);
    return merged;
  }

  it('adds the required rule to a bucket without rules', () => {
    expect(expectFixes([])).toEqual([requiredCorsRule(ORIGIN)]);
  });

  it("adds this origin's rule first and keeps other origins' rules as they are", () => {
    const merged = expectFixes([OTHER, ANYONE]);
    expect(merged).toEqual([
      requiredCorsRule(ORIGIN),
      {
        ID: 'other-site',
        AllowedOrigins: ['https://other.example.org'],
        AllowedMethods: ['GET'],
        AllowedHeaders: ['authorization'],
        ExposeHeaders: ['ETag'],
        MaxAgeSeconds: 60
      },
      {
        AllowedOrigins: ['*'],
        AllowedMethods: ['GET'],
        AllowedHeaders: [],
        ExposeHeaders: []
      }
    ]);
    // What the other origin could do before, it still can: the same rule
    // applies to it.
    for (const method of ['GET', 'PUT']) {
      expect(
        matchingRule(merged.map(fromS3), 'https://other.example.org', method, [
          'authorization'
        ])
      ).toEqual(
        matchingRule([OTHER, ANYONE], 'https://other.example.org', method, [
          'authorization'
        ])
      );
    }
  });

  it("widens this origin's own rule, keeping its name, cache time and extras", () => {
    const own: ICorsRule = {
      id: 'lab',
      allowedOrigins: [ORIGIN],
      allowedMethods: ['GET', 'POST'],
      allowedHeaders: ['authorization'],
      exposeHeaders: ['ETag', 'x-custom'],
      maxAgeSeconds: 10
    };
    const merged = expectFixes([OTHER, own]);
    expect(merged).toEqual([
      {
        ID: 'lab',
        AllowedOrigins: [ORIGIN],
        AllowedMethods: ['GET', 'POST', 'HEAD', 'PUT', 'DELETE'],
        AllowedHeaders: ['*'],
        ExposeHeaders: [
          'ETag',
          'x-custom',
          'x-amz-version-id',
          'x-amz-server-side-encryption'
        ],
        MaxAgeSeconds: 10
      },
      expect.objectContaining({ ID: 'other-site' })
    ]);
    expect(merged).toHaveLength(2);
  });

  it('takes this origin out of a rule shared with others, which stays for them', () => {
    const shared: ICorsRule = {
      ...OTHER,
      allowedOrigins: ['https://other.example.org', ORIGIN]
    };
    const merged = expectFixes([shared]);
    expect(merged[0].AllowedOrigins).toEqual([ORIGIN]);
    expect(merged[0].ID).toBeUndefined();
    expect(merged[1]).toEqual(
      expect.objectContaining({
        ID: 'other-site',
        AllowedOrigins: ['https://other.example.org'],
        AllowedMethods: ['GET']
      })
    );
  });

  it('goes before a wildcard rule that matches this origin but falls short', () => {
    const merged = expectFixes([
      rule({ allowedOrigins: ['http://127.0.0.1:*'], exposeHeaders: [] })
    ]);
    expect(merged[1].AllowedOrigins).toEqual(['http://127.0.0.1:*']);
    expect(merged[1].ExposeHeaders).toEqual([]);
  });
});

describe('policyDenies', () => {
  const resource = 'arn:aws:s3:::published/team/a.ipynb';
  const policy = (...statements: object[]) =>
    JSON.stringify({ Version: '2012-10-17', Statement: statements });
  const deny = (extra: object = {}) => ({
    Effect: 'Deny',
    Principal: '*',
    Action: 's3:PutObject',
    Resource: 'arn:aws:s3:::published/*',
    ...extra
  });

  it.each([
    ['a Deny for everyone', policy(deny()), 'denied'],
    ['a Deny of s3:*', policy(deny({ Action: ['s3:Get*', 's3:*'] })), 'denied'],
    [
      'a Deny for AWS "*"',
      policy(deny({ Principal: { AWS: ['*'] } })),
      'denied'
    ],
    [
      'a single statement object',
      JSON.stringify({ Statement: deny() }),
      'denied'
    ],
    [
      'a Deny under a condition',
      policy(deny({ Condition: { Bool: { 'aws:SecureTransport': 'false' } } })),
      'maybe'
    ],
    [
      'a Deny for one user',
      policy(deny({ Principal: { AWS: 'arn:aws:iam::1:user/bob' } })),
      'maybe'
    ],
    [
      'a Deny with NotPrincipal',
      policy(deny({ NotPrincipal: { AWS: 'arn:aws:iam::1:root' } })),
      'maybe'
    ],
    [
      'a Deny of other actions',
      policy(deny({ Action: ['s3:GetObject', 's3:DeleteObject'] })),
      'none'
    ],
    [
      'a Deny with NotAction covering uploads',
      policy(deny({ Action: undefined, NotAction: 's3:GetObject' })),
      'denied'
    ],
    [
      'a Deny with NotAction sparing uploads',
      policy(deny({ Action: undefined, NotAction: 's3:Put*' })),
      'none'
    ],
    [
      'a Deny of another prefix',
      policy(deny({ Resource: 'arn:aws:s3:::published/private/*' })),
      'none'
    ],
    [
      'a Deny of another bucket',
      policy(deny({ Resource: 'arn:aws:s3:::other/*' })),
      'none'
    ],
    ['only Allow statements', policy({ ...deny(), Effect: 'Allow' }), 'none'],
    [
      "the fixture's preflight workaround",
      policy({
        Effect: 'Allow',
        Principal: '*',
        Action: 's3:OptionsObject',
        Resource: 'arn:aws:s3:::published/*'
      }),
      'none'
    ],
    ['text that is not JSON', 'not json', 'none']
  ])('%s → %s', (_, text, verdict) => {
    expect(policyDenies(text, 's3:PutObject', resource)).toBe(verdict);
  });
});
