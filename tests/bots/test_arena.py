"""The arena's own bot client (`bots.arena.BotClient`) and the bots package's dependency rule."""

from __future__ import annotations

import ast
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bots.arena import BotCallError, BotClient, http_player, play_http_match
from bots.bundled import make_bot
from bots.examples.minimal import choose as minimal_choose
from bots.sdk import BotServer, FunctionBot

SECRET = "arena-client-secret"
BOTS_DIR = Path(__file__).resolve().parents[2] / "bots"
MOVE: dict[str, Any] = {
    "match_id": "m-1",
    "game": "tricky-teams",
    "seat": 0,
    "view": {"hand": ["red-3"]},
    "legal_moves": [{"type": "play", "card": "red-3"}],
    "deadline_ms": 500,
    "time_bank_ms": 0,
}


def test_rule_bots_import_only_games_and_their_own_protocol() -> None:
    """Rule: nothing under bots/ imports the platform (api/, harness/), not even inside a function."""
    offenders = []
    for path in sorted(BOTS_DIR.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            if names:
                assert isinstance(node, ast.stmt)  # an import statement: it has a line
                offenders += [
                    f"{path.relative_to(BOTS_DIR)}:{node.lineno} imports {name}"
                    for name in names
                    if name.split(".")[0] in ("api", "harness")
                ]
    assert offenders == []


class _Misbehaving(BaseHTTPRequestHandler):
    """A bot answering every POST with one fixed misbehaviour, chosen by the path."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
        """Quiet."""

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        """`/slow`, `/huge`, `/garbage`, `/teapot`, `/redirect` or `/no-move`."""
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        status, body, extra = 200, b'{"move": {"type": "play", "card": "red-3"}}', {}
        if self.path == "/slow":
            time.sleep(0.5)
        elif self.path == "/huge":
            body = b'{"move": "' + b"x" * 300_000 + b'"}'
        elif self.path == "/garbage":
            body = b"<html>not json"
        elif self.path == "/teapot":
            status = 418
        elif self.path == "/redirect":
            status, extra = 307, {"Location": "/move"}
        elif self.path.startswith("/no-move"):
            body = b'{"move": "red-3"}'
        self.send_response(status)
        for name, value in {"Content-Length": str(len(body)), **extra}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """The client gave up on a slow answer: expected here."""


@pytest.fixture(scope="module")
def misbehaving_url() -> Iterator[str]:
    """The misbehaving bot on loopback."""
    server = _QuietServer(("127.0.0.1", 0), _Misbehaving)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    ("path", "fault"),
    [
        ("/slow", "timeout"),
        ("/huge", "response_too_large"),
        ("/garbage", "malformed_body"),
        ("/teapot", "http_status"),
        ("/redirect", "http_status"),
    ],
)
def test_rule_a_failed_call_is_a_fault_code(misbehaving_url: str, path: str, fault: str) -> None:
    """Rule: a slow, oversized, non-JSON, non-200 or redirecting answer is a BotCallError with the
    FaultCode the harness would record for it."""
    with BotClient(misbehaving_url, SECRET) as client, pytest.raises(BotCallError) as err:
        client.post_json(path, MOVE, timeout_s=0.25)
    assert err.value.code == fault


def test_rule_an_answer_without_a_move_object_is_malformed(misbehaving_url: str) -> None:
    """Rule: `{"move": <not an object>}` is a `malformed_body` fault of the player."""
    with BotClient(misbehaving_url + "/no-move", SECRET) as client, pytest.raises(BotCallError) as err:
        http_player(client)(MOVE)
    assert err.value.code == "malformed_body"


def test_rule_an_unreachable_bot_is_a_connection_error() -> None:
    """Rule: nothing listening at the URL is a `connection_error` fault."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with BotClient(f"http://127.0.0.1:{port}", SECRET) as client, pytest.raises(BotCallError) as err:
        client.post_json("/move", MOVE, timeout_s=1.0)
    assert err.value.code == "connection_error"


def test_rule_the_client_signs_its_posts() -> None:
    """Rule: posts are signed with the client's secret (the SDK bot answers them, refuses others)."""
    with BotServer(FunctionBot(minimal_choose, "minimal", ["tricky-teams"]), SECRET) as server:
        with BotClient(server.url, SECRET) as client:
            assert client.get_json("/")["name"] == "minimal"
            assert client.post_json("/move", MOVE) == {"move": MOVE["legal_moves"][0]}
        with BotClient(server.url, "not-the-secret") as forger, pytest.raises(BotCallError) as err:
            forger.post_json("/move", MOVE)
    assert err.value.code == "http_status"


def test_rule_a_match_over_http_reports_start_and_end_to_every_seat() -> None:
    """Rule: `play_http_match` sends `/start` and `/end` (with the result) to each seat's bot."""
    seen: list[tuple[str, int]] = []

    class Recorder(FunctionBot):
        def start(self, message: dict[str, Any]) -> None:
            seen.append(("start", message["seat"]))

        def end(self, message: dict[str, Any]) -> None:
            assert message["result"]["scores"]
            seen.append(("end", message["seat"]))

    with BotServer(Recorder(minimal_choose, "recorder", ["tricky-teams"]), SECRET) as recorder:
        with BotServer(make_bot("random"), SECRET) as random_bot:
            clients = [BotClient(recorder.url, SECRET)] + [
                BotClient(random_bot.url, SECRET) for _ in range(3)
            ]
            record = play_http_match("tricky-teams", clients, 3, {"raids": 1}, deadline_ms=200)
            for client in clients:
                client.close()
    assert record.faults == {seat: [] for seat in range(4)}
    assert sorted(seen) == [("end", 0), ("start", 0)]
    assert json.dumps(record.result)  # the result is plain JSON, as sent to the bots
