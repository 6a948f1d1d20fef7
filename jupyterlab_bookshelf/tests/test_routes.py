"""The shim's HTTP paths, against a real Jupyter server running JupyterLab.

The tests are plain functions that run each request on the server's event
loop (``jp_asyncio_loop``): with pytest-asyncio's ``asyncio_mode = "auto"``
an ``async def`` test would run on pytest-asyncio's own loop, where the
server never answers.
"""

import json
import logging

import pytest

import jupyterlab_bookshelf

BASE = "/a%40b/"  # pytest-jupyter's jp_base_url: a base URL that needs escaping
SECRETS = ("AKIAEXAMPLEKEYID0001", "wJalrXUtnFEMI/K7MDENG/SECRETKEY0001", "SESSIONTOKEN0001")
XSS_KEYS = ("<script>alert(1)</script>.ipynb", '"><img src=x onerror=alert(1)>.ipynb')


@pytest.fixture
def with_jupyterlab():
    """Whether JupyterLab runs as a server extension too (parametrize to change)."""
    return True


@pytest.fixture
def with_notebook():
    """Whether Notebook 7 runs as a server extension too (parametrize to change)."""
    return False


@pytest.fixture
def default_url():
    """ServerApp.default_url, or None for the default (parametrize to change)."""
    return None


@pytest.fixture
def lab_dirs(tmp_path):
    """The directories given to JupyterLab: app settings (overrides), user
    settings, and federated extensions (empty: the source schema is used)."""
    dirs = {name: tmp_path / name for name in ("app_settings", "user_settings", "labextensions")}
    for path in dirs.values():
        path.mkdir()
    return dirs


@pytest.fixture
def jp_server_config(jp_server_config, with_jupyterlab, with_notebook, default_url, lab_dirs):
    config = json.loads(json.dumps(jp_server_config))
    if with_notebook:
        # Notebook 7's own settings folders: its defaults, not the ones given
        # to JupyterLab.
        config["ServerApp"]["jpserver_extensions"]["notebook"] = True
    if with_jupyterlab:
        config["ServerApp"]["jpserver_extensions"]["jupyterlab"] = True
        config["LabApp"] = {
            "app_settings_dir": str(lab_dirs["app_settings"]),
            "user_settings_dir": str(lab_dirs["user_settings"]),
            "labextensions_path": [str(lab_dirs["labextensions"])],
        }
    if default_url:
        config["ServerApp"]["default_url"] = default_url
    return config


@pytest.fixture
def write_overrides(lab_dirs):
    """Write the administrator's overrides for jupyterlab-bookshelf:core.
    JupyterLab reads them once, so write them before the first request."""

    def write(settings):
        path = lab_dirs["app_settings"] / "overrides.json"
        path.write_text(json.dumps({"jupyterlab-bookshelf:core": settings}), encoding="utf-8")

    return write


@pytest.fixture
def write_user_settings(lab_dirs):
    """Write the user's settings file (JSON5, as the Settings Editor does)."""

    def write(text):
        folder = lab_dirs["user_settings"] / "jupyterlab-bookshelf"
        folder.mkdir(exist_ok=True)
        (folder / "core.jupyterlab-settings").write_text(text, encoding="utf-8")

    return write


@pytest.fixture
def fetch(jp_fetch, jp_asyncio_loop):
    """jp_fetch, run on the server's loop; any status is returned, not raised.

    ``auth=False`` sends no token; ``query`` is a list of pairs (so a
    parameter may repeat), sent as the page's query string."""

    def fetch(*parts, auth=True, query=(), **kwargs):
        kwargs.setdefault("raise_error", False)
        kwargs.setdefault("follow_redirects", False)
        if not auth:
            kwargs["headers"] = {"Authorization": ""}
        return jp_asyncio_loop.run_until_complete(jp_fetch(*parts, params=list(query), **kwargs))

    return fetch


def get_info(fetch):
    response = fetch("api", "bookshelf")
    assert response.code == 200
    assert response.headers["Content-Type"].startswith("application/json")
    return json.loads(response.body)


def text(response):
    return response.body.decode("utf-8")


# GET /api/bookshelf


def test_info_without_publish_bucket(fetch):
    info = get_info(fetch)
    assert info["release"] == jupyterlab_bookshelf.__version__
    features = info["features"]
    assert features == {
        "clone_valid": True,
        "publish_valid": False,
        "credentials_mode": "session",
        "endpoint_url": "",
        "region": "us-east-1",
        "force_path_style": False,
        "publish_bucket": "",
        "publish_prefix": "",
        "overwrite_policy": "confirm",
        "links_restricted": False,
        "settings_problem": "",
    }


