import { checkNotebook, type NotebookPurpose } from '../clone/content';
import { BookshelfError } from '../errors/errors';
import { sharedCases } from './fakes/cases';

/**
 * The notebook check reads alike in both languages
 * (jupyterlab_bookshelf/tests/test_notebook_check_cases.py runs the same
 * cases on the server's checks).
 */
interface INotebookCheckCase {
  name: string;
  text?: string;
  base64?: string;
  clone: string | null;
  publish: string | null;
  at?: string;
}

const cases = sharedCases<INotebookCheckCase>('notebook_check_cases.json');
const PREFIX = 'The object is not a Jupyter notebook: ';

function bytesOf(sample: INotebookCheckCase): Uint8Array {
  return sample.text !== undefined
    ? new TextEncoder().encode(sample.text)
    : new Uint8Array(Buffer.from(sample.base64!, 'base64'));
}

/** Where a JSON error is, which the engine says for some errors only. */
const WHERE = / \(error at (line \d+, column \d+)\)/;

/** The reason the check gives, without where the JSON breaks (compared with `at`). */
function reasonOf(
  bytes: Uint8Array,
  purpose: NotebookPurpose,
  at?: string
): string | null {
  try {
    checkNotebook(bytes, undefined, purpose);
  } catch (error) {
    expect(error).toBeInstanceOf(BookshelfError);
    expect((error as BookshelfError).code).toBe('NotANotebook');
    const message = (error as BookshelfError).message;
    expect(message.startsWith(PREFIX)).toBe(true);
    if (at !== undefined) {
      expect(WHERE.exec(message)?.[1]).toBe(at);
    }
    return message.slice(PREFIX.length).replace(WHERE, '');
  }
  return null;
}

describe('the shared notebook check cases', () => {
  it('has the cases', () => {
    expect(cases.length).toBeGreaterThan(50);
    expect(cases.filter(c => c.publish === null).length).toBeGreaterThan(5);
  });

  it.each(cases.map(c => [c.name, c]))('%s', (_, sample) => {
    const bytes = bytesOf(sample);
    expect(reasonOf(bytes, 'clone', sample.at)).toBe(sample.clone);
    expect(reasonOf(bytes, 'publish', sample.at)).toBe(sample.publish);
  });
});
