/**
 * Loads the SDK-backed object store on first use. The dynamic import makes
 * the bundler put the SDK in a chunk of its own that Lab fetches only then.
 */
import type { IObjectStoreConfig } from './client';
import type { IObjectStore } from './types';

let clientModule: Promise<typeof import('./client')> | null = null;

/**
 * Create an object store, loading the S3 SDK if it is not loaded yet.
 */
export async function loadObjectStore(
  config: IObjectStoreConfig
): Promise<IObjectStore> {
  if (!clientModule) {
    clientModule = import(
      /* webpackChunkName: "bookshelf-s3" */ './client'
    ).catch(error => {
      // Let a later call try again (e.g. after a network hiccup).
      clientModule = null;
      throw error;
    });
  }
  const module = await clientModule;
  return module.createObjectStore(config);
}