def test_info_with_publish_bucket_from_overrides(fetch, write_overrides):
    write_overrides(
        {
            "endpointUrl": "http://127.0.0.1:9000",
            "forcePathStyle": True,
            "publishBucket": "team-published",
            "publishPrefix": "notebooks/",
            "allowedBuckets": ["team-*"],
            "credentials": {"mode": "endpoint", "endpoint": "/hub/s3-credentials"},
        }
    )
    features = get_info(fetch)["features"]
    assert features["publish_valid"] is True
    assert features["clone_valid"] is True
    assert features["publish_bucket"] == "team-published"
    assert features["publish_prefix"] == "notebooks/"
    assert features["endpoint_url"] == "http://127.0.0.1:9000"
    assert features["force_path_style"] is True
    assert features["credentials_mode"] == "endpoint"
    assert features["links_restricted"] is True
    assert features["settings_problem"] == ""
    assert all(isinstance(value, (bool, str)) for value in features.values())


@pytest.mark.parametrize("with_notebook", [True])
def test_with_notebook_7_installed_too_the_settings_are_jupyterlab_s(fetch, write_overrides):
    write_overrides({"publishBucket": "team-published", "credentials": {"mode": "anonymous"}})
    features = get_info(fetch)["features"]
    assert features["publish_bucket"] == "team-published"
    assert features["credentials_mode"] == "anonymous"


def test_user_settings_win_over_overrides_and_are_read_per_request(
    fetch, write_overrides, write_user_settings
):
    write_overrides({"region": "eu-west-1", "publishBucket": "admin-bucket"})
    write_user_settings('{\n  // mine\n  "region": "eu-central-1",\n}\n')
    features = get_info(fetch)["features"]
    assert features["region"] == "eu-central-1"
    assert features["publish_bucket"] == "admin-bucket"

    write_user_settings('{"region": "ap-southeast-2", "publishBucket": "Not_Valid"}')
    features = get_info(fetch)["features"]
    assert features["region"] == "ap-southeast-2"
    assert features["publish_valid"] is False
    assert features["settings_problem"].startswith("publishBucket: a bucket name has only")


def test_user_credentials_object_replaces_the_overridden_one(
    fetch, write_overrides, write_user_settings
):
    # As in JupyterLab: an object the user sets is completed from the
    # schema's own defaults, not merged with the administrator's object.
    write_overrides({"credentials": {"mode": "endpoint", "endpoint": "/creds"}})
    write_user_settings('{"credentials": {"accessKeyId": "AKIAONLY"}}')
    features = get_info(fetch)["features"]
    assert features["credentials_mode"] == "session"

    write_user_settings('{"credentials": {"mode": "settings", "accessKeyId": "AKIAONLY"}}')
    features = get_info(fetch)["features"]
    assert features["clone_valid"] is False
    assert features["publish_valid"] is False
    assert features["settings_problem"] == (
        "credentials.mode is 'settings' but credentials.secretAccessKey is empty"
    )


@pytest.mark.parametrize(
    "endpoint_url, shown, problem",
    [
        (
            f"https://user:{SECRETS[2]}@S3.example.org:9000/base?X-Amz-Signature={SECRETS[2]}",
            "https://s3.example.org:9000/base",
            "endpointUrl must not contain a user name or password",
        ),
        (
            f"https://user:{SECRETS[1]}@s3.example.org",  # not a URL: '/' in the password
            "",
            "endpointUrl must be empty or an http:// or https:// URL",
        ),
    ],
)
def test_secrets_never_in_the_answer_nor_the_log(
    fetch, write_overrides, write_user_settings, caplog, endpoint_url, shown, problem
):
    caplog.set_level(logging.DEBUG)
    write_overrides({"publishBucket": "team-published"})
    key_id, secret, token = SECRETS
    write_user_settings(
        json.dumps(
            {
                "endpointUrl": endpoint_url,
                "credentials": {
                    "mode": "settings",
                    "accessKeyId": key_id,
                    "secretAccessKey": secret,
                    "sessionToken": token,
                },
            }
        )
    )
    response = fetch("api", "bookshelf")
    features = json.loads(response.body)["features"]
    assert features["credentials_mode"] == "settings"
    assert features["endpoint_url"] == shown
    assert features["clone_valid"] is False
    assert features["settings_problem"] == problem
    for value in (*SECRETS, "SECRETKEY", "user:"):
        assert value not in text(response)
        assert value not in caplog.text


