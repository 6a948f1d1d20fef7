/**
 * The publish core: destination, overwrite decision and upload, free of any
 * user interface.
 */

export * from './conditional';
export * from './destination';
export * from './overwrite';
export * from './publish';
