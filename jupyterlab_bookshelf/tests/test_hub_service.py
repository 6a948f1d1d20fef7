"""The hub credentials service: each user's keys publish below their own prefix only.

moto implements STS and, with authentication on, checks IAM policies; it does not apply the
session policy of AssumeRole (only the role's own policies). ``_session_policies_apply`` adds
that check, as AWS makes it (an action must be allowed by the role's policies AND by the session
policy), so that these tests can fail when the session policy is wrong.
"""

from __future__ import annotations

import json
import socket
from datetime import datetime, timezone

import boto3
import pytest
import requests
from botocore.exceptions import ClientError

from jupyterlab_bookshelf.hub_service import CredentialsPolicy

ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/bookshelf-users"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _session_policies_apply(monkeypatch: pytest.MonkeyPatch) -> None:
    from moto.iam import access_control
    from moto.sts.models import sts_backends

    original = access_control.IAMRequestBase.check_action_permitted

    def check_action_permitted(self, resource: str) -> None:
        original(self, resource)
        key = self._access_key
        if not isinstance(key, access_control.AssumedRoleAccessKey):
            return
        for role in sts_backends[key.account_id][key.partition].assumed_roles:
            if role.access_key_id == key._access_key_id and role.policy:
                result = access_control.IAMPolicy(role.policy).is_action_permitted(
                    self._action, resource
                )
                if result != access_control.PermissionResult.PERMITTED:
                    self._raise_access_denied()

    monkeypatch.setattr(
        access_control.IAMRequestBase, "check_action_permitted", check_action_permitted
    )


@pytest.fixture
def sts_world(monkeypatch):
    """moto with STS, IAM and S3, an admin's role for hub users, then authentication on."""
    from moto.server import ThreadedMotoServer

    _session_policies_apply(monkeypatch)
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    setup = {"endpoint_url": endpoint, "region_name": "us-east-1"}
    anyone = {"aws_access_key_id": "setup", "aws_secret_access_key": "setup"}
    try:
        iam = boto3.client("iam", **setup, **anyone)
        iam.create_user(UserName="hub-service")
        iam.put_user_policy(
            UserName="hub-service",
            PolicyName="assume",
            PolicyDocument=json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [
                        {"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": ROLE}
                    ],
                }
            ),
        )
        service_key = iam.create_access_key(UserName="hub-service")["AccessKey"]
        iam.create_role(
            RoleName="bookshelf-users",
            AssumeRolePolicyDocument=json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Allow",
                            "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/hub-service"},
                            "Action": "sts:AssumeRole",
                        }
                    ],
                }
            ),
        )
        # The role itself may do anything on S3: only the session policy narrows it.
        iam.put_role_policy(
            RoleName="bookshelf-users",
            PolicyName="s3",
            PolicyDocument=json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}],
                }
            ),
        )
        s3 = boto3.client("s3", **setup, **anyone)
        for bucket in ("examples", "published"):
            s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket="examples", Key="q3.ipynb", Body=b"{}")
        s3.put_object(Bucket="published", Key="users/bob/report.ipynb", Body=b"{}")
        # From now on every request is signed and checked against IAM.
        requests.post(f"{endpoint}/moto-api/reset-auth", data=b"0", timeout=10).raise_for_status()
        service = boto3.client(
            "sts",
            **setup,
            aws_access_key_id=service_key["AccessKeyId"],
            aws_secret_access_key=service_key["SecretAccessKey"],
        )
        yield endpoint, service
    finally:
        requests.post(f"{endpoint}/moto-api/reset-auth", data=b"inf", timeout=10)
        # moto's state lives in this process: the next test starts from nothing.
        requests.post(f"{endpoint}/moto-api/reset", timeout=10)
        server.stop()


POLICY = CredentialsPolicy(
    role_arn=ROLE, read_buckets=("examples",), publish_bucket="published", duration_seconds=900
)


def s3_as(endpoint: str, credentials: dict[str, str]):
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id=credentials["AccessKeyId"],
        aws_secret_access_key=credentials["SecretAccessKey"],
        aws_session_token=credentials["SessionToken"],
    )


def denied(call) -> bool:
    try:
        call()
    except ClientError as error:
        return error.response["Error"]["Code"] == "AccessDenied"
    return False


def test_each_user_publishes_below_their_own_prefix_and_not_below_another(sts_world):
    endpoint, sts = sts_world
    ana = s3_as(endpoint, POLICY.issue(sts, "ana"))
    ana.put_object(Bucket="published", Key="users/ana/report.ipynb", Body=b"{}")
    assert denied(
        lambda: ana.put_object(Bucket="published", Key="users/bob/report.ipynb", Body=b"x")
    )
    assert denied(lambda: ana.put_object(Bucket="published", Key="report.ipynb", Body=b"x"))
    assert denied(lambda: ana.put_object(Bucket="examples", Key="q3.ipynb", Body=b"x"))
    assert denied(lambda: ana.delete_object(Bucket="published", Key="users/bob/report.ipynb"))
    # Reading what others share is the point.
    assert ana.get_object(Bucket="examples", Key="q3.ipynb")["Body"].read() == b"{}"
    assert ana.get_object(Bucket="published", Key="users/bob/report.ipynb")["Body"].read() == b"{}"

    bob = s3_as(endpoint, POLICY.issue(sts, "bob"))
    assert denied(
        lambda: bob.put_object(Bucket="published", Key="users/ana/report.ipynb", Body=b"x")
    )
    bob.put_object(Bucket="published", Key="users/bob/report.ipynb", Body=b"{ }")

    # On S3: Ana's object is hers, Bob's is unchanged by Ana.
    admin = s3_as(endpoint, POLICY.issue(sts, "bob"))
    assert (
        admin.get_object(Bucket="published", Key="users/ana/report.ipynb")["Body"].read() == b"{}"
    )
    assert (
        admin.get_object(Bucket="published", Key="users/bob/report.ipynb")["Body"].read() == b"{ }"
    )


def test_credentials_expire_and_each_request_gets_fresh_ones(sts_world):
    _endpoint, sts = sts_world
    first = POLICY.issue(sts, "ana")
    second = POLICY.issue(sts, "ana")
    assert first["AccessKeyId"] != second["AccessKeyId"]
    expiration = datetime.fromisoformat(first["Expiration"])
    left = (expiration - datetime.now(timezone.utc)).total_seconds()
    assert 0 < left <= POLICY.duration_seconds + 5


def test_a_user_name_that_would_widen_the_prefix_is_refused():
    for name in ("", "ana/../bob", "*", "a?"):
        with pytest.raises(ValueError):
            POLICY.session_policy(name)


def test_the_policy_is_read_from_the_services_environment():
    policy = CredentialsPolicy.from_environment(
        {
            "BOOKSHELF_ROLE_ARN": "arn:aws-cn:iam::1:role/r",
            "BOOKSHELF_READ_BUCKETS": "examples, datasets,",
            "BOOKSHELF_PUBLISH_BUCKET": "published",
            "BOOKSHELF_PUBLISH_PREFIX": "team/{username}/nb/",
        }
    )
    assert policy.read_buckets == ("examples", "datasets")
    assert policy.user_prefix("ana") == "team/ana/nb/"
    statement = policy.session_policy("ana")["Statement"][-1]
    assert statement["Resource"] == ["arn:aws-cn:s3:::published/team/ana/nb/*"]
    with pytest.raises(ValueError, match="BOOKSHELF_ROLE_ARN"):
        CredentialsPolicy.from_environment({"BOOKSHELF_PUBLISH_BUCKET": "p"})
