"""A JupyterHub service that hands each hub user temporary S3 credentials of their own.

Bookshelf's ``endpoint`` credentials mode fetches keys from a same-origin URL. On a JupyterHub,
an admin runs this service (as it is, or adapted) and points every user's Bookshelf at
``api/bookshelf/credentials`` of their own server (see ``hub_credentials.py``), which asks this
service with the user's own hub token. The service checks the token with the hub, then calls STS
``AssumeRole`` with a session policy that narrows the role to what this user may do:

- read (get, list) the buckets people clone from and the publish bucket;
- write (put, delete) only below the user's own publish prefix (``users/{username}/``).

So a user can publish below their own prefix and not below another's, whatever the role allows;
the keys expire (``BOOKSHELF_CREDENTIALS_SECONDS``, default one hour) and the browser fetches new
ones before they do. No secret is ever in a URL, a log line or the page's storage.

Configured by environment (as a managed service in ``jupyterhub_config.py``)::

    c.JupyterHub.services = [{
        "name": "bookshelf-credentials",
        "url": "http://127.0.0.1:10101",
        "command": [sys.executable, "-m", "jupyterlab_bookshelf.hub_service"],
        "environment": {
            "BOOKSHELF_ROLE_ARN": "arn:aws:iam::123456789012:role/bookshelf-users",
            "BOOKSHELF_READ_BUCKETS": "examples,datasets",
            "BOOKSHELF_PUBLISH_BUCKET": "published",
            "BOOKSHELF_PUBLISH_PREFIX": "users/{username}/",
            # optional: BOOKSHELF_STS_ENDPOINT_URL, AWS_REGION, BOOKSHELF_CREDENTIALS_SECONDS
        },
    }]

The service's own AWS credentials (allowed to assume the role) come from the standard AWS
chain of its process (environment, shared config, instance role).
"""

from __future__ import annotations

import json
import os
import signal
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from .deployment import USERNAME_PLACEHOLDER

SERVICE_NAME = "bookshelf-credentials"


@dataclass(frozen=True)
class CredentialsPolicy:
    """What the service may hand out: the role and the buckets and prefix of the session policy."""

    role_arn: str
    read_buckets: tuple[str, ...]
    publish_bucket: str
    publish_prefix: str = f"users/{USERNAME_PLACEHOLDER}/"
    duration_seconds: int = 3600
    sts_endpoint_url: str | None = None
    region: str = "us-east-1"
    partition: str = field(default="aws")

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> CredentialsPolicy:
        env = dict(os.environ if environ is None else environ)
        missing = [
            name for name in ("BOOKSHELF_ROLE_ARN", "BOOKSHELF_PUBLISH_BUCKET") if not env.get(name)
        ]
        if missing:
            raise ValueError(
                f"{SERVICE_NAME}: set {', '.join(missing)} in the service's environment"
            )
        role_arn = env["BOOKSHELF_ROLE_ARN"]
        return cls(
            role_arn=role_arn,
            read_buckets=tuple(
                bucket.strip()
                for bucket in env.get("BOOKSHELF_READ_BUCKETS", "").split(",")
                if bucket.strip()
            ),
            publish_bucket=env["BOOKSHELF_PUBLISH_BUCKET"],
            publish_prefix=env.get("BOOKSHELF_PUBLISH_PREFIX", f"users/{USERNAME_PLACEHOLDER}/"),
            duration_seconds=int(env.get("BOOKSHELF_CREDENTIALS_SECONDS", "3600")),
            sts_endpoint_url=env.get("BOOKSHELF_STS_ENDPOINT_URL") or None,
            region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1",
            # The role's ARN names the partition (aws, aws-cn, aws-us-gov).
            partition=role_arn.split(":")[1] if role_arn.count(":") >= 5 else "aws",
        )

    def user_prefix(self, user: str) -> str:
        return self.publish_prefix.replace(USERNAME_PLACEHOLDER, user)

    def session_policy(self, user: str) -> dict[str, Any]:
        """The session policy for ``user``: the role's rights narrowed to reading the buckets
        and writing below the user's own prefix."""
        if not user or "/" in user or "*" in user or "?" in user:
            # A name that would widen the resource pattern is refused, not escaped.
            raise ValueError(f"{SERVICE_NAME}: the user name {user!r} cannot scope a prefix")
        arn = f"arn:{self.partition}:s3:::"
        buckets = sorted({*self.read_buckets, self.publish_bucket})
        own = f"{arn}{self.publish_bucket}/{self.user_prefix(user)}*"
        return {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "ReadSharedNotebooks",
                    "Effect": "Allow",
                    "Action": ["s3:GetObject", "s3:GetObjectVersion"],
                    "Resource": [f"{arn}{bucket}/*" for bucket in buckets],
                },
                {
                    "Sid": "LookAtBuckets",
                    "Effect": "Allow",
                    "Action": [
                        "s3:ListBucket",
                        "s3:ListBucketVersions",
                        "s3:GetBucketCors",
                        "s3:GetBucketLocation",
                        "s3:GetBucketVersioning",
                    ],
                    "Resource": [f"{arn}{bucket}" for bucket in buckets],
                },
                {
                    # Delete only removes the info panel's conditional-writes check object.
                    "Sid": "PublishBelowOwnPrefix",
                    "Effect": "Allow",
                    "Action": ["s3:PutObject", "s3:DeleteObject", "s3:DeleteObjectVersion"],
                    "Resource": [own],
                },
            ],
        }

    def issue(self, sts: Any, user: str) -> dict[str, str]:
        """Temporary credentials for ``user``, in the shape Bookshelf's endpoint mode reads."""
        answer = sts.assume_role(
            RoleArn=self.role_arn,
            RoleSessionName=f"bookshelf-{user}"[:64],
            Policy=json.dumps(self.session_policy(user)),
            DurationSeconds=self.duration_seconds,
        )
        credentials = answer["Credentials"]
        return {
            "AccessKeyId": credentials["AccessKeyId"],
            "SecretAccessKey": credentials["SecretAccessKey"],
            "SessionToken": credentials["SessionToken"],
            "Expiration": credentials["Expiration"].isoformat(),
        }


