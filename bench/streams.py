"""Many open event streams against a Trick Arena API on this machine, and what the server still answers.

Opens N `GET /games/<id>/events/stream` connections to 127.0.0.1 (spread over a few games and over
loopback source addresses 127.0.1.x, so a per-address cap does not refuse them: Linux routes all of
127.0.0.0/8 to this machine), reads every one of them from one thread (a selector), and records
each stream's HTTP status and the event ids it received. While they are open it times getHealth
and a move (bench/slowloris.py's `health_and_move`) and checks that every stream received the
move's events.

    .venv/bin/python bench/streams.py --port 8000 [--streams 1000] [--games 4] [--seconds 30]

Bounded on purpose: loopback only, at most `MAX_STREAMS` streams and `MAX_SECONDS` seconds;
everything it opened is closed when it stops. `tests/ops/test_stream_load.py` runs it against the
API as `make run` serves it and as compose's command serves it.
"""

from __future__ import annotations

import argparse
import re
import selectors
import socket
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.slowloris import first_legal_move, health_and_move, loopback_only, timed  # noqa: E402

MAX_STREAMS = 2000
MAX_SECONDS = 300.0
STREAMS_PER_SOURCE = 8
EVENT_ID = re.compile(rb"^id: (\d+-\d+)$", re.M)


def source_address(index: int) -> str:
    """The loopback source address of the `index`-th stream (STREAMS_PER_SOURCE per address)."""
    n = index // STREAMS_PER_SOURCE
    return f"127.0.{1 + n // 250}.{1 + n % 250}"


