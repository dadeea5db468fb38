"""SDK rules: a served function answers signed requests and refuses forged, unsigned or stale ones."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from bots.examples.minimal import choose as minimal_choose
from bots.protocol import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign
from bots.sdk import BotServer, FunctionBot, client_address
from harness.outbound import DEFAULT_ALLOWED, AddressPolicy, BotSession, parse_networks

SECRET = "sdk-test-secret"
LOOPBACK = AddressPolicy(tuple(parse_networks(DEFAULT_ALLOWED)))
MOVE = {
    "match_id": "m-1",
    "game": "tricky-teams",
    "seat": 1,
    "view": {"hand": ["red-3"]},
    "legal_moves": [{"type": "play", "card": "red-3"}, {"type": "play", "card": "blue-9"}],
    "deadline_ms": 500,
    "time_bank_ms": 1000,
    "previous": {"status": "accepted", "fault": None},
}


@pytest.fixture(scope="module")
def bot_url() -> Iterator[str]:
    """The ten-line example bot served by the SDK on loopback."""
    bot = FunctionBot(minimal_choose, name="minimal", games=["tricky-teams"])
    with BotServer(bot, SECRET) as server:
        yield server.url


def _post(url: str, body: bytes, headers: dict[str, str]) -> requests.Response:
    return requests.post(
        url + "/move", data=body, headers={"Content-Type": "application/json", **headers}, timeout=5
    )


def test_rule_info_is_public(bot_url: str) -> None:
    """Rule: `GET /` needs no signature (the platform calls it before issuing the secret)."""
    info = requests.get(bot_url + "/", timeout=5).json()
    assert info == {
        "name": "minimal",
        "author": "anonymous",
        "version": "0.1",
        "games": ["tricky-teams"],
        "protocol": "1",
    }


def test_rule_signed_move_is_answered_with_a_legal_move(bot_url: str) -> None:
    """Rule: a correctly signed move request is answered `{"move": <one of the legal moves>}`."""
    with BotSession(bot_url, SECRET, policy=LOOPBACK) as session:
        assert session.post_json("/move", MOVE) == {"move": {"type": "play", "card": "red-3"}}
        assert session.post_json(
            "/start",
            {
                "match_id": "m-1",
                "game": "tricky-teams",
                "seat": 1,
                "seats": 4,
                "deadline_ms": 500,
                "time_bank_ms": 0,
            },
        ) == {"ok": True}
        assert session.post_json(
            "/end", {"match_id": "m-1", "game": "tricky-teams", "seat": 1, "result": {"scores": [1, 2, 3, 4]}}
        ) == {"ok": True}


BODY = json.dumps(MOVE).encode()


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({}, "missing_signature"),
        (sign("not-the-secret", BODY), "bad_signature"),
        (sign(SECRET, BODY, int(time.time()) - 3600), "stale_signature"),
        (sign(SECRET, BODY.replace(b"red-3", b"red-4")), "bad_signature"),
        ({TIMESTAMP_HEADER: "1e9", SIGNATURE_HEADER: "sha256=abc"}, "bad_timestamp"),
    ],
    ids=["unsigned", "forged", "stale-replay", "body-swapped", "bad-timestamp"],
)
def test_rule_sdk_refuses_forged_unsigned_and_stale_requests(
    bot_url: str, headers: dict[str, str], code: str
) -> None:
    """Rule: the SDK answers 401 with a code to any request not signed now with the secret."""
    resp = _post(bot_url, BODY, headers)
    assert resp.status_code == 401
    assert resp.json()["code"] == code


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[]",
        json.dumps({**MOVE, "legal_moves": []}).encode(),
        json.dumps({"seat": "x"}).encode(),
    ],
    ids=["not-json", "array", "no-legal-moves", "wrong-fields"],
)
def test_rule_sdk_rejects_malformed_signed_requests(bot_url: str, body: bytes) -> None:
    """Rule: a signed request whose body breaks the protocol is a 400 `malformed_request`, never a 500."""
    resp = _post(bot_url, body, sign(SECRET, body))
    assert resp.status_code == 400
    assert resp.json()["code"] == "malformed_request"


def test_rule_bot_without_secret_refuses_moves() -> None:
    """Rule: a bot started before it was given its secret answers `GET /` but refuses every POST."""
    with BotServer(FunctionBot(minimal_choose, "minimal", ["tricky-teams"]), None) as server:
        assert requests.get(server.url + "/", timeout=5).status_code == 200
        resp = _post(server.url, BODY, sign(SECRET, BODY))
        assert (resp.status_code, resp.json()["code"]) == (401, "no_secret")


def test_rule_bundled_bot_serves_from_the_command_line() -> None:
    """Rule: `python -m bots.serve random --port N --secret S` serves a bundled bot with signature checks."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "bots.serve", "random", "--port", str(port), "--secret", SECRET],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                info = requests.get(url + "/", timeout=1).json()
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, "bot did not come up"
                time.sleep(0.1)
        assert info["name"] == "random"
        assert set(info["games"]) == {"tricky-teams", "trick-n-trouble"}
        with BotSession(url, SECRET, policy=LOOPBACK) as session:
            answer = session.post_json("/move", MOVE)
        assert answer["move"] in MOVE["legal_moves"]
        assert _post(url, BODY, {}).status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class PortRecorder(FunctionBot):
    """The example bot, noting the client port of every move request (one port: one connection)."""

    def __init__(self) -> None:
        super().__init__(minimal_choose, "ports", ["tricky-teams"])
        self.ports: set[str] = set()

    def move(self, message: dict[str, Any]) -> dict[str, Any]:
        """Record the caller's port, then choose."""
        address = client_address()
        self.ports.add(str(address[1] if address else None))
        return super().move(message)


