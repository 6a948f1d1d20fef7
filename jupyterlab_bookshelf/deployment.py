"""Where this Jupyter server runs: alone, or as one user's server of a JupyterHub.

The browser's twin is ``src/settings/deployment.ts``. Under a hub (the single-user server's
``JUPYTERHUB_*`` environment), every link Bookshelf makes goes through the hub's
``user-redirect``, so that it opens in the server of whoever follows it (a link into
``/user/ana/`` refuses Bob), and ``{username}`` in the publish prefix is the hub user.
"""

from __future__ import annotations

import os
import re
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


def public_origin(protocol: str, host: str, headers: Mapping[str, str]) -> str:
    """The origin (``scheme://host``) by which the caller reached this server, for links in
    its answers. Behind a reverse proxy that ends TLS (nginx, Traefik, an ingress), the
    request Jupyter gets is plain HTTP, often for the proxy's upstream host; the proxy says
    what the caller used in ``Forwarded`` (RFC 7239) or ``X-Forwarded-Proto`` /
    ``X-Forwarded-Host`` (the first hop, the caller's own). Jupyter believes those headers
    only with ``ServerApp.trust_xheaders`` (tornado then sets ``protocol``), since it would
    otherwise take a client's word for its address; here they only shape the link handed
    back to that same client, so they are read without it: a caller that sends false ones
    gets a false link of its own, and nothing else changes."""
    proto = forwarded_host = None
    forwarded = headers.get("Forwarded")
    if forwarded:
        first_hop = forwarded.split(",", 1)[0]
        for pair in first_hop.split(";"):
            name, _, value = pair.partition("=")
            name, value = name.strip().lower(), value.strip().strip('"')
            if name == "proto" and value:
                proto = value
            elif name == "host" and value:
                forwarded_host = value
    proto = proto or _first(headers.get("X-Forwarded-Proto")) or _first(headers.get("X-Scheme"))
    forwarded_host = forwarded_host or _first(headers.get("X-Forwarded-Host"))
    if forwarded_host and not _HOST.fullmatch(forwarded_host):
        forwarded_host = None
    scheme = proto.lower() if proto and proto.lower() in ("http", "https") else protocol
    return f"{scheme}://{forwarded_host or host}"


#: A host name or address with an optional port, as a Host header has it (nothing else may
#: come into a link from a header).
_HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


def _first(value: str | None) -> str | None:
    """The first of a header's comma-separated values (the hop nearest the caller)."""
    if not value:
        return None
    return value.split(",", 1)[0].strip() or None
