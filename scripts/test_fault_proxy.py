"""The fault-injecting proxy (scripts/fault_proxy.py) against a small upstream HTTP server.

Both run in threads of this process on ports the OS chooses on 127.0.0.1; each test adds
its rules through the control API and checks what a client receives and what the upstream
received.
"""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fault_proxy  # noqa: E402

BODY = bytes(range(256)) * 400  # 102400 bytes


class Upstream(BaseHTTPRequestHandler):
    """GET answers BODY; PUT stores what it received; OPTIONS answers a CORS preflight."""

    received: list[tuple[str, str, bytes]] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_OPTIONS(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", self.headers.get("Origin", ""))
        self.send_header("Access-Control-Allow-Methods", "GET, PUT")
        self.send_header("Access-Control-Allow-Headers", "content-md5, x-amz-date")
        self.send_header("Content-Length", "0")
        self.end_headers()
        Upstream.received.append(("OPTIONS", self.path, b""))

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", str(len(BODY)))
        self.send_header("ETag", f'"{hashlib.md5(BODY).hexdigest()}"')
        self.send_header("Access-Control-Expose-Headers", "ETag")
        self.end_headers()
        self.wfile.write(BODY)
        Upstream.received.append(("GET", self.path, b""))

    def do_PUT(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length", "0"))
        data = self.rfile.read(length)
        Upstream.received.append(("PUT", self.path, data))
        self.send_response(200)
        self.send_header("ETag", f'"{hashlib.md5(data).hexdigest()}"')
        self.send_header("Content-Length", "0")
        self.end_headers()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RunningProxy:
    """fault_proxy.run on its own event loop in a thread, stopped by ``stop()``."""

    def __init__(self, upstream_port: int) -> None:
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        ready = threading.Event()

        async def main() -> None:
            started = asyncio.Event()
            self._stop = asyncio.Event()
            await fault_proxy.run(
                self.port, f"http://127.0.0.1:{upstream_port}", started, self._stop
            )

        def watch() -> None:
            asyncio.set_event_loop(self._loop)
            task = self._loop.create_task(main())
            self._loop.call_soon(lambda: self._loop.call_later(0.05, ready.set))
            self._loop.run_until_complete(task)
            self._loop.close()

        self._thread = threading.Thread(target=watch, daemon=True)
        self._thread.start()
        assert ready.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise TimeoutError("the proxy did not start")

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)  # type: ignore[union-attr]
        self._thread.join(10)


@pytest.fixture(scope="module")
def servers():
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    running = RunningProxy(upstream.server_port)
    yield running.port, upstream
    running.stop()
    upstream.shutdown()


@pytest.fixture
def proxy(servers):
    port, _ = servers
    control("DELETE", port, "rules")
    control("DELETE", port, "log")
    Upstream.received.clear()
    return port


def control(method: str, port: int, route: str, body: object = None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    data = json.dumps(body).encode() if body is not None else None
    connection.request(method, f"/__fault_proxy__/{route}", body=data)
    response = connection.getresponse()
    answer = json.loads(response.read() or b"null")
    connection.close()
    assert response.status < 300, answer
    return answer


def request(port: int, method: str, path: str, body: bytes | None = None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    return connection, response


def test_passes_requests_and_preflights_through(proxy):
    connection, response = request(
        proxy,
        "OPTIONS",
        "/bucket/key",
        headers={"Origin": "http://lab", "Access-Control-Request-Method": "PUT"},
    )
    assert response.status == 200
    assert response.getheader("Access-Control-Allow-Origin") == "http://lab"
    assert response.getheader("Access-Control-Allow-Headers") == "content-md5, x-amz-date"
    response.read()
    # The same connection is kept for the next request.
    connection.request("GET", "/bucket/key")
    response = connection.getresponse()
    assert response.read() == BODY
    assert response.getheader("Access-Control-Expose-Headers") == "ETag"
    # A rule without a method leaves preflights alone.
    control("POST", proxy, "rules", {"fault": {"type": "status", "status": 500}, "times": 0})
    _, response = request(proxy, "OPTIONS", "/bucket/key", headers={"Origin": "http://lab"})
    assert response.status == 200


def test_status_fault_answers_an_s3_error_with_cors_and_does_not_forward(proxy):
    control("POST", proxy, "rules", {"method": "PUT", "fault": {"type": "status", "status": 503}})
    _, response = request(proxy, "PUT", "/bucket/key", b"data", {"Origin": "http://lab"})
    assert response.status == 503
    assert b"<Code>SlowDown</Code>" in response.read()
    assert response.getheader("Access-Control-Allow-Origin") == "http://lab"
    assert Upstream.received == []
    # Only once: the next one goes through.
    _, response = request(proxy, "PUT", "/bucket/key", b"data")
    assert response.status == 200
    assert Upstream.received == [("PUT", "/bucket/key", b"data")]


def test_drop_response_cuts_the_body(proxy):
    control("POST", proxy, "rules", {"method": "GET", "fault": {"type": "drop", "after": 1000}})
    _, response = request(proxy, "GET", "/bucket/key")
    assert response.getheader("Content-Length") == str(len(BODY))
    with pytest.raises(http.client.IncompleteRead) as cut:
        response.read()
    assert len(cut.value.partial) == 1000


def test_drop_before_the_head_carries_the_request_out(proxy):
    control(
        "POST",
        proxy,
        "rules",
        {"method": "PUT", "fault": {"type": "drop", "head": False}},
    )
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        _, response = request(proxy, "PUT", "/bucket/key", b"stored anyway")
    assert Upstream.received == [("PUT", "/bucket/key", b"stored anyway")]


def test_drop_request_sends_part_of_the_body_and_closes(proxy):
    control(
        "POST",
        proxy,
        "rules",
        {"method": "PUT", "fault": {"type": "drop", "where": "request", "after": 10}},
    )
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        request(proxy, "PUT", "/bucket/key", b"x" * 5000)
    time.sleep(0.2)
    # The upstream got a short body (or gave up reading it): never the whole.
    assert all(len(data) < 5000 for _, _, data in Upstream.received)


def test_truncate_announces_the_shorter_length(proxy):
    control("POST", proxy, "rules", {"method": "GET", "fault": {"type": "truncate", "keep": 100}})
    _, response = request(proxy, "GET", "/bucket/key")
    assert response.getheader("Content-Length") == "100"
    assert response.read() == BODY[:100]
    assert response.getheader("ETag") == f'"{hashlib.md5(BODY).hexdigest()}"'


def test_corrupt_flips_one_byte_and_keeps_the_length(proxy):
    control(
        "POST",
        proxy,
        "rules",
        {"method": "PUT", "fault": {"type": "corrupt", "where": "request", "offset": 3}},
    )
    request(proxy, "PUT", "/bucket/key", b"abcdef")[1].read()
    assert Upstream.received == [("PUT", "/bucket/key", b"abceef")]  # d ^ 1
    control("POST", proxy, "rules", {"method": "GET", "fault": {"type": "corrupt"}})
    data = request(proxy, "GET", "/bucket/key")[1].read()
    assert len(data) == len(BODY)
    assert sum(a != b for a, b in zip(data, BODY, strict=True)) == 1


def test_skip_and_times_and_the_log(proxy):
    control(
        "POST",
        proxy,
        "rules",
        {
            "method": "GET",
            "path": "/bucket/",
            "skip": 1,
            "times": 2,
            "fault": {"type": "status", "status": 500},
        },
    )
    statuses = [request(proxy, "GET", "/bucket/key")[1].status for _ in range(4)]
    assert statuses == [200, 500, 500, 200]
    assert request(proxy, "GET", "/other/key")[1].status == 200
    log = control("GET", proxy, "log")["log"]
    assert [entry["status"] for entry in log] == [200, 500, 500, 200, 200]
    assert [entry["fault"] for entry in log] == [None, "status", "status", None, None]


def test_throttle_and_delay_slow_down(proxy):
    control(
        "POST",
        proxy,
        "rules",
        {"method": "GET", "fault": {"type": "throttle", "bytes_per_second": 200_000}},
    )
    started = time.monotonic()
    assert request(proxy, "GET", "/bucket/key")[1].read() == BODY
    assert time.monotonic() - started >= 0.4
    control("POST", proxy, "rules", {"method": "GET", "fault": {"type": "delay", "ms": 500}})
    started = time.monotonic()
    request(proxy, "GET", "/bucket/key")[1].read()
    assert time.monotonic() - started >= 0.5


def test_the_log_keeps_no_secret(proxy):
    request(
        proxy,
        "GET",
        "/bucket/key",
        headers={"Authorization": "AWS4-HMAC-SHA256 Signature=abc", "X-Amz-Security-Token": "t"},
    )[1].read()
    entry = control("GET", proxy, "log")["log"][-1]
    assert "authorization" not in entry["headers"]
    assert "x-amz-security-token" not in entry["headers"]


def test_headers_fault_sets_response_headers_and_keeps_the_body(proxy):
    old = "Mon, 01 Jan 2024 00:00:00 GMT"
    rule = control(
        "POST",
        proxy,
        "rules",
        {
            "method": "GET",
            "fault": {
                "type": "headers",
                "set": {"last-modified": old, "Cache-Control": "max-age=60"},
            },
        },
    )["id"]
    _, response = request(proxy, "GET", "/bucket/key")
    assert response.read() == BODY
    assert response.getheader("Last-Modified") == old
    assert response.getheader("Cache-Control") == "max-age=60"
    assert response.getheader("ETag") == f'"{hashlib.md5(BODY).hexdigest()}"'
    used = [r for r in control("GET", proxy, "rules")["rules"] if r["id"] == rule]
    assert used[0]["applied"] == 1
    for bad in ({"set": "x"}, {"set": {"a": 1}}, {"set": {"a": "b"}, "where": "request"}):
        connection = http.client.HTTPConnection("127.0.0.1", proxy, timeout=10)
        connection.request(
            "POST", "/__fault_proxy__/rules", body=json.dumps({"fault": {"type": "headers", **bad}})
        )
        assert connection.getresponse().status == 400


def test_a_bad_rule_is_refused(proxy):
    connection = http.client.HTTPConnection("127.0.0.1", proxy, timeout=10)
    connection.request("POST", "/__fault_proxy__/rules", body=b'{"fault": {"type": "explode"}}')
    response = connection.getresponse()
    assert response.status == 400
    assert b"fault.type" in response.read()


def test_a_stopped_upstream_closes_the_connection():
    running = RunningProxy(free_port())  # nothing listens upstream
    try:
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
            request(running.port, "GET", "/bucket/key")
    finally:
        running.stop()
