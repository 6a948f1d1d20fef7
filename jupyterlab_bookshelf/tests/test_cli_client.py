"""``jupyter bookshelf`` and ``BookshelfClient`` against running Jupyter servers: the test's
in-process server (the command runs in a thread while the server's loop runs), and one real
``jupyter server`` process started with ``--Bookshelf.server_access=True`` on its command line,
found through its runtime file as a user's shell would find it."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from jupyterlab_bookshelf import cli
from jupyterlab_bookshelf.client import (
    BookshelfClient,
    BookshelfClientError,
    PublishResult,
    find_server,
)

from .s3_servers import (  # noqa: F401  (fixtures)
    admin_settings,
    api,
    aws_env,
    fault_proxy,
    jp_server_config,
    lab_dirs,
    moto,
    moto_client,
    reply,
    s3_fixture,
    server_access,
    unique,
    write_settings,
)
from .test_server_clone import faults, notebook_bytes  # noqa: F401  (faults: a fixture)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def server(jp_serverapp, api):
    """URL and token of the in-process server (settings written)."""
    return jp_serverapp.connection_url, jp_serverapp.identity_provider.token


@pytest.fixture
def in_thread(jp_asyncio_loop):
    """Run blocking client code while the server's loop answers."""

    def run(function, *args, **kwargs):
        return jp_asyncio_loop.run_until_complete(asyncio.to_thread(function, *args, **kwargs))

    return run