def test_user_settings_that_do_not_match_the_schema_are_ignored(
    fetch, write_overrides, write_user_settings
):
    write_overrides({"publishBucket": "team-published"})
    write_user_settings(
        json.dumps(
            {
                "region": "eu-west-3",
                "overwritePolicy": "sometimes",
                "credentials": {"mode": "settings", "secretAccessKey": SECRETS[1]},
            }
        )
    )
    response = fetch("api", "bookshelf")
    features = json.loads(response.body)["features"]
    assert features["region"] == "us-east-1"
    assert features["publish_valid"] is True
    assert "ignores them" in features["settings_problem"]
    assert SECRETS[1] not in text(response)


def test_broken_user_settings_file_is_reported(fetch, write_user_settings):
    write_user_settings('{"region": ')
    features = get_info(fetch)["features"]
    assert features["region"] == "us-east-1"
    assert "not valid JSON5" in features["settings_problem"]


def test_unreadable_overrides_file_is_reported(fetch, lab_dirs):
    (lab_dirs["app_settings"] / "overrides.json").write_text("{not json", encoding="utf-8")
    features = get_info(fetch)["features"]
    assert features["clone_valid"] is True
    assert "overrides file" in features["settings_problem"]


def test_an_overrides_syntax_error_names_the_file_and_line(fetch, lab_dirs):
    # A missing comma on line 3: JupyterLab drops every admin setting of the file.
    (lab_dirs["app_settings"] / "overrides.json").write_text(
        '{"jupyterlab-bookshelf:core": {\n  "publishBucket": "team"\n  "region": "eu-west-1"}}',
        encoding="utf-8",
    )
    info = get_info(fetch)
    features = info["features"]
    assert features["publish_bucket"] == ""
    # Apart, for the info panel's settings check, which cannot read the files.
    assert info["settings_files_problems"] == [features["settings_problem"]]
    assert (
        "the overrides file overrides.json is not valid JSON at line 3, column 3: "
        "JupyterLab ignores every setting in it until it is corrected and JupyterLab is restarted"
    ) in features["settings_problem"]


def test_a_json5_overrides_syntax_error_names_the_file_and_line(fetch, lab_dirs):
    folder = lab_dirs["app_settings"] / "overrides.d"
    folder.mkdir()
    (folder / "team.json5").write_text(
        '{\n  "jupyterlab-bookshelf:core": {region: "eu-west-1",,}\n}', encoding="utf-8"
    )
    problem = get_info(fetch)["features"]["settings_problem"]
    assert "the overrides file overrides.d/team.json5 is not valid JSON5 at line 2" in problem


def test_misspelt_overrides_are_named_with_what_they_meant(fetch, write_overrides):
    write_overrides(
        {
            "publishbucket": "team",
            "endpointURL": "https://s3.example.org",
            "credentials": {"mode": "anonymous", "secretAccesKey": "SECRET-VALUE-1"},
            "colour": "blue",
        }
    )
    features = get_info(fetch)["features"]
    problem = features["settings_problem"]
    for expected in (
        "in overrides.json, 'publishbucket' is not a Bookshelf setting "
        "(did you mean 'publishBucket'?): JupyterLab ignores it",
        "'endpointURL' is not a Bookshelf setting (did you mean 'endpointUrl'?)",
        "'credentials.secretAccesKey' is not a Bookshelf setting "
        "(did you mean 'credentials.secretAccessKey'?)",
        "'colour' is not a Bookshelf setting: JupyterLab ignores it",
    ):
        assert expected in problem
    assert "SECRET-VALUE-1" not in json.dumps(features)
    # The settings that are right still count.
    assert features["credentials_mode"] == "anonymous"


def test_a_misspelt_plugin_id_in_overrides_is_named(fetch, lab_dirs):
    (lab_dirs["app_settings"] / "overrides.json").write_text(
        json.dumps({"jupyterlab-bookshelf:cor": {"publishBucket": "team"}}), encoding="utf-8"
    )
    problem = get_info(fetch)["features"]["settings_problem"]
    assert (
        "in overrides.json, 'jupyterlab-bookshelf:cor' is not a Bookshelf plugin "
        "(the settings are under 'jupyterlab-bookshelf:core')"
    ) in problem


