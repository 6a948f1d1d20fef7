"""`make bench`: clone and publish speed against baselines, start-up cost,
first use and memory. Starts the S3 server and JupyterLab as the tests do
(scripts/serve.py), plus a second JupyterLab with the extension disabled,
runs bench/measure.js in Debian's chromium, prints a markdown table and writes
it to bench/results/latest.md.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import time
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(BENCH))

from large_server import VARIANTS as WITHOUT_BROWSER  # noqa: E402
from large_server import measure_large_without_browser, purge  # noqa: E402
from make_notebooks import SIZES, make_notebook  # noqa: E402
from processes import stop_process  # noqa: E402
from s3_fixture import s3_client  # noqa: E402

LAB_PORT = int(os.environ.get("BOOKSHELF_BENCH_LAB_PORT", "17888"))
PLAIN_LAB_PORT = LAB_PORT + 1
S3_PORT = int(os.environ.get("BOOKSHELF_BENCH_S3_PORT", "17000"))
ROUNDS = int(os.environ.get("BOOKSHELF_BENCH_ROUNDS", "5"))
#: `--get`: the rounds of the GET alone (get.js).
GET_ROUNDS = int(os.environ.get("BOOKSHELF_BENCH_GET_ROUNDS", "30"))
#: `--large`: the sizes (MB) and rounds of the large notebooks.
LARGE_SIZES = [
    int(size) for size in os.environ.get("BOOKSHELF_BENCH_LARGE_MB", "200,1024").split(",")
]
LARGE_ROUNDS = int(os.environ.get("BOOKSHELF_BENCH_LARGE_ROUNDS", "3"))
RUN_DIR = REPO / ".run" / "bench"


def wait_for(url: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


def start_plain_lab(root: Path) -> subprocess.Popen:
    """JupyterLab without the extension: its page config disables it."""
    config_dir = RUN_DIR / "plain-config"
    (config_dir / "labconfig").mkdir(parents=True, exist_ok=True)
    (config_dir / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"jupyterlab-bookshelf": True}})
    )
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config_dir))
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--config={REPO / 'ui-tests' / 'jupyter_server_test_config.py'}",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={PLAIN_LAB_PORT}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
    ]
    if os.geteuid() == 0:
        command.append("--ServerApp.allow_root=True")
    log = open(RUN_DIR / "plain-lab.log", "ab")  # noqa: SIM115
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)


def prepare(root: Path, endpoint: str) -> dict:
    """Put the notebooks in S3 and in the file tree; prebuild curl bodies."""
    client = s3_client(endpoint)
    work = RUN_DIR / "work"
    work.mkdir(parents=True, exist_ok=True)
    (root / "bench").mkdir(exist_ok=True)
    (root / "bench-baseline").mkdir(exist_ok=True)
    (root / "bench-clones").mkdir(exist_ok=True)
    (root / "bench-first-use").mkdir(exist_ok=True)
    (root / "bench-floor").mkdir(exist_ok=True)
    (root / "bench-url").mkdir(exist_ok=True)
    objects, sources, files, sizes, presigned = {}, {}, {}, {}, {}
    for label, size in SIZES.items():
        data = make_notebook(size)
        sizes[label] = len(data)
        key = f"bench/nb-{label}.ipynb"
        client.put_object(
            Bucket="examples", Key=key, Body=data, ContentType="application/x-ipynb+json"
        )
        objects[label] = key
        # For the floor and "Open from URL": a plain GET, no preflight.
        presigned[label] = client.generate_presigned_url(
            "get_object", Params={"Bucket": "examples", "Key": key}, ExpiresIn=6 * 3600
        )
        (root / "bench" / f"nb-{label}.ipynb").write_bytes(data)
        sources[label] = f"bench/nb-{label}.ipynb"
        text = data.decode()
        file_model = work / f"file-{label}.json"
        file_model.write_text(json.dumps({"type": "file", "format": "text", "content": text}))
        notebook_model = work / f"notebook-{label}.json"
        notebook_model.write_text(json.dumps({"type": "notebook", "content": json.loads(text)}))
        files[label] = {
            "download": str(work / f"download-{label}.ipynb"),
            "fileModel": str(file_model),
            "notebookModel": str(notebook_model),
        }
    # A small notebook cloned many times: in a row and at once.
    small = make_notebook(20 * 1024)
    client.put_object(
        Bucket="examples",
        Key="bench/nb-20KB.ipynb",
        Body=small,
        ContentType="application/x-ipynb+json",
    )
    (root / "bench-many").mkdir(exist_ok=True)
    return {
        "objects": objects,
        "sources": sources,
        "files": files,
        "sizes": sizes,
        "presignedUrls": presigned,
        "smallKey": "bench/nb-20KB.ipynb",
    }


def large_notebook(path: Path, size: int) -> int:
    """Write a notebook of about ``size`` bytes whose stream output holds most of it (lines of
    text with non-ASCII characters, as large notebooks have), laid out as Jupyter saves it
    (``nbformat.writes``: one space of indentation, sorted keys, each line of the output on a
    line of its own), without holding it in memory; its size."""
    template = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": 1,
                "id": "large",
                "metadata": {},
                "outputs": [{"name": "stdout", "output_type": "stream", "text": ["LINES"]}],
                "source": ["print(data)"],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    head, tail = (json.dumps(template, indent=1, sort_keys=True) + "\n").split('"LINES"')
    indent = head[head.rindex("\n") + 1 :]
    line = json.dumps(f"large é ✓ {'x' * 100}\n", ensure_ascii=False)
    separator = ",\n" + indent
    count = max(1, (size - len(head) - len(tail)) // len((line + separator).encode()))
    block = separator.join([line] * 1000).encode()
    with path.open("wb") as file:
        file.write(head.encode())
        written = 0
        while written < count:
            n = min(1000, count - written)
            file.write(separator.encode() if written else b"")
            file.write(block if n == 1000 else separator.join([line] * n).encode())
            written += n
        file.write(tail.encode())
    return path.stat().st_size


def prepare_large(root: Path, endpoint: str) -> dict:
    """The large notebooks, in the file tree and in S3, with a presigned URL of each."""
    client = s3_client(endpoint)
    for folder in ("bench", "bench-large", "bench-large-clones", "bench-large-url"):
        (root / folder).mkdir(exist_ok=True)
    large = {}
    for megabytes in LARGE_SIZES:
        label = f"{megabytes}MB" if megabytes < 1024 else f"{megabytes // 1024}GB"
        source = f"bench/large-{label}.ipynb"
        size = large_notebook(root / source, megabytes * 1024**2)
        key = f"bench/large-{label}.ipynb"
        client.upload_file(str(root / source), "examples", key)
        large[label] = {
            "key": key,
            "source": source,
            "size": size,
            "presignedUrl": client.generate_presigned_url(
                "get_object", Params={"Bucket": "examples", "Key": key}, ExpiresIn=3600
            ),
            "putUrl": f"{endpoint}/published/bench-baseline/large-{label}.ipynb",
        }
    return large


def large_table(results: dict) -> str:
    """The markdown of ``--large``."""

    def times(entry: dict) -> str:
        low, high = entry["msRange"]
        return f"{entry['ms'] / 1000:,.1f} s ({low / 1000:,.1f}–{high / 1000:,.1f})"

    def memory(entry: dict, size: int) -> str:
        if "buffers" not in entry:
            return "—"
        line = (
            f"{entry['buffers'] / size:.2f}× / {entry['rss'] / size:.2f}×"
            f" ({entry['rss'] / 1024**2:,.0f} MiB)"
        )
        if "browserRss" in entry:
            line += (
                f" / {entry['browserRss'] / size:.2f}× ({entry['browserRss'] / 1024**2:,.0f} MiB)"
            )
        return line

    def server_memory(entry: dict) -> str:
        return f"{entry['serverRss'] / 1024**2:,.0f} MiB" if "serverRss" in entry else "—"

    names = {
        "clone": "Bookshelf clone",
        "openUrl": "“Open from URL” (fetch + upload)",
        "publish": "Bookshelf publish",
        "fetchPut": "fetch PUT of the file from the page",
        **WITHOUT_BROWSER,
    }
    memory_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    lines = [
        "# Large notebooks in the browser",
        "",
        f"Run {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {platform.machine()},"
        f" {os.cpu_count()} cores, {memory_gib:.0f} GiB,"
        f" Chromium {results['browser']}; median of {LARGE_ROUNDS} runs (fastest–slowest),"
        " variants interleaved; the machine's load average (1 min) at each start is given.",
        "",
        "The browser's memory: peak above the level before, as multiples of the object: V8 heap",
        "plus ArrayBuffers / the renderer processes' resident memory (the tab as the system sees",
        "it) / the resident memory of all the browser's processes (the browser process holds",
        "Blobs, outside the tab). The Jupyter server's: its resident memory's peak above the",
        "level before (the most of any run). The variants without a browser",
        "(bench/large_server.py) run after the browser's, in the same run, against a second",
        "Jupyter server with server-side mode on that serves the same files.",
        "",
        "| size | variant | time | the browser's memory | the Jupyter server's memory | load |",
        "|---|---|---|---|---|---|",
    ]
    for label, entry in results["results"].items():
        size = entry["size"]
        for name, title in names.items():
            measured = entry.get(name)
            if measured is None:
                continue
            if "impossible" in measured:
                lines.append(
                    f"| {label} ({size / 1024**2:,.0f} MiB) | {title} | not possible:"
                    f" {measured['impossible']} | | | |"
                )
                continue
            lines.append(
                f"| {label} ({size / 1024**2:,.0f} MiB) | {title} | {times(measured)}"
                f" | {memory(measured, size)} | {server_memory(measured)}"
                f" | {measured['load']:.1f} |"
            )
    # The comparisons, as ratios of the medians.
    ratios = {
        "“Open from URL” / clone": ("openUrl", "clone"),
        "(b) / clone": ("b", "clone"),
        "publish / fetch PUT": ("publish", "fetchPut"),
        "server-side publish / raw curl PUT": ("serverPublish", "curlPut"),
    }
    lines += ["", "| size | " + " | ".join(ratios) + " |", "|---|" + "---|" * len(ratios)]
    for label, entry in results["results"].items():
        cells = []
        for top, bottom in ratios.values():
            if "ms" in entry.get(top, {}) and "ms" in entry.get(bottom, {}):
                cells.append(f"{entry[top]['ms'] / entry[bottom]['ms']:.2f}×")
            else:
                cells.append("—")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    cancelled = {
        label: entry["cancelled"]
        for label, entry in results["results"].items()
        if entry.get("cancelled")
    }
    if cancelled:
        lines += [
            "",
            "A publish cancelled once half of it was stored (as its notification's Cancel does),"
            " once per size; then S3 was asked what it holds at the destination.",
            "",
            "| size | cancelled at | the publish ended | its error | uploads in parts left"
            " (parts) | versions stored |",
            "|---|---|---|---|---|---|",
        ]
        for label, entry in cancelled.items():
            if entry.get("msAfterAbort") is None:
                lines.append(f"| {label} | not cancelled: {entry.get('error')} | | | | |")
                continue
            lines.append(
                f"| {label} | {entry['loadedAtAbort'] / 1024**2:,.0f} MiB sent,"
                f" {entry['msToAbort'] / 1000:,.1f} s in | {entry['msAfterAbort']:,.0f} ms later"
                f" | {entry['code']} | {entry.get('uploadsLeft', '?')}"
                f" ({entry.get('partsLeft', '?')}) | {entry.get('versionsStored', '?')} |"
            )
    lines += uninstrumented_table(results.get("uninstrumented"))
    return "\n".join(lines) + "\n"


def uninstrumented_table(run: dict | None) -> list[str]:
    """The lines of ``uninstrumented.js``'s results: saves in chunks as a person's browser
    makes them (no DevTools network instrumentation)."""
    if not run:
        return []
    size = run["size"]

    def mib(value: float) -> str:
        return f"{value / 1024**2:,.0f} MiB ({value / size:.2f}×)"

    names = {
        "cloneInChunks": "Bookshelf clone saved in chunks (a proxy refused the one request)",
        "labChunks": "the same bytes saved in 8 MiB chunks by JupyterLab's contents manager",
        "textChunks": "the same saves sent by `fetch` with text bodies",
    }
    lines = [
        "",
        f"Saves in chunks from the page, {size / 1024**2:,.0f} MiB, in a Chromium started"
        " without Playwright (whose DevTools network instrumentation copies every text body"
        " into its messages), driven over the DevTools protocol's Runtime domain only"
        " (`bench/uninstrumented.js`); each process's resident memory read from /proc: its"
        " peak above the level before, median of the runs (as multiples of the object).",
        "",
        "| variant | time | browser process | renderer | all the browser's processes | load |",
        "|---|---|---|---|---|---|",
    ]
    for name, label in names.items():
        entry = run["results"].get(name)
        if not entry:
            continue
        low, high = entry["msRange"]
        lines.append(
            f"| {label} | {entry['ms'] / 1000:,.1f} s ({low / 1000:,.1f}–{high / 1000:,.1f})"
            f" | {mib(entry['browser'])} | {mib(entry['renderer'])} | {mib(entry['all'])}"
            f" | {entry['load']:.1f} |"
        )
    return lines


def table(results: dict, sizes: dict) -> str:
    """The markdown of ``make bench``: every time a median with its spread (fastest–slowest)."""

    def ms(value: float) -> str:
        return f"{value:,.0f}" if abs(value) >= 10 else f"{value:.1f}"

    def timing(entry: dict, per: int = 1) -> str:
        return f"{ms(entry['median'] / per)} ms ({ms(entry['min'] / per)}–{ms(entry['max'] / per)})"

    def kb(value: float) -> str:
        return f"{value / 1024:,.1f} KB"

    def per_round(top: dict, bottom: dict, op) -> list[float]:
        """The measure's value in each round, from the two variants timed in it."""
        return [op(x, y) for x, y in zip(top["runs"], bottom["runs"], strict=True)]

    def ratio(top: dict, bottom: dict) -> str:
        rounds = per_round(top, bottom, lambda x, y: x / y)
        return f"{top['median'] / bottom['median']:.2f}× ({min(rounds):.2f}–{max(rounds):.2f})"

    def difference(top: dict, bottom: dict) -> str:
        rounds = per_round(top, bottom, lambda x, y: x - y)
        return (
            f"{top['median'] - bottom['median']:+,.0f} ms"
            f" ({min(rounds):+,.0f} to {max(rounds):+,.0f})"
        )

    def loads(values) -> str:
        return " / ".join(f"{value:.2f}" for value in values)

    transfers = results["transfers"]
    load = results["load"]
    lines = [
        "# Benchmarks",
        "",
        f"Run {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {platform.machine()},"
        f" {os.cpu_count()} cores, {platform.system()} {platform.release()},"
        f" Python {platform.python_version()}, Chromium {results['browser']};"
        f" {ROUNDS} runs, variants interleaved within each run (each run starts one variant"
        " further along). Every time is the median (fastest–slowest); a ratio or difference is"
        " that of the medians (in brackets: its lowest and highest in a single run, where"
        " both variants ran side by side).",
        "",
        f"Machine load average (1 / 5 / 15 min): {loads(load['start'])} at the start,"
        f" {loads(load['end'])} at the end; 1 min at the start of each run of the transfers:"
        f" {', '.join(f'{value:.2f}' for value in results['transferLoad'])}.",
        "",
        "## Clone (call to file saved)",
        "",
        "All from the same S3 server, the same objects, in the same runs:",
        "",
        "- clone: `IBookshelf.clone` from call to the file saved;",
        "- floor: what the page pays for these bytes without Bookshelf: a `fetch` of a presigned"
        " URL of the object (`cache: 'no-store'`, as the extension's reads), then the contents"
        " manager's save of its text (`contents.save(path, {type: 'file', format: 'text'})`),"
        " to the saved answer;",
        "- Open from URL: JupyterLab's `filebrowser:open-url` on a presigned URL, its two steps"
        " (fetch into a Blob, the file browser's upload: base64, 1 MiB chunks above 1 MiB,"
        " Lab's large-file question answered), to the uploaded file, not opened;",
        "- (b): `curl` GET from S3 plus `curl` PUT of the same bytes to `/api/contents` as a"
        " notebook model: the bookstore-style server path (JSON body built before timing);",
        "- (a): the same with the bytes PUT as a file (text).",
        "",
        "| size | clone | floor | Open from URL | (b) GET + PUT as notebook"
        " | (a) GET + PUT as file |",
        "|---|---|---|---|---|---|",
    ]
    for label, entry in transfers.items():
        lines.append(
            f"| {label} ({sizes[label] / 1024**2:.2f} MiB) | {timing(entry['clone'])}"
            f" | {timing(entry['floor'])} | {timing(entry['openUrl'])}"
            f" | {timing(entry['b'])} | {timing(entry['a'])} |"
        )
    lines += [
        "",
        "Targets: clone within 1.2× of the floor, and at 100 KB at most 30 ms over it; faster"
        " than Open from URL and than (b) at every size (their time / clone's above 1×).",
        "",
        "| size | clone / floor | clone − floor | Open from URL / clone | (b) / clone"
        " | clone / (a) |",
        "|---|---|---|---|---|---|",
    ]
    for label, entry in transfers.items():
        clone = entry["clone"]
        lines.append(
            f"| {label} | {ratio(clone, entry['floor'])} | {difference(clone, entry['floor'])}"
            f" | {ratio(entry['openUrl'], clone)} | {ratio(entry['b'], clone)}"
            f" | {ratio(clone, entry['a'])} |"
        )
    lines += [
        "",
        "## Publish (`IBookshelf.publish`, call to object stored)",
        "",
        "| size | publish | (c) fetch PUT from the page | publish / (c) |",
        "|---|---|---|---|",
    ]
    for label, entry in transfers.items():
        lines.append(
            f"| {label} | {timing(entry['publish'])} | {timing(entry['c'])}"
            f" | {ratio(entry['publish'], entry['c'])} |"
        )
    largest = results["largest"]

    def multiple(entry: dict) -> str:
        size = sizes[largest]
        return (
            f"{entry['median'] / 1024**2:,.1f} MiB ({entry['median'] / size:.2f}×;"
            f" {entry['min'] / size:.2f}–{entry['max'] / size:.2f}×)"
        )

    many = results["many"]
    lines += [
        "",
        "Target: at most 1.2× (c) at 10 MB and above.",
        "",
        "## Many small clones (20 KB notebook)",
        "",
        "| measure | per clone | in all |",
        "|---|---|---|",
        f"| 50 in a row | {timing(many['inRow'], 50)} | {timing(many['inRow'])} |",
        f"| 20 at once | {timing(many['atOnce'], 20)} | {timing(many['atOnce'])} |",
        "",
        "## Start-up and first use",
        "",
        "| measure | value | target |",
        "|---|---|---|",
        f"| JS the extension adds to Lab's start-up | {kb(results['startupBytes'])}"
        f" ({', '.join(results['startupFiles'])}) | at most 15 KB |",
        f"| Lab ready with the extension | {timing(results['readyWith'])}"
        " | within noise of without |",
        f"| Lab ready without the extension | {timing(results['readyWithout'])} | |",
        f"| S3 code loaded on the first clone (the SDK's chunk and the client module)"
        f" | {kb(results['firstUseS3Bytes'])} | at most 220 KB |",
        f"| all JS loaded on the first clone | {kb(results['firstUseBytes'])}"
        f" ({', '.join(results['firstUseFiles'])}) | |",
        f"| extra time of the first clone (100 KB) in a new page: the first,"
        f" {timing(results['firstUseMs'])}, less the median of the next ones in the same page"
        f" (all: {timing(results['firstUseAgain'])}); {len(results['firstUseMs']['runs'])} pages"
        f" | {timing(results['firstUseExtraMs'])} | at most 200 ms |",
        "",
        "## Memory",
        "",
        "Peak above the level before the transfer, as multiples of the object (median;"
        " lowest–highest): the V8 heap alone, the V8 heap plus ArrayBuffers (where the bytes of"
        " a transfer live), the renderer processes' resident memory (the tab as the system"
        " sees it), and the resident memory of all the browser's processes (the browser"
        " process holds Blobs, outside the tab).",
        "",
        "| measure | V8 heap | V8 heap + ArrayBuffers | renderer resident | all the browser's"
        " processes resident | target |",
        "|---|---|---|---|---|---|",
        *(
            f"| {name} of {largest} | {multiple(memory['heap'])}"
            f" | {multiple(memory['buffers'])} | {multiple(memory['rss'])}"
            f" | {multiple(memory['browserRss']) if 'browserRss' in memory else '—'}"
            " | heap + ArrayBuffers at most 1.5× (or a fixed bound above 100 MB) |"
            for name, memory in (
                ("clone", results["cloneMemory"]),
                ("publish", results["publishMemory"]),
            )
        ),
        "",
    ]
    return "\n".join(lines)


