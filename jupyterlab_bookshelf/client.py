"""A Python client of Bookshelf's HTTP API, for scripts, kernels, papermill and CI.

It talks to a running Jupyter server whose administrator turned server-side mode on
(``c.Bookshelf.server_access = True``); the server does the S3 transfers with its own
credentials, so the client needs only the server's URL and token::

    from jupyterlab_bookshelf.client import BookshelfClient

    link = BookshelfClient().publish("report.ipynb")   # the clone link of the published notebook
    model = BookshelfClient().clone("s3://examples/reports/2026/q3.ipynb", to="work/")

Which server: the ``url`` and ``token`` given, else ``JUPYTER_SERVER_URL`` and
``JUPYTER_TOKEN``, else (in a JupyterHub single-user server and its kernels)
``JUPYTERHUB_SERVICE_URL`` and ``JUPYTERHUB_API_TOKEN``, else the runtime files of the user's
running Jupyter servers: the one that started this process (a kernel's server, or the server
of the terminal a script runs in), else the one whose root folder holds the current folder.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import requests

#: Clones and publishes of large objects take their time on the server.
DEFAULT_TIMEOUT = 3600.0


class BookshelfClientError(Exception):
    """An error answer of the API (``code``, ``message``, ``field`` as the server said them,
    ``status`` its HTTP status), or a server that could not be found or reached."""

    def __init__(
        self,
        message: str,
        code: str = "Unknown",
        status: int | None = None,
        field: str | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.field = field

    def as_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field:
            body["field"] = self.field
        if self.status is not None:
            body["status"] = self.status
        return body


class PublishResult(str):
    """The clone link of a published notebook (a ``str``, so it prints and pastes as the
    link), with the rest of the result as attributes."""

    s3_path: str
    version_id: str | None
    etag: str | None
    result: dict[str, Any]

    def __new__(cls, result: dict[str, Any]) -> PublishResult:
        link = super().__new__(cls, result.get("clone_url", ""))
        link.result = dict(result)
        link.s3_path = result.get("s3_path", "")
        link.version_id = result.get("version_id")
        link.etag = result.get("etag")
        return link

    @property
    def clone_url(self) -> str:
        return str(self)


@dataclass
class ServerInfo:
    """Where the Jupyter server is: its URL (with the base URL, ending in ``/``), its token,
    and its root folder on this machine when known."""

    url: str
    token: str = field(repr=False, default="")
    root_dir: str | None = None


def parse_s3_url(value: str) -> tuple[str, str]:
    """``s3://bucket/key`` split into bucket and key."""
    if not value.startswith("s3://"):
        raise BookshelfClientError(
            f"'{value}' is not an s3://bucket/key address.", "InvalidRequest", field="s3_url"
        )
    bucket, _, key = value[len("s3://") :].partition("/")
    if not bucket or not key:
        raise BookshelfClientError(
            f"'{value}' needs a bucket and a key: s3://bucket/key.",
            "InvalidRequest",
            field="s3_url",
        )
    return bucket, key


def _running_servers() -> list[dict[str, Any]]:
    try:
        from jupyter_server.serverapp import list_running_servers
    except ImportError:  # pragma: no cover - jupyter_server is a dependency
        return []
    return list(list_running_servers())


def find_server(url: str | None = None, token: str | None = None) -> ServerInfo:
    """The server to talk to (see the module's documentation for the order)."""
    if url:
        return ServerInfo(_with_slash(url), token if token is not None else _env_token())
    if os.environ.get("JUPYTER_SERVER_URL"):
        return ServerInfo(
            _with_slash(os.environ["JUPYTER_SERVER_URL"]),
            token if token is not None else _env_token(),
            os.environ.get("JUPYTER_SERVER_ROOT") or None,
        )
    if os.environ.get("JUPYTERHUB_SERVICE_URL") and os.environ.get("JUPYTERHUB_API_TOKEN"):
        return ServerInfo(
            _with_slash(os.environ["JUPYTERHUB_SERVICE_URL"]),
            token if token is not None else os.environ["JUPYTERHUB_API_TOKEN"],
        )
    servers = _running_servers()
    if not servers:
        raise BookshelfClientError(
            "No running Jupyter server was found: give --url and --token, or set "
            "JUPYTER_SERVER_URL and JUPYTER_TOKEN.",
            "Unreachable",
        )
    server = _own_server(servers) or _server_of_folder(servers, Path.cwd()) or servers[-1]
    return ServerInfo(
        _with_slash(server["url"]),
        token if token is not None else server.get("token", ""),
        _root_of(server),
    )