def test_overrides_of_every_plugin_of_a_built_extension_are_known(fetch, lab_dirs):
    # Installed, the schemas are the built extension's: every plugin's counts.
    source = jupyterlab_bookshelf.settings.SOURCE_SCHEMA.parent
    folder = lab_dirs["labextensions"].joinpath(
        "jupyterlab-bookshelf", "schemas", "jupyterlab-bookshelf"
    )
    folder.mkdir(parents=True)
    for schema in source.glob("*.json"):
        (folder / schema.name).write_text(schema.read_text(encoding="utf-8"), encoding="utf-8")
    (lab_dirs["app_settings"] / "overrides.json").write_text(
        json.dumps({"jupyterlab-bookshelf:clone": {}, "jupyterlab-bookshelf:publish": {}}),
        encoding="utf-8",
    )
    assert get_info(fetch)["settings_files_problems"] == []


def test_correct_overrides_report_no_problem(fetch, write_overrides):
    write_overrides({"publishBucket": "team", "credentials": {"mode": "session"}})
    info = get_info(fetch)
    assert info["features"]["settings_problem"] == ""
    assert info["settings_files_problems"] == []


def test_built_schema_is_found_through_jupyterlab(fetch, lab_dirs):
    schema = json.loads((jupyterlab_bookshelf.settings.SOURCE_SCHEMA).read_text(encoding="utf-8"))
    schema["properties"]["region"]["default"] = "built-region-1"
    folder = lab_dirs["labextensions"].joinpath(
        "jupyterlab-bookshelf", "schemas", "jupyterlab-bookshelf"
    )
    folder.mkdir(parents=True)
    (folder / "core.json").write_text(json.dumps(schema), encoding="utf-8")
    assert get_info(fetch)["features"]["region"] == "built-region-1"


@pytest.mark.parametrize("with_jupyterlab", [False])
def test_without_jupyterlab_the_default_directories_are_read(fetch, tmp_path, monkeypatch):
    lab_dir = tmp_path / "lab-app-dir"
    (lab_dir / "settings").mkdir(parents=True)
    (lab_dir / "settings" / "overrides.json").write_text(
        json.dumps({"jupyterlab-bookshelf:core": {"publishBucket": "from-default-dir"}})
    )
    user_dir = tmp_path / "lab-user-settings" / "jupyterlab-bookshelf"
    user_dir.mkdir(parents=True)
    (user_dir / "core.jupyterlab-settings").write_text('{"region": "sa-east-1"}')
    monkeypatch.setenv("JUPYTERLAB_DIR", str(lab_dir))
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(user_dir.parent))
    features = get_info(fetch)["features"]
    assert features["publish_bucket"] == "from-default-dir"
    assert features["region"] == "sa-east-1"


# GET /bookshelf/clone and GET /api/bookshelf/cloned

LANDING_PATHS = [("bookshelf", "clone"), ("api", "bookshelf", "cloned")]
VALID = [("s3_bucket", "abc"), ("s3_key", "a.ipynb")]


def assert_page_headers(response):
    assert response.headers["Content-Type"].startswith("text/html")
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    # Jupyter's default policy for pages, not the API's default-src 'none'.
    assert "frame-ancestors 'self'" in response.headers["Content-Security-Policy"]
    assert "default-src 'none'" not in response.headers["Content-Security-Policy"]


@pytest.mark.parametrize("path", LANDING_PATHS)
def test_landing_page_hands_off_to_the_clone_dialog(fetch, path):
    response = fetch(
        *path,
        query=[
            ("s3_bucket", "team-notebooks"),
            ("s3_key", "q3/My Report+final.ipynb"),
            ("target_path", "reports/"),
            ("s3_version_id", "v1+a/b"),
            ("utm_source", "mail"),
        ],
    )
    assert response.code == 200
    assert_page_headers(response)
    body = text(response)
    # encodeURIComponent's encoding, as the browser's links use.
    link = (
        f"{BASE}lab?bookshelf-clone&amp;s3_bucket=team-notebooks"
        "&amp;s3_key=q3%2FMy%20Report%2Bfinal.ipynb&amp;target_path=reports%2F"
        "&amp;s3_version_id=v1%2Ba%2Fb"
    )
    assert f'<a href="{link}">Continue to JupyterLab</a>' in body
    assert f'<meta http-equiv="refresh" content="0; url={link}" />' in body
    assert "<title>" in body
    assert "Opening the clone dialog for <code>s3://team-notebooks/q3/My Report+final.ipynb" in body
    assert "utm_source" not in body


