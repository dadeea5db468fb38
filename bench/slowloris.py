"""A bounded slowloris against a Trick Arena API on this machine, and what the server still answers.

Opens N connections to 127.0.0.1 that never finish their request: half send their headers one
short line at a time (`headers`), half send complete headers announcing a body and then trickle
the body one byte at a time (`body`). Each connection sends a little every `--interval` seconds,
so a server that reads a request in a thread of its own holds one thread per connection. While
they are open it times `GET /health` and a move (createGame, then postMove with the first legal
move), and prints the latencies.

    .venv/bin/python bench/slowloris.py --port 8000 [--connections 256] [--seconds 20]

Bounded on purpose: loopback addresses only (127.0.0.0/8, ::1), at most `MAX_CONNECTIONS`
connections and `MAX_SECONDS` seconds; everything it opened is closed when it stops.
`tests/ops/test_slow_clients.py` runs it against the API as `make run` serves it.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import socket
import sys
import threading
import time
import urllib.request
from typing import Any

MAX_CONNECTIONS = 1024
MAX_SECONDS = 300.0
DEFAULT_INTERVAL_S = 2.0


def loopback_only(host: str) -> str:
    """`host` if it is a loopback address (or `localhost`); ValueError otherwise."""
    address = "127.0.0.1" if host == "localhost" else host
    if not ipaddress.ip_address(address).is_loopback:
        raise ValueError(f"{host} is not a loopback address: this script only targets this machine")
    return address


class SlowLoris:
    """Slow connections to one loopback port, opened by `start` and kept trickling until `stop`."""

    def __init__(
        self,
        port: int,
        connections: int = 256,
        host: str = "127.0.0.1",
        interval_s: float = DEFAULT_INTERVAL_S,
        max_seconds: float = 120.0,
    ) -> None:
        if not 0 < connections <= MAX_CONNECTIONS:
            raise ValueError(f"connections must be 1..{MAX_CONNECTIONS}")
        self.host = loopback_only(host)
        self.port = port
        self.count = connections
        self.interval_s = interval_s
        self.max_seconds = min(max_seconds, MAX_SECONDS)
        self.sockets: list[tuple[socket.socket, str]] = []
        self.dropped = 0  # connections the server closed (or that failed) while trickling
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _open(self, mode: str) -> socket.socket:
        sock = socket.create_connection((self.host, self.port), timeout=5)
        if mode == "headers":
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        else:
            sock.sendall(
                b"POST /games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 60000\r\n\r\n{"
            )
        return sock

    def start(self) -> SlowLoris:
        """Open every connection (alternating modes), then trickle from a background thread."""
        for index in range(self.count):
            mode = "headers" if index % 2 == 0 else "body"
            self.sockets.append((self._open(mode), mode))
        self._thread = threading.Thread(target=self._trickle, name="slowloris", daemon=True)
        self._thread.start()
        return self

    def _trickle(self) -> None:
        deadline = time.monotonic() + self.max_seconds
        while not self._stop.wait(self.interval_s) and time.monotonic() < deadline:
            for sock, mode in list(self.sockets):
                try:
                    sock.sendall(b"X-Slow: 1\r\n" if mode == "headers" else b" ")
                except OSError:
                    self.dropped += 1
                    self.sockets.remove((sock, mode))
                    sock.close()

    def open_connections(self) -> int:
        """How many slow connections are still open (the server has not closed them)."""
        return len(self.sockets)

    def stop(self) -> None:
        """Stop trickling and close every connection."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.interval_s + 5)
        for sock, _mode in self.sockets:
            sock.close()
        self.sockets.clear()

    def __enter__(self) -> SlowLoris:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def timed(
    method: str, url: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[float, Any]:
    """Seconds one request took (on a fresh connection, 5 s timeout) and its JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=5) as answer:  # noqa: S310 (a loopback URL)
        payload = json.loads(answer.read())
    return time.monotonic() - started, payload


def health_and_move(base: str, game: str = "trick-n-trouble", seats: int = 3) -> dict[str, float]:
    """Latency (s) of getHealth, of createGame and of one postMove, in that order."""
    health_s, _ = timed("GET", f"{base}/health")
    create_s, created = timed("POST", f"{base}/games", {"game": game, "seats": seats, "seed": 7})
    move_s, _ = first_legal_move(base, created)
    return {"health_s": health_s, "create_s": create_s, "move_s": move_s}


def first_legal_move(base: str, created: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """postMove of the first legal move of the seat to move in `created`'s game (a createGame
    answer): (seconds the postMove took, its answer)."""
    game_url = f"{base}/games/{created['game_id']}"
    _, spectator = timed("GET", game_url)
    seat = spectator["view"]["to_move"][0]
    token = next(t["token"] for t in created["tokens"] if t["seat"] == seat)
    auth = {"Authorization": f"Bearer {token}"}
    _, listed = timed("GET", f"{game_url}/legal-moves", headers=auth)
    return timed("POST", f"{game_url}/moves", listed["legal_moves"][0], headers=auth)


def main(argv: list[str] | None = None) -> int:
    """Open the slow connections, time health and a move a few times while they are open, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="a loopback address")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--connections", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to keep them open")
    parser.add_argument("--interval", type=float, default=DEFAULT_INTERVAL_S, help="seconds between sends")
    args = parser.parse_args(argv)
    base = f"http://{loopback_only(args.host)}:{args.port}"
    worst: dict[str, float] = {}
    with SlowLoris(args.port, args.connections, args.host, args.interval, args.seconds) as loris:
        deadline = time.monotonic() + min(args.seconds, MAX_SECONDS)
        rounds = 0
        while time.monotonic() < deadline:
            try:
                times = health_and_move(base)
            except OSError as exc:
                print(f"round {rounds}: no answer ({exc})")
                times = {"health_s": float("inf"), "create_s": float("inf"), "move_s": float("inf")}
            for name, value in times.items():
                worst[name] = max(worst.get(name, 0.0), value)
            rounds += 1
            time.sleep(1.0)
        print(
            f"{args.connections} slow connections ({loris.open_connections()} still open, "
            f"{loris.dropped} closed by the server), {rounds} rounds; worst: "
            + ", ".join(f"{name} {value * 1000:.0f} ms" for name, value in worst.items())
        )
    return 0 if all(value < 1.0 for value in worst.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
