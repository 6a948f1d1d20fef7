"""Server-side mode's speed and memory (part of ``make bench``).

Starts the S3 fixture server (moto) and a Jupyter server with ``--Bookshelf.server_access=True``
(ports ``BOOKSHELF_BENCH_S3_PORT``, default 29090, and ``BOOKSHELF_BENCH_LAB_PORT``, 28898), then
measures, median (and the fastest and slowest) of ``BOOKSHELF_BENCH_ROUNDS`` (default 5; five
times as many up to 10 MB) interleaved runs, each timed while the server's memory is sampled:

- clone of 10, 50 and 200 MB objects through ``POST /api/bookshelf/clone`` against ``curl`` GET
  of the same object from S3 (a presigned URL) to a file plus ``cp`` of it into the tree;
- publish of notebooks of 10, 50 and 200 MB through ``PUT /api/bookshelf/published/…`` against a
  raw ``curl`` PUT of the same file to S3 (a presigned URL), and the same with the
  ``Content-MD5`` header the publish sends, the file hashed for it within the timing as a script
  would (moto then hashes the body too, as S3 does);
- the Jupyter server's memory (RSS, sampled every 10 ms) above its level before each clone and
  publish (the most of any round), which must not grow with the size;
- the Jupyter server's memory (RSS, sampled every 20 ms) above its level before, during a clone
  of a 1 GB object (``--large-mb`` to change, 0 to skip), and the slowest answer to
  ``GET /api/contents`` sent every 50 ms meanwhile.

Writes ``bench/results/server-side.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import s3_fixture  # noqa: E402
from jupyter_process import start_server_access_jupyter  # noqa: E402
from processes import stop_process  # noqa: E402

MB = 1024 * 1024
TOKEN = "bench-token"


def rss(pid: int) -> int:
    """Resident memory of a process, in bytes (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def notebook_of(size: int) -> bytes:
    """A version 4 notebook of about ``size`` bytes: stream outputs of text lines."""
    line = "x" * 99 + "\n"
    cells = []
    per_cell = 1 * MB
    for index in range(max(1, size // per_cell)):
        cells.append(
            {
                "cell_type": "code",
                "execution_count": index,
                "id": f"c{index}",
                "metadata": {},
                "outputs": [
                    {"name": "stdout", "output_type": "stream", "text": [line] * (per_cell // 100)}
                ],
                "source": f"print({index})",
            }
        )
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return (json.dumps(notebook, indent=1) + "\n").encode()


def start_jupyter(root: Path, work: Path, endpoint: str, port: int) -> subprocess.Popen:
    process, _env = start_server_access_jupyter(
        root,
        work,
        {
            "endpointUrl": endpoint,
            "forcePathStyle": True,
            "publishBucket": "published",
            "publishPrefix": "bench/",
            "overwritePolicy": "always",
            "maxObjectSizeMB": 4096,
        },
        port,
        TOKEN,
    )
    return process


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def timed_with_memory(action, pid: int) -> tuple[float, int]:
    """The time ``action`` takes and how far the process's RSS rose above its level before.
    Every variant is timed this way, also those whose memory is not reported: the sampler
    takes some CPU, which a variant timed without it would not pay."""
    before = rss(pid)
    peak = before
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss(pid))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        seconds = timed(action)
    finally:
        done.set()
        sampler.join()
    return seconds, max(0, max(peak, rss(pid)) - before)


#: Sizes up to this many MB get ``SMALL_ROUNDS_FACTOR`` times the rounds: their times are
#: tens of milliseconds, where one slow round (a timer of the server, a page of memory
#: written back) moves a median of five by a third.
SMALL_MB = 10
SMALL_ROUNDS_FACTOR = 5


def rounds_for(size_mb: int, rounds: int) -> int:
    return rounds * SMALL_ROUNDS_FACTOR if size_mb <= SMALL_MB else rounds


def spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "runs": values}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10,50,200", help="MB, comma-separated")
    parser.add_argument("--large-mb", type=int, default=1024)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",") if size]
    rounds = int(os.environ.get("BOOKSHELF_BENCH_ROUNDS", "5"))
    s3_port = int(os.environ.get("BOOKSHELF_BENCH_S3_PORT", "29090"))
    lab_port = int(os.environ.get("BOOKSHELF_BENCH_LAB_PORT", "28898"))
    work = Path(tempfile.mkdtemp(prefix="bookshelf-bench-"))
    root = work / "root"
    root.mkdir()
    results: dict = {"clone": {}, "publish": {}, "large": {}}
    with s3_fixture.start_s3_server(s3_port, ["http://127.0.0.1:8888"]) as s3:
        client = s3.client()
        jupyter = start_jupyter(root, work, s3.endpoint_url, lab_port)
        api = requests.Session()
        api.trust_env = False
        api.headers["Authorization"] = f"token {TOKEN}"
        url = f"http://127.0.0.1:{lab_port}/"
        try:
            for size in sizes:
                key = f"bench/{size}mb.bin"
                source = work / f"{size}mb.bin"
                source.write_bytes(os.urandom(size * MB))
                with open(source, "rb") as body:
                    # One part: its ETag is the MD5, so the clone checks it (the costlier case).
                    client.put_object(Bucket="examples", Key=key, Body=body)
                nb = work / f"{size}mb.ipynb"
                nb.write_bytes(notebook_of(size * MB))
                (root / nb.name).write_bytes(nb.read_bytes())
                get_url = client.generate_presigned_url(
                    "get_object", Params={"Bucket": "examples", "Key": key}, ExpiresIn=3600
                )
                put_url = client.generate_presigned_url(
                    "put_object", Params={"Bucket": "published", "Key": f"raw/{nb.name}"},
                    ExpiresIn=3600,
                )  # fmt: skip
                clone_s, curl_s, publish_s, raw_s, raw_md5_s = [], [], [], [], []
                clone_rss, publish_rss = [], []
                for index in range(rounds_for(size, rounds)):
                    download = work / "download.bin"

                    def curl_cp(index=index, download=download, get_url=get_url):
                        subprocess.run(["curl", "-sf", "--noproxy", "*", "-o", str(download),
                                        get_url], check=True)  # fmt: skip
                        shutil.copyfile(download, root / f"curl-{index}.bin")

                    def clone(key=key):
                        answer = api.post(
                            url + "api/bookshelf/clone",
                            data=json.dumps({"s3_bucket": "examples", "s3_key": key}),
                        )
                        assert answer.status_code == 201, answer.text

                    def publish(nb=nb):
                        answer = api.put(url + f"api/bookshelf/published/{nb.name}", data="")
                        assert answer.status_code in (200, 201), answer.text

                    def raw_put(nb=nb, put_url=put_url):
                        subprocess.run(["curl", "-sf", "--noproxy", "*", "-o", "/dev/null", "-T",
                                        str(nb), put_url], check=True)  # fmt: skip

                    def raw_put_md5(nb=nb, put_url=put_url):
                        # As a careful script does it: hash the file, then PUT it with the
                        # hash, which S3 checks (moto checks it by hashing the body again).
                        digest = hashlib.md5(usedforsecurity=False)
                        with open(nb, "rb") as file:
                            while piece := file.read(8 * MB):
                                digest.update(piece)
                        md5 = base64.b64encode(digest.digest()).decode()
                        subprocess.run(["curl", "-sf", "--noproxy", "*", "-o", "/dev/null", "-T",
                                        str(nb), "-H", f"Content-MD5: {md5}", put_url],
                                       check=True)  # fmt: skip

                    pid = jupyter.pid
                    curl_s.append(timed_with_memory(curl_cp, pid)[0])
                    raw_md5_s.append(timed_with_memory(raw_put_md5, pid)[0])
                    seconds, grown = timed_with_memory(clone, pid)
                    clone_s.append(seconds)
                    clone_rss.append(grown)
                    raw_s.append(timed_with_memory(raw_put, pid)[0])
                    seconds, grown = timed_with_memory(publish, pid)
                    publish_s.append(seconds)
                    publish_rss.append(grown)
                for path in root.glob(f"{size}mb*.bin"):
                    path.unlink()
                for path in root.glob("curl-*.bin"):
                    path.unlink()
                results["clone"][size] = {
                    "server_side_s": statistics.median(clone_s),
                    "curl_cp_s": statistics.median(curl_s),
                    "server_side": spread(clone_s),
                    "curl_cp": spread(curl_s),
                    "rss_growth_mb": max(clone_rss) / MB,
                }
                results["publish"][size] = {
                    "server_side_s": statistics.median(publish_s),
                    "raw_put_s": statistics.median(raw_s),
                    "raw_put_md5_s": statistics.median(raw_md5_s),
                    "server_side": spread(publish_s),
                    "raw_put": spread(raw_s),
                    "raw_put_md5": spread(raw_md5_s),
                    "rss_growth_mb": max(publish_rss) / MB,
                }
                client.delete_object(Bucket="examples", Key=key)
                source.unlink()
                print(size, "MB", table_row(size, results), flush=True)
            if args.large_mb:
                results["large"] = measure_large(client, api, url, jupyter.pid, work, root,
                                                 args.large_mb)  # fmt: skip
                print(results["large"], flush=True)
        finally:
            stop_process(jupyter)
    shutil.rmtree(work, ignore_errors=True)
    out = REPO / "bench" / "results"
    (out / "server-side.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / "server-side.md").write_text(table(results, rounds))
    print(table(results, rounds))
    return 0


def measure_large(client, api, url, pid, work, root, size_mb) -> dict:
    """Clone a large object; sample the server's RSS and time other requests meanwhile."""
    source = work / "large.bin"
    with open(source, "wb") as file:
        block = os.urandom(MB)
        for _ in range(size_mb):
            file.write(block)
    client.upload_file(str(source), "examples", "bench/large.bin")
    source.unlink()
    api.get(url + "api/contents")  # warm
    before = rss(pid)
    peak = before
    latencies: list[float] = []
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss(pid))
            time.sleep(0.02)

    def probe():
        other = requests.Session()
        other.trust_env = False
        other.headers.update(api.headers)
        while not done.is_set():
            latencies.append(timed(lambda: other.get(url + "api/contents", timeout=30)))
            time.sleep(0.05)

    threads = [threading.Thread(target=sample), threading.Thread(target=probe)]
    for thread in threads:
        thread.start()
    start = time.perf_counter()
    answer = api.post(
        url + "api/bookshelf/clone",
        data=json.dumps({"s3_bucket": "examples", "s3_key": "bench/large.bin"}),
    )
    elapsed = time.perf_counter() - start
    done.set()
    for thread in threads:
        thread.join()
    assert answer.status_code == 201, answer.text
    cloned = root / answer.json()["path"]
    size = cloned.stat().st_size
    cloned.unlink()
    client.delete_object(Bucket="examples", Key="bench/large.bin")
    return {
        "size_mb": size_mb,
        "bytes": size,
        "clone_s": elapsed,
        "rss_growth_mb": (peak - before) / MB,
        "slowest_other_request_ms": max(latencies) * 1000,
        "median_other_request_ms": statistics.median(latencies) * 1000,
        "p95_other_request_ms": sorted(latencies)[int(len(latencies) * 0.95)] * 1000,
        "other_requests_answered": len(latencies),
    }


def seconds(measured: dict) -> str:
    """The median and spread, in milliseconds below a second (a ratio of times shown to a
    hundredth of a second could not be checked against them)."""
    if measured["max"] < 1:
        low, high = measured["min"] * 1000, measured["max"] * 1000
        return f"{measured['median'] * 1000:.0f} ms ({low:.0f}-{high:.0f})"
    return f"{measured['median']:.2f} s ({measured['min']:.2f}-{measured['max']:.2f})"


def table_row(size, results: dict) -> str:
    clone, publish = results["clone"][size], results["publish"][size]
    return (
        f"| {size} MB | {seconds(clone['server_side'])} | {seconds(clone['curl_cp'])} | "
        f"{clone['server_side_s'] / clone['curl_cp_s']:.2f} | {clone['rss_growth_mb']:.1f} MB | "
        f"{seconds(publish['server_side'])} | {seconds(publish['raw_put'])} | "
        f"{publish['server_side_s'] / publish['raw_put_s']:.2f} | "
        f"{seconds(publish['raw_put_md5'])} | "
        f"{publish['server_side_s'] / publish['raw_put_md5_s']:.2f} | "
        f"{publish['rss_growth_mb']:.1f} MB |"
    )


def table(results: dict, rounds: int) -> str:
    lines = [
        "# Server-side mode",
        "",
        f"Median (fastest-slowest) of {rounds} interleaved runs ({rounds * SMALL_ROUNDS_FACTOR} "
        f"up to {SMALL_MB} MB); ratios of the medians; memory: "
        "the most the Jupyter server's RSS rose above its level before, in any run. "
        "`python bench/server_side.py` (part of `make bench`).",
        "",
        "| size | server-side clone | curl GET + cp | ratio (target ≤ 1.3) | clone memory "
        "| server-side publish | raw PUT | ratio (target ≤ 1.2) | hash + raw PUT with Content-MD5 "
        "| ratio | publish memory |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [table_row(size, results) for size in results["clone"]]
    large = results.get("large")
    if large:
        lines += [
            "",
            f"Clone of a {large['size_mb']} MB object: {large['clone_s']:.1f} s; the server's "
            f"memory (RSS) grew by {large['rss_growth_mb']:.1f} MB at most; the slowest of "
            f"{large['other_requests_answered']} `GET /api/contents` sent meanwhile (every 50 ms) "
            f"took {large['slowest_other_request_ms']:.0f} ms (median "
            f"{large['median_other_request_ms']:.0f} ms, 95th percentile "
            f"{large['p95_other_request_ms']:.0f} ms).",
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
