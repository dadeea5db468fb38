"""Real HTTP bots on loopback for the harness tests: the SDK's random bot and fault injectors."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bots.bundled import make_bot
from bots.protocol import verify
from bots.sdk import BotServer
from core.bot_registry import BotRegistry

GAMES = ["tricky-teams", "trick-n-trouble"]
# Behaviours of the fault-injecting bot, each a real misbehaviour over real HTTP.
BEHAVIOURS = ("slow", "hang", "http500", "garbage", "illegal", "flaky")


class _FaultyHandler(BaseHTTPRequestHandler):
    server: FaultyBotServer
    protocol_version = "HTTP/1.1"  # keep-alive, so the harness's connection reuse is exercised
    disable_nagle_algorithm = True  # headers and body go out as separate writes: don't wait on ACKs

    def log_message(self, *args: Any) -> None:
        """Keep test output quiet."""

    def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the harness gave up on us (deadline): that is the point

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        """`GET /`: the bot's info."""
        if self.server.hello_status != 200:  # a bot that came up broken after its submission
            self._send(self.server.hello_status, b'{"error": "not ready"}')
            return
        info = {
            "name": f"faulty-{self.server.behaviour}",
            "author": "tests",
            "version": self.server.version,
            "games": GAMES,
        }
        self._send(200, json.dumps(info).encode())

    def do_POST(self) -> None:  # noqa: N802
        """`POST /start|/move|/end`: misbehave as configured on /move."""
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.server.secret is not None:
            verify(self.server.secret, body, dict(self.headers.items()))  # raises on a forged request
        self.server.requests += 1
        if self.path != "/move":
            self._send(200, b"{}")
            return
        message = json.loads(body)
        legal = message["legal_moves"]
        good = json.dumps({"move": self.server.rng.choice(legal)}).encode()
        behaviour = self.server.behaviour
        if message.get("previous") and message["previous"].get("fault"):
            self.server.faults_told.append(message["previous"]["fault"])
        if behaviour == "slow":
            time.sleep(self.server.delay_s)
            self._send(200, good)
        elif behaviour == "hang":
            time.sleep(30)
            self._send(200, good)
        elif behaviour == "http500":
            self._send(500, b'{"error": "boom"}')
        elif behaviour == "garbage":
            self._send(200, b"<html>not json", "text/html")
        elif behaviour == "illegal":
            self._send(200, json.dumps({"move": {"type": "resign"}}).encode())
        elif behaviour == "flaky":
            # every third request fails: a bot with some faults but under the threshold
            self._send(500 if self.server.requests % 3 == 0 else 200, good)
        else:
            self._send(200, good)


class FaultyBotServer(ThreadingHTTPServer):
    """A misbehaving bot on a free loopback port."""

    daemon_threads = True

    def __init__(self, behaviour: str, secret: str | None = None, delay_s: float = 0.3) -> None:
        super().__init__(("127.0.0.1", 0), _FaultyHandler)
        self.behaviour = behaviour
        self.secret = secret
        self.delay_s = delay_s
        self.rng = random.Random(7)
        self.requests = 0
        self.faults_told: list[str] = []
        self.hello_status = 200  # what `GET /` answers
        self.version = "1"  # the version `GET /` reports
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """Base URL."""
        return f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> FaultyBotServer:
        """Serve in the background."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving."""
        self.shutdown()
        self.server_close()


def refused_url() -> str:
    """A loopback URL where nothing listens (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def submit(registry: BotRegistry, name: str, url: str) -> tuple[str, str, str]:
    """Submit a bot through the registry (createBot's code path); (bot id, owner key, secret)."""
    created = registry.create(name, url, GAMES)
    return created.bot.id, created.owner_key, created.secret


def submit_faulty(registry: BotRegistry, server: FaultyBotServer, name: str) -> str:
    """Submit a fault-injecting bot and give it its signing secret; the bot id."""
    bot_id, _owner, secret = submit(registry, name, server.url)
    server.secret = secret
    return bot_id


@contextmanager
def owned_faulty_bot(registry: BotRegistry, behaviour: str, name: str) -> Iterator[tuple[str, str]]:
    """A fault-injecting bot (`FaultyBotServer`) submitted with its signing secret; (bot id, owner
    key); stopped afterwards."""
    server = FaultyBotServer(behaviour).start()
    try:
        bot_id, owner_key, secret = submit(registry, name, server.url)
        server.secret = secret
        yield bot_id, owner_key
    finally:
        server.stop()


@contextmanager
def random_bots(registry: BotRegistry, count: int, prefix: str = "random") -> Iterator[list[tuple[str, str]]]:
    """`count` bundled random bots (the SDK's server) submitted to the registry; [(bot id, owner key)].

    The signing secret only exists once the bot is submitted, so each bot is first served without
    one (enough for the submission probe, `GET /`), then served again with its secret and its URL
    updated through the registry (which probes the new URL too).
    """
    servers: list[BotServer] = []
    out: list[tuple[str, str]] = []
    try:
        for i in range(count):
            probe = BotServer(make_bot("random"), None).start()
            try:
                bot_id, owner_key, secret = submit(registry, f"{prefix}{i}-{uuid.uuid4().hex[:6]}", probe.url)
                server = BotServer(make_bot("random"), secret).start()
                servers.append(server)
                registry.update(bot_id, owner_key, url=server.url)
            finally:
                probe.stop()
            out.append((bot_id, owner_key))
        yield out
    finally:
        for server in servers:
            server.stop()


@contextmanager
def delayed_bots(registry: BotRegistry, count: int, delay_s: float, prefix: str) -> Iterator[list[str]]:
    """`count` well-behaved bots (random legal moves) that answer every move after `delay_s`,
    submitted to the registry with their secrets; their ids."""
    servers = [FaultyBotServer("slow", delay_s=delay_s).start() for _ in range(count)]
    try:
        tag = uuid.uuid4().hex[:6]
        yield [submit_faulty(registry, server, f"{prefix}{i}-{tag}") for i, server in enumerate(servers)]
    finally:
        for server in servers:
            server.stop()