@pytest.mark.parametrize("default_url", ["/tree"])
def test_landing_page_hands_off_to_notebook_7(fetch):
    response = fetch("bookshelf", "clone", query=[("s3_bucket", "abc"), ("s3_key", "n.ipynb")])
    assert response.code == 200
    assert f'href="{BASE}tree?bookshelf-clone&amp;s3_bucket=abc&amp;s3_key=n.ipynb"' in text(
        response
    )
    assert "Continue to Jupyter Notebook" in text(response)


@pytest.mark.parametrize("path", LANDING_PATHS)
@pytest.mark.parametrize(
    "query, field",
    [
        ([("s3_key", "a.ipynb")], "s3_bucket"),
        ([("s3_bucket", ""), ("s3_key", "a.ipynb")], "s3_bucket"),
        ([("s3_bucket", "ab"), ("s3_key", "a.ipynb")], "s3_bucket"),
        ([("s3_bucket", "Team-Notebooks"), ("s3_key", "a.ipynb")], "s3_bucket"),
        ([("s3_bucket", "192.168.5.4"), ("s3_key", "a.ipynb")], "s3_bucket"),
        ([("s3_bucket", "abc")], "s3_key"),
        ([("s3_bucket", "abc"), ("s3_key", "a\x07b.ipynb")], "s3_key"),
        ([("s3_bucket", "abc"), ("s3_key", "folder/")], "s3_key"),
        ([*VALID, ("target_path", "/root.ipynb")], "target_path"),
        ([*VALID, ("target_path", "../up.ipynb")], "target_path"),
        ([*VALID, ("target_path", "a\\b.ipynb")], "target_path"),
        ([*VALID, ("s3_key", "b.ipynb")], "s3_key"),
        ([*VALID, ("s3_bucket", "abc")], "s3_bucket"),
        ([*VALID, ("s3_version_id", "v\n1")], "s3_version_id"),
    ],
)
def test_landing_page_refuses_invalid_links(fetch, path, query, field):
    response = fetch(*path, query=query)
    assert response.code == 400
    assert_page_headers(response)
    body = text(response)
    assert "<title>Cannot open this clone link" in body
    assert f"<li>{field}: " in body
    assert "Ask the person who sent you this link for a corrected link." in body
    assert "bookshelf-clone" not in body
    assert "http-equiv" not in body


@pytest.mark.parametrize("path", LANDING_PATHS)
@pytest.mark.parametrize("key", XSS_KEYS)
@pytest.mark.parametrize(
    "bucket, target_path, code",
    [
        ("abc", None, 200),
        ("Bad Bucket", None, 400),
        # Messages quote what they refuse: here, the name starting with a dot.
        ("abc", ".{key}", 400),
    ],
)
def test_landing_page_escapes_every_value(fetch, path, key, bucket, target_path, code):
    query = [("s3_bucket", bucket), ("s3_key", key)]
    if target_path:
        query.append(("target_path", target_path.format(key=key)))
    response = fetch(*path, query=query)
    assert response.code == code
    body = text(response)
    assert key not in body
    assert "<script" not in body
    assert "<img" not in body
    assert "&lt;script&gt;" in body or "&#34;&gt;&lt;img" in body


@pytest.mark.parametrize("path", LANDING_PATHS)
def test_landing_page_respects_allowed_buckets(fetch, write_overrides, path):
    write_overrides({"allowedBuckets": ["team-*"]})
    allowed = fetch(*path, query=[("s3_bucket", "team-a"), ("s3_key", "a.ipynb")])
    assert allowed.code == 200
    refused = fetch(*path, query=[("s3_bucket", "other"), ("s3_key", "a.ipynb")])
    assert refused.code == 403
    assert_page_headers(refused)
    assert "<li>s3_bucket: this server does not let links clone from this bucket" in text(refused)
    assert "bookshelf-clone" not in text(refused)


# Authentication


@pytest.mark.parametrize(
    "path, method, body",
    [
        (("api", "bookshelf"), "GET", None),
        (("api", "bookshelf", "clone"), "POST", "{}"),
        (("api", "bookshelf", "cloned"), "POST", "{}"),
        (("api", "bookshelf", "published", "a.ipynb"), "PUT", "{}"),
    ],
)
def test_api_refuses_unauthenticated_requests(fetch, path, method, body):
    response = fetch(*path, method=method, body=body, auth=False)
    assert response.code in (401, 403)
    assert response.headers["Content-Type"].startswith("application/json")
    assert "features" not in text(response)


