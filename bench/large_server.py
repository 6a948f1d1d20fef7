"""The large notebooks of ``make bench-large`` (``bench/run.py --large``) without a browser, in
the same run, on the same objects in the same S3 server and the same file tree as large.js:

- Bookshelf's server-side clone (``POST /api/bookshelf/clone``) and publish
  (``PUT /api/bookshelf/published/…``), on a second Jupyter server with
  ``--Bookshelf.server_access=True`` serving the same root;
- what a script would do instead, against that server: (a) ``curl`` GET of the object from S3,
  then ``curl`` PUT of its bytes as a file to ``/api/contents``; (b) the same PUT as a notebook
  model, the path nteract/bookstore takes (both bodies built before the timing);
- the limits: ``cp`` of the notebook on disk, and a raw ``curl`` PUT of the file to S3.

Each time is taken with the Jupyter server's memory (RSS above its level before). A request
body above the Jupyter server's ``max_body_size`` (512 MiB by default) is refused whatever it
holds, so (a) and (b) are not possible for the 1 GB notebook; they are said to be so.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import requests
from jupyter_process import start_server_access_jupyter
from processes import stop_process
from s3_fixture import s3_client
from server_side import TOKEN, timed_with_memory

#: The largest request body a Jupyter server takes (``ServerApp.max_body_size``'s default).
MAX_BODY_SIZE = 512 * 1024**2

#: The variants, in the order they run in each round, with their titles in the table.
VARIANTS = {
    "serverClone": "Bookshelf server-side clone",
    "serverPublish": "Bookshelf server-side publish",
    "a": "(a) curl GET + PUT to /api/contents as a file",
    "b": "(b) curl GET + PUT to /api/contents as a notebook (bookstore's path)",
    "cp": "cp of the file on disk",
    "curlPut": "raw curl PUT of the file to S3",
}


def _curl(*args: str) -> None:
    subprocess.run(["curl", "-sS", "-f", "--noproxy", "*", *args], check=True)


def purge(client: Any, bucket: str, prefix: str) -> None:
    """Delete every version of the objects under ``prefix``: the published bucket keeps them
    all (versioning), and a few rounds of 1 GB publishes fill the disk."""
    for page in client.get_paginator("list_object_versions").paginate(Bucket=bucket, Prefix=prefix):
        for entry in page.get("Versions", []) + page.get("DeleteMarkers", []):
            client.delete_object(Bucket=bucket, Key=entry["Key"], VersionId=entry["VersionId"])


def measure_large_without_browser(
    root: Path, endpoint: str, large: dict, rounds: int, port: int
) -> dict:
    """Each variant of ``VARIANTS`` for each notebook of ``large`` (``prepare_large``'s), the
    variants interleaved within each of ``rounds`` rounds; by label and variant, the median
    time and its spread in ms and the most the Jupyter server's RSS rose, or ``impossible``
    with the reason."""
    work = Path(tempfile.mkdtemp(prefix="bookshelf-bench-large-"))
    overrides = {
        "endpointUrl": endpoint,
        "forcePathStyle": True,
        "publishBucket": "published",
        "publishPrefix": "bench-large-server/",
        "overwritePolicy": "always",
        "maxObjectSizeMB": 4 * max(entry["size"] for entry in large.values()) // 1024**2,
    }
    jupyter, _env = start_server_access_jupyter(root, work, overrides, port, TOKEN)
    api = requests.Session()
    api.trust_env = False
    api.headers["Authorization"] = f"token {TOKEN}"
    for folder in ("bench-large-server", "bench-large-a", "bench-large-b"):
        (root / folder).mkdir(exist_ok=True)
    server = _Server(api, f"http://127.0.0.1:{port}/", jupyter.pid, root, work)
    client = s3_client(endpoint)
    try:
        return {
            label: server.measure(label, entry, client, rounds) for label, entry in large.items()
        }
    finally:
        stop_process(jupyter, timeout=20)
        shutil.rmtree(work, ignore_errors=True)


class _Server:
    """The Jupyter server with server-side mode on, and the files of the measures."""

    def __init__(self, api: requests.Session, url: str, pid: int, root: Path, work: Path):
        self.api = api
        self.url = url
        self.pid = pid
        self.root = root
        self.work = work

    def measure(self, label: str, entry: dict, client: Any, rounds: int) -> dict:
        source = self.root / entry["source"]
        download = self.work / f"download-{label}.ipynb"
        copy = self.work / f"copy-{label}.ipynb"
        bodies: dict[str, Path] = {}
        if entry["size"] < MAX_BODY_SIZE:
            # Built before the timing, as a script would have them ready.
            text = source.read_text(encoding="utf-8")
            models = {
                "a": {"type": "file", "format": "text", "content": text},
                "b": {"type": "notebook", "content": json.loads(text)},
            }
            for kind, model in models.items():
                bodies[kind] = self.work / f"{kind}-{label}.json"
                bodies[kind].write_text(json.dumps(model))
            del text, models
        put_url = client.generate_presigned_url(
            "put_object",
            Params={"Bucket": "published", "Key": f"bench-baseline/curl-{label}.ipynb"},
            ExpiresIn=3600,
        )

        def server_clone() -> None:
            answer = self.api.post(
                self.url + "api/bookshelf/clone",
                json={
                    "s3_bucket": "examples",
                    "s3_key": entry["key"],
                    "target_path": "bench-large-server/",
                },
            )
            assert answer.status_code == 201, answer.text
            (self.root / answer.json()["path"]).unlink()

        def server_publish() -> None:
            answer = self.api.put(self.url + f"api/bookshelf/published/{entry['source']}", data="")
            assert answer.status_code in (200, 201), answer.text

        def through_contents(kind: str) -> None:
            _curl("-o", str(download), entry["presignedUrl"])
            _curl("-o", "/dev/null", "-X", "PUT", "-H", f"Authorization: token {TOKEN}",
                  "-H", "Content-Type: application/json", "--data-binary", f"@{bodies[kind]}",
                  self.url + f"api/contents/bench-large-{kind}/{label}.ipynb")  # fmt: skip

        actions = {
            "serverClone": server_clone,
            "serverPublish": server_publish,
            "a": lambda: through_contents("a"),
            "b": lambda: through_contents("b"),
            "cp": lambda: shutil.copyfile(source, copy),
            "curlPut": lambda: _curl("-o", "/dev/null", "-T", str(source), put_url),
        }
        runs: dict[str, list[tuple[float, int, float]]] = {name: [] for name in actions}
        for _round in range(rounds):
            for name, action in actions.items():
                if name in ("a", "b") and name not in bodies:
                    continue
                load = os.getloadavg()[0]
                seconds, grown = timed_with_memory(action, self.pid)
                runs[name].append((seconds * 1000, grown, load))
                copy.unlink(missing_ok=True)
                if name in ("serverPublish", "curlPut"):
                    purge(client, "published", "bench-large-server/")
                    purge(client, "published", "bench-baseline/")
        for path in (*bodies.values(), download):
            path.unlink(missing_ok=True)
        results: dict[str, Any] = {}
        for name, measured in runs.items():
            if not measured:
                results[name] = {
                    "impossible": "the request body is larger than the Jupyter server's "
                    f"max_body_size ({MAX_BODY_SIZE // 1024**2} MiB)"
                }
                continue
            times = [ms for ms, _grown, _load in measured]
            results[name] = {
                "ms": statistics.median(times),
                "msRange": [min(times), max(times)],
                "serverRss": max(grown for _ms, grown, _load in measured),
                "load": statistics.median(load for _ms, _grown, load in measured),
            }
        return results
