"""POST /api/bookshelf/commit with a contents manager that is not a local file
system (as one backed by a database or object storage would be): commits
take turns behind the server's lock, so they still never share a name.

The manager here stores files through jupyter_server's own file manager but
is not one for the commit: it offers only the ContentsManager methods, and
its rename checks, then moves in a thread, as the real one does.
"""

from __future__ import annotations

import json
import os

import pytest
from jupyter_server.services.contents.filecheckpoints import AsyncGenericFileCheckpoints
from jupyter_server.services.contents.filemanager import AsyncFileContentsManager
from jupyter_server.services.contents.manager import AsyncContentsManager
from traitlets import default

from jupyterlab_bookshelf.commit import Committer

from .test_commit import (  # noqa: F401 (fixtures)
    check_twenty_commits,
    post_check,
    post_commit,
    run,
    save,
    temporary,
)
from .test_create import create  # noqa: F401 (fixture)


class OtherContentsManager(AsyncContentsManager):
    """A contents manager the commit knows nothing about."""

    checkpoints_class = AsyncGenericFileCheckpoints

    @default("root_dir")
    def _default_root_dir(self):
        return self.parent.root_dir

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._store = AsyncFileContentsManager(root_dir=self.root_dir, log=self.log)

    # Only the ContentsManager API reaches the store.
    async def get(self, path, content=True, type=None, format=None, **kwargs):
        return await self._store.get(path, content=content, type=type, format=format, **kwargs)

    async def save(self, model, path):
        return await self._store.save(model, path)

    async def delete_file(self, path):
        return await self._store.delete_file(path)

    async def rename_file(self, old_path, new_path):
        return await self._store.rename_file(old_path, new_path)

    async def file_exists(self, path):
        return await self._store.file_exists(path)

    async def dir_exists(self, path):
        return await self._store.dir_exists(path)

    async def is_hidden(self, path):
        return await self._store.is_hidden(path)


@pytest.fixture
def jp_server_config(jp_server_config):
    config = json.loads(json.dumps(jp_server_config))
    config["ServerApp"]["contents_manager_class"] = (
        f"{OtherContentsManager.__module__}.{OtherContentsManager.__qualname__}"
    )
    return config


def test_the_server_uses_the_other_manager(jp_serverapp):
    assert isinstance(jp_serverapp.contents_manager, OtherContentsManager)


def test_twenty_parallel_commits_take_turns(run, post_commit, save, jp_root_dir):
    check_twenty_commits(run, post_commit, save, jp_root_dir)


def test_takes_the_next_free_name(run, post_commit, save, jp_root_dir):
    (jp_root_dir / "README").write_text("already here")
    run(save(temporary("README"), b"new"))
    response = run(post_commit({"path": temporary("README"), "target": "README"}))
    assert response.code == 201
    assert json.loads(response.body)["path"] == "README-1"
    assert (jp_root_dir / "README").read_text() == "already here"
    visible = [name for name in os.listdir(jp_root_dir) if not name.startswith(".")]
    assert sorted(visible) == ["README", "README-1"]


def test_no_free_name_is_409(run, post_commit, save, jp_root_dir, jp_serverapp):
    web_settings = jp_serverapp.web_app.settings
    web_settings["bookshelf_committer"] = Committer(jp_serverapp.contents_manager, max_attempts=3)
    for name in ("a.txt", "a-1.txt", "a-2.txt"):
        (jp_root_dir / name).write_text("already here")
    run(save(temporary("a.txt"), b"new"))
    response = run(post_commit({"path": temporary("a.txt"), "target": "a.txt"}))
    assert response.code == 409
    assert json.loads(response.body)["code"] == "Conflict"
    assert "after 3 attempts" in json.loads(response.body)["message"]


def test_check_is_501_where_files_are_not_on_disk(run, post_check, save):
    """The browser then reads the file back and checks it itself."""
    run(save(temporary("q.ipynb"), b"{}"))
    response = run(post_check({"path": temporary("q.ipynb"), "check": "notebook"}))
    assert response.code == 501
    assert json.loads(response.body)["code"] == "NotConfigured"


def test_create_is_501_where_files_are_not_on_disk(run, create, jp_root_dir):
    """The browser then saves through the contents API and commits."""
    response = run(create(temporary("q.ipynb"), "q.ipynb", b"{}" * 100_000))
    assert response.code == 501
    assert json.loads(response.body)["code"] == "NotConfigured"
    assert [name for name in os.listdir(jp_root_dir) if not name.startswith(".")] == []
