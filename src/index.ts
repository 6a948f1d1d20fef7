import { JupyterFrontEndPlugin } from '@jupyterlab/application';

import { clonePlugin } from './plugins/clone';
import { corePlugin } from './plugins/core';
import { infoPlugin } from './plugins/info';
import { publishPlugin } from './plugins/publish';
import { settingsFormPlugin } from './plugins/settingsForm';

export * from './tokens';
export { CommandIDs } from './commands';
// The errors the token's operations throw, for other extensions.
export {
  BOOKSHELF_ERROR_CODES,
  BookshelfError,
  isBookshelfError,
  type BookshelfErrorCode,
  type BookshelfErrorKind,
  type DetailOf,
  type IBookshelfErrorDetails,
  type IS3Context
} from './errors/bookshelfError';

const plugins: JupyterFrontEndPlugin<any>[] = [
  corePlugin,
  infoPlugin,
  clonePlugin,
  publishPlugin,
  settingsFormPlugin
];

export default plugins;
