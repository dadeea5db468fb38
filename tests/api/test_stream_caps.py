"""Event streams: one Redis read per game and move for all of a process's streams, and the caps on
open streams per client address (counted in Redis, across processes) and per process.

Rules pinned (issue 26; docs/operations.md, Limits): past `TRICKARENA_SSE_MAX_PER_ADDRESS` open
streams an address gets 429 `too_many_streams`, past `TRICKARENA_SSE_MAX_STREAMS` a process answers
503 `streams_full`, both with `Retry-After` and nothing opened; a stream that ends frees its slot;
a sealed game is refused before its stream starts; a lost subscription is made again.
"""

from __future__ import annotations

import http.client
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask import Flask

from api.context import app_context
from core.redis_server import start_redis_server
from tests.api.conftest import LiveServer, auth, create, make_app, tokens_of


class Stream:
    """An event stream opened from a loopback source address; its status, headers and body so far."""

    def __init__(self, server: LiveServer, path: str, source: str) -> None:
        host, port = server.url.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(source, 0))
        self.connection.request("GET", path)
        self.response = self.connection.getresponse()
        self.status = self.response.status

    def error(self) -> tuple[dict[str, Any], str | None]:
        """The JSON error body and Retry-After of a refused stream."""
        return json.loads(self.response.read()), self.response.getheader("Retry-After")

    def read_until(self, text: str) -> str:
        """The stream's lines up to one containing `text`."""
        seen: list[str] = []
        while True:
            line = self.response.fp.readline().decode()
            assert line, f"the stream ended before {text!r}: {seen}"
            seen.append(line)
            if text in line:
                return "".join(seen)

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()


@pytest.fixture()
def capped_app(redis_url: str, key_prefix: str) -> Flask:
    """An app that allows 2 open streams per address and 3 per process."""
    return make_app(
        redis_url,
        key_prefix,
        TRICKARENA_SSE_MAX_SECONDS=30,
        TRICKARENA_SSE_MAX_PER_ADDRESS=2,
        TRICKARENA_SSE_MAX_STREAMS=3,
    )


@pytest.fixture()
def capped(capped_app: Flask) -> Iterator[LiveServer]:
    """`capped_app` over real HTTP."""
    with LiveServer(capped_app) as server:
        yield server


def test_streams_past_the_caps_get_429_or_503_with_retry_after(capped: LiveServer, capped_app: Flask) -> None:
    """Rule: the third stream of one address is 429 too_many_streams, the fourth of the process 503
    streams_full, both with Retry-After and details.limit; a stream that ends frees its slots."""
    game_id = create(capped_app.test_client(), "trick-n-trouble", 3, seed=3)["game_id"]
    path = f"/games/{game_id}/events/stream"
    streams = [Stream(capped, path, "127.0.0.1"), Stream(capped, f"{path}?timeout=1", "127.0.0.1")]
    try:
        assert [s.status for s in streams] == [200, 200]
        refused = Stream(capped, path, "127.0.0.1")
        error, retry_after = refused.error()
        assert refused.status == 429 and error["code"] == "too_many_streams", error
        assert retry_after is not None and 1 <= int(retry_after) <= 35 and error["details"]["limit"] == 2
        streams.append(Stream(capped, path, "127.0.0.2"))  # another address: the process's third
        assert streams[-1].status == 200
        full = Stream(capped, path, "127.0.0.3")
        error, retry_after = full.error()
        assert full.status == 503 and error["code"] == "streams_full" and retry_after == "1", error
        assert error["details"]["limit"] == 3
        assert app_context(capped_app).events.open_streams == 3
        streams[1].read_until("timeout")  # the 1-second stream ends by itself: its slots are free
        deadline = time.monotonic() + 5
        while app_context(capped_app).events.open_streams > 2:
            assert time.monotonic() < deadline, "the ended stream still counts"
            time.sleep(0.05)
        streams.append(Stream(capped, path, "127.0.0.1"))
        assert streams[-1].status == 200
    finally:
        for stream in streams:
            stream.close()


def test_the_per_address_cap_holds_across_processes(redis_url: str, key_prefix: str) -> None:
    """Rule: the address's open streams are counted in Redis, so a second API process (another app
    on the same Redis and prefix) refuses the address's third stream too."""
    apps = [
        make_app(redis_url, key_prefix, TRICKARENA_SSE_MAX_SECONDS=30, TRICKARENA_SSE_MAX_PER_ADDRESS=2)
        for _ in range(2)
    ]
    game_id = create(apps[0].test_client(), "trick-n-trouble", 3, seed=4)["game_id"]
    path = f"/games/{game_id}/events/stream"
    with LiveServer(apps[0]) as first, LiveServer(apps[1]) as second:
        streams = [Stream(first, path, "127.0.0.5"), Stream(first, path, "127.0.0.5")]
        try:
            assert [s.status for s in streams] == [200, 200]
            refused = Stream(second, path, "127.0.0.5")
            assert refused.status == 429 and refused.error()[0]["code"] == "too_many_streams"
            streams.append(Stream(second, path, "127.0.0.6"))
            assert streams[-1].status == 200
        finally:
            for stream in streams:
                stream.close()


