/**
 * Facts about this package that its modules share.
 */

/**
 * The version of the frontend extension. Kept equal to package.json's by a
 * unit test, so that the bundle does not carry the whole package.json.
 */
export const VERSION = '0.1.0';

/**
 * The translation domain of the extension.
 */
export const TRANSLATION_DOMAIN = 'jupyterlab_bookshelf';
