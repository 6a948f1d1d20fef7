import { decideOverwrite } from '../publish/overwrite';
import type { OverwritePolicy } from '../tokens';
import { sharedCases } from './fakes/cases';

/**
 * Overwrite decisions on the cases the server extension is tested on too
 * (jupyterlab_bookshelf/tests/test_overwrite_cases.py): the policy, what
 * exists and what the user saw decide alike on both sides, wrongly typed
 * values included.
 */
const cases = sharedCases<{
  name: string;
  policy: unknown;
  existing: unknown;
  options: { overwrite?: unknown; ifMatch?: unknown };
  where?: string;
  decision: unknown;
}>('overwrite_cases.json');

describe('the shared overwrite cases', () => {
  it('has every policy, existing object and option', () => {
    expect(cases.length).toBeGreaterThan(50);
  });

  it.each(cases.map(c => [c.name, c]))(
    '%s',
    (_, { policy, existing, options, where, decision }) => {
      expect(
        decideOverwrite(
          policy as OverwritePolicy,
          existing as { etag?: string } | null,
          options as { overwrite?: boolean; ifMatch?: string },
          where
        )
      ).toEqual(decision);
    }
  );
});
