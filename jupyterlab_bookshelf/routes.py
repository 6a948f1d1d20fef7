"""The server shim: Bookshelf's HTTP paths on the Jupyter server's origin.

By default clone and publish run in the browser, where the S3 credentials are, and this module
never touches S3: it describes the configuration, turns clone links into the clone dialog,
tells direct API callers where the operations really run (501), and commits the clones' new
files atomically (``commit.py``). With server-side mode on (``c.Bookshelf.server_access``), the
clone and publish paths do the work on the server (``server_access/``).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import jinja2
import tornado.iostream
import tornado.web
from jupyter_client.jsonutil import json_default
from jupyter_core.utils import ensure_async
from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler, JupyterHandler
from jupyter_server.services.contents.fileio import FileManagerMixin
from jupyter_server.utils import url_escape, url_path_join
from tornado.http1connection import HTTP1Connection

from . import __version__
from .commit import PARTIAL_SUFFIX, Committer
from .deployment import link_base, public_origin
from .errors import BookshelfError, finish_error
from .hub_credentials import HubCredentialsHandler
from .publishing import NOTEBOOK_EXTENSION
from .server_access import S3Settings
from .server_access.clone import (
    check_notebook_file,
    download_progress,
    invalid_request,
    server_clone,
)
from .server_access.publish import check_publishable_file, server_publish, upload_progress
from .server_access.transfers import start_check
from .settings import allowed_buckets, effective_settings, features, settings_paths
from .upload import NotebookCheckAsItArrives, ReceivedFile, read_create_options
from .validation import (
    DEEP_LINK_PARAMETER,
    LANDING_PATH,
    bucket_allowed,
    check_target_path,
    clone_link_query,
    normalize_clone_request,
    read_clone_query,
    validate_clone_request,
)

_templates = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
)

#: Longest value shown back on the error page (links can be long).
_SHOWN_CHARS = 200
#: The largest body ``POST /api/bookshelf/create`` takes: S3's largest object (5 TiB).
CREATE_MAX_BODY_BYTES = 5 * 1024**4


def _shown(value: Any) -> str:
    """A value of a link, as the error page may show it."""
    if not isinstance(value, str):
        return ""
    return value if len(value) <= _SHOWN_CHARS else value[:_SHOWN_CHARS] + "…"


class _BookshelfMixin:
    """Access to the effective settings of the running JupyterLab."""

    settings: dict[str, Any]

    def bookshelf_settings(self) -> tuple[dict[str, Any], list[str]]:
        return effective_settings(settings_paths(self.settings["serverapp"]))

    def server_access(self) -> bool:
        """Whether the administrator turned server-side mode on."""
        config = self.settings.get("bookshelf_config")
        return bool(config is not None and config.server_access)

    def s3_settings(self) -> S3Settings:
        settings, _ = self.bookshelf_settings()
        return S3Settings.from_settings(settings)

    def committer(self) -> Committer:
        """The server's one committer: all commits of new files take it."""
        committer = self.settings.get("bookshelf_committer")
        if committer is None:
            committer = self.settings["bookshelf_committer"] = Committer(self.contents_manager)
        return committer


async def finish_created(handler: Any, path: str) -> None:
    """Answer 201 with the new file's contents model (without content), as the contents API
    answers a file it created."""
    model = await ensure_async(handler.contents_manager.get(path, content=False))
    handler.set_status(201)
    handler.set_header(
        "Location", url_path_join(handler.base_url, "api", "contents", url_escape(path))
    )
    handler.set_header("Content-Type", "application/json")
    handler.finish(json.dumps(model, default=json_default))


def unexpected(handler: Any, what: str) -> BookshelfError:
    """A failure nobody foresaw: the details go to the server's log, never to the caller."""
    handler.log.exception("Bookshelf: server-side %s failed unexpectedly", what)
    return BookshelfError(
        "Unknown", f"The server-side {what} failed unexpectedly; the Jupyter server's log says why."
    )


class InfoHandler(_BookshelfMixin, APIHandler):
    """GET /api/bookshelf: the release and the features of the configuration."""

    @tornado.web.authenticated
    def get(self) -> None:
        settings, problems = self.bookshelf_settings()
        self.finish(
            json.dumps(
                {
                    "release": __version__,
                    "features": features(settings, problems),
                    # The page's own settings check cannot see the files.
                    "settings_files_problems": problems,
                    # Whether POST clone and PUT published work over HTTP (else 501).
                    "server_access": self.server_access(),
                }
            )
        )


