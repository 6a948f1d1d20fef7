"""The commit of a new file: a caller's temporary file moved to the first free
name of the name it wants, atomically.

The contents API has no "create only if absent", and its rename checks that
the new name is free and then moves in a second step, so two renames onto
one name can both pass the check and the second silently replaces the first.
Here the choice of a name and the move are one step, for every writer of the
server: other tabs, other browsers, other users, the contents API's own
saves.

Names follow the browser's rule (``src/clone/naming.ts``), both tested on
``tests/naming_cases.json``.
"""

from __future__ import annotations

import asyncio
import errno
import os
import posixpath
import stat
from collections import OrderedDict
from collections.abc import Awaitable, Iterator, Mapping
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.services.contents.fileio import FileManagerMixin
from tornado.web import HTTPError

from .errors import BookshelfError
from .validation import MAX_NAME_BYTES, check_target_path, utf8_length

#: The suffix of the browser's temporary files (``PARTIAL_SUFFIX`` in
#: src/clone/writer.ts). Only such files may be moved: the commit path must
#: not become a way to rename any file of the tree.
PARTIAL_SUFFIX = ".bookshelf-partial"

#: The pattern of temporary files in the contents manager's ``hide_globs``.
PARTIAL_GLOB = "*" + PARTIAL_SUFFIX


def hide_temporary_files(contents_manager: Any) -> None:
    """Leave temporary files out of folder listings. The server lists a folder by reading each
    of its names, and answers 404 for the whole folder when one goes away between the two, as a
    temporary file does at its commit: a file browser showing the folder would say "Directory
    not found" and leave it. Unlisted, they are also never shown to a person half written; the
    contents API still reads, saves and deletes them by name."""
    globs = list(contents_manager.hide_globs)
    if PARTIAL_GLOB not in globs:
        contents_manager.hide_globs = [*globs, PARTIAL_GLOB]


#: How many names to try before giving up (the browser's default too).
MAX_ATTEMPTS = 10000

#: How many recent commits are remembered, so that a caller whose answer was
#: lost gets the same answer when it asks again.
REMEMBERED_COMMITS = 1024

#: errno values of a file system without hard links: then O_EXCL and a
#: replace are used instead.
_NO_HARD_LINKS = {
    errno.EPERM,
    errno.EXDEV,
    errno.EMLINK,
    errno.ENOSYS,
    errno.ENOTSUP,
    errno.EOPNOTSUPP,
}


