"""schemathesis over the tournament and league operations, with real bots on loopback, tournaments and
leagues and their owner keys: every phase, every check."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest
import redis

from api.app import create_app
from core.bot_registry import BotRegistry
from core.outbound import AddressPolicy
from games.registry import GAMES
from harness.runner import run_match
from harness.tournaments import get_tournament, list_matches
from tests.api.conftest import LiveServer
from tests.api.schemathesis_util import RealWorld, assert_every_operation_covered, run_schemathesis
from tests.harness.bot_servers import random_bots

OPERATIONS = [
    "createTournament",
    "listTournaments",
    "getTournament",
    "rotateTournamentKey",
    "listTournamentMatches",
    "getTournamentMatch",
    "getTournamentStandings",
    "cancelTournament",
    "createLeague",
    "listLeagues",
    "getLeague",
    "rotateLeagueKey",
    "updateLeague",
    "deleteLeague",
    "joinLeague",
    "leaveLeague",
    "getLeagueStandings",
    # A match's game: who plays it, a seat's view for its bot's owner, the players' updates (#24).
    "getGamePlayers",
    "getGameSeatView",
    "streamGamePlayers",
]
MIN_CASES = 900
MIN_CASES_PER_OPERATION = 5


def loopback_app(
    redis_url: str, key_prefix: str, queue_name: str, **config: Any
) -> tuple[redis.Redis, BotRegistry, Any]:
    """The API app on the test database, prefix and queue, with a bot registry that reaches loopback
    bots (and `config` on top); its Redis client, registry and app."""
    client = redis.Redis.from_url(redis_url)
    loopback = AddressPolicy((ipaddress.ip_network("127.0.0.0/8"),))
    registry = BotRegistry(client, key_prefix, policy=loopback, probe_retry_s=0.2)
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "TRICKARENA_KEY_PREFIX": key_prefix,
            "TRICKARENA_QUEUE": queue_name,
            "TESTING": True,
            "TRICKARENA_BOT_REGISTRY": registry,
            "TRICKARENA_SSE_MAX_SECONDS": 0,  # a players stream answers its first document and ends
            **config,
        }
    )
    return client, registry, app


@pytest.mark.slow  # a minute of generated requests: `make test` runs it, `make test-fast` does not
def test_schemathesis_over_tournament_operations_finds_no_failure(
    redis_url: str, key_prefix: str, queue_name: str, ctx: Any
) -> None:
    """Rule: >= 900 generated cases over every tournament and league operation, every check of
    schemathesis passes, with real bots, tournaments and leagues and their owner keys; each operation
    answers 2xx at least once."""
    client, registry, app = loopback_app(redis_url, key_prefix, queue_name)
    api = app.test_client()
    with random_bots(registry, 6, prefix="contract") as bots, LiveServer(app) as server:
        world = RealWorld(bots=dict(bots))
        ids = [bot for bot, _ in bots]
        for name, game in sorted(GAMES.items()):
            body = {"game": name, "seats": game.showcase_seats, "entrants": ids[: game.showcase_seats]}
            made = api.post("/tournaments", json={**body, "owner_keys": [k for _, k in bots]})
            assert made.status_code == 201, made.get_json()
            world.tournaments[made.get_json()["tournament_id"]] = made.get_json()["owner_key"]
            league = api.post(
                "/leagues", json={"game": name, "seats": game.showcase_seats, "interval_s": 3600}
            )
            assert league.status_code == 201, league.get_json()
            world.leagues[league.get_json()["league_id"]] = league.get_json()["owner_key"]
        # One match played, its game known with the owner key of its seat 0's bot (getGameSeatView).
        tid = next(iter(world.tournaments))
        assert run_match(ctx, tid, 0).status == "recorded"
        match = list_matches(ctx, tid, 0, 1)[0]
        world.games[match["game_id"]] = (get_tournament(ctx, tid)["game"], [dict(bots)[match["seats"][0]]])
        run = run_schemathesis(server.url, OPERATIONS, max_examples=25, world=world)
    client.close()
    print(run.report())
    assert run.errors == [], "\n".join(run.errors)
    assert run.failures == [], "\n".join(run.failures[:15])
    assert sum(run.cases.values()) >= MIN_CASES, run.cases
    assert_every_operation_covered(run, OPERATIONS, MIN_CASES_PER_OPERATION)
