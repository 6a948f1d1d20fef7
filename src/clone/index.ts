/**
 * The clone core: validation, naming, content checks and collision-safe
 * writing, free of any user interface.
 */

export * from './clone';
export * from './committer';
export * from './content';
export * from './locks';
export * from './naming';
export * from './request';
export * from './writer';
