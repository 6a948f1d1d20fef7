"""``GET /api/bookshelf/credentials``: a hub user's temporary S3 credentials, from their own server.

On a JupyterHub, the admin points Bookshelf's ``endpoint`` credentials mode at
``api/bookshelf/credentials`` (a same-origin URL below the user's server) and sets
``BOOKSHELF_CREDENTIALS_SERVICE_URL`` in the spawner's environment to the credentials service
(``hub_service.py``). The page asks its own server, with the user's Jupyter login; the server
asks the service with the user's own hub token (``JUPYTERHUB_API_TOKEN``), so that no token and
no key is ever in a URL or in the page's storage, and the service knows whom the keys are for.
"""

from __future__ import annotations

import json
import os

import tornado.web
from jupyter_server.base.handlers import APIHandler
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

SERVICE_URL_VARIABLE = "BOOKSHELF_CREDENTIALS_SERVICE_URL"


class HubCredentialsHandler(APIHandler):
    """Forwards to the hub's credentials service, as the user whose server this is."""

    @tornado.web.authenticated
    async def get(self) -> None:
        # Keys must never be stored by the browser's cache or one on the way.
        self.set_header("Cache-Control", "no-store")
        service = os.environ.get(SERVICE_URL_VARIABLE)
        token = os.environ.get("JUPYTERHUB_API_TOKEN")
        if not service or not token:
            self.set_status(501)
            self.finish(
                json.dumps(
                    {
                        "code": "NotConfigured",
                        "message": "This server hands out no S3 credentials: it needs a "
                        f"JupyterHub and {SERVICE_URL_VARIABLE} set by the admin "
                        "(see the hub guide in the README).",
                    }
                )
            )
            return
        request = HTTPRequest(
            service.rstrip("/") + "/credentials",
            headers={"Authorization": f"token {token}", "Accept": "application/json"},
            request_timeout=30,
        )
        try:
            answer = await AsyncHTTPClient().fetch(request)
        except HTTPClientError as error:
            # The service's status, never its body (it could name internals).
            self.log.warning("Bookshelf: the credentials service answered %s", error.code)
            self.set_status(502)
            self.finish(
                json.dumps(
                    {
                        "code": "Unreachable",
                        "message": f"The hub's credentials service answered HTTP {error.code}.",
                    }
                )
            )
            return
        except OSError as error:
            self.log.warning("Bookshelf: the credentials service is unreachable: %s", error)
            self.set_status(502)
            self.finish(
                json.dumps(
                    {
                        "code": "Unreachable",
                        "message": "The hub's credentials service could not be reached.",
                    }
                )
            )
            return
        body = json.loads(answer.body)
        self.finish(
            json.dumps(
                {
                    name: body[name]
                    for name in ("AccessKeyId", "SecretAccessKey", "SessionToken", "Expiration")
                    if name in body
                }
            )
        )