def _own_server(servers: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The server this process runs under: a kernel's (``JPY_PARENT_PID``, set by
    jupyter_client), else the nearest ancestor process that is a server (a script in a Lab
    terminal). Lab and Notebook 7, or two Labs, often serve one folder: the root alone
    cannot tell which one a kernel belongs to."""
    by_pid = {server.get("pid"): server for server in servers if server.get("pid")}
    parent = os.environ.get("JPY_PARENT_PID", "")
    candidates = itertools.chain([int(parent)] if parent.isdigit() else [], _ancestors())
    return next((by_pid[pid] for pid in candidates if pid in by_pid), None)


def _ancestors(limit: int = 32) -> Iterator[int]:
    """This process's parent, its parent, and so on, nearest first (Linux's /proc; only the
    parent elsewhere). By hand: the standard library has only ``os.getppid``, and psutil is
    not a dependency of the client."""
    pid = os.getppid()
    for _ in range(limit):
        yield pid
        if pid <= 1:
            return
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return
        # "pid (command) state ppid ...": the command may hold spaces and parentheses.
        pid = int(stat.rsplit(")", 1)[1].split()[1])


def _server_of_folder(servers: list[dict[str, Any]], folder: Path) -> dict[str, Any] | None:
    """The server whose root folder holds ``folder`` most closely."""
    here = folder.resolve()
    best: tuple[int, dict[str, Any]] | None = None
    for server in servers:
        root = Path(_root_of(server) or "/").resolve()
        if here == root or root in here.parents:
            depth = len(root.parts)
            if best is None or depth > best[0]:
                best = (depth, server)
    return best[1] if best else None


def _root_of(server: dict[str, Any]) -> str | None:
    """A runtime file's root folder (``notebook_dir`` in older servers' files)."""
    return server.get("root_dir") or server.get("notebook_dir")


def _env_token() -> str:
    return os.environ.get("JUPYTER_TOKEN") or os.environ.get("JUPYTERHUB_API_TOKEN") or ""


def _with_slash(url: str) -> str:
    return url if url.endswith("/") else url + "/"


class BookshelfClient:
    """Bookshelf's operations through a Jupyter server's HTTP API."""

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ):
        self.server = find_server(url, token)
        self.timeout = timeout
        self._session = requests.Session()
        # A proxy of the environment must not see the token of a local server.
        self._session.trust_env = urlsplit(self.server.url).hostname not in (
            "127.0.0.1",
            "localhost",
            "::1",
        )
        if self.server.token:
            self._session.headers["Authorization"] = f"token {self.server.token}"

    def __repr__(self) -> str:
        return f"BookshelfClient(url={self.server.url!r})"

    def _call(self, method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        url = self.server.url + path
        kwargs.setdefault("timeout", self.timeout)
        try:
            response = self._session.request(method, url, **kwargs)
        except requests.RequestException as error:
            raise BookshelfClientError(
                f"The Jupyter server at {self.server.url} could not be reached "
                f"({type(error).__name__}).",
                "Unreachable",
            ) from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code >= 400:
            if isinstance(body, dict) and isinstance(body.get("code"), str):
                # Bookshelf's own error: {code, message, field?}.
                raise BookshelfClientError(
                    str(body.get("message") or body["code"]),
                    body["code"],
                    response.status_code,
                    body.get("field"),
                )
            said = body.get("message") if isinstance(body, dict) else None
            hint = (
                " (check the token)"
                if response.status_code in (401, 403)
                else " (is jupyterlab-bookshelf installed on the server?)"
                if response.status_code == 404
                else ""
            )
            raise BookshelfClientError(
                f"The Jupyter server answered HTTP {response.status_code}"
                + (f" ({said})" if isinstance(said, str) and said else "")
                + f"{hint}.",
                "AccessDenied" if response.status_code in (401, 403) else "Unknown",
                response.status_code,
            )
        return response.status_code, body

    def info(self) -> dict[str, Any]:
        """``GET /api/bookshelf``: the release, the settings' features and whether server-side
        mode is on (``server_access``)."""
        return self._call("GET", "api/bookshelf")[1]

    def clone(
        self,
        source: str,
        key: str | None = None,
        *,
        to: str | None = None,
        version: str | None = None,
    ) -> dict[str, Any]:
        """Clone ``s3://bucket/key`` (or ``bucket``, ``key``) into the server's file tree;
        ``to`` a folder (ending in ``/``) or a file path relative to the server's root, by
        default the root. Returns the new file's contents model (``path`` is where it went:
        never over an existing file)."""
        bucket, key = (source, key) if key is not None else parse_s3_url(source)
        request = {"s3_bucket": bucket, "s3_key": key}
        if to:
            request["target_path"] = to
        if version:
            request["s3_version_id"] = version
        return self._call("POST", "api/bookshelf/clone", data=json.dumps(request))[1]

    def clone_received(self, source: str, key: str | None = None) -> int | None:
        """How many bytes of a running server-side clone of ``source`` have reached the
        server's disk, or None when none runs (the furthest, should several run)."""
        bucket, key = (source, key) if key is not None else parse_s3_url(source)
        query = urlencode({"s3_bucket": bucket, "s3_key": key})
        _, progress = self._call("GET", "api/bookshelf/clone?" + query, timeout=10)
        if not isinstance(progress, dict) or not progress.get("running"):
            return None
        return int(progress.get("received", 0))

    def publish(
        self,
        path: str | os.PathLike[str],
        *,
        to: str | None = None,
        if_match: str | None = None,
        overwrite: bool = False,
        notebook: dict[str, Any] | None = None,
    ) -> PublishResult:
        """Publish the saved notebook at ``path`` (relative to the server's root, or a local
        path below it), or ``notebook`` (a notebook as a dict) under that path's name. ``to``
        another destination below the publish prefix; ``overwrite`` replaces an existing
        object under the ``confirm`` policy; ``if_match`` replaces only that ETag. Returns the
        clone link (with ``s3_path``, ``version_id``, ``etag`` as attributes)."""
        server_path = self.server_path(path)
        body: dict[str, Any] = {"overwrite": overwrite}
        if to:
            body["to"] = to
        if if_match:
            body["if_match"] = if_match
        if notebook is not None:
            body.update({"type": "notebook", "content": notebook})
        _, result = self._call(
            "PUT",
            "api/bookshelf/published/" + quote(server_path, safe="/"),
            data=json.dumps(body),
        )
        return PublishResult(result)

    def publish_sent(self, path: str | os.PathLike[str]) -> tuple[int, int] | None:
        """How far a running publish of ``path`` has come: (bytes sent to S3, size), or None
        when none runs."""
        _, progress = self._call(
            "GET",
            "api/bookshelf/published/" + quote(self.server_path(path), safe="/"),
            timeout=10,
        )
        if not isinstance(progress, dict) or not progress.get("running"):
            return None
        return int(progress.get("sent", 0)), int(progress.get("size", 0))

    def server_path(self, path: str | os.PathLike[str]) -> str:
        """A path as the server names it: a local path below the server's root (a kernel's
        ``report.ipynb`` in a subfolder) is made relative to that root."""
        text = os.fspath(path)
        root = self.server.root_dir
        if root and not text.startswith("/") and Path(text).exists():
            local = Path(text).resolve()
            root_path = Path(root).resolve()
            if root_path in local.parents:
                return local.relative_to(root_path).as_posix()
        if root and Path(text).is_absolute():
            local = Path(text).resolve()
            root_path = Path(root).resolve()
            if root_path in local.parents:
                return local.relative_to(root_path).as_posix()
        return text.lstrip("/")
