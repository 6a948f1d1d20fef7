import {
  cloneLinkQuery,
  normalizeCloneRequest,
  readCloneQuery,
  validateCloneRequest
} from '../clone/request';
import type { ICloneRequest } from '../tokens';
import { sharedCases } from './fakes/cases';

/**
 * Clone links on the cases the server extension is tested on too
 * (jupyterlab_bookshelf/tests/test_link_cases.py): both sides write and read
 * a link's query alike.
 */
const toLink = sharedCases<{
  name: string;
  request: ICloneRequest;
  query: string;
}>('link_cases.json', 'to_link');
const fromLink = sharedCases<{
  name: string;
  query: string;
  request: { [field: string]: string | string[] };
  problems: [string, string][];
}>('link_cases.json', 'from_link');

describe('the shared link cases', () => {
  it('has them', () => {
    expect(toLink.length).toBeGreaterThan(15);
    expect(fromLink.length).toBeGreaterThan(15);
  });

  it.each(toLink.map(c => [c.name, c]))(
    'request to link: %s',
    (_, { request, query }) => {
      expect(validateCloneRequest(request)).toEqual([]);
      const normalized = normalizeCloneRequest(request);
      expect(cloneLinkQuery(normalized)).toBe(query);
      expect(readCloneQuery(query)).toEqual(normalized);
    }
  );

  it.each(fromLink.map(c => [c.name, c]))(
    'link to request: %s',
    (_, { query, request, problems }) => {
      const read = readCloneQuery(query);
      expect(read).toEqual(request);
      expect(validateCloneRequest(read).map(p => [p.field, p.message])).toEqual(
        problems
      );
    }
  );
});
