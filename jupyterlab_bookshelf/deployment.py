"""Where this Jupyter server runs: alone, or as one user's server of a JupyterHub.

The browser's twin is ``src/settings/deployment.ts``. Under a hub (the single-user server's
``JUPYTERHUB_*`` environment), every link Bookshelf makes goes through the hub's
``user-redirect``, so that it opens in the server of whoever follows it (a link into
``/user/ana/`` refuses Bob), and ``{username}`` in the publish prefix is the hub user.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

from jupyter_server.utils import url_path_join

USERNAME_PLACEHOLDER = "{username}"

LinkForm = Literal["hub", "server"]


def hub_user(environ: Mapping[str, str] = os.environ) -> str | None:
    """The hub user whose server this is, or None outside a hub."""
    return environ.get("JUPYTERHUB_USER") or None


def link_base(
    server_base_url: str, environ: Mapping[str, str] = os.environ
) -> tuple[str, LinkForm]:
    """The base URL below which ``bookshelf/clone`` opens for whoever follows a link.

    Under a hub: ``<JUPYTERHUB_HOST><JUPYTERHUB_BASE_URL>hub/user-redirect/``; else the
    server's own base URL.
    """
    if not hub_user(environ):
        return server_base_url, "server"
    hub_base = environ.get("JUPYTERHUB_BASE_URL") or "/"
    path = url_path_join(hub_base, "hub", "user-redirect") + "/"
    host = environ.get("JUPYTERHUB_HOST", "").rstrip("/")
    return host + path, "hub"


def resolve_publish_prefix(prefix: str, environ: Mapping[str, str] = os.environ) -> str:
    """The publish prefix with ``{username}`` replaced by the hub user (unchanged outside a hub,
    where the settings check reports the placeholder)."""
    user = hub_user(environ)
    if not user or USERNAME_PLACEHOLDER not in prefix:
        return prefix
    return prefix.replace(USERNAME_PLACEHOLDER, user)