def sts_client(policy: CredentialsPolicy) -> Any:
    import boto3

    return boto3.client("sts", endpoint_url=policy.sts_endpoint_url, region_name=policy.region)


def make_app(policy: CredentialsPolicy, prefix: str) -> Any:
    """The tornado application: ``GET <prefix>credentials`` for a user authenticated by the hub
    (their hub token in ``Authorization: token …``)."""
    from jupyterhub.services.auth import HubAuthenticated
    from tornado import web
    from tornado.ioloop import IOLoop
    from tornado.log import app_log

    sts = sts_client(policy)

    class CredentialsHandler(HubAuthenticated, web.RequestHandler):
        def set_default_headers(self) -> None:
            # Keys must never be stored by a cache on the way.
            self.set_header("Cache-Control", "no-store")
            self.set_header("Content-Type", "application/json")

        @web.authenticated
        async def get(self) -> None:
            user = self.current_user["name"]
            try:
                # boto3 blocks: off the event loop.
                answer = await IOLoop.current().run_in_executor(None, policy.issue, sts, user)
            except Exception as error:  # noqa: BLE001  (the message, never the keys, goes back)
                app_log.error("%s: no credentials for %s: %s", SERVICE_NAME, user, error)
                self.set_status(502)
                self.finish(json.dumps({"message": "STS refused to issue credentials."}))
                return
            app_log.info(
                "%s: credentials for %s, below %s", SERVICE_NAME, user, policy.user_prefix(user)
            )
            self.finish(json.dumps(answer))

    return web.Application([(rf"{prefix}credentials", CredentialsHandler)])


def main() -> None:
    from tornado.ioloop import IOLoop

    policy = CredentialsPolicy.from_environment()
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", f"/services/{SERVICE_NAME}/")
    url = urlparse(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101"))
    app = make_app(policy, prefix)
    app.listen(url.port or 80, url.hostname or "127.0.0.1")
    loop = IOLoop.current()
    # JupyterHub stops a service with SIGINT, then SIGTERM. A process started in the
    # background of a shell inherits SIGINT ignored, and Python then leaves it ignored: the
    # hub waited on this service for most of 30 s, and was killed before it stopped its proxy.
    for number in (signal.SIGINT, signal.SIGTERM):
        loop.asyncio_loop.add_signal_handler(number, loop.stop)
    loop.start()


if __name__ == "__main__":
    main()
