"""GET /api/bookshelf/credentials: the user's server asks the hub's credentials service.

The service here is a small stand-in with the real one's contract (hub_service.py, tested
against STS in test_hub_service.py, and on a real hub in ui-tests/tests/hub.spec.ts): it
answers the user whose hub token comes in ``Authorization: token …``, and refuses others.
"""

from __future__ import annotations

import json
import socket

import pytest
import tornado.web

from jupyterlab_bookshelf.hub_credentials import SERVICE_URL_VARIABLE

# The route tests' server and fetch (with JupyterLab's settings folders).
from .test_routes import (  # noqa: F401
    default_url,
    fetch,
    jp_server_config,
    lab_dirs,
    with_jupyterlab,
    with_notebook,
)

HUB_TOKEN = "hub-token-of-ana"
KEYS = {
    "AccessKeyId": "ASIAEXAMPLE0000001",
    "SecretAccessKey": "secret-of-ana",
    "SessionToken": "session-of-ana",
    "Expiration": "2026-11-24T00:00:00+00:00",
}


@pytest.fixture
def service(jp_asyncio_loop, monkeypatch):
    """The stand-in service on 127.0.0.1, and the environment of a hub user's server."""
    seen: list[str] = []

    class Credentials(tornado.web.RequestHandler):
        def get(self):
            seen.append(self.request.headers.get("Authorization", ""))
            if self.request.headers.get("Authorization") != f"token {HUB_TOKEN}":
                self.set_status(403)
                self.finish({"message": "internal detail that must not reach the page"})
                return
            # An extra field the server must not pass on.
            self.finish({**KEYS, "Internal": "not for the page"})

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = tornado.web.Application([("/services/bookshelf-credentials/credentials", Credentials)])
    server = app.listen(port, "127.0.0.1")
    monkeypatch.setenv(
        SERVICE_URL_VARIABLE, f"http://127.0.0.1:{port}/services/bookshelf-credentials/"
    )
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", HUB_TOKEN)
    yield seen
    server.stop()


def test_outside_a_hub_the_server_hands_out_no_keys_and_says_why(fetch, monkeypatch):
    monkeypatch.delenv(SERVICE_URL_VARIABLE, raising=False)
    monkeypatch.delenv("JUPYTERHUB_API_TOKEN", raising=False)
    response = fetch("api", "bookshelf", "credentials")
    assert response.code == 501
    body = json.loads(response.body)
    assert body["code"] == "NotConfigured"
    assert SERVICE_URL_VARIABLE in body["message"]


def test_the_users_hub_token_gets_their_keys_and_only_the_keys(fetch, service):
    response = fetch("api", "bookshelf", "credentials")
    assert response.code == 200
    assert json.loads(response.body) == KEYS
    assert response.headers["Cache-Control"] == "no-store"
    assert service == [f"token {HUB_TOKEN}"]


def test_a_refusal_of_the_service_is_a_502_without_its_body(fetch, service, monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "another-token")
    response = fetch("api", "bookshelf", "credentials")
    assert response.code == 502
    body = json.loads(response.body)
    assert body["code"] == "Unreachable"
    assert "403" in body["message"]
    assert "internal detail" not in response.body.decode()


def test_the_keys_are_for_a_logged_in_user_only(fetch, service):
    response = fetch("api", "bookshelf", "credentials", auth=False)
    assert response.code == 403
    assert service == []
