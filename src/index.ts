// The package's API for other extensions. JupyterLab itself loads only the
// plugins (./plugins/index.ts, package.json's `jupyterlab.extension`).
export { default } from './plugins';
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