class CloneLandingHandler(_BookshelfMixin, JupyterHandler):
    """GET /bookshelf/clone?s3_bucket=&s3_key=[&target_path=][&s3_version_id=]

    The landing page of a clone link. It only hands off to the clone dialog
    of the server's frontend: a GET never clones.
    """

    def set_default_headers(self) -> None:
        super().set_default_headers()
        self.set_header("Cache-Control", "no-store")
        self.set_header("Referrer-Policy", "no-referrer")

    def _frontend(self) -> tuple[str, str]:
        """The route of the server's default frontend and its name."""
        # The server stores it with the base URL in front: /base/tree.
        default_url = self.default_url or getattr(self.settings.get("serverapp"), "default_url", "")
        if default_url.startswith(self.base_url):
            default_url = default_url[len(self.base_url) :]
        route = default_url.strip("/")
        if route == "tree" or route.startswith("tree/"):
            return "tree", "Jupyter Notebook"
        return "lab", "JupyterLab"

    @tornado.web.authenticated
    def get(self) -> None:
        request = read_clone_query(self.request.query_arguments)
        problems = validate_clone_request(request)
        status, refused = 400, False
        if not problems:
            settings, _ = self.bookshelf_settings()
            if not bucket_allowed(request["s3_bucket"], allowed_buckets(settings)):
                status, refused = 403, True
                problems = [
                    (
                        "s3_bucket",
                        "s3_bucket: this server does not let links clone from this bucket "
                        "(see the allowedBuckets setting)",
                    )
                ]
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        if problems:
            self.set_status(status)
            page = _templates.get_template("bookshelf_clone_invalid.html").render(
                problems=[message for _, message in problems],
                refused=refused,
                bucket=_shown(request.get("s3_bucket", "")),
                key=_shown(request.get("s3_key", "")),
            )
        else:
            route, frontend = self._frontend()
            handoff_url = (
                url_path_join(self.base_url, route)
                + f"?{DEEP_LINK_PARAMETER}&"
                + clone_link_query(normalize_clone_request(request))
            )
            page = _templates.get_template("bookshelf_clone.html").render(
                handoff_url=handoff_url,
                frontend=frontend,
                bucket=request["s3_bucket"],
                key=request["s3_key"],
            )
        self.finish(page)


class _CloneRequestMixin(_BookshelfMixin):
    """POST of a clone request: cloned by the server in server-side mode, else answered
    with where the clone really runs (501)."""

    async def clone_answer(self: Any) -> None:
        try:
            request = json.loads(self.request.body or b"null")
        except ValueError:
            request = None
        problems = validate_clone_request(request)
        if problems:
            error = invalid_request(problems)
            finish_error(
                self,
                error,
                errors=[{"field": field, "message": message} for field, message in problems],
            )
            return
        if not self.server_access():
            finish_error(
                self,
                BookshelfError(
                    "NotConfigured",
                    "Clone runs in the browser, where the S3 credentials are. "
                    "Open this link in JupyterLab instead, or call IBookshelf.clone "
                    "from a JupyterLab extension (an administrator can let the server clone: "
                    "c.Bookshelf.server_access = True).",
                    status=501,
                ),
                # Under a JupyterHub, through the hub: it opens for whoever follows it.
                clone_url=url_path_join(link_base(self.base_url)[0], LANDING_PATH)
                + "?"
                + clone_link_query(normalize_clone_request(request)),
            )
            return
        try:
            path, _ = await server_clone(
                request, self.contents_manager, self.committer(), self.s3_settings()
            )
        except BookshelfError as error:
            finish_error(self, error)
            return
        except OSError as error:
            # Only the reason: the message of an OSError names server paths.
            self.log.warning("Bookshelf: a server-side clone could not be saved: %s", error)
            finish_error(
                self,
                BookshelfError(
                    "SaveFailed",
                    f"The server could not save the clone ({error.strerror or 'unknown error'}).",
                ),
            )
            return
        except Exception:
            finish_error(self, unexpected(self, "clone"))
            return
        await finish_created(self, path)