@pytest.fixture
def jupyter_bookshelf(server, in_thread, capsys):
    """``jupyter bookshelf ARGS`` against the server: (exit code, stdout, stderr)."""
    url, token = server

    def run(*args, token=token):
        code = in_thread(cli.main, ["--url", url, "--token", token, *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_cli_clone_prints_json_and_writes_the_file(jupyter_bookshelf, jp_root_dir, moto_client):
    code, out, err = jupyter_bookshelf("--json", "clone", "s3://examples/intro.ipynb")
    assert code == 0, err
    assert json.loads(out)["path"] == "intro.ipynb"
    expected = moto_client.get_object(Bucket="examples", Key="intro.ipynb")["Body"].read()
    assert (jp_root_dir / "intro.ipynb").read_bytes() == expected
    code, out, _ = jupyter_bookshelf("clone", "s3://examples/intro.ipynb", "--to", "intro.ipynb")
    assert code == 0
    assert out.strip() == "Cloned s3://examples/intro.ipynb to intro-1.ipynb"


def test_cli_clone_of_a_version(jupyter_bookshelf, moto, jp_root_dir, moto_client):
    version = moto.version_ids["versioned-examples/history.ipynb"][0]
    code, out, err = jupyter_bookshelf(
        "--json", "clone", "s3://versioned-examples/history.ipynb", "--version", version
    )
    assert code == 0, err
    expected = moto_client.get_object(
        Bucket="versioned-examples", Key="history.ipynb", VersionId=version
    )["Body"].read()
    assert (jp_root_dir / "history.ipynb").read_bytes() == expected


def test_cli_errors_exit_1_with_the_message(jupyter_bookshelf, jp_root_dir):
    code, out, err = jupyter_bookshelf("clone", "s3://examples/missing.ipynb")
    assert code == 1
    assert out == ""
    assert err.strip() == (
        "jupyter bookshelf clone: There is no object s3://examples/missing.ipynb."
    )
    code, out, _ = jupyter_bookshelf("--json", "clone", "s3://examples/missing.ipynb")
    assert code == 1
    assert json.loads(out)["error"] == {
        "code": "NoSuchKey",
        "message": "There is no object s3://examples/missing.ipynb.",
        "status": 404,
    }
    code, _, err = jupyter_bookshelf("clone", "examples/intro.ipynb")
    assert code == 1 and "not an s3://bucket/key address" in err
    assert list(jp_root_dir.iterdir()) == []


def test_cli_wrong_token_exits_1(jupyter_bookshelf):
    code, _, err = jupyter_bookshelf("info", token="wrong")
    assert code == 1
    assert "HTTP 403" in err and "check the token" in err


def test_cli_wrong_arguments_exit_2(jupyter_bookshelf):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["publish"])
    assert exit_.value.code == 2


def test_cli_publish_then_overwrite(jupyter_bookshelf, jp_root_dir, moto_client, unique):
    (jp_root_dir / "nb.ipynb").write_bytes(notebook_bytes(text="one"))
    key = f"notebooks/{unique}nb.ipynb"
    code, out, err = jupyter_bookshelf("--json", "publish", "nb.ipynb", "--to", unique + "nb.ipynb")
    assert code == 0, err
    result = json.loads(out)
    assert result["s3_path"] == f"s3://published/{key}"
    assert moto_client.get_object(Bucket="published", Key=key)["Body"].read() == notebook_bytes(
        text="one"
    )
    (jp_root_dir / "nb.ipynb").write_bytes(notebook_bytes(text="two"))
    code, _, err = jupyter_bookshelf("publish", "nb.ipynb", "--to", unique + "nb.ipynb")
    assert code == 1 and "confirm to replace it" in err
    code, _, err = jupyter_bookshelf(
        "publish", "nb.ipynb", "--to", unique + "nb.ipynb", "--overwrite", "--if-match", '"0"'
    )
    assert code == 1 and "changed by someone else" in err
    code, out, err = jupyter_bookshelf(
        "publish", "nb.ipynb", "--to", unique + "nb.ipynb", "--overwrite",
        "--if-match", result["etag"],
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith(f"Published to s3://published/{key}\nVersion: ")
    assert "Clone link: http" in out
    assert moto_client.get_object(Bucket="published", Key=key)["Body"].read() == notebook_bytes(
        text="two"
    )


def test_cli_info(jupyter_bookshelf, moto):
    code, out, _ = jupyter_bookshelf("info")
    assert code == 0
    assert "Mode: server-side" in out
    assert f"Endpoint: {moto.endpoint_url} (us-east-1)" in out
    assert "Publish to: s3://published/notebooks/" in out
    code, out, _ = jupyter_bookshelf("--json", "info")
    assert json.loads(out)["server_access"] is True


@pytest.mark.parametrize("server_access", [False])
def test_cli_without_server_access_says_so(jupyter_bookshelf, jp_root_dir):
    code, _, err = jupyter_bookshelf("clone", "s3://examples/intro.ipynb")
    assert code == 1
    assert "c.Bookshelf.server_access = True" in err
    assert list(jp_root_dir.iterdir()) == []


def test_client_in_a_kernel_like_folder(server, in_thread, jp_root_dir, moto_client, unique):
    """A kernel runs in the notebook's folder: a local path is made relative to the root."""
    url, token = server
    (jp_root_dir / "reports").mkdir()
    local = jp_root_dir / "reports" / "report.ipynb"
    local.write_bytes(notebook_bytes(text="kernel"))

    def in_kernel():
        client = BookshelfClient(url, token)
        client.server.root_dir = str(jp_root_dir)  # what the runtime file tells
        return client.publish(local, to=unique + "report.ipynb")

    link = in_thread(in_kernel)
    assert isinstance(link, PublishResult) and isinstance(link, str)
    assert link == link.clone_url and "/bookshelf/clone?s3_bucket=published" in link
    assert link.s3_path == f"s3://published/notebooks/{unique}report.ipynb"
    assert link.version_id
    # The link opens the clone page of this server.
    page = in_thread(requests.get, link, headers={"Authorization": f"token {token}"})
    assert page.status_code == 200 and "bookshelf-clone" in page.text

    model = in_thread(lambda: BookshelfClient(url, token).clone(link.s3_path, to="reports/"))
    assert model["path"] == "reports/report-1.ipynb"
    assert (jp_root_dir / "reports" / "report-1.ipynb").read_bytes() == local.read_bytes()


def test_client_errors_carry_code_status_and_field(server, in_thread):
    url, token = server

    def bad():
        BookshelfClient(url, token).clone("s3://Bad_Bucket/a.ipynb")

    with pytest.raises(BookshelfClientError) as error:
        in_thread(bad)
    assert (error.value.code, error.value.status, error.value.field) == (
        "InvalidRequest",
        400,
        "s3_bucket",
    )


def test_client_finds_the_server_from_the_environment(server, in_thread, monkeypatch):
    url, token = server
    monkeypatch.setenv("JUPYTER_SERVER_URL", url)
    monkeypatch.setenv("JUPYTER_TOKEN", token)
    assert in_thread(lambda: BookshelfClient().info())["server_access"] is True
    monkeypatch.delenv("JUPYTER_SERVER_URL")
    monkeypatch.delenv("JUPYTER_TOKEN")
    monkeypatch.setenv("JUPYTERHUB_SERVICE_URL", url)
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", token)
    assert in_thread(lambda: BookshelfClient().info())["server_access"] is True


def _runtime_servers(monkeypatch, *servers):
    """What the runtime files list: ``servers`` as (pid, root) pairs, in that order."""
    from jupyterlab_bookshelf import client as client_module

    listed = [
        {"pid": pid, "url": f"http://127.0.0.1:{9000 + n}/", "token": f"t{n}", "root_dir": root}
        for n, (pid, root) in enumerate(servers)
    ]
    monkeypatch.setattr(client_module, "_running_servers", lambda: listed)
    for name in ("JUPYTER_SERVER_URL", "JUPYTERHUB_SERVICE_URL", "JPY_PARENT_PID"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("order", ["own first", "own last"])
def test_a_kernel_finds_its_own_server_among_servers_of_the_same_folder(
    monkeypatch, tmp_path, order
):
    """Lab and Notebook 7 (or two Labs) often serve one folder: a kernel's server is the one
    that started it (``JPY_PARENT_PID``), whatever the order of the runtime files."""
    servers = [(4242, str(tmp_path)), (5151, str(tmp_path))]
    _runtime_servers(monkeypatch, *(servers if order == "own first" else servers[::-1]))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JPY_PARENT_PID", "4242")
    assert find_server().url == f"http://127.0.0.1:{9000 + (0 if order == 'own first' else 1)}/"


def test_a_script_finds_the_server_it_runs_under(monkeypatch, tmp_path):
    """A script in a Lab terminal: the nearest server among its parent processes."""
    _runtime_servers(monkeypatch, (os.getppid(), str(tmp_path / "elsewhere")), (1, "/"))
    monkeypatch.chdir(tmp_path)
    assert find_server().root_dir == str(tmp_path / "elsewhere")


def test_without_an_own_server_the_closest_root_of_the_folder(monkeypatch, tmp_path):
    (tmp_path / "work" / "deeper").mkdir(parents=True)
    _runtime_servers(
        monkeypatch,
        (999_999_001, str(tmp_path)),
        (999_999_002, str(tmp_path / "work")),
        (999_999_003, str(tmp_path / "other")),
    )
    monkeypatch.chdir(tmp_path / "work" / "deeper")
    monkeypatch.setenv("JPY_PARENT_PID", "not a pid")
    assert find_server().root_dir == str(tmp_path / "work")
    monkeypatch.chdir("/")
    assert find_server().root_dir == str(tmp_path / "other")  # the last one listed


# A real `jupyter server` process


def _free_jupyter_port() -> int:
    """A free port in 28888-28899 (from ``BOOKSHELF_TEST_PYTEST_JUPYTER_PORT`` when set),
    three for each pytest-xdist worker."""
    import os
    import socket

    from .s3_servers import WORKER

    base = int(os.environ.get("BOOKSHELF_TEST_PYTEST_JUPYTER_PORT") or 28888) + 3 * WORKER
    for port in range(base, base + 3):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError(f"no free port in {base}-{base + 2}")


@pytest.fixture
def jupyter_process(tmp_path, moto):
    """``jupyter server --Bookshelf.server_access=True`` with its own config, runtime and
    settings folders (scripts/jupyter_process.py); stopped by its PID."""
    from jupyter_process import start_server_access_jupyter
    from processes import stop_process

    root = tmp_path / "root"
    root.mkdir()
    port = _free_jupyter_port()
    token = "cli-test-token"
    process, env = start_server_access_jupyter(
        root,
        tmp_path,
        {
            "endpointUrl": moto.endpoint_url,
            "forcePathStyle": True,
            "publishBucket": "published",
            "publishPrefix": "cli/",
        },
        port,
        token,
    )
    url = f"http://127.0.0.1:{port}/"
    yield {"root": root, "env": env, "url": url, "token": token}
    stop_process(process)


def test_the_command_finds_a_running_server_and_its_mode_from_the_command_line(
    jupyter_process, moto_client
):
    """No URL, no token: the runtime file of the server whose root holds the current folder.
    The mode came from ``--Bookshelf.server_access=True`` on the server's command line."""
    root, env = jupyter_process["root"], jupyter_process["env"]
    (root / "sub").mkdir()

    def command(*args):
        return subprocess.run(
            [sys.executable, "-m", "jupyterlab_bookshelf.cli", *args],
            cwd=root / "sub", env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip

    info = command("--json", "info")
    assert info.returncode == 0, info.stderr
    assert json.loads(info.stdout)["server_access"] is True
    clone = command("clone", "s3://examples/intro.ipynb", "--to", "sub/")
    assert clone.returncode == 0, clone.stderr
    assert clone.stdout.strip() == "Cloned s3://examples/intro.ipynb to sub/intro.ipynb"
    expected = moto_client.get_object(Bucket="examples", Key="intro.ipynb")["Body"].read()
    assert (root / "sub" / "intro.ipynb").read_bytes() == expected
    # A local path of the current folder is the server's sub/intro.ipynb.
    publish = command("--json", "publish", "intro.ipynb", "--overwrite")
    assert publish.returncode == 0, publish.stderr
    result = json.loads(publish.stdout)
    assert result["s3_path"] == "s3://published/cli/sub/intro.ipynb"
    assert (
        moto_client.get_object(Bucket="published", Key="cli/sub/intro.ipynb")["Body"].read()
        == expected
    )


def test_clone_progress_over_http_says_when_none_runs(server, in_thread, unique):
    url, token = server
    client = BookshelfClient(url, token)
    assert in_thread(client.clone_received, f"s3://examples/{unique}none.bin") is None


def test_cli_options_also_after_the_command(server, in_thread, capsys, jp_root_dir):
    url, token = server
    code = in_thread(
        cli.main,
        ["clone", "s3://examples/data/readme.txt", "--url", url, "--token", token, "--json"],
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["path"] == "readme.txt"
    assert (jp_root_dir / "readme.txt").is_file()


def test_cli_shows_the_bytes_received_on_a_terminal(
    jupyter_bookshelf, faults, moto_client, unique, monkeypatch, jp_root_dir
):
    """A slow clone (S3 throttled to 1 MB/s by the fault proxy) says how far it is."""
    data = os.urandom(3 * 1024 * 1024)
    moto_client.put_object(Bucket="examples", Key=unique + "big.bin", Body=data)
    faults.add({"method": "GET", "path": f"/examples/{unique}big.bin", "times": 1,
                "fault": {"type": "throttle", "bytes_per_second": 1024 * 1024}})  # fmt: skip
    monkeypatch.setattr(cli, "_interactive", lambda: True)
    code, out, err = jupyter_bookshelf("clone", f"s3://examples/{unique}big.bin")
    assert code == 0, err
    assert out.strip() == f"Cloned s3://examples/{unique}big.bin to big.bin"
    assert f"Cloning s3://examples/{unique}big.bin … 1 s" in err
    received = [float(m) for m in re.findall(r", ([0-9.]+) MB received", err)]
    assert received and 0 < received[0] < 3.0
    assert (jp_root_dir / "big.bin").read_bytes() == data


@pytest.fixture
def slow_publish(faults, jp_root_dir, unique):
    """A 3 MB notebook in the tree whose upload to S3 the fault proxy throttles to 1 MB/s."""
    data = notebook_bytes(text="x" * (3 * 1024 * 1024))
    (jp_root_dir / "big.ipynb").write_bytes(data)

    def throttle():
        faults.add({"method": "PUT", "path": f"/published/notebooks/{unique}big.ipynb",
                    "times": 1, "fault": {"type": "throttle", "bytes_per_second": 1024 * 1024,
                                          "where": "request"}})  # fmt: skip

    return data, throttle


def test_cli_shows_the_bytes_sent_of_a_publish_on_a_terminal(
    jupyter_bookshelf, slow_publish, moto_client, unique, monkeypatch
):
    data, throttle = slow_publish
    throttle()
    monkeypatch.setattr(cli, "_interactive", lambda: True)
    code, out, err = jupyter_bookshelf("publish", "big.ipynb", "--to", unique + "big.ipynb")
    assert code == 0, err
    assert out.startswith(f"Published to s3://published/notebooks/{unique}big.ipynb\n")
    assert "Publishing big.ipynb … 1 s" in err
    # Sent: what left the server for S3 (the proxy's buffers take some at once).
    sent = [
        (float(a), float(b)) for a, b in re.findall(r", ([0-9.]+) MB of ([0-9.]+) MB sent", err)
    ]
    assert sent and all(size == round(len(data) / (1024 * 1024), 1) for _, size in sent)
    assert [moved for moved, _ in sent] == sorted(moved for moved, _ in sent)
    assert all(0 <= moved <= size for moved, size in sent)
    key = f"notebooks/{unique}big.ipynb"
    assert moto_client.get_object(Bucket="published", Key=key)["Body"].read() == data


@pytest.mark.parametrize("terminal", [False, True])
def test_no_progress_with_json_or_without_a_terminal(
    jupyter_bookshelf, slow_publish, moto_client, unique, monkeypatch, terminal
):
    """On a terminal with --json, or with output to a pipe or file: only the result."""
    _, throttle = slow_publish
    throttle()
    monkeypatch.setattr(cli.sys.stdout, "isatty", lambda: False, raising=False)
    monkeypatch.setattr(cli.sys.stderr, "isatty", lambda: True, raising=False)
    if terminal:
        monkeypatch.setattr(cli, "_interactive", lambda: True)
        args = ("--json", "publish", "big.ipynb", "--to", unique + "big.ipynb")
    else:
        args = ("publish", "big.ipynb", "--to", unique + "big.ipynb")
    code, out, err = jupyter_bookshelf(*args)
    assert code == 0, err
    assert err == ""
    if terminal:
        assert json.loads(out)["s3_path"] == f"s3://published/notebooks/{unique}big.ipynb"


def test_publish_progress_over_http_says_when_none_runs(server, in_thread, unique):
    url, token = server
    client = BookshelfClient(url, token)
    assert in_thread(client.publish_sent, unique + "none.ipynb") is None
