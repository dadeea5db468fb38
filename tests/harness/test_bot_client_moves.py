"""The bot client's check of an answer against the legal moves: exact JSON, whatever the key order."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from bots.protocol import FaultCode
from harness.bot_client import BotClient


class _Answer(BaseHTTPRequestHandler):
    server: _AnswerServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        """Keep test output quiet."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        """Answer every POST with the server's fixed body."""
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        body = self.server.body
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _AnswerServer(ThreadingHTTPServer):
    daemon_threads = True
    body = b"{}"


@pytest.fixture
def answer_server() -> Iterator[_AnswerServer]:
    server = _AnswerServer(("127.0.0.1", 0), _Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


LEGAL: list[dict[str, Any]] = [{"type": "play", "n": 1, "wish": None}, {"type": "play", "n": 2, "wish": None}]


@pytest.mark.parametrize(
    ("body", "fault"),
    [
        (b'{"move": {"wish": null, "n": 2, "type": "play"}}', None),  # any key order
        (b'{"move": {"type": "play", "n": 1, "wish": null}}', None),
        (b'{"move": {"type": "play", "n": 1.0, "wish": null}}', FaultCode.ILLEGAL_MOVE.value),
        (b'{"move": {"type": "play", "n": true, "wish": null}}', FaultCode.ILLEGAL_MOVE.value),
        (b'{"move": {"type": "play", "n": 1, "wish": false}}', FaultCode.ILLEGAL_MOVE.value),
        (b'{"move": {"type": "play", "n": 1}}', FaultCode.ILLEGAL_MOVE.value),
        (b'{"move": {"type": "play", "n": 123456789012345678901234567890, "wish": null}}', "illegal_move"),
    ],
)
def test_answer_must_be_a_legal_move_exactly(
    answer_server: _AnswerServer, body: bytes, fault: str | None
) -> None:
    answer_server.body = body
    client = BotClient(f"http://127.0.0.1:{answer_server.server_address[1]}", "secret")
    try:
        answer = client.move({"seat": 0}, LEGAL, 5.0)
    finally:
        client.close()
    assert answer.fault == fault
    if fault is None:
        assert answer.move is not None
        assert any(answer.move is legal for legal in LEGAL)  # the engine's own move object is played
    else:
        assert answer.move is None
