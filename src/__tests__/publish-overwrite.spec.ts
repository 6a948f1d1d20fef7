import { decideOverwrite, type OverwriteDecision } from '../publish/overwrite';
import type { OverwritePolicy } from '../tokens';

const SEEN = '"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"';
const CURRENT = '"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"';

const create: OverwriteDecision = {
  action: 'put',
  condition: { ifNoneMatch: '*' }
};
const replaceAny: OverwriteDecision = { action: 'put', condition: {} };
const replaceSeen: OverwriteDecision = {
  action: 'put',
  condition: { ifMatch: SEEN }
};
const replaceCurrent: OverwriteDecision = {
  action: 'put',
  condition: { ifMatch: CURRENT }
};
const refuseNever = expect.objectContaining({
  action: 'refuse',
  code: 'Conflict',
  reason: 'policy-never'
});
const askFirst = expect.objectContaining({
  action: 'refuse',
  code: 'Conflict',
  reason: 'needs-confirmation'
});

describe('decideOverwrite', () => {
  // policy, object exists, overwrite, ifMatch (the ETag the user saw), decision
  it.each([
    ['never', false, undefined, undefined, create],
    ['never', false, false, undefined, create],
    ['never', false, true, undefined, create],
    ['never', false, undefined, SEEN, create],
    ['never', false, true, SEEN, create],
    ['never', true, undefined, undefined, refuseNever],
    ['never', true, false, undefined, refuseNever],
    ['never', true, true, undefined, refuseNever],
    ['never', true, undefined, SEEN, refuseNever],
    ['never', true, true, SEEN, refuseNever],
    ['confirm', false, undefined, undefined, create],
    ['confirm', false, false, undefined, create],
    ['confirm', false, true, undefined, create],
    ['confirm', false, undefined, SEEN, create],
    ['confirm', false, true, SEEN, create],
    ['confirm', true, undefined, undefined, askFirst],
    ['confirm', true, false, undefined, askFirst],
    ['confirm', true, undefined, SEEN, askFirst],
    ['confirm', true, false, SEEN, askFirst],
    ['confirm', true, true, undefined, replaceCurrent],
    ['confirm', true, true, SEEN, replaceSeen],
    ['always', false, undefined, undefined, create],
    ['always', false, false, undefined, create],
    ['always', false, true, undefined, create],
    ['always', false, undefined, SEEN, create],
    ['always', false, true, SEEN, create],
    ['always', true, undefined, undefined, replaceAny],
    ['always', true, false, undefined, replaceAny],
    ['always', true, true, undefined, replaceAny],
    ['always', true, undefined, SEEN, replaceSeen],
    ['always', true, true, SEEN, replaceSeen]
  ] as [
    OverwritePolicy,
    boolean,
    boolean | undefined,
    string | undefined,
    OverwriteDecision
  ][])(
    '%s, exists: %s, overwrite: %s, ifMatch: %s',
    (policy, exists, overwrite, ifMatch, decision) => {
      const existing = exists ? { etag: CURRENT } : null;
      expect(decideOverwrite(policy, existing, { overwrite, ifMatch })).toEqual(
        decision
      );
    }
  );

  it('replaces without condition when a confirmed object has no known ETag', () => {
    expect(decideOverwrite('confirm', {}, { overwrite: true })).toEqual(
      replaceAny
    );
  });

  it('says what to do, naming the object', () => {
    const where = 's3://published/notebooks/q3.ipynb';
    const never = decideOverwrite('never', { etag: CURRENT }, {}, where);
    const confirm = decideOverwrite('confirm', { etag: CURRENT }, {}, where);
    expect(never).toMatchObject({
      message: `${where} exists and the overwrite policy is 'never': nothing was published; choose another path.`
    });
    expect(confirm).toMatchObject({
      message: `${where} exists; confirm to replace it.`
    });
  });
});
