/**
 * Where this Jupyter server runs: alone, or as one user's server of a
 * JupyterHub. It decides the form of the links Bookshelf makes (a hub's
 * `user-redirect` link lands every user in their own server) and what
 * `{username}` in the publish prefix stands for.
 */
import type { IBookshelfSettings } from '../tokens';

/**
 * The JupyterHub a server belongs to, as Lab's page config tells it
 * (`hubPrefix`, `hubHost`, `hubUser`).
 */
export interface IHub {
  /** The hub's URL prefix, e.g. `/hub/`. */
  prefix: string;
  /** The hub's origin when it differs from the page's, else ''. */
  host: string;
  /** The hub user whose server this is. */
  user: string;
}

/**
 * The hub of the page config, or null when the server is not a hub's.
 */
export function readHub(urls: {
  hubPrefix?: string;
  hubHost?: string;
  hubUser?: string;
}): IHub | null {
  if (!urls.hubPrefix) {
    return null;
  }
  return {
    prefix: urls.hubPrefix,
    host: urls.hubHost ?? '',
    user: urls.hubUser ?? ''
  };
}

/**
 * The forms of a link Bookshelf makes: into this server, through the hub
 * to the server of whoever opens it, or into a JupyterLite site (which has
 * no server to answer the landing page: the link opens the site's
 * JupyterLab with the clone dialog, in the browser of whoever opens it).
 */
export type LinkForm = 'server' | 'hub' | 'lite';

/**
 * Where links point: an origin and a base URL below which `bookshelf/clone`
 * answers.
 */
export interface ILinkBase {
  origin: string;
  baseUrl: string;
  form: LinkForm;
}

/**
 * The base of the links for this server: under a hub,
 * `<hub host><hub prefix>user-redirect/`, which the hub sends on to the
 * opener's own server (a link into `/user/ana/` would refuse Bob); else the
 * server's own origin and base URL.
 */
export function linkBase(
  hub: IHub | null,
  serverOrigin: string,
  serverBaseUrl: string
): ILinkBase {
  if (!hub) {
    return { origin: serverOrigin, baseUrl: serverBaseUrl, form: 'server' };
  }
  const prefix = hub.prefix.replace(/\/*$/, '/');
  return {
    origin: hub.host ? new URL(hub.host).origin : serverOrigin,
    baseUrl: `${prefix}user-redirect/`,
    form: 'hub'
  };
}

/**
 * The placeholder of the publish prefix that stands for the hub user.
 */
export const USERNAME_PLACEHOLDER = '{username}';

/**
 * The settings with `{username}` in the publish prefix replaced by the hub
 * user, so that each user of a hub publishes below their own prefix. Outside
 * a hub the placeholder stays, and the settings check reports it.
 */
export function resolveDeploymentSettings(
  settings: IBookshelfSettings,
  hub: IHub | null
): IBookshelfSettings {
  if (!hub?.user || !settings.publishPrefix.includes(USERNAME_PLACEHOLDER)) {
    return settings;
  }
  return {
    ...settings,
    publishPrefix: settings.publishPrefix
      .split(USERNAME_PLACEHOLDER)
      .join(hub.user)
  };
}
