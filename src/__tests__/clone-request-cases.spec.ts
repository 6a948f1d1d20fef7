import * as fs from 'fs';
import * as path from 'path';

import {
  cloneLinkQuery,
  normalizeCloneRequest,
  validateCloneRequest
} from '../clone/request';
import { isBucketAllowed } from '../s3/names';

/**
 * The clone request rules as shared cases, which the server extension is
 * tested on too (jupyterlab_bookshelf/tests/test_clone_request_cases.py):
 * both must give exactly the recorded problems and links.
 */
const shared = JSON.parse(
  fs.readFileSync(
    path.join(
      __dirname,
      '..',
      '..',
      'jupyterlab_bookshelf',
      'tests',
      'clone_request_cases.json'
    ),
    'utf8'
  )
) as {
  requests: {
    name: string;
    request: unknown;
    problems: [string, string][];
    link_query?: string;
  }[];
  allowed_buckets: {
    name: string;
    bucket: string;
    patterns: string[];
    allowed: boolean;
  }[];
};

describe('the shared clone request cases', () => {
  it('has them', () => {
    expect(shared.requests.length).toBeGreaterThan(50);
  });

  it.each(shared.requests.map(c => [c.name, c]))(
    '%s',
    (_, { request, problems, link_query }) => {
      expect(
        validateCloneRequest(request).map(p => [p.field, p.message])
      ).toEqual(problems);
      if (link_query !== undefined) {
        expect(cloneLinkQuery(normalizeCloneRequest(request as any))).toBe(
          link_query
        );
      }
    }
  );

  it.each(shared.allowed_buckets.map(c => [c.name, c]))(
    'allowedBuckets: %s',
    (_, { bucket, patterns, allowed }) => {
      expect(isBucketAllowed(bucket, patterns)).toBe(allowed);
    }
  );
});