def run_node(script: str, config: dict, node_flags: tuple[str, ...] = ()) -> dict:
    """Run a browser script of the bench with its configuration; the JSON it prints last. What
    it writes to stderr (BOOKSHELF_BENCH_VERBOSE's lines, its errors) is passed on."""
    output = subprocess.run(
        ["node", *node_flags, str(BENCH / script), json.dumps(config)],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def left_behind(client, key: str) -> dict:
    """What a cancelled publish to ``key`` of the published bucket left on S3: its unfinished
    uploads in parts (with how many parts each holds) and whether an object is there."""
    uploads = client.list_multipart_uploads(Bucket="published", Prefix=key).get("Uploads", [])
    parts = sum(
        len(
            client.list_parts(Bucket="published", Key=key, UploadId=upload["UploadId"]).get(
                "Parts", []
            )
        )
        for upload in uploads
    )
    versions = client.list_object_versions(Bucket="published", Prefix=key)
    stored = len(versions.get("Versions", [])) + len(versions.get("DeleteMarkers", []))
    return {"uploadsLeft": len(uploads), "partsLeft": parts, "versionsStored": stored}


def run_large(lab_url: str, root: Path, endpoint: str) -> int:
    """``--large``: measure, print and write ``results/large.md``."""
    config = {
        "labUrl": lab_url,
        "rounds": LARGE_ROUNDS,
        "maxObjectSizeMB": max(LARGE_SIZES) * 2,
        "large": prepare_large(root, endpoint),
    }
    results = run_node("large.js", config)
    smallest = min(config["large"].values(), key=lambda entry: entry["size"])
    results["uninstrumented"] = run_node(
        "uninstrumented.js",
        {**config, "object": smallest, "debuggingPort": LAB_PORT + 3},
        ("--experimental-websocket",),
    )
    client = s3_client(endpoint)
    for entry in results["results"].values():
        if entry.get("cancelled", {}).get("destination"):
            entry["cancelled"].update(left_behind(client, entry["cancelled"]["destination"]))
    for prefix in ("bench-large/", "bench-baseline/"):
        purge(client, "published", prefix)
    without_browser = measure_large_without_browser(
        root, endpoint, config["large"], LARGE_ROUNDS, LAB_PORT + 2
    )
    for label, entry in without_browser.items():
        results["results"][label].update(entry)
    markdown = large_table(results)
    (BENCH / "results").mkdir(exist_ok=True)
    (BENCH / "results" / "large.md").write_text(markdown)
    (BENCH / "results" / "large.json").write_text(json.dumps(results, indent=1) + "\n")
    print(markdown)
    return 0


def main() -> int:
    # --profile: where a clone and a publish spend their time (profile.js).
    profile = "--profile" in sys.argv[1:]
    # --get: the S3 GET alone, the extension's against a presigned fetch (get.js).
    get = "--get" in sys.argv[1:]
    # --large: 200 MB and 1 GB notebooks both ways, against Open from URL (large.js).
    large = "--large" in sys.argv[1:]
    if RUN_DIR.exists():
        shutil.rmtree(RUN_DIR)
    RUN_DIR.mkdir(parents=True)
    serve = subprocess.Popen(
        [
            sys.executable,
            str(REPO / "scripts" / "serve.py"),
            "--mode",
            "test",
            "--s3-port",
            str(S3_PORT),
            "--lab-port",
            str(LAB_PORT),
            "--run-dir",
            str(RUN_DIR / "servers"),
        ],
        stdout=subprocess.DEVNULL,
    )
    plain = None
    try:
        lab_url = f"http://127.0.0.1:{LAB_PORT}"
        wait_for(f"{lab_url}/api/status")
        info = json.loads((RUN_DIR / "servers" / "fixture.json").read_text())
        root = Path(info["root_dir"])
        if large:
            return run_large(lab_url, root, info["endpoint_url"])
        plain = start_plain_lab(root)
        wait_for(f"http://127.0.0.1:{PLAIN_LAB_PORT}/api/status")
        prepared = prepare(root, info["endpoint_url"])
        config = {
            "labUrl": lab_url,
            "plainLabUrl": f"http://127.0.0.1:{PLAIN_LAB_PORT}",
            "s3Url": info["endpoint_url"],
            "rounds": ROUNDS,
            **{
                k: prepared[k]
                for k in ("objects", "sources", "files", "sizes", "presignedUrls", "smallKey")
            },
        }
        if profile:
            subprocess.run(["node", str(BENCH / "profile.js"), json.dumps(config)], check=True)
            return 0
        if get:
            config["s3Log"] = str(RUN_DIR / "servers" / "s3.log")
            config["getRounds"] = GET_ROUNDS
            print(json.dumps(run_node("get.js", config), indent=1))
            return 0
        load_start = os.getloadavg()
        results = run_node("measure.js", config)
        results["load"] = {"start": load_start, "end": os.getloadavg()}
        markdown = table(results, prepared["sizes"])
        (BENCH / "results").mkdir(exist_ok=True)
        (BENCH / "results" / "latest.md").write_text(markdown)
        (BENCH / "results" / "latest.json").write_text(json.dumps(results, indent=1) + "\n")
        print(markdown)
        return 0
    except subprocess.CalledProcessError as error:
        print(error.stderr, file=sys.stderr)
        return 1
    finally:
        if plain:
            stop_process(plain, timeout=20)
        stop_process(serve, timeout=20)


if __name__ == "__main__":
    sys.exit(main())
