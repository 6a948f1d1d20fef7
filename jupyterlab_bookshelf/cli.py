"""``jupyter bookshelf``: clone, publish and info from a shell, through a running Jupyter
server's API (see ``client.py`` for how the server is found).

    jupyter bookshelf clone s3://bucket/key [--to folder/or/name] [--version V]
    jupyter bookshelf publish path/to/nb.ipynb [--to dest] [--if-match ETAG] [--overwrite]
    jupyter bookshelf info

Prints the result (``--json``: as JSON on stdout) and exits 0; on an error prints its message
on stderr (``--json``: the error as JSON on stdout too) and exits 1; 2 for wrong arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from .client import BookshelfClient, BookshelfClientError

#: After how long a transfer shows that it is still running (on a terminal).
PROGRESS_AFTER = 1.0


def _common(defaults: bool) -> argparse.ArgumentParser:
    """The options every command takes, before or after its name (after it, they do not reset
    what was given before)."""
    given = {} if defaults else {"default": argparse.SUPPRESS}
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--url",
        help="the Jupyter server's URL (default: JUPYTER_SERVER_URL, JupyterHub's "
        "JUPYTERHUB_SERVICE_URL, else the running server found)",
        **given,
    )
    common.add_argument(
        "--token",
        help="the server's token (default: JUPYTER_TOKEN or JUPYTERHUB_API_TOKEN, else the "
        "running server's)",
        **given,
    )
    flag = {} if defaults else {"default": argparse.SUPPRESS}
    common.add_argument("--json", action="store_true", help="print the result as JSON", **flag)
    common.add_argument("--quiet", action="store_true", help="no progress on stderr", **flag)
    return common


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jupyter bookshelf",
        description="Clone notebooks from S3 into a running Jupyter server's file tree, and "
        "publish them, through the server (its administrator turns this on with "
        "c.Bookshelf.server_access = True).",
        parents=[_common(defaults=True)],
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = _common(defaults=False)

    clone = commands.add_parser(
        "clone", help="copy an S3 object into the file tree", parents=[common]
    )
    clone.add_argument("source", metavar="s3://bucket/key")
    clone.add_argument(
        "--to",
        help="a folder ending in / or a file path, relative to the server's root (default: the "
        "root, under the key's name)",
    )
    clone.add_argument("--version", help="the object's version id (default: the latest)")

    publish = commands.add_parser("publish", help="publish a saved notebook", parents=[common])
    publish.add_argument(
        "path", help="the notebook, relative to the server's root (or a local path below it)"
    )
    publish.add_argument(
        "--to", help="the destination below the publish prefix (default: the notebook's path)"
    )
    publish.add_argument("--if-match", help="replace only the published version with this ETag")
    publish.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing published notebook (policy 'confirm')",
    )

    commands.add_parser(
        "info", help="the server's Bookshelf release, settings and mode", parents=[common]
    )
    return parser


def _interactive() -> bool:
    """Whether a person watches the command (progress is shown only then): its output and its
    messages both go to a terminal."""
    return sys.stdout.isatty() and sys.stderr.isatty()


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def _with_progress(
    what: str,
    quiet: bool,
    action: Callable[[], Any],
    how_far: Callable[[], str | None] | None = None,
) -> Any:
    """Run ``action``; on a terminal, say every second that the transfer still runs and, where
    ``how_far`` tells it, how many bytes have moved (the server moves the bytes; the command
    waits for its answer). Not with ``--json`` or ``--quiet`` (``quiet`` then)."""
    if quiet or not _interactive():
        return action()
    done = threading.Event()
    start = time.monotonic()

    def tick() -> None:
        while not done.wait(PROGRESS_AFTER):
            line = f"{what} … {time.monotonic() - start:.0f} s"
            try:
                moved = how_far() if how_far else None
            except BookshelfClientError:
                moved = None  # progress is a nicety: the transfer's own answer counts
            if moved:
                line += f", {moved}"
            sys.stderr.write(f"\r{line}\033[K")
            sys.stderr.flush()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        return action()
    finally:
        done.set()
        thread.join()
        if time.monotonic() - start >= PROGRESS_AFTER:
            sys.stderr.write("\r\033[K")


def run(args: argparse.Namespace) -> tuple[Any, str]:
    """The command's result, and the line that says it to a person."""
    client = BookshelfClient(args.url, args.token)
    if args.command == "clone":

        def received() -> str | None:
            size = client.clone_received(args.source)
            return f"{_megabytes(size)} received" if size else None

        model = _with_progress(
            f"Cloning {args.source}",
            args.quiet or args.json,
            lambda: client.clone(args.source, to=args.to, version=args.version),
            received,
        )
        return model, f"Cloned {args.source} to {model['path']}"
    if args.command == "publish":

        def sent() -> str | None:
            progress = client.publish_sent(args.path)
            if not progress:
                return None
            return f"{_megabytes(progress[0])} of {_megabytes(progress[1])} sent"

        result = _with_progress(
            f"Publishing {args.path}",
            args.quiet or args.json,
            lambda: client.publish(
                args.path, to=args.to, if_match=args.if_match, overwrite=args.overwrite
            ),
            sent,
        )
        lines = [f"Published to {result.s3_path}"]
        if result.version_id:
            lines.append(f"Version: {result.version_id}")
        lines.append(f"Clone link: {result.clone_url}")
        return result.result, "\n".join(lines)
    info = client.info()
    features = info.get("features", {})
    mode = (
        "server-side (this server clones and publishes)"
        if info.get("server_access")
        else ("browser only (POST clone and PUT published answer 501)")
    )
    lines = [
        f"Server: {client.server.url}",
        f"Bookshelf release: {info.get('release')}",
        f"Mode: {mode}",
        f"Endpoint: {features.get('endpoint_url') or 'Amazon S3'} ({features.get('region')})",
        "Publish to: "
        + (
            f"s3://{features['publish_bucket']}/{features.get('publish_prefix', '')}"
            if features.get("publish_bucket")
            else "not set up"
        ),
        f"Overwrite policy: {features.get('overwrite_policy')}",
    ]
    if features.get("settings_problem"):
        lines.append(f"Settings problem: {features['settings_problem']}")
    return info, "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        result, text = run(args)
    except BookshelfClientError as error:
        if args.json:
            print(json.dumps({"error": error.as_json()}, indent=2))
        print(f"jupyter bookshelf {args.command}: {error.message}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2, default=str) if args.json else text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