class Streams:
    """Open event streams to one loopback port, read by a background thread until `stop`."""

    def __init__(
        self,
        port: int,
        paths: Sequence[str],
        count: int,
        host: str = "127.0.0.1",
        max_seconds: float = 120.0,
        source: str | None = None,
        first_source: int = 0,
    ) -> None:
        if not 0 < count <= MAX_STREAMS:
            raise ValueError(f"streams must be 1..{MAX_STREAMS}")
        self.host = loopback_only(host)
        self.port = port
        self.paths = list(paths)
        self.count = count
        self.max_seconds = min(max_seconds, MAX_SECONDS)
        self.source = source  # None: spread over 127.0.1.x (`source_address`)
        self.first_source = first_source
        self.selector = selectors.DefaultSelector()
        self.sockets: list[socket.socket] = []
        self.heads: list[bytes] = []  # each stream's bytes until its head ends, then its status line
        self.statuses: list[int] = []
        self.ids: list[set[str]] = []
        self.tails: list[bytes] = []
        self.closed = 0  # streams the server ended (or that failed)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def open(self, index: int) -> None:
        """Open stream `index` (game `paths[index % len(paths)]`) and register it for reading."""
        source = self.source or source_address(self.first_source + index)
        sock = socket.create_connection((self.host, self.port), timeout=10, source_address=(source, 0))
        path = self.paths[index % len(self.paths)]
        sock.sendall(f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
        sock.setblocking(False)
        with self._lock:
            self.sockets.append(sock)
            self.heads.append(b"")
            self.statuses.append(0)
            self.ids.append(set())
            self.tails.append(b"")
            self.selector.register(sock, selectors.EVENT_READ, index)

    def start(self, per_batch: int = 20, answer_s: float = 10.0) -> Streams:
        """Open every stream, `per_batch` at a time (each batch once the previous one is answered, or
        after `answer_s`), reading them from a background thread."""
        self._thread = threading.Thread(target=self._read, name="streams", daemon=True)
        self._thread.start()
        for first in range(0, self.count, per_batch):
            for index in range(first, min(first + per_batch, self.count)):
                self.open(index)
            deadline = time.monotonic() + answer_s
            while time.monotonic() < deadline and not all(self.statuses[first : index + 1]):
                time.sleep(0.01)
        return self

    def _read(self) -> None:
        deadline = time.monotonic() + self.max_seconds
        while not self._stop.is_set() and time.monotonic() < deadline:
            if not self.selector.get_map():
                time.sleep(0.05)
                continue
            for key, _ in self.selector.select(timeout=0.2):
                self._receive(key.fileobj, key.data)  # type: ignore[arg-type]

    def _receive(self, sock: socket.socket, index: int) -> None:
        try:
            data = sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        with self._lock:
            if not data:
                self.selector.unregister(sock)
                self.closed += 1
                return
            if not self.statuses[index]:
                head = self.heads[index] + data
                if b"\r\n\r\n" not in head:
                    self.heads[index] = head
                    return
                first, _, data = head.partition(b"\r\n\r\n")
                self.heads[index] = first
                self.statuses[index] = int(first.split(b" ", 2)[1])
            text = self.tails[index] + data
            cut = text.rfind(b"\n\n") + 2
            for match in EVENT_ID.finditer(text, 0, cut):
                self.ids[index].add(match.group(1).decode())
            self.tails[index] = text[cut:]

    def status_counts(self) -> dict[int, int]:
        """How many streams got each HTTP status (0: no answer yet)."""
        with self._lock:
            counts: dict[int, int] = {}
            for status in self.statuses:
                counts[status] = counts.get(status, 0) + 1
            return counts

    def open_streams(self) -> int:
        """Streams answered 200 that the server has not closed."""
        with self._lock:
            return sum(1 for s in self.sockets if s.fileno() >= 0 and self._registered(s))

    def _registered(self, sock: socket.socket) -> bool:
        try:
            self.selector.get_key(sock)
        except KeyError:
            return False
        return True

    def received(self, event_id: str, path: str) -> tuple[int, int]:
        """(streams of `path` that received event `event_id`, streams of `path` answered 200)."""
        with self._lock:
            mine = [i for i in range(len(self.sockets)) if self.paths[i % len(self.paths)] == path]
            ok = [i for i in mine if self.statuses[i] == 200]
            return sum(1 for i in ok if event_id in self.ids[i]), len(ok)

    def wait_received(self, event_id: str, path: str, timeout: float) -> tuple[int, int]:
        """`received`, once every stream of `path` has the event or after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            got, total = self.received(event_id, path)
            if got == total or time.monotonic() > deadline:
                return got, total
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop reading and close every stream."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            for sock in self.sockets:
                sock.close()
            self.selector.close()

    def __enter__(self) -> Streams:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def create_games(base: str, games: int) -> list[dict[str, Any]]:
    """`games` new 3-seat trick-n-trouble games (createGame answers)."""
    return [
        timed("POST", f"{base}/games", {"game": "trick-n-trouble", "seats": 3, "seed": n})[1]
        for n in range(games)
    ]


def move(base: str, created: dict[str, Any]) -> tuple[float, str]:
    """One postMove in `created`'s game: (seconds, the id of the move's first event)."""
    seconds, moved = first_legal_move(base, created)
    return seconds, f"{moved['version']}-0"


def main(argv: list[str] | None = None) -> int:
    """Open the streams, time getHealth and moves while they are open, check delivery, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="a loopback address")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to keep them open")
    args = parser.parse_args(argv)
    base = f"http://{loopback_only(args.host)}:{args.port}"
    games = create_games(base, args.games)
    paths = [urlsplit(f"{base}/games/{g['game_id']}/events/stream").path for g in games]
    worst: dict[str, float] = {}
    missing = 0
    # The reader outlives the timed loop: opening the streams, and the last round's wait, come on top.
    with Streams(args.port, paths, args.streams, args.host, args.seconds + 60) as streams:
        deadline = time.monotonic() + min(args.seconds, MAX_SECONDS)
        rounds = 0
        while time.monotonic() < deadline:
            times = health_and_move(base)
            move_s, event_id = move(base, games[rounds % len(games)])
            times["stream_move_s"] = move_s
            got, total = streams.wait_received(event_id, paths[rounds % len(paths)], 5.0)
            missing += total - got
            for name, value in times.items():
                worst[name] = max(worst.get(name, 0.0), value)
            rounds += 1
            time.sleep(1.0)
        print(
            f"{args.streams} streams (statuses {streams.status_counts()}, {streams.closed} closed by the "
            f"server), {rounds} rounds, {missing} deliveries missing; worst: "
            + ", ".join(f"{name} {value * 1000:.0f} ms" for name, value in worst.items())
        )
    return 0 if missing == 0 and all(value < 1.0 for value in worst.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