def test_rule_one_connection_serves_a_whole_match() -> None:
    """Rule: SDK bots keep connections alive and BotSession reuses them (no reconnect per move)."""
    bot = PortRecorder()
    with BotServer(bot, SECRET) as server, BotSession(server.url, SECRET, policy=LOOPBACK) as session:
        for _ in range(10):
            session.post_json("/move", MOVE)
    assert len(bot.ports) == 1, bot.ports


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (b"POST /move HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411),
        (b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 411),
        (b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n", 413),
        (b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", 404),
    ],
    ids=["chunked", "bad-length", "too-large", "unknown-path"],
)
def test_rule_sdk_server_refuses_unframed_or_oversized_bodies(bot_url: str, raw: bytes, status: int) -> None:
    """Rule: bodies need a Content-Length of at most 1 MiB; anything else is refused before the bot runs."""
    host, port = bot_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(raw)
        answer = sock.recv(4096)
    assert answer.startswith(f"HTTP/1.1 {status} ".encode()), answer[:80]


@pytest.mark.parametrize(
    "payload",
    [
        MOVE,
        {key: value for key, value in MOVE.items() if key != "previous"},
        {**MOVE, "previous": None},
        {**MOVE, "seat": "1"},
        {**MOVE, "seat": True},
        {**MOVE, "seat": 16},
        {**MOVE, "deadline_ms": 0},
        {**MOVE, "deadline_ms": 1.0},
        {**MOVE, "match_id": ""},
        {**MOVE, "legal_moves": []},
        {**MOVE, "legal_moves": [["play"]]},
        {**MOVE, "view": []},
        {**MOVE, "previous": {"status": "replaced", "fault": "nonsense"}},
        {**MOVE, "previous": {"status": "accepted"}},
        {**MOVE, "extra": 1},
        [],
    ],
)
def test_rule_fast_move_check_agrees_with_the_schema(payload: Any) -> None:
    """Rule: the SDK's direct /move check accepts only what MoveRequestSchema accepts, loaded the same."""
    from marshmallow import ValidationError

    from bots.protocol import MoveRequestSchema
    from bots.sdk import _canonical_move_request

    fast = _canonical_move_request(payload)
    if payload is MOVE:
        assert fast is not None  # what the harness sends takes the direct path
    try:
        loaded = MoveRequestSchema().load(payload)
    except ValidationError:
        assert fast is None
    else:
        assert fast is None or fast == loaded
