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
  const module = await loadClientModule();
  return module.createObjectStore(config);
}

/**
 * Start loading the S3 SDK for a transfer the person is about to start (a
 * dialog is open), so that their click does not wait for it. A failure is
 * left to the call that needs the SDK, which tries again.
 */
export function preloadObjectStore(): void {
  loadClientModule().catch(() => undefined);
}

function loadClientModule(): Promise<typeof import('./client')> {
  if (!clientModule) {
    clientModule = import(
      /* webpackChunkName: "bookshelf-s3" */ './client'
    ).catch(error => {
      // Let a later call try again (e.g. after a network hiccup).
      clientModule = null;
      throw error;
    });
  }
  return clientModule;
}