class CloneApiHandler(_CloneRequestMixin, APIHandler):
    """POST /api/bookshelf/clone"""

    # The contents API's permission: a clone writes a file.
    auth_resource = "contents"

    @tornado.web.authenticated
    @authorized
    async def post(self) -> None:
        await self.clone_answer()

    @tornado.web.authenticated
    @authorized
    async def get(self) -> None:
        """How far a running server-side clone of ``?s3_bucket=…&s3_key=…`` has come (the
        command line's progress): ``{running, received?, size?}``, in bytes."""
        if not self.server_access():
            finish_error(
                self,
                BookshelfError(
                    "NotConfigured",
                    "Clone runs in the browser: the server has no clone to report.",
                    status=501,
                ),
            )
            return
        bucket = self.get_query_argument("s3_bucket", "")
        key = self.get_query_argument("s3_key", "")
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(download_progress(bucket, key)))


class ClonedHandler(_CloneRequestMixin, CloneLandingHandler):
    """GET /api/bookshelf/cloned: the landing page, as /bookshelf/clone.
    POST /api/bookshelf/cloned: as POST /api/bookshelf/clone."""

    @tornado.web.authenticated
    async def post(self) -> None:
        if not self.check_origin():
            raise tornado.web.HTTPError(404)
        if not self.authorizer.is_authorized(self, self.current_user, "write", "contents"):
            raise tornado.web.HTTPError(403)
        await self.clone_answer()

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        # The page's errors are pages; the API's errors are JSON.
        if self.request.method in ("GET", "HEAD"):
            super().write_error(status_code, **kwargs)
        else:
            APIHandler.write_error(self, status_code, **kwargs)  # type: ignore[arg-type]


class PublishHandler(_BookshelfMixin, APIHandler):
    """PUT /api/bookshelf/published/{path}, and bookstore 2.5's PUT /api/bookshelf/publish/{path}:
    the server publishes in server-side mode; else 501."""

    # It reads the notebook from the file tree.
    auth_resource = "contents"

    @tornado.web.authenticated
    @authorized
    async def get(self, path: str) -> None:
        """How far a running publish of ``path`` has come (the command line's progress):
        ``{running, sent?, size?}``, in bytes sent to S3."""
        if not self.server_access():
            self.not_on_server(path)
            return
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(upload_progress(path)))

    def not_on_server(self, path: str) -> None:
        finish_error(
            self,
            BookshelfError(
                "NotConfigured",
                "Publish runs in the browser, where the S3 credentials are. "
                "Use the Publish command in JupyterLab, or IBookshelf.publish "
                "from an extension (an administrator can let the server publish: "
                "c.Bookshelf.server_access = True).",
                status=501,
            ),
            path=path,
        )

    @tornado.web.authenticated
    @authorized
    async def put(self, path: str) -> None:
        if not self.server_access():
            self.not_on_server(path)
            return
        try:
            body = json.loads(self.request.body) if self.request.body else None
        except ValueError:
            finish_error(self, BookshelfError("InvalidRequest", "The body is not JSON."))
            return
        # The result's clone link: under a JupyterHub through the hub, so that it opens in the
        # server of whoever follows it; else on the origin the caller reached this server by.
        base, _ = link_base(self.base_url)
        if not base.startswith(("http://", "https://")):
            request = self.request
            base = public_origin(request.protocol, request.host, request.headers) + base
        try:
            status, result = await server_publish(
                path.strip("/"),
                body,
                self.request.query_arguments,
                self.contents_manager,
                self.s3_settings(),
                url_path_join(base, LANDING_PATH),
            )
        except BookshelfError as error:
            finish_error(self, error)
            return
        except Exception:
            finish_error(self, unexpected(self, "publish"))
            return
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(result))


def commit_failure(error: Exception) -> BookshelfError | None:
    """A commit's failure as the JSON error its caller gets; None for one nobody foresaw."""
    if isinstance(error, BookshelfError):
        return error
    if isinstance(error, tornado.web.HTTPError):
        # The contents manager's refusals (a path outside the root, no
        # permission), in the same JSON shape.
        code = _STATUS_CODES.get(error.status_code, "SaveFailed")
        return BookshelfError(code, error.log_message or code, status=error.status_code)
    if isinstance(error, OSError):
        # Only the reason: the message of an OSError names server paths.
        return BookshelfError(
            "SaveFailed",
            f"The server could not commit the file ({error.strerror or 'unknown error'}).",
        )
    return None


