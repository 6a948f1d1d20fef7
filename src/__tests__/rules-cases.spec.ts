import { nullTranslator } from '@jupyterlab/translation';

import names from '../rules/names.json';
import { ruleMessage } from '../rules/translate';
import { sharedCases } from './fakes/cases';

/**
 * The shared rule files read alike in both languages
 * (jupyterlab_bookshelf/tests/test_rules.py runs the same cases).
 */
const placeholders = sharedCases<{
  template: string;
  args: (string | number)[];
  expected: string;
}>('rules_cases.json', 'placeholders');
const characters = sharedCases<{
  class: keyof typeof names.characters;
  character: string;
  matches: boolean;
}>('rules_cases.json', 'characters');

describe('the shared rule files', () => {
  it('has the cases', () => {
    expect(placeholders.length).toBeGreaterThan(4);
    expect(characters.length).toBeGreaterThan(40);
  });

  it.each(placeholders.map(c => [c.template, c]))(
    'fills %j',
    (_, { template, args, expected }) => {
      const trans = nullTranslator.load('jupyterlab_bookshelf');
      expect(ruleMessage(trans, template, ...args)).toBe(expected);
    }
  );

  it.each(characters.map(c => [c.class, c.character, c]))(
    '%s class and %j',
    (_, __, { class: name, character, matches }) => {
      const pattern = new RegExp(`^(?:${names.characters[name]})$`);
      expect(pattern.test(character)).toBe(matches);
      if (name === 'blank') {
        // The characters String.prototype.trim removes, no more, no less.
        expect(character.trim() === '').toBe(matches);
      }
    }
  );
});
