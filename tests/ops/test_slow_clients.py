"""Slow clients and oversized bodies against the API as `make run` serves it (gunicorn, gevent worker).

Rules pinned: with 256 slow connections open (bench/slowloris.py: half sending headers, half a
body, a byte at a time) getHealth and a move still answer within 1 s; a 413 leaves the keep-alive
connection usable for the next request.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from bench.slowloris import SlowLoris, health_and_move
from tests.ops.make_run_api import make_run_api, within_1_s

pytestmark = pytest.mark.timeout(180)


def test_256_slow_connections_leave_health_and_a_move_answering_within_1_s(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """Rule (issue 17): 16 slow connections used to hold every gthread thread of make run's gunicorn
    and time getHealth out; with the gevent worker 256 of them hold greenlets only."""
    with make_run_api(redis_url, key_prefix, tmp_path) as base:
        health_and_move(base)  # warm: first imports, connection pools
        with SlowLoris(int(base.rsplit(":", 1)[1]), 256, interval_s=1.0, max_seconds=60) as loris:
            opened = time.monotonic()
            time.sleep(0.5)  # the server has taken them in (accepted, reading their headers)
            times = within_1_s(lambda: health_and_move(base))
            # All 256 were open while we measured: the server gives headers `keepalive` (5 s).
            assert time.monotonic() - opened < 5
            assert all(value < 1.0 for value in times.values()), times
            time.sleep(6)  # the header senders are cut off by now; the body senders are still open
            later = within_1_s(lambda: health_and_move(base))
            assert all(value < 1.0 for value in later.values()), later
            assert loris.open_connections() >= 128


def read_answer(sock: socket.socket) -> tuple[str, dict[str, str], bytes]:
    """One HTTP/1.1 answer with a Content-Length off the socket: status line, headers, body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"the server closed the connection: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    while len(body) < int(headers["content-length"]):
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection mid-answer"
        body += chunk
    return status, headers, body


def test_a_413_leaves_the_keep_alive_connection_usable(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """Rule (issue 17): after a 200 KB body answered 413 body_too_large, the next request on the same
    keep-alive connection is served (make run's gthread announced keep-alive, then dropped it)."""
    with make_run_api(redis_url, key_prefix, tmp_path) as base:
        port = int(base.rsplit(":", 1)[1])
        body = b'{"game": "' + b"x" * 200_000 + b'"}'
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            head = (
                f"POST /games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            )
            sock.sendall(head.encode() + body)
            status, headers, answer = read_answer(sock)
            assert status.startswith("HTTP/1.1 413"), status
            assert json.loads(answer)["code"] == "body_too_large"
            for _ in range(2):  # and it stays usable
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                status, headers, answer = read_answer(sock)
                assert status.startswith("HTTP/1.1 200"), (status, answer)
                assert json.loads(answer)["redis"]["ok"] is True
