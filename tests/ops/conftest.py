"""Ops fixtures: the real app served over HTTP on loopback, real bots, finished tournaments."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis
import requests
from werkzeug.serving import make_server

from api.app import create_app
from bots.bundled import GAME_NAMES, make_bot
from bots.sdk import BotServer

GAME_SEATS = {"tricky-teams": 4, "trick-n-trouble": 3}
# The arena's tournaments' names (one with characters a page must escape).
TOURNAMENT_NAMES = {"tricky-teams": "Spring <cup> & co", "trick-n-trouble": "Trick 'n Trouble open"}


@dataclass
class Served:
    """The app on a loopback port, its Redis key prefix and URL."""

    base: str
    prefix: str
    redis_url: str
    app: Any


@dataclass
class Arena:
    """A served app with two registered bundled bots and a finished tournament of each game."""

    served: Served
    bots: dict[str, str] = field(default_factory=dict)  # name -> bot id
    tournaments: dict[str, str] = field(default_factory=dict)  # game -> tournament id
    games: dict[str, str] = field(default_factory=dict)  # game -> id of one finished game
    league: str = ""  # a Tricky Teams league whose first round has been played


def _delete_prefix(redis_url: str, prefix: str, queue: str | None = None) -> None:
    """Delete our keys: the prefix's, and RQ's for our own queue and job ids (never anyone else's)."""
    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(match=prefix + "*", count=1000))
    if queue is not None:
        job_token = "ta_" + prefix.replace(":", "-")  # harness.jobs.job_id's form of the prefix
        ours = (queue.encode(), job_token.encode())
        keys += [k for k in client.scan_iter(match="rq:*", count=1000) if any(t in k for t in ours)]
        client.srem("rq:queues", f"rq:queue:{queue}")
    for start in range(0, len(keys), 500):
        client.delete(*keys[start : start + 500])
    client.close()


@pytest.fixture(scope="session")
def served(redis_url: str) -> Iterator[Served]:
    """The API app (app factory, every blueprint) served threaded on a free loopback port."""
    prefix = f"ta-test:{uuid.uuid4().hex[:12]}:"
    app = create_app({"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": prefix})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(f"http://127.0.0.1:{server.server_port}", prefix, redis_url, app)
    finally:
        server.shutdown()
        thread.join(timeout=10)
        _delete_prefix(redis_url, prefix)


@pytest.fixture(scope="session")
def arena(served: Served) -> Iterator[Arena]:
    """Bots submitted through createBot, one round-robin tournament per game played to the end, and
    a league whose first round is played the same way."""
    from harness.platform import register_bot
    from harness.runner import HarnessContext, run_match
    from harness.tournaments import (
        create_league,
        create_tournament,
        finalize_if_complete,
        get_tournament,
        join_league,
        run_league_round,
    )

    out = Arena(served)
    queue = f"ta-test-{uuid.uuid4().hex[:8]}"  # league rounds queue RQ jobs: our own queue, deleted after
    servers: list[BotServer] = []
    owner_keys: dict[str, str] = {}
    try:
        for name in ("random", "heuristic"):
            unsigned = BotServer(make_bot(name), None).start()
            reg = register_bot(served.base, name, unsigned.url, list(GAME_NAMES), None)
            unsigned.stop()
            servers.append(BotServer(make_bot(name), reg["secret"], port=unsigned.port).start())
            out.bots[name] = reg["bot_id"]
            owner_keys[name] = reg["owner_key"]
        ctx = HarnessContext.build(served.redis_url, served.prefix, queue)
        for game, seats in GAME_SEATS.items():
            options = {"raids": 1} if game == "tricky-teams" else None
            info = create_tournament(
                ctx,
                game,
                seats,
                list(out.bots.values()),
                deals=1,
                deadline_ms=300,
                options=options,
                seed=11,
                enqueue=False,
                name=TOURNAMENT_NAMES[game],
            )
            tid = info["tournament_id"]
            # The matches are the RQ jobs' work, played here in-process to keep the test short.
            for index in range(info["progress"]["total"]):
                assert run_match(ctx, tid, index).status == "recorded"
            finalize_if_complete(ctx, tid)
            assert get_tournament(ctx, tid)["status"] == "finished"
            out.tournaments[game] = tid
            out.games[game] = ctx.store.results(tid)[0]["game_id"]
        league = create_league(
            ctx,
            "tricky-teams",
            4,
            interval_s=3600,
            deadline_ms=300,
            name="Nightly",
            options={"raids": 1},
            enqueue=False,
        )
        out.league = league["league_id"]
        for name, bot_id in out.bots.items():
            join_league(ctx, out.league, bot_id, owner_keys[name])
        # What the scheduler's job would do at the round's time (it also queues the next round).
        round_tid = run_league_round(ctx, out.league, 1)
        assert round_tid is not None
        for index in range(get_tournament(ctx, round_tid)["progress"]["total"]):
            assert run_match(ctx, round_tid, index).status == "recorded"
        finalize_if_complete(ctx, round_tid)
        yield out
    finally:
        for server in servers:
            server.stop()
        _delete_prefix(served.redis_url, served.prefix, queue)


def new_game(base: str, game: str, seed: int = 5, **extra: Any) -> dict[str, Any]:
    """createGame over HTTP; the created document (game id, seat tokens)."""
    body: dict[str, Any] = {"game": game, "seats": GAME_SEATS[game], "seed": seed, **extra}
    answer = requests.post(f"{base}/games", json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created
