"""SDK rules: a served function answers signed requests and refuses forged, unsigned or stale ones."""

from __future__ import annotations

import json
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import orjson
import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from bots.arena import BotClient
from bots.examples.minimal import choose as minimal_choose
from bots.protocol import SIGNATURE_HEADER, TIMESTAMP_HEADER, MoveRequestSchema, sign
from bots.sdk import BotServer, FunctionBot, _canonical_move_request, client_address, create_app

SECRET = "sdk-test-secret"
MOVE: dict[str, Any] = {
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
    with BotClient(bot_url, SECRET) as client:
        assert client.post_json("/move", MOVE) == {"move": {"type": "play", "card": "red-3"}}
        assert client.post_json(
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
        assert client.post_json(
            "/end", {"match_id": "m-1", "game": "tricky-teams", "seat": 1, "result": {"scores": [1, 2, 3, 4]}}
        ) == {"ok": True}


BODY = json.dumps(MOVE).encode()


# The headers are made when the test runs, not when it is collected: a signature made at collection
# is stale by the time a long suite reaches the test.
@pytest.mark.parametrize(
    ("headers", "code"),
    [
        (lambda: {}, "missing_signature"),
        (lambda: sign("not-the-secret", BODY), "bad_signature"),
        (lambda: sign(SECRET, BODY, int(time.time()) - 3600), "stale_signature"),
        (lambda: sign(SECRET, BODY.replace(b"red-3", b"red-4")), "bad_signature"),
        (lambda: {TIMESTAMP_HEADER: "1e9", SIGNATURE_HEADER: "sha256=abc"}, "bad_timestamp"),
    ],
    ids=["unsigned", "forged", "stale-replay", "body-swapped", "bad-timestamp"],
)
def test_rule_sdk_refuses_forged_unsigned_and_stale_requests(
    bot_url: str, headers: Callable[[], dict[str, str]], code: str
) -> None:
    """Rule: the SDK answers 401 with a code to any request not signed now with the secret."""
    resp = _post(bot_url, BODY, headers())
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
        with BotClient(url, SECRET) as client:
            answer = client.post_json("/move", MOVE)
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
    """Rule: SDK bots keep connections alive: a keep-alive client never reconnects per move."""
    bot = PortRecorder()
    with BotServer(bot, SECRET) as server, BotClient(server.url, SECRET) as client:
        for _ in range(10):
            client.post_json("/move", MOVE)
    assert len(bot.ports) == 1, bot.ports


def _read_answer(reader: BinaryIO, head: bool = False) -> tuple[int, dict[str, str], bytes]:
    """One HTTP answer off a raw connection: (status, headers by lower-case name, body)."""
    status_line = reader.readline()
    assert status_line.startswith(b"HTTP/1.1 "), status_line
    headers: dict[str, str] = {}
    while (line := reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    body = b"" if head else reader.read(int(headers.get("content-length", "0")))
    return int(status_line.split()[1]), headers, body


@contextmanager
def _raw_connection(url: str) -> Iterator[tuple[socket.socket, BinaryIO]]:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock, sock.makefile("rb") as reader:
        yield sock, reader


def _signed_move(version: str = "HTTP/1.1", extra: str = "", path: str = "/move") -> bytes:
    headers = "".join(f"{name}: {value}\r\n" for name, value in sign(SECRET, BODY).items())
    head = f"POST {path} {version}\r\nHost: bot\r\nContent-Length: {len(BODY)}\r\n{headers}{extra}\r\n"
    return head.encode() + BODY


@pytest.mark.parametrize(
    ("version", "connection", "kept"),
    [
        ("HTTP/1.1", None, True),
        ("HTTP/1.1", "close", False),
        ("HTTP/1.0", None, False),
        ("HTTP/1.0", "keep-alive", True),
    ],
)
def test_rule_http_1_0_and_1_1_connections_are_kept_or_closed_as_asked(
    bot_url: str, version: str, connection: str | None, kept: bool
) -> None:
    """Rule: HTTP/1.1 connections stay open unless `Connection: close`; HTTP/1.0 only with keep-alive."""
    extra = f"Connection: {connection}\r\n" if connection else ""
    with _raw_connection(bot_url) as (sock, reader):
        sock.sendall(_signed_move(version, extra))
        status, headers, body = _read_answer(reader)
        assert (status, json.loads(body)) == (200, {"move": MOVE["legal_moves"][0]})
        if kept:
            assert headers.get("connection", "keep-alive") == "keep-alive"
            sock.sendall(_signed_move(version, extra))
            assert _read_answer(reader)[0] == 200
        else:
            assert headers["connection"] == "close"
            assert reader.read(1) == b""  # closed by the bot


def test_rule_pipelined_requests_are_answered_in_order(bot_url: str) -> None:
    """Rule: requests sent back to back on one connection (HEAD included) each get their own answer."""
    with _raw_connection(bot_url) as (sock, reader):
        sock.sendall(
            _signed_move()
            + b"HEAD / HTTP/1.1\r\nHost: bot\r\n\r\n"
            + b"GET / HTTP/1.1\r\nHost: bot\r\n\r\n"
            + _signed_move(extra="Connection: close\r\n")
        )
        move = _read_answer(reader)
        head = _read_answer(reader, head=True)
        info = _read_answer(reader)
        last = _read_answer(reader)
        assert reader.read(1) == b""
    assert move[0] == head[0] == info[0] == last[0] == 200
    assert head[2] == b"" and int(head[1]["content-length"]) == len(info[2]) > 0
    assert json.loads(info[2])["name"] == "minimal"


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        (
            b"POST /move HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            411,
            "length_required",
        ),
        (b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 411, "length_required"),
        ("POST /move HTTP/1.1\r\nContent-Length: \xb2\r\n\r\n".encode("latin-1"), 411, "length_required"),
        (b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n", 413, "body_too_large"),
        (b"POST /move HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}", 400, "bad_request"),
        (b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Length : 2\r\n\r\n{}", 400, "bad_request"),
        (
            b"POST /move HTTP/1.1\r\nX: y\r\n" * 1 + b"A: b\r\n" * 101 + b"\r\n",
            431,
            "request_header_fields_too_large",
        ),
        (b"BREW /move HTTP/1.1\r\nHost: x\r\n\r\n", 501, "not_implemented"),
    ],
    ids=[
        "chunked",
        "bad-length",
        "unicode-digit-length",
        "too-large",
        "repeated-length",
        "bad-header-line",
        "too-many-headers",
        "unknown-method",
    ],
)
def test_rule_sdk_server_refuses_unframed_or_oversized_bodies(
    bot_url: str, raw: bytes, status: int, code: str
) -> None:
    """Rule: a body needs one Content-Length of at most 1 MiB; any request the server can't frame is
    refused before the bot runs, with a JSON error, and its connection closed (never misread)."""
    with _raw_connection(bot_url) as (sock, reader):
        sock.sendall(raw)
        answer = _read_answer(reader)
        assert reader.read(1) == b""
    assert answer[0] == status
    assert answer[1]["content-type"] == "application/json"
    assert json.loads(answer[2]) == {"code": code, "message": ANY_TEXT}


class _AnyText:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and bool(other)


ANY_TEXT: Any = _AnyText()


def test_rule_an_oversized_body_sent_whole_still_gets_its_413(bot_url: str) -> None:
    """Rule: the 413 of a body sent in full reaches the client (the bot reads the body off first,
    within bounds), instead of a reset that closing on an unread body would send."""
    big = b"x" * (4 * 1024 * 1024)
    with _raw_connection(bot_url) as (sock, reader):
        sock.sendall(b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(big) + big)
        status, _, body = _read_answer(reader)
        assert reader.read(1) == b""
    assert (status, json.loads(body)["code"]) == (413, "body_too_large")
    resp = requests.post(bot_url + "/move", data=big[: 2 * 1024 * 1024], timeout=5)
    assert (resp.status_code, resp.json()["code"]) == (413, "body_too_large")


def test_rule_expect_100_continue_is_answered_before_the_body(bot_url: str) -> None:
    """Rule: `Expect: 100-continue` gets a 100 (then the answer), or a 413 at once for a body too large."""
    signed = "".join(f"{name}: {value}\r\n" for name, value in sign(SECRET, BODY).items())
    with _raw_connection(bot_url) as (sock, reader):
        head = f"POST /move HTTP/1.1\r\nHost: x\r\nContent-Length: {len(BODY)}\r\nExpect: 100-continue\r\n"
        sock.sendall((head + signed + "\r\n").encode())
        assert reader.readline() == b"HTTP/1.1 100 Continue\r\n" and reader.readline() == b"\r\n"
        sock.sendall(BODY)
        assert _read_answer(reader)[0] == 200
        sock.sendall(
            b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\nExpect: 100-continue\r\n\r\n"
        )
        status, _, body = _read_answer(reader)
        assert reader.read(1) == b""
    assert (status, json.loads(body)["code"]) == (413, "body_too_large")


@pytest.mark.parametrize(
    ("request_line", "status", "code", "allow"),
    [
        ("GET /nowhere", 404, "not_found", None),
        ("POST /nowhere", 404, "not_found", None),
        ("GET /move", 405, "method_not_allowed", "POST"),
        ("DELETE /", 405, "method_not_allowed", "GET, HEAD"),
    ],
)
def test_rule_unknown_routes_are_json_errors_on_a_live_connection(
    bot_url: str, request_line: str, status: int, code: str, allow: str | None
) -> None:
    """Rule: a 404 or 405 is a JSON `{"code", "message"}` (405 with `Allow`); the connection stays usable."""
    with _raw_connection(bot_url) as (sock, reader):
        sock.sendall(f"{request_line} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{{}}".encode())
        answer = _read_answer(reader)
        sock.sendall(_signed_move())
        assert _read_answer(reader)[0] == 200
    assert (answer[0], json.loads(answer[2])["code"], answer[1].get("allow")) == (status, code, allow)


class Crasher(FunctionBot):
    """The example bot, with a bug in its move."""

    def __init__(self) -> None:
        super().__init__(minimal_choose, "crasher", ["tricky-teams"])

    def move(self, message: dict[str, Any]) -> dict[str, Any]:
        """Fail."""
        raise ZeroDivisionError("bug in the bot")


def test_rule_a_bug_in_the_bot_is_a_500_not_a_dropped_connection(caplog: pytest.LogCaptureFixture) -> None:
    """Rule: an exception in the bot's hook is answered 500 `internal_error` and logged; the
    connection goes on serving."""
    with BotServer(Crasher(), SECRET) as server, _raw_connection(server.url) as (sock, reader):
        sock.sendall(_signed_move())
        status, _, body = _read_answer(reader)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _read_answer(reader)[0] == 200
    assert (status, json.loads(body)["code"]) == (500, "internal_error")
    assert "ZeroDivisionError" in caplog.text


def test_rule_a_client_hanging_up_is_routine(bot_url: str, capfd: pytest.CaptureFixture[str]) -> None:
    """Rule: a client resetting its connection (as the harness does at a deadline) prints nothing."""
    with _raw_connection(bot_url) as (sock, reader):
        sock.sendall(_signed_move())
        assert _read_answer(reader)[0] == 200
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close: reset
    time.sleep(0.3)
    assert "Traceback" not in capfd.readouterr().err


def test_rule_the_wsgi_app_answers_like_the_sdk_server() -> None:
    """Rule: `create_app` (for hosting a bot under a WSGI server) checks signatures, bounds bodies
    and words errors as the SDK's own server does."""
    client = create_app(FunctionBot(minimal_choose, "minimal", ["tricky-teams"]), SECRET).test_client()
    assert client.get("/").get_json()["name"] == "minimal"
    signed = client.post("/move", data=BODY, headers=sign(SECRET, BODY))
    assert (signed.status_code, signed.get_json()) == (200, {"move": MOVE["legal_moves"][0]})
    forged = client.post("/move", data=BODY, headers=sign("not-the-secret", BODY))
    assert (forged.status_code, forged.get_json()["code"]) == (401, "bad_signature")
    big = b"x" * (1024 * 1024 + 1)
    too_large = client.post("/move", data=big, headers=sign(SECRET, big))
    assert (too_large.status_code, too_large.get_json()["code"]) == (413, "body_too_large")
    assert client.get("/nowhere").get_json()["code"] == "not_found"
    wrong_method = client.get("/move")
    assert (wrong_method.status_code, wrong_method.headers["Allow"]) == (405, "POST")
    crashing = (
        create_app(Crasher(), SECRET).test_client().post("/move", data=BODY, headers=sign(SECRET, BODY))
    )
    assert (crashing.status_code, crashing.get_json()["code"]) == (500, "internal_error")


def _fast_check_agrees_with_the_schema(payload: Any) -> None:
    # The check is given bodies decoded from JSON: round-trip through JSON as the server does.
    payload = orjson.loads(orjson.dumps(payload))
    fast = _canonical_move_request(payload)
    try:
        loaded = MoveRequestSchema().load(payload)
    except ValidationError:
        assert fast is None
    else:
        assert fast is None or fast == loaded


@pytest.mark.parametrize(
    "payload",
    [
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
        {**MOVE, "previous": {"status": [], "fault": None}},
        {**MOVE, "previous": {"status": "replaced", "fault": {}}},
        {**MOVE, "extra": 1},
        [],
    ],
)
def test_rule_fast_move_check_agrees_with_the_schema(payload: Any) -> None:
    """Rule: the SDK's direct /move check accepts only what MoveRequestSchema accepts, loaded the same."""
    assert _canonical_move_request(MOVE) is not None  # what the harness sends takes the direct path
    _fast_check_agrees_with_the_schema(payload)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 20) | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
FIELD_VALUES = JSON_VALUES | st.sampled_from(
    [
        "x" * 129,
        [{"card": "red-3"}, []],
        {"status": "replaced", "fault": "timeout"},
        {"status": [], "fault": None},
        {"status": "accepted", "fault": ["timeout"]},
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    changed=st.dictionaries(st.sampled_from([*MOVE, "extra"]), FIELD_VALUES, max_size=3),
    dropped=st.sets(st.sampled_from(list(MOVE)), max_size=2),
)
def test_rule_fast_move_check_agrees_with_the_schema_on_any_json(
    changed: dict[str, Any], dropped: set[str]
) -> None:
    """Property: for any JSON body near a valid move request, the direct check and the schema agree
    (and the check never raises: a bad body is a 400, not a 500)."""
    payload = {key: value for key, value in {**MOVE, **changed}.items() if key not in dropped}
    _fast_check_agrees_with_the_schema(payload)