class CommitHandler(_BookshelfMixin, APIHandler):
    """POST /api/bookshelf/commit: body ``{"path": temporary file, "target":
    wanted path}``; moves the temporary file to the first free name of the
    target, atomically. 201 with the new file's model (without content)."""

    # The contents API's permission: this writes files.
    auth_resource = "contents"

    @tornado.web.authenticated
    @authorized
    async def post(self) -> None:
        # One per server: the commits of other contents managers take turns.
        committer = self.committer()
        try:
            try:
                body = json.loads(self.request.body or b"null")
            except ValueError:
                body = None
            path = await committer.commit(body)
        except (BookshelfError, tornado.web.HTTPError, OSError) as error:
            finish_error(self, commit_failure(error))
            return
        await finish_created(self, path)


@tornado.web.stream_request_body
class CreateHandler(_BookshelfMixin, APIHandler):
    """POST /api/bookshelf/create?path=<temporary file>&target=<wanted path>[&md5=<hex>]
    [&check=notebook], the body the file's bytes: the save of the temporary file and its
    commit in one request (``upload.py``). The body is written to the temporary file as it
    arrives; then its MD5 is compared with ``md5`` (400 ``Corrupted``), it is checked as a
    notebook with the clone's rules (400 ``NotANotebook``; a leading byte order mark is
    dropped), and committed as ``POST /api/bookshelf/commit`` commits (201, the new file's
    model). Any failure, also a body cut off, leaves no file. 501 ``NotConfigured`` where the
    contents manager keeps no files on this server's disk."""

    # It writes files, as the contents API does.
    auth_resource = "contents"

    _received: ReceivedFile | None = None
    _refusal: BookshelfError | None = None
    _check: NotebookCheckAsItArrives | None = None

    async def prepare(self) -> None:  # type:ignore[override]
        await super().prepare()
        # What @authenticated and @authorized check, before the body is read.
        if not self.current_user:
            raise tornado.web.HTTPError(403)
        if not await ensure_async(
            self.authorizer.is_authorized(self, self.current_user, "write", self.auth_resource)
        ):
            raise tornado.web.HTTPError(
                403, f"User is not authorized to write on resource: {self.auth_resource}."
            )
        # The body goes to disk as it arrives, never whole into memory: the server's
        # max_body_size (512 MiB by default), which guards its memory against bodies read
        # whole, would refuse large clones for nothing. S3's largest object bounds it instead.
        connection = self.request.connection
        if isinstance(connection, HTTP1Connection):
            connection.set_max_body_size(CREATE_MAX_BODY_BYTES)
        try:
            self._received = await self._receive()
        except (BookshelfError, tornado.web.HTTPError, OSError) as error:
            # Answered once the body is read: a browser whose body is left unread may see the
            # connection cut instead of the answer.
            self._refusal = commit_failure(error)

    async def _receive(self) -> ReceivedFile:
        cm = self.contents_manager
        if not isinstance(cm, FileManagerMixin):
            raise BookshelfError(
                "NotConfigured",
                "This server's contents manager does not keep files on its disk.",
                status=501,
            )
        query = {
            name: self.get_query_argument(name, "") for name in ("path", "target", "md5", "check")
        }
        self._md5, self._notebook = read_create_options(query)
        committer = self.committer()
        temporary, target = await committer.check(
            {"path": query["path"], "target": query["target"]}
        )
        try:
            received = ReceivedFile(cm._get_os_path(temporary), strip_bom=self._notebook)
            self._check = NotebookCheckAsItArrives() if self._notebook else None
        except FileExistsError:
            raise BookshelfError(
                "InvalidRequest", "path: a file of that name exists already.", "path"
            ) from None
        # Settled once the body is all there and checked; the commit waits for it.
        self._ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._committed = committer.commit_when(temporary, target, self._ready)
        return received

    async def data_received(self, chunk: bytes) -> None:
        received = self._received
        if received is None:
            return  # refused: the body is read and dropped
        try:
            written = received.write(chunk)
        except OSError as error:
            self._refusal = commit_failure(error)
            self._give_up(error)
            return
        if self._check is not None and written:
            await self._check.put(written)

    def on_connection_close(self) -> None:
        # Cut off before the body's end: nothing half-written stays.
        self._give_up(BookshelfError("InvalidRequest", "The request was cut off before its end."))
        super().on_connection_close()

    def _give_up(self, error: BaseException) -> None:
        """Remove the temporary file of a body that will not be committed; a commit asked for
        it meanwhile fails with ``error`` too."""
        received, self._received = self._received, None
        if received is None:
            return
        received.discard()
        if self._check is not None:
            self._check.abandon()
        if not self._ready.done():
            if isinstance(error, Exception):
                self._ready.set_exception(error)
            else:
                self._ready.cancel()

    # Checked in prepare already; said again for the server's check of its handlers.
    @tornado.web.authenticated
    @authorized
    async def post(self) -> None:
        received = self._received
        if received is None:
            finish_error(self, self._refusal or BookshelfError("SaveFailed", "Nothing was saved."))
            return
        try:
            digest, last = received.close()
            if self._md5 is not None and digest != self._md5:
                self._give_up(BookshelfError("Corrupted", "The bytes were damaged on the way."))
                finish_error(
                    self,
                    BookshelfError(
                        "Corrupted",
                        "The bytes received do not match the object's checksum (ETag): they "
                        "were damaged on the way.",
                    ),
                    # What the browser's own check says (src/s3/integrity.ts).
                    reason="checksum",
                    expected=self._md5,
                    actual=digest,
                )
                return
            if self._check is not None:
                if last:
                    await self._check.put(last)
                if not await self._check.result():
                    # Its JSON or UTF-8 broke: where, the file says.
                    await asyncio.wrap_future(start_check(check_notebook_file, received.os_path))
                self._check = None
            self._received = None
            self._ready.set_result(None)
            # Shielded: a caller that goes away does not stop a commit half-way.
            path = await asyncio.shield(self._committed)
        except BaseException as error:
            self._give_up(error)
            # A commit that failed may leave the temporary file.
            received.discard()
            failure = commit_failure(error) if isinstance(error, Exception) else None
            if failure is None:
                raise
            finish_error(self, failure)
            return
        await finish_created(self, path)


