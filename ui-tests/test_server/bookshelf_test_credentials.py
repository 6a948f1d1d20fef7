"""A same-origin S3 credentials endpoint for the UI tests of the "endpoint" mode.

TEST ONLY. Loaded by ``ui-tests/jupyter_server_test_config.py``; it is not part of the
``jupyterlab_bookshelf`` package and never ships. It stands in for what a deployment
puts behind a URL on the Jupyter server (e.g. a service that calls STS AssumeRole for the
logged-in user) and answers what such a service answers: JSON with ``AccessKeyId``,
``SecretAccessKey``, ``SessionToken`` and ``Expiration``.

The S3 test server (moto) does not verify signatures, so any keys work there; the keys
are distinctive fake values so that the tests can (a) see which ones signed a request
(the access key id is in the ``Authorization`` header) and (b) scan everything the
browser shows, logs and sends for the secret parts.

``GET {base_url}bookshelf-test/credentials/<mode>`` (needs the Jupyter login, as a real
one would):

- ``static``: credentials valid for an hour;
- ``short``: credentials valid for ``SHORT_LIFETIME`` seconds, new keys on every request
  (``ASIASHORT1``, ``ASIASHORT2``, ...), so that a test can watch them being refreshed;
- ``error``: HTTP 500 with a JSON message; ``forbidden``: HTTP 403;
- ``html``: a 200 page that is not JSON; ``incomplete``: JSON without the secret key.

``GET {base_url}bookshelf-test/credentials-stats``: how many requests each mode got.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timedelta, timezone

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join

#: Lifetime of the ``short`` mode's credentials, in seconds.
SHORT_LIFETIME = 8

_requests: Counter[str] = Counter()


def _expiration(seconds: float) -> str:
    moment = datetime.now(timezone.utc) + timedelta(seconds=seconds)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _credentials(mode: str, count: int, lifetime: float) -> dict[str, str]:
    suffix = f"{mode}-{count}"
    return {
        "AccessKeyId": f"ASIA{mode.upper()}{count}",
        "SecretAccessKey": f"endpoint-secret-{suffix}-Zq81Xv",
        "SessionToken": f"endpoint-token-{suffix}-Lm27Pw",
        "Expiration": _expiration(lifetime),
    }


class CredentialsHandler(APIHandler):
    @tornado.web.authenticated
    def get(self, mode: str) -> None:
        _requests[mode] += 1
        count = _requests[mode]
        self.set_header("Cache-Control", "no-store")
        if mode == "static":
            self.finish(json.dumps(_credentials(mode, count, 3600)))
        elif mode == "short":
            self.finish(json.dumps(_credentials(mode, count, SHORT_LIFETIME)))
        elif mode == "error":
            self.set_status(500)
            self.finish(json.dumps({"message": "the credentials service failed"}))
        elif mode == "forbidden":
            self.set_status(403)
            self.finish(json.dumps({"message": "not allowed"}))
        elif mode == "html":
            self.set_header("Content-Type", "text/html")
            self.finish("<html><body>Please log in</body></html>")
        elif mode == "incomplete":
            body = _credentials(mode, count, 3600)
            del body["SecretAccessKey"]
            self.finish(json.dumps(body))
        else:
            raise tornado.web.HTTPError(404)


class StatsHandler(APIHandler):
    @tornado.web.authenticated
    def get(self) -> None:
        self.finish(json.dumps(dict(_requests)))


def _jupyter_server_extension_points():
    return [{"module": "bookshelf_test_credentials"}]


def _load_jupyter_server_extension(server_app):
    base_url = server_app.web_app.settings["base_url"]
    server_app.web_app.add_handlers(
        ".*$",
        [
            (url_path_join(base_url, "bookshelf-test", "credentials", r"(\w+)"), CredentialsHandler),
            (url_path_join(base_url, "bookshelf-test", "credentials-stats"), StatsHandler),
        ],
    )
    server_app.log.info("Loaded the Bookshelf TEST credentials endpoint (never in production)")
