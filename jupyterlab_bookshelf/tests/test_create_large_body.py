"""POST /api/bookshelf/create takes bodies larger than the server's ``max_body_size``: they go
to disk as they arrive, so the limit that guards the server's memory from bodies read whole
does not apply to them. The server here takes 1 MiB bodies at most, as a contents save shows:
its HTTP server is made as Jupyter's own is (``ServerApp.init_httpserver`` passes
``max_body_size``), which pytest-jupyter's is not.
"""

from __future__ import annotations

import hashlib
import json

import pytest
import tornado.httpserver
from tornado.httpclient import HTTPClientError

from .test_commit import files, run, temporary  # noqa: F401 (fixtures)
from .test_create import create  # noqa: F401 (fixture)

MAX_BODY_SIZE = 1024 * 1024


@pytest.fixture
def http_server(jp_asyncio_loop, http_server_port, jp_web_app):
    """pytest-jupyter's server, with the limit."""

    async def start():
        server = tornado.httpserver.HTTPServer(jp_web_app, max_body_size=MAX_BODY_SIZE)
        server.add_socket(http_server_port[0])
        return server

    server = jp_asyncio_loop.run_until_complete(start())
    yield server
    server.stop()
    jp_asyncio_loop.run_until_complete(server.close_all_connections())
    http_server_port[0].close()


def test_the_server_refuses_a_contents_save_above_its_limit(run, jp_fetch, jp_root_dir):
    body = json.dumps({"type": "file", "format": "text", "content": "x" * (2 * MAX_BODY_SIZE)})
    with pytest.raises((HTTPClientError, ConnectionError, OSError)):
        run(jp_fetch("api", "contents", "big.txt", method="PUT", body=body))
    assert files(jp_root_dir) == []


def test_a_body_three_times_the_limit_is_saved_whole(run, create, jp_root_dir):
    data = bytes(range(256)) * (3 * MAX_BODY_SIZE // 256)
    digest = hashlib.md5(data, usedforsecurity=False).hexdigest()
    response = run(create(temporary("data.bin"), "data.bin", data, md5=digest))
    assert response.code == 201, response.body
    assert (jp_root_dir / "data.bin").read_bytes() == data
    assert files(jp_root_dir) == ["data.bin"]


def test_a_notebook_three_times_the_limit_is_checked_and_saved_whole(run, create, jp_root_dir):
    notebook = json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [
                {"cell_type": "raw", "source": "é" * (3 * MAX_BODY_SIZE // 2), "metadata": {}}
            ],
        },
        ensure_ascii=False,
    ).encode()
    response = run(create(temporary("big.ipynb"), "big.ipynb", notebook, check="notebook"))
    assert response.code == 201, response.body
    assert (jp_root_dir / "big.ipynb").read_bytes() == notebook
    assert files(jp_root_dir) == ["big.ipynb"]
