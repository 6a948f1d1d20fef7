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
}

const cases = sharedCases<INotebookCheckCase>('notebook_check_cases.json');
const PREFIX = 'The object is not a Jupyter notebook: ';

function bytesOf(sample: INotebookCheckCase): Uint8Array {
  return sample.text !== undefined
    ? new TextEncoder().encode(sample.text)
    : new Uint8Array(Buffer.from(sample.base64!, 'base64'));
}

/** The reason the check gives, without the position only some engines say. */
function reasonOf(bytes: Uint8Array, purpose: NotebookPurpose): string | null {
  try {
    checkNotebook(bytes, undefined, purpose);
  } catch (error) {
    expect(error).toBeInstanceOf(BookshelfError);
    expect((error as BookshelfError).code).toBe('NotANotebook');
    const message = (error as BookshelfError).message;
    expect(message.startsWith(PREFIX)).toBe(true);
    return message
      .slice(PREFIX.length)
      .replace(/ \(error at character \d+\)/, '');
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
    expect(reasonOf(bytes, 'clone')).toBe(sample.clone);
    expect(reasonOf(bytes, 'publish')).toBe(sample.publish);
  });
});
