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
]
MIN_CASES = 900
MIN_CASES_PER_OPERATION = 5


@pytest.mark.slow  # a minute of generated requests: `make test` runs it, `make test-fast` does not
def test_schemathesis_over_tournament_operations_finds_no_failure(
    redis_url: str, key_prefix: str, queue_name: str, ctx: Any
) -> None:
    """Rule: >= 900 generated cases over every tournament and league operation, every check of
    schemathesis passes, with real bots, tournaments and leagues and their owner keys; each operation
    answers 2xx at least once."""
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
        }
    )
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
        run = run_schemathesis(server.url, OPERATIONS, max_examples=25, world=world)
    client.close()
    print(run.report())
    assert run.errors == [], "\n".join(run.errors)
    assert run.failures == [], "\n".join(run.failures[:15])
    assert sum(run.cases.values()) >= MIN_CASES, run.cases
    assert_every_operation_covered(run, OPERATIONS, MIN_CASES_PER_OPERATION)