class CheckHandler(_BookshelfMixin, APIHandler):
    """POST /api/bookshelf/check: body ``{"path": temporary file, "check": "notebook"}``;
    checks a clone's saved temporary file before its commit, with the rules of
    ``check_notebook_stream`` and memory flat in its size: the browser streams large notebooks
    to the server instead of holding them whole to check them. 200 ``{"checked": "notebook"}``,
    or 400 ``NotANotebook`` saying why; 501 where the files are not on this server's disk (the
    browser then checks the file itself).

    With ``"purpose": "publish"`` and ``"part_size"``, the path is a saved notebook that the
    browser uploads in parts meanwhile: checked with the publish's rules, and the answer adds
    the file's ``size`` and multipart ``etag``, which the browser compares with what it sent
    before it completes the upload (a file saved again meanwhile is not published).

    With ``"stream": true`` as well, the answer is JSON lines (``application/x-ndjson``):
    ``{"part": n, "md5": hex}`` as soon as each whole part is hashed, so that the browser sends
    the parts while the check goes on, then one last line, the answer above or
    ``{"error": {code, message}}`` (a notebook found wrong after the first parts went: the
    browser aborts its upload)."""

    # It reads a file of the tree.
    auth_resource = "contents"

    @tornado.web.authenticated
    @authorized
    async def post(self) -> None:
        try:
            body = json.loads(self.request.body or b"null")
            path, part_size = read_check_request(body, bool(self.contents_manager.allow_hidden))
        except ValueError:
            finish_error(self, BookshelfError("InvalidRequest", "The body is not JSON."))
            return
        except BookshelfError as error:
            finish_error(self, error)
            return
        cm = self.contents_manager
        if not isinstance(cm, FileManagerMixin):
            finish_error(
                self,
                BookshelfError(
                    "NotConfigured",
                    "This server's contents manager does not keep files on its disk.",
                    status=501,
                ),
            )
            return
        if not await ensure_async(cm.file_exists(path)):
            finish_error(
                self,
                BookshelfError("ReadFailed", "path: the file does not exist.", field="path"),
            )
            return
        os_path = cm._get_os_path(path)
        if part_size is not None and body.get("stream") is True:
            await self._stream_publish_check(os_path, part_size)
            return
        try:
            if part_size is None:
                answer = {}
                await asyncio.wrap_future(start_check(check_notebook_file, os_path))
            else:
                answer = await asyncio.wrap_future(
                    start_check(check_publishable_file, os_path, part_size)
                )
        except BookshelfError as error:
            finish_error(self, error)
            return
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"checked": "notebook", **answer}))

    async def _stream_publish_check(self, os_path: str, part_size: int) -> None:
        """The publish's check, each part's MD5 sent as a line as soon as it is hashed."""
        loop = asyncio.get_running_loop()
        # Each part's digest, then None once the check is over: both are queued from the
        # check's thread, in that order.
        parts: asyncio.Queue[tuple[int, bytes] | None] = asyncio.Queue()

        def on_part(index: int, digest: bytes) -> None:
            loop.call_soon_threadsafe(parts.put_nowait, (index, digest))

        running = start_check(check_publishable_file, os_path, part_size, on_part)
        running.add_done_callback(lambda _: loop.call_soon_threadsafe(parts.put_nowait, None))
        check = asyncio.wrap_future(running)
        self.set_header("Content-Type", "application/x-ndjson")
        while (part := await parts.get()) is not None:
            index, digest = part
            self.write(json.dumps({"part": index + 1, "md5": digest.hex()}) + "\n")
            try:
                await self.flush()
            except tornado.iostream.StreamClosedError:
                # The browser went (a cancel): the check ends by itself, unheard.
                check.add_done_callback(lambda done: done.cancelled() or done.exception())
                return
        try:
            last: dict[str, Any] = {"checked": "notebook", **(await check)}
        except BookshelfError as error:
            last = {"error": error.body()}
        self.finish(json.dumps(last) + "\n")


