"""A fault-injecting HTTP proxy for the bookshelf tests, between the browser and the S3 server.

It listens on 127.0.0.1 and forwards every request to one upstream S3 server (the moto
fixture of ``s3_fixture.py``), passing methods, paths, headers and bodies through as they
are: CORS preflights and their answers included, so the browser sees the S3 server's own
CORS rules. Only hop-by-hop framing headers (Connection, Keep-Alive, Transfer-Encoding, …)
are the proxy's own.

Tests tell it, per request, what to break, through a control API under ``/__fault_proxy__/``
(no bucket name can start with ``_``, so it never hides an S3 path)::

    POST   /__fault_proxy__/rules      add a rule (JSON, below); answers {"id": N}
    GET    /__fault_proxy__/rules      the rules, with how often each was used
    DELETE /__fault_proxy__/rules      remove every rule (DELETE .../rules/N: one)
    GET    /__fault_proxy__/log        the requests seen, newest last, with the fault applied
    DELETE /__fault_proxy__/log        forget them
    GET    /__fault_proxy__/health     "ok"

A rule::

    {
      "method": "GET",              # optional; any method but OPTIONS when left out
      "path": "/examples/faults/",  # optional; prefix of the URL-decoded path
      "query": "versionId=",        # optional; substring of the raw query string
      "skip": 0,                    # let this many matching requests through first
      "times": 1,                   # then break this many (0: every one after the skipped)
      "fault": {...}
    }

Faults (``where`` is ``"response"`` unless given):

- ``{"type": "status", "status": 503, "code": "SlowDown"}``: answer with this S3 error
  (an XML ``<Error>`` body, CORS headers for the request's Origin as S3 sends with errors)
  without forwarding the request. Codes default by status: 500 InternalError,
  503 SlowDown.
- ``{"type": "delay", "ms": 2000}``: wait, then forward (``where``: ``"request"``, before
  sending upstream; ``"response"``, before answering).
- ``{"type": "drop", "where": "response", "after": 1000}``: forward, send the answer's
  head and ``after`` bytes of its body, then close the connection; with ``"head": false``,
  close it before the head (the request was carried out, its answer is lost). With
  ``"where": "request"``: forward the head and ``after`` bytes of the request body
  upstream, then close both connections without an answer.
- ``{"type": "truncate", "keep": 1000, "where": "response"|"request"}``: cut the body to
  ``keep`` bytes and announce that length (Content-Length), so that the cut cannot be
  seen from the framing: only a checksum tells.
- ``{"type": "corrupt", "offset": 100, "where": "response"|"request"}``: flip the bits of
  one byte at ``offset`` (default: the middle of the body), same length.
- ``{"type": "throttle", "bytes_per_second": 65536, "where": "response"|"request"}``:
  move the body at this rate, reading from the sender no faster than writing to the
  receiver (so that stopping the S3 server mid-transfer cuts the transfer).
- ``{"type": "headers", "set": {"Last-Modified": "...", "Cache-Control": "max-age=3600"}}``:
  forward, and answer with these headers set (replacing the server's own of that name):
  an object that looks 30 days old, or one its uploader gave a long max-age, is what a
  browser's HTTP cache keeps; the tests of fresh reads need both without waiting.

When the upstream server does not answer (stopped), the proxy closes the browser's
connection without an answer, which the browser sees as it sees a stopped server.

CLI (runs until SIGINT or SIGTERM)::

    python scripts/fault_proxy.py --port 9100 --upstream http://127.0.0.1:9000

Library use (a child process, stopped by its PID)::

    from fault_proxy import start_fault_proxy

    with start_fault_proxy(9100, "http://127.0.0.1:9000") as proxy:
        print(proxy.url)
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

try:  # imported as part of the ``scripts`` package
    from .processes import stop_process
except ImportError:  # run as a script, or with scripts/ on sys.path
    from processes import stop_process  # type: ignore[no-redef]

HOST = "127.0.0.1"
CONTROL_PREFIX = "/__fault_proxy__/"
#: Headers of one hop only: never forwarded as they are.
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
}
#: Request headers the log leaves out.
SECRET_HEADERS = {"authorization", "x-amz-security-token", "cookie", "proxy-authorization"}
FAULT_TYPES = {"status", "delay", "drop", "truncate", "corrupt", "throttle", "headers"}
DEFAULT_ERROR_CODES = {500: "InternalError", 503: "SlowDown", 502: "BadGateway"}
REASONS = {
    200: "OK",
    201: "Created",
    204: "No Content",
    400: "Bad Request",
    404: "Not Found",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Slow Down",
}
LOG_LIMIT = 2000
PIECE = 16 * 1024


class Closed(Exception):
    """The connection is to be closed without (more of) an answer."""


@dataclass
class Rule:
    id: int
    fault: dict[str, Any]
    method: str | None = None
    path: str | None = None
    query: str | None = None
    skip: int = 0
    times: int = 1
    seen: int = 0
    applied: int = 0

    def matches(self, method: str, path: str, query: str) -> bool:
        if self.method is None:
            if method == "OPTIONS":
                return False
        elif self.method.upper() != method:
            return False
        if self.path is not None and not path.startswith(self.path):
            return False
        return self.query is None or self.query in query

    def take(self) -> bool:
        """Count a matching request; True when this one is to be broken."""
        self.seen += 1
        if self.seen <= self.skip:
            return False
        if self.times and self.applied >= self.times:
            return False
        self.applied += 1
        return True

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "method": self.method,
            "path": self.path,
            "query": self.query,
            "skip": self.skip,
            "times": self.times,
            "seen": self.seen,
            "applied": self.applied,
            "fault": self.fault,
        }


def parse_rule(rule_id: int, data: Any) -> Rule:
    """A rule from its JSON; raises ValueError with what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("a rule is a JSON object")
    fault = data.get("fault")
    if not isinstance(fault, dict) or fault.get("type") not in FAULT_TYPES:
        raise ValueError(f"fault.type must be one of {sorted(FAULT_TYPES)}")
    where = fault.get("where", "response")
    if where not in ("request", "response"):
        raise ValueError("fault.where is 'request' or 'response'")
    if fault["type"] == "status" and not isinstance(fault.get("status"), int):
        raise ValueError("a status fault needs an integer status")
    if fault["type"] == "headers":
        headers = fault.get("set")
        if (
            where != "response"
            or not isinstance(headers, dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
        ):
            raise ValueError("a headers fault sets a JSON object of strings on the response")
    for name in ("skip", "times"):
        if not isinstance(data.get(name, 0), int) or data.get(name, 0) < 0:
            raise ValueError(f"{name} is a whole number")
    return Rule(
        id=rule_id,
        fault={**fault, "where": where},
        method=data.get("method"),
        path=data.get("path"),
        query=data.get("query"),
        skip=data.get("skip", 0),
        times=data.get("times", 1),
    )


@dataclass
class Request:
    method: str
    target: str
    version: str
    headers: list[tuple[str, str]]
    path: str = ""
    query: str = ""
    length: int | None = None
    chunked: bool = False

    def header(self, name: str) -> str | None:
        name = name.lower()
        for key, value in self.headers:
            if key.lower() == name:
                return value
        return None


@dataclass
class Proxy:
    upstream_host: str
    upstream_port: int
    rules: list[Rule] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    ids: Any = field(default_factory=lambda: itertools.count(1))
    request_ids: Any = field(default_factory=lambda: itertools.count(1))

    # ---- the connection with the browser ------------------------------------------------

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request = await read_request_head(reader)
                if request is None:
                    break
                if request.path.startswith(CONTROL_PREFIX):
                    keep = await self.control(request, reader, writer)
                else:
                    keep = await self.forward(request, reader, writer)
                if not keep:
                    break
        except (Closed, ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            abort(writer)

    def pick_rule(self, request: Request) -> Rule | None:
        for rule in self.rules:
            if rule.matches(request.method, request.path, request.query) and rule.take():
                return rule
        return None

    async def forward(
        self, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Handle one request; True when the browser's connection may be kept."""
        rule = self.pick_rule(request)
        fault = rule.fault if rule else {}
        kind = fault.get("type")
        where = fault.get("where", "response")
        entry: dict[str, Any] = {
            "n": next(self.request_ids),
            "time": time.time(),
            "method": request.method,
            "path": request.path,
            "query": request.query,
            "rule": rule.id if rule else None,
            "fault": kind,
            "status": None,
            "outcome": "pending",
            # The request's headers, secrets left out: the log may be printed.
            "headers": {
                k.lower(): v for k, v in request.headers if k.lower() not in SECRET_HEADERS
            },
        }
        self._log(entry)

        if kind == "status":
            await read_body(reader, request)  # the answer comes after the whole request
            status = int(fault["status"])
            await write_s3_error(writer, request, status, fault)
            entry.update(status=status, outcome="injected")
            return True
        if kind == "delay" and where == "request":
            await asyncio.sleep(fault.get("ms", 1000) / 1000)

        try:
            up_reader, up_writer = await asyncio.open_connection(
                self.upstream_host, self.upstream_port
            )
        except OSError:
            entry["outcome"] = "upstream-unreachable"
            raise Closed() from None
        try:
            await self._send_request(request, reader, up_writer, fault if rule else None)
            status_line, headers = await read_response_head(up_reader)
            status = int(status_line.split(" ", 2)[1])
            entry["status"] = status
            if kind == "delay" and where == "response":
                await asyncio.sleep(fault.get("ms", 1000) / 1000)
            keep = await self._send_response(
                request, status_line, headers, up_reader, writer, fault if rule else None
            )
            entry["outcome"] = "forwarded" if not rule else "faulted"
            return keep
        except Closed:
            entry["outcome"] = "dropped" if kind else "upstream-closed"
            raise
        except (ConnectionError, asyncio.IncompleteReadError, OSError):
            entry["outcome"] = "upstream-closed"
            raise Closed() from None
        finally:
            abort(up_writer)

    async def _send_request(
        self,
        request: Request,
        reader: asyncio.StreamReader,
        up: asyncio.StreamWriter,
        fault: dict[str, Any] | None,
    ) -> None:
        kind = fault.get("type") if fault else None
        on_request = fault is not None and fault.get("where") == "request"
        body_changes = on_request and kind in ("truncate", "corrupt")
        body: bytes | None = None
        length = request.length
        if request.chunked or body_changes:
            # The whole body first: it is sent with a Content-Length.
            body = await read_body(reader, request)
            if body_changes:
                body = change_body(body, fault)  # type: ignore[arg-type]
            length = len(body)
        headers = [(k, v) for k, v in request.headers if k.lower() not in HOP_BY_HOP]
        if length is not None:
            headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
            if length or request.length is not None or request.chunked:
                headers.append(("Content-Length", str(length)))
        headers.append(("Connection", "close"))
        up.write(encode_head(f"{request.method} {request.target} {request.version}", headers))
        if body is not None:
            up.write(body)
            await up.drain()
            return
        remaining = request.length or 0
        if on_request and kind == "drop":
            sent = min(int(fault.get("after", 0)), remaining)  # type: ignore[union-attr]
            if sent:
                up.write(await reader.readexactly(sent))
                await up.drain()
            raise Closed()
        rate = fault.get("bytes_per_second") if on_request and kind == "throttle" else None
        await copy_exactly(reader, up, remaining, rate)

    async def _send_response(
        self,
        request: Request,
        status_line: str,
        headers: list[tuple[str, str]],
        up: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        fault: dict[str, Any] | None,
    ) -> bool:
        kind = fault.get("type") if fault else None
        on_response = fault is not None and fault.get("where") == "response"
        status = int(status_line.split(" ", 2)[1])
        names = {k.lower(): v for k, v in headers}
        no_body = request.method == "HEAD" or status in (204, 304) or 100 <= status < 200
        chunked = "chunked" in names.get("transfer-encoding", "").lower()
        length = None if chunked or no_body else names.get("content-length")
        announced = int(length) if length is not None else None
        out_headers = [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP]
        if on_response and kind == "headers":
            replaced = {name.lower() for name in fault["set"]}  # type: ignore[index]
            out_headers = [(k, v) for k, v in out_headers if k.lower() not in replaced]
            out_headers += list(fault["set"].items())  # type: ignore[index]
        version = "HTTP/1.1"
        reason = status_line.split(" ", 2)[2] if status_line.count(" ") >= 2 else ""
        head_line = f"{version} {status} {reason}".rstrip()

        if on_response and kind == "drop" and fault.get("head") is False:  # type: ignore[union-attr]
            raise Closed()  # the request was carried out; its answer is lost
        if no_body:
            writer.write(encode_head(head_line, out_headers))
            await writer.drain()
            return True

        if on_response and kind in ("truncate", "corrupt"):
            body = await read_response_body(up, announced, chunked)
            body = change_body(body, fault)  # type: ignore[arg-type]
            out_headers = [(k, v) for k, v in out_headers if k.lower() != "content-length"]
            out_headers.append(("Content-Length", str(len(body))))
            writer.write(encode_head(head_line, out_headers) + body)
            await writer.drain()
            return True

        if announced is None:
            # Chunked or until the end: the browser gets it chunked.
            out_headers.append(("Transfer-Encoding", "chunked"))
            writer.write(encode_head(head_line, out_headers))
            sent = 0
            async for piece in response_pieces(up, None, chunked):
                if on_response and kind == "drop" and sent + len(piece) >= fault.get("after", 0):
                    cut = max(0, int(fault.get("after", 0)) - sent)
                    if cut:
                        writer.write(b"%x\r\n" % cut + piece[:cut] + b"\r\n")
                        await writer.drain()
                    raise Closed()
                writer.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
                sent += len(piece)
                await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            return True

        writer.write(encode_head(head_line, out_headers))
        await writer.drain()
        if on_response and kind == "drop":
            after = min(int(fault.get("after", 0)), announced)
            if after:
                writer.write(await up.readexactly(after))
                await writer.drain()
            raise Closed()
        rate = fault.get("bytes_per_second") if on_response and kind == "throttle" else None
        await copy_exactly(up, writer, announced, rate)
        return True

    # ---- control ------------------------------------------------------------------------

    async def control(
        self, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        body = await read_body(reader, request)
        route = request.path[len(CONTROL_PREFIX) :].strip("/")
        method = request.method
        status, answer = 200, {}
        try:
            if route == "health" and method == "GET":
                answer = {"ok": True}
            elif route == "rules" and method == "POST":
                rule = parse_rule(next(self.ids), json.loads(body or b"null"))
                self.rules.append(rule)
                status, answer = 201, {"id": rule.id}
            elif route == "rules" and method == "GET":
                answer = {"rules": [rule.describe() for rule in self.rules]}
            elif route == "rules" and method == "DELETE":
                self.rules.clear()
            elif route.startswith("rules/") and method == "DELETE":
                rule_id = int(route.split("/", 1)[1])
                self.rules = [rule for rule in self.rules if rule.id != rule_id]
            elif route == "log" and method == "GET":
                answer = {"log": self.log}
            elif route == "log" and method == "DELETE":
                self.log.clear()
            else:
                status, answer = 404, {"error": f"no control route {method} {route}"}
        except (ValueError, json.JSONDecodeError) as err:
            status, answer = 400, {"error": str(err)}
        data = json.dumps(answer).encode()
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
        writer.write(encode_head(f"HTTP/1.1 {status} {REASONS.get(status, '')}", headers) + data)
        await writer.drain()
        return True

    def _log(self, entry: dict[str, Any]) -> None:
        self.log.append(entry)
        if len(self.log) > LOG_LIMIT:
            del self.log[: len(self.log) - LOG_LIMIT]


# ---- HTTP/1.1 framing ---------------------------------------------------------------------


def abort(writer: asyncio.StreamWriter) -> None:
    """Close a connection at once (a reset when data is left unread, as a crash would)."""
    with contextlib.suppress(Exception):
        writer.transport.abort()


def encode_head(first_line: str, headers: list[tuple[str, str]]) -> bytes:
    lines = [first_line] + [f"{k}: {v}" for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def read_head_lines(reader: asyncio.StreamReader) -> list[str] | None:
    try:
        data = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as err:
        if not err.partial.strip():
            return None  # the peer closed between requests
        raise
    except asyncio.LimitOverrunError:
        raise ValueError("head too large") from None
    return data.decode("latin-1").split("\r\n")[:-2]


def parse_headers(lines: list[str]) -> list[tuple[str, str]]:
    headers = []
    for line in lines:
        name, _, value = line.partition(":")
        headers.append((name.strip(), value.strip()))
    return headers


async def read_request_head(reader: asyncio.StreamReader) -> Request | None:
    lines = await read_head_lines(reader)
    if lines is None:
        return None
    method, target, version = lines[0].split(" ", 2)
    request = Request(method.upper(), target, version, parse_headers(lines[1:]))
    parts = urlsplit(target)
    request.path = unquote(parts.path)
    request.query = parts.query
    length = request.header("content-length")
    request.length = int(length) if length is not None else None
    request.chunked = "chunked" in (request.header("transfer-encoding") or "").lower()
    return request


async def read_response_head(reader: asyncio.StreamReader) -> tuple[str, list[tuple[str, str]]]:
    while True:
        lines = await read_head_lines(reader)
        if lines is None:
            raise Closed()
        status = int(lines[0].split(" ", 2)[1])
        if status != 100:  # an interim answer is not passed on
            return lines[0], parse_headers(lines[1:])


async def read_chunks(reader: asyncio.StreamReader):
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            # Trailers, up to the empty line.
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass
            return
        yield await reader.readexactly(size)
        await reader.readexactly(2)


async def read_body(reader: asyncio.StreamReader, request: Request) -> bytes:
    if request.chunked:
        return b"".join([piece async for piece in read_chunks(reader)])
    if request.length:
        return await reader.readexactly(request.length)
    return b""


async def response_pieces(reader: asyncio.StreamReader, length: int | None, chunked: bool):
    if chunked:
        async for piece in read_chunks(reader):
            yield piece
        return
    if length is not None:
        remaining = length
        while remaining:
            piece = await reader.read(min(PIECE, remaining))
            if not piece:
                raise Closed()
            remaining -= len(piece)
            yield piece
        return
    while piece := await reader.read(PIECE):
        yield piece


async def read_response_body(
    reader: asyncio.StreamReader, length: int | None, chunked: bool
) -> bytes:
    return b"".join([piece async for piece in response_pieces(reader, length, chunked)])


async def copy_exactly(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    length: int,
    bytes_per_second: float | None = None,
) -> None:
    """Copy ``length`` bytes; at most ``bytes_per_second`` when given."""
    remaining = length
    piece_size = PIECE
    if bytes_per_second:
        piece_size = max(1, min(PIECE, int(bytes_per_second / 10)))
    while remaining:
        piece = await reader.read(min(piece_size, remaining))
        if not piece:
            raise Closed()
        remaining -= len(piece)
        writer.write(piece)
        await writer.drain()
        if bytes_per_second:
            await asyncio.sleep(len(piece) / bytes_per_second)


def change_body(body: bytes, fault: dict[str, Any]) -> bytes:
    """The body a truncate or corrupt fault makes of ``body``."""
    if fault["type"] == "truncate":
        return body[: max(0, int(fault.get("keep", len(body) // 2)))]
    if not body:
        return body
    offset = fault.get("offset")
    offset = len(body) // 2 if offset is None else min(int(offset), len(body) - 1)
    damaged = bytearray(body)
    damaged[offset] ^= int(fault.get("xor", 0x01)) or 0x01
    return bytes(damaged)


async def write_s3_error(
    writer: asyncio.StreamWriter, request: Request, status: int, fault: dict[str, Any]
) -> None:
    """An S3 error answer, with the CORS headers S3 sends on errors for an allowed origin."""
    code = fault.get("code") or DEFAULT_ERROR_CODES.get(status, "InternalError")
    message = fault.get("message") or {
        "SlowDown": "Please reduce your request rate.",
        "InternalError": "We encountered an internal error. Please try again.",
    }.get(code, "Injected by the fault proxy.")
    request_id = f"FAULTPROXY{int(time.time() * 1000)}"
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<Error><Code>{code}</Code><Message>{message}</Message>"
        f"<RequestId>{request_id}</RequestId></Error>"
    ).encode()
    headers = [
        ("Content-Type", "application/xml"),
        ("Content-Length", str(len(body))),
        ("x-amz-request-id", request_id),
    ]
    origin = request.header("origin")
    if origin:
        headers += [
            ("Access-Control-Allow-Origin", origin),
            ("Access-Control-Expose-Headers", "ETag, x-amz-version-id"),
            ("Vary", "Origin"),
        ]
    reason = REASONS.get(status, "Error")
    writer.write(encode_head(f"HTTP/1.1 {status} {reason}", headers) + body)
    await writer.drain()


# ---- running it ---------------------------------------------------------------------------


async def run(
    port: int,
    upstream: str,
    ready: asyncio.Event | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM, or until ``stop`` is set."""
    parts = urlsplit(upstream)
    if parts.scheme != "http" or not parts.hostname or not parts.port:
        raise ValueError("the upstream is http://HOST:PORT")
    proxy = Proxy(parts.hostname, parts.port)
    server = await asyncio.start_server(proxy.serve, HOST, port, limit=256 * 1024)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
    bound = server.sockets[0].getsockname()[1]
    print(f"fault proxy ready: http://{HOST}:{bound} -> {upstream}", flush=True)
    if ready is not None:
        ready.set()
    async with server:
        await stop.wait()


class FaultProxyProcess:
    """A running proxy (a child process). Stop it with ``stop()`` or a ``with`` block."""

    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self._process = process
        self.pid = process.pid
        self.port = port
        self.url = f"http://{HOST}:{port}"
        atexit.register(self.stop)

    def is_running(self) -> bool:
        return self._process.poll() is None

    def stop(self) -> None:
        """Terminate the proxy (by its PID), kill it if it does not go. Idempotent."""
        stop_process(self._process)
        atexit.unregister(self.stop)

    def __enter__(self) -> FaultProxyProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _set_parent_death_signal() -> None:
    """In the child: get SIGTERM when the thread that started it dies (Linux only)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:  # not Linux: the caller's stop() is then the only guard
        pass


def start_fault_proxy(
    port: int, upstream: str, *, log_path: str | None = None, timeout: float = 20.0
) -> FaultProxyProcess:
    """Start the proxy on 127.0.0.1:``port`` in front of ``upstream``; returns once it answers."""
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
    try:
        process = subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--port",
                str(port),
                "--upstream",
                upstream,
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            preexec_fn=_set_parent_death_signal if os.name == "posix" else None,
        )
    finally:
        if log_path:
            log.close()  # type: ignore[union-attr]
    proxy = FaultProxyProcess(process, port)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not proxy.is_running():
            raise RuntimeError(f"the fault proxy exited with code {process.returncode}")
        try:
            with opener.open(f"{proxy.url}{CONTROL_PREFIX}health", timeout=1) as answer:
                if answer.status == 200:
                    return proxy
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    proxy.stop()
    raise TimeoutError(f"the fault proxy did not answer on {proxy.url} within {timeout:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fault-injecting proxy for the S3 tests.")
    parser.add_argument("--port", type=int, required=True, help="port on 127.0.0.1 (0: any)")
    parser.add_argument(
        "--upstream", required=True, help="the S3 server, e.g. http://127.0.0.1:9000"
    )
    args = parser.parse_args(argv)
    try:
        asyncio.run(run(args.port, args.upstream))
    except (OSError, ValueError) as err:
        print(f"fault_proxy: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
