import { features, parseSettings } from '../settings/checks';
import { sharedCases } from './fakes/cases';

/**
 * The cases the server shim is tested on too
 * (jupyterlab_bookshelf/tests/test_features_parity.py): the browser's
 * IBookshelf.info() and GET /api/bookshelf report the same features.
 */
const cases = sharedCases<{
  name: string;
  user: object;
  features: { [name: string]: boolean | string };
}>('features_cases.json');

describe('features', () => {
  it('has the shared cases', () => {
    expect(cases.length).toBeGreaterThan(15);
  });

  it.each(cases.map(c => [c.name, c]))(
    'as the shim reports them: %s',
    (_, { user, features: expected }) => {
      expect(features(parseSettings(user))).toEqual(expected);
    }
  );

  it('never reports a secret', () => {
    for (const { user } of cases) {
      expect(JSON.stringify(features(parseSettings(user)))).not.toContain(
        'SECRET'
      );
    }
  });
});