class CommitError(BookshelfError):
    """A refused commit: an HTTP status and the JSON error the caller gets (a
    ``BookshelfError`` whose status is given where the contents manager chose it)."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None):
        super().__init__(code, message, field, status=status)


def increment_name(name: str, n: int) -> str:
    """The ``n``th alternative of a file name, as Jupyter numbers copies:
    ``q3.ipynb`` → ``q3-1.ipynb``; other names split at the first dot, so
    ``data.tar.gz`` → ``data-1.tar.gz``. ``n = 0`` gives the name itself."""
    if n == 0:
        return name
    dot = len(name) - len(".ipynb") if name.endswith(".ipynb") else name.find(".")
    if dot == -1:
        return f"{name}-{n}"
    return f"{name[:dot]}-{n}{name[dot:]}"


def candidate_names(name: str, max_attempts: int = MAX_ATTEMPTS) -> Iterator[str]:
    """The names to try for a new file, in order."""
    for n in range(max_attempts):
        yield increment_name(name, n)


def read_commit_request(body: Any, allow_hidden: bool) -> tuple[str, str]:
    """The temporary path and the wanted path of a commit request, checked
    for what needs no file system; raises ``CommitError`` (400)."""
    if not isinstance(body, Mapping):
        raise CommitError(
            400, "InvalidRequest", "A commit request is a JSON object with path and target."
        )
    paths = {}
    for field in ("path", "target"):
        value = body.get(field)
        if not isinstance(value, str) or not value:
            raise CommitError(400, "InvalidRequest", f"{field}: a path is required.", field)
        # A backslash is part of a name where it does not separate folders
        # (a clone of the key 'a\\b.ipynb' is named so, as Jupyter allows).
        problem = check_target_path(value, allow_hidden, allow_backslash=os.sep == "/")
        if problem is None and value.endswith("/"):
            problem = "a path names a file here, not a folder"
        if problem is not None:
            raise CommitError(400, "InvalidRequest", f"{field}: {problem}.", field)
        paths[field] = value
    temporary, target = paths["path"], paths["target"]
    if not temporary.endswith(PARTIAL_SUFFIX):
        raise CommitError(
            400,
            "InvalidRequest",
            f"path: only temporary files of Bookshelf (ending in {PARTIAL_SUFFIX}) are committed.",
            "path",
        )
    if posixpath.dirname(temporary) != posixpath.dirname(target):
        raise CommitError(
            400,
            "InvalidRequest",
            "path: the temporary file must be in the folder of the target.",
            "path",
        )
    if target.endswith(PARTIAL_SUFFIX):
        raise CommitError(
            400, "InvalidRequest", "target: a file name must not be a temporary one.", "target"
        )
    return temporary, target


class Committer:
    """Commits for one contents manager; one per server."""

    def __init__(self, contents_manager: Any, max_attempts: int = MAX_ATTEMPTS):
        self.contents_manager = contents_manager
        self.max_attempts = max_attempts
        # Other managers have no atomic create: their commits take turns.
        self._lock = asyncio.Lock()
        self._recent: OrderedDict[str, str] = OrderedDict()
        self._running: dict[str, asyncio.Future[str]] = {}

    async def check(self, body: Any) -> tuple[str, str]:
        """The temporary path and the target of a commit request, checked as a commit checks
        them (before a file is written for it); raises ``CommitError``."""
        temporary, target = read_commit_request(body, bool(self.contents_manager.allow_hidden))
        await self._check_places(temporary, posixpath.dirname(target))
        return temporary, target

    async def commit(self, body: Any) -> str:
        """Commit the request's temporary file; returns the new file's path.
        Raises ``CommitError``."""
        temporary, target = await self.check(body)
        # A caller that lost its answer may ask again while the first commit
        # still runs: both get its result, rather than two links of one file.
        running = self._running.get(temporary)
        if running is None:
            running = self._start(temporary, target, None)
        # Shielded: a caller that goes away does not stop a commit half-way.
        return await asyncio.shield(running)

    def commit_when(
        self, temporary: str, target: str, ready: Awaitable[None]
    ) -> asyncio.Future[str]:
        """Commit a temporary file still being written (``upload.py``) once ``ready`` is done:
        its bytes all there and checked. A commit asked for it meanwhile (a caller whose answer
        was lost) waits for this one's outcome, and never moves a file not yet checked; if
        ``ready`` fails, so do both. ``temporary`` and ``target`` as ``check`` returned them."""
        running = self._start(temporary, target, ready)
        # Its failure is the creator's to report; a commit asked meanwhile reports it too.
        running.add_done_callback(lambda done: done.cancelled() or done.exception())
        return running

    def _start(
        self, temporary: str, target: str, ready: Awaitable[None] | None
    ) -> asyncio.Future[str]:
        folder, name = posixpath.split(target)

        async def run() -> str:
            if ready is not None:
                await ready
            return await self._commit(temporary, folder, name)

        running = self._running[temporary] = asyncio.ensure_future(run())
        running.add_done_callback(lambda _: self._running.pop(temporary, None))
        return running

    async def _commit(self, temporary: str, folder: str, name: str) -> str:
        cm = self.contents_manager
        if not await ensure_async(cm.file_exists(temporary)):
            # Asked again after the answer was lost: the same answer.
            committed = self._recent.get(temporary)
            if committed is not None and await ensure_async(cm.file_exists(committed)):
                return committed
            raise CommitError(
                404,
                "ReadFailed",
                "path: the temporary file does not exist (removed, or committed already).",
                "path",
            )
        if isinstance(cm, FileManagerMixin):
            # File operations are quick, but a network file system may not be.
            loop = asyncio.get_running_loop()
            path = await loop.run_in_executor(None, self._commit_on_disk, temporary, folder, name)
            # What the contents manager's rename would tell its listeners
            # (file ids, collaboration), which the link bypassed.
            cm.emit(data={"action": "rename", "path": path, "source_path": temporary})
        else:
            async with self._lock:
                path = await self._commit_in_turn(temporary, folder, name)
        self._recent[temporary] = path
        while len(self._recent) > REMEMBERED_COMMITS:
            self._recent.popitem(last=False)
        return path

    async def _check_places(self, temporary: str, folder: str) -> None:
        cm = self.contents_manager
        if folder and not await ensure_async(cm.dir_exists(folder)):
            raise CommitError(
                400,
                "InvalidRequest",
                f"target: the folder '{folder}' does not exist.",
                "target",
            )
        # The manager's own test: also hidden folders and files the
        # operating system hides.
        if not cm.allow_hidden:
            for path, field in ((folder, "target"), (temporary, "path")):
                if path and await ensure_async(cm.is_hidden(path)):
                    raise CommitError(400, "InvalidRequest", f"{field}: '{path}' is hidden.", field)

    def _commit_on_disk(self, temporary: str, folder: str, name: str) -> str:
        """Link the temporary file to the first free name, then unlink it: a
        hard link is never made onto an existing name (EEXIST), whoever
        wrote that name, so nothing is replaced."""
        cm = self.contents_manager
        os_temporary = cm._get_os_path(temporary)
        try:
            regular = stat.S_ISREG(os.lstat(os_temporary).st_mode)
        except FileNotFoundError:
            regular = False
        if not regular:
            # A link named like a temporary file is not the caller's upload.
            raise CommitError(
                400, "InvalidRequest", "path: the temporary file is not a plain file.", "path"
            )
        hard_links = True
        for candidate in candidate_names(name, self.max_attempts):
            if utf8_length(candidate) > MAX_NAME_BYTES:
                break
            path = posixpath.join(folder, candidate)
            os_path = cm._get_os_path(path)
            try:
                if hard_links:
                    try:
                        os.link(os_temporary, os_path)
                    except OSError as error:
                        if error.errno not in _NO_HARD_LINKS:
                            raise
                        hard_links = False
                if not hard_links:
                    self._create_then_replace(os_temporary, os_path)
                    return path
            except FileExistsError:
                continue
            except FileNotFoundError:
                raise CommitError(
                    404, "ReadFailed", "path: the temporary file does not exist.", "path"
                ) from None
            except OSError as error:
                if error.errno == errno.ENAMETOOLONG:
                    break
                raise
            try:
                os.unlink(os_temporary)
            except FileNotFoundError:
                pass  # removed meanwhile: the new file holds the bytes
            return path
        raise self._no_free_name(folder, name)

    @staticmethod
    def _create_then_replace(os_temporary: str, os_path: str) -> None:
        """Where hard links are not supported (some network and FUSE file
        systems): claim the name with O_EXCL, which fails on any existing
        file, then move the temporary file onto the claim. The claim is an
        empty file until the move, a short window in which a reader sees it
        empty and a plain save of that very name would be replaced."""
        descriptor = os.open(os_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        os.close(descriptor)
        try:
            os.replace(os_temporary, os_path)
        except OSError:
            os.unlink(os_path)
            raise

    async def _commit_in_turn(self, temporary: str, folder: str, name: str) -> str:
        """For contents managers that are not a local file system: find a
        free name and rename, one commit at a time. This protects commits
        from each other; the manager's own saves are as safe as its rename."""
        cm = self.contents_manager
        for candidate in candidate_names(name, self.max_attempts):
            if utf8_length(candidate) > MAX_NAME_BYTES:
                break
            path = posixpath.join(folder, candidate)
            if await ensure_async(cm.exists(path)):
                continue
            try:
                await ensure_async(cm.rename(temporary, path))
            except HTTPError as error:
                if error.status_code == 409:
                    continue
                raise
            return path
        raise self._no_free_name(folder, name)

    def _no_free_name(self, folder: str, name: str) -> CommitError:
        where = f"the folder '{folder}'" if folder else "the root folder"
        return CommitError(
            409,
            "Conflict",
            f"No free name was found for '{name}' in {where} after {self.max_attempts} "
            "attempts; choose another name or folder, or remove some copies.",
        )