def test_one_read_per_move_serves_every_stream_of_the_game(live_server: LiveServer, app: Flask) -> None:
    """Rule: a process reads each move's events once, whatever the number of its streams of that
    game (no read per stream, no reload of the game per event), and every stream gets them."""
    client = app.test_client()
    created = create(client, "tricky-teams", 4, seed=2)
    game_id, tokens = created["game_id"], tokens_of(created)
    path = f"/games/{game_id}/events/stream?timeout=3"
    streams = [Stream(live_server, path, f"127.0.0.{10 + n}") for n in range(8)]
    try:
        for stream in streams:
            assert stream.status == 200
            stream.read_until("id: 1-4")  # the setup events, read by each stream on opening
        hub = app_context(app).events
        reads = hub.reads
        rng = random.Random(2)
        for _ in range(3):
            view = client.get(f"/games/{game_id}").get_json()
            seat = view["view"]["to_move"][0]
            legal = client.get(f"/games/{game_id}/legal-moves", headers=auth(tokens[seat])).get_json()
            moved = client.post(
                f"/games/{game_id}/moves", json=rng.choice(legal["legal_moves"]), headers=auth(tokens[seat])
            )
            assert moved.status_code == 200
            version = moved.get_json()["version"]
            for stream in streams:
                stream.read_until(f"id: {version}-0")
        assert hub.reads - reads <= 3, "one read per move for all 8 streams"
    finally:
        for stream in streams:
            stream.close()


def test_a_lost_subscription_is_made_again_and_nothing_is_missed() -> None:
    """Rule: when the hub's pub/sub connection is cut (a Redis restart, a network blip) it subscribes
    again and reads every watched game, so a move made while it was away still reaches the stream
    (a Redis of the test's own: its pub/sub clients are killed)."""
    handle = start_redis_server()
    try:
        app = make_app(handle.url, "ta-hub:", TRICKARENA_SSE_MAX_SECONDS=30)
        client = app.test_client()
        created = create(client, "tricky-teams", 4, seed=2)
        game_id, tokens = created["game_id"], tokens_of(created)
        admin = redis.Redis.from_url(handle.url)
        with LiveServer(app) as server:
            stream = Stream(server, f"/games/{game_id}/events/stream", "127.0.0.1")
            try:
                stream.read_until("id: 1-4")
                rng = random.Random(5)
                for _ in range(2):
                    assert admin.client_kill_filter(_type="pubsub") >= 1
                    view = client.get(f"/games/{game_id}").get_json()
                    seat = view["view"]["to_move"][0]
                    legal = client.get(f"/games/{game_id}/legal-moves", headers=auth(tokens[seat])).get_json()
                    moved = client.post(
                        f"/games/{game_id}/moves",
                        json=rng.choice(legal["legal_moves"]),
                        headers=auth(tokens[seat]),
                    )
                    stream.read_until(f"id: {moved.get_json()['version']}-0")
                    deadline = time.monotonic() + 10
                    while not admin.pubsub_numpat():
                        assert time.monotonic() < deadline, "the hub did not subscribe again"
                        time.sleep(0.05)
            finally:
                stream.close()
        admin.close()
    finally:
        app_context(app).events.close()
        handle.stop()


def test_a_sealed_games_stream_is_refused_before_it_starts(live_server: LiveServer, app: Flask) -> None:
    """Rule: a spectator's stream of a sealed (live tournament) game is 409 game_sealed and takes no
    slot; a seat of the game streams it."""
    created = app_context(app).service.create_game("trick-n-trouble", 3, seed=1, sealed=True)
    path = f"/games/{created.game_id}/events/stream?timeout=0"
    refused = Stream(live_server, path, "127.0.0.1")
    assert refused.status == 409 and refused.error()[0]["code"] == "game_sealed"
    assert app_context(app).events.open_streams == 0
    host, port = live_server.url.removeprefix("http://").split(":")
    seat = http.client.HTTPConnection(host, int(port), timeout=10)
    seat.request("GET", path, headers=auth(created.tokens[0]))
    answer = seat.getresponse()
    assert answer.status == 200 and 'data: {"reason": "timeout"}' in answer.read().decode()
    seat.close()