#: The part sizes a check may hash by: S3's smallest part but the last, to its largest.
_PART_SIZES = (5 * 1024**2, 5 * 1024**3)


def read_check_request(body: Any, allow_hidden: bool) -> tuple[str, int | None]:
    """The path of a check request, and the part size of a publish's check (None for a
    clone's); raises ``BookshelfError`` (400)."""
    if not isinstance(body, dict):
        raise BookshelfError(
            "InvalidRequest", "A check request is a JSON object with path and check."
        )
    if body.get("check") != "notebook":
        raise BookshelfError("InvalidRequest", "check: only 'notebook' is checked.", "check")
    path = body.get("path")
    problem = (
        check_target_path(path, allow_hidden, allow_backslash=os.sep == "/")
        if isinstance(path, str) and path
        else "a path is required"
    )
    purpose = body.get("purpose", "clone")
    if purpose not in ("clone", "publish"):
        raise BookshelfError("InvalidRequest", "purpose: 'clone' or 'publish'.", "purpose")
    if problem is None and purpose == "clone" and not path.endswith(PARTIAL_SUFFIX):
        problem = f"only temporary files of Bookshelf (ending in {PARTIAL_SUFFIX}) are checked"
    if problem is None and purpose == "publish" and not path.endswith(NOTEBOOK_EXTENSION):
        problem = f"only notebooks (ending in {NOTEBOOK_EXTENSION}) are published"
    if problem is not None:
        raise BookshelfError("InvalidRequest", f"path: {problem}.", "path")
    if purpose == "clone":
        return path, None
    part_size = body.get("part_size")
    if (
        not isinstance(part_size, int)
        or isinstance(part_size, bool)
        or not _PART_SIZES[0] <= part_size <= _PART_SIZES[1]
    ):
        raise BookshelfError(
            "InvalidRequest",
            f"part_size: a whole number of bytes from {_PART_SIZES[0]} to {_PART_SIZES[1]}.",
            "part_size",
        )
    return path, part_size


#: Error codes of the contents manager's statuses (BookshelfError codes).
_STATUS_CODES = {400: "InvalidRequest", 403: "AccessDenied", 404: "ReadFailed", 409: "Conflict"}


def setup_route_handlers(web_app: Any) -> None:
    """Add Bookshelf's handlers to the server's web application."""
    base_url = web_app.settings["base_url"]
    handlers = [
        (url_path_join(base_url, "api", "bookshelf"), InfoHandler),
        (url_path_join(base_url, LANDING_PATH), CloneLandingHandler),
        (url_path_join(base_url, "api", "bookshelf", "cloned"), ClonedHandler),
        (url_path_join(base_url, "api", "bookshelf", "clone"), CloneApiHandler),
        (url_path_join(base_url, "api", "bookshelf", "published", "(.+)"), PublishHandler),
        (url_path_join(base_url, "api", "bookshelf", "publish", "(.+)"), PublishHandler),
        (url_path_join(base_url, "api", "bookshelf", "commit"), CommitHandler),
        (url_path_join(base_url, "api", "bookshelf", "create"), CreateHandler),
        (url_path_join(base_url, "api", "bookshelf", "check"), CheckHandler),
        (url_path_join(base_url, "api", "bookshelf", "credentials"), HubCredentialsHandler),
    ]
    web_app.add_handlers(".*$", handlers)