@pytest.mark.parametrize("path", LANDING_PATHS)
def test_pages_send_unauthenticated_browsers_to_login(fetch, path):
    response = fetch(*path, query=[("s3_bucket", "abc"), ("s3_key", "a.ipynb")], auth=False)
    assert response.code == 302
    assert response.headers["Location"].startswith(f"{BASE}login?next=")
    assert "bookshelf-clone" not in text(response)


# POST /api/bookshelf/clone and POST /api/bookshelf/cloned

CLONE_API_PATHS = [("api", "bookshelf", "clone"), ("api", "bookshelf", "cloned")]


@pytest.mark.parametrize("path", CLONE_API_PATHS)
@pytest.mark.parametrize(
    "body, field",
    [
        ("not json", "request"),
        ('["abc", "a.ipynb"]', "request"),
        ('{"s3_key": "a.ipynb"}', "s3_bucket"),
        ('{"s3_bucket": "Bad_Bucket", "s3_key": "a.ipynb"}', "s3_bucket"),
        ('{"s3_bucket": "abc", "s3_key": "a.ipynb", "target_path": "../x.ipynb"}', "target_path"),
    ],
)
def test_clone_post_refuses_invalid_requests(fetch, path, body, field):
    response = fetch(*path, method="POST", body=body)
    assert response.code == 400
    assert response.headers["Content-Type"].startswith("application/json")
    reply = json.loads(response.body)
    assert field in reply["message"]
    assert reply["errors"][0]["field"] == field
    assert reply["errors"][0]["message"].startswith(field)


@pytest.mark.parametrize("path", CLONE_API_PATHS)
def test_clone_post_points_to_the_browser(fetch, path):
    request = {"s3_bucket": "abc", "s3_key": "q3/My Report.ipynb", "target_path": "work/"}
    response = fetch(*path, method="POST", body=json.dumps(request))
    assert response.code == 501
    assert response.headers["Content-Type"].startswith("application/json")
    reply = json.loads(response.body)
    assert "runs in the browser" in reply["message"]
    assert "IBookshelf.clone" in reply["message"]
    assert reply["clone_url"] == (
        f"{BASE}bookshelf/clone?s3_bucket=abc&s3_key=q3%2FMy%20Report.ipynb&target_path=work%2F"
    )
    # The link opens the landing page for the same request.
    landing = fetch("bookshelf", "clone", query=list(request.items()))
    assert landing.code == 200
    query = reply["clone_url"].split("?", 1)[1]
    assert f"lab?bookshelf-clone&{query}".replace("&", "&amp;") in text(landing)


def test_clone_progress_is_501_when_the_browser_clones(fetch):
    response = fetch(
        "api", "bookshelf", "clone", query=[("s3_bucket", "abc"), ("s3_key", "q.ipynb")]
    )
    assert response.code == 501
    assert "Clone runs in the browser" in json.loads(response.body)["message"]


def test_temporary_files_are_left_out_of_listings(fetch, jp_root_dir):
    (jp_root_dir / "q3.ipynb.0123456789abcdef.bookshelf-partial").write_bytes(b"{")
    (jp_root_dir / "q3.ipynb").write_bytes(b"{}")
    listing = json.loads(fetch("api", "contents").body)["content"]
    assert [item["name"] for item in listing] == ["q3.ipynb"]
    # Still read by its name (the browser's chunked save appends to it).
    model = fetch("api", "contents", "q3.ipynb.0123456789abcdef.bookshelf-partial")
    assert model.code == 200


def test_under_a_hub_the_clone_link_goes_through_user_redirect(fetch, monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_USER", "ana")
    monkeypatch.setenv("JUPYTERHUB_BASE_URL", "/")
    request = {"s3_bucket": "abc", "s3_key": "q3.ipynb"}
    response = fetch("api", "bookshelf", "clone", method="POST", body=json.dumps(request))
    assert json.loads(response.body)["clone_url"] == (
        "/hub/user-redirect/bookshelf/clone?s3_bucket=abc&s3_key=q3.ipynb"
    )


# PUT /api/bookshelf/published/{path}


def test_publish_put_points_to_the_browser(fetch):
    response = fetch(
        "api",
        "bookshelf",
        "published",
        "reports/q3/My Report.ipynb",
        method="PUT",
        body=json.dumps({"type": "notebook", "content": {}}),
    )
    assert response.code == 501
    assert response.headers["Content-Type"].startswith("application/json")
    reply = json.loads(response.body)
    assert reply["path"] == "reports/q3/My Report.ipynb"
    assert "Publish runs in the browser" in reply["message"]
