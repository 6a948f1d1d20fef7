import {
  checkCorsRules,
  ICorsRule,
  matchingRule,
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

describe('CORS rules', () => {
  it('the rule the messages propose passes the info panel check', () => {
    const proposed = JSON.parse(corsRule(ORIGIN)).map((r: any) => ({
      allowedOrigins: r.AllowedOrigins,
      allowedMethods: r.AllowedMethods,
      allowedHeaders: r.AllowedHeaders,
      exposeHeaders: r.ExposeHeaders
    }));
    expect(checkCorsRules(proposed, ORIGIN)).toEqual({
      refusedMethods: [],
      hiddenHeaders: []
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
