"""schemathesis over the game operations, with real games and their seat tokens: every phase, every check."""

from __future__ import annotations

import random

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML is not a dependency)

from api.openapi_gen import spec_yaml
from tests.api.conftest import GAME_SETUPS, LiveServer, create, make_app, play_out, tokens_of
from tests.api.schemathesis_util import RealWorld, assert_every_operation_covered, run_schemathesis
from tests.api.test_openapi import CONTRACT_OPERATIONS
from tests.bots.test_bots_api_schemathesis import BOT_OPERATIONS
from tests.harness.test_challenges_schemathesis import OPERATIONS as CHALLENGE_OPERATIONS
from tests.harness.test_tournaments_schemathesis import OPERATIONS as TOURNAMENT_OPERATIONS

GAME_OPERATIONS = sorted(CONTRACT_OPERATIONS | {"postTrickyTeamsMove", "postTrickNTroubleMove"})
MIN_CASES = 1500
MIN_CASES_PER_OPERATION = 10
MAX_EXAMPLES = 50


@pytest.mark.slow  # a minute of generated requests: `make test` runs it, `make test-fast` does not
def test_schemathesis_all_phases_all_checks_zero_failures(redis_url: str, key_prefix: str) -> None:
    """Rule: >= 1,500 generated cases over every game operation, every check of schemathesis passes,
    with real games (running, waiting for players, finished) and their seat tokens; each operation
    answers 2xx at least once."""
    app = make_app(redis_url, key_prefix, TRICKARENA_SSE_MAX_SECONDS=0)
    client = app.test_client()
    world = RealWorld()
    for game, seats in GAME_SETUPS:
        created = create(client, game, seats)
        world.games[created["game_id"]] = (game, list(tokens_of(created).values()))
    game, seats = GAME_SETUPS[-1]
    waiting = create(client, game, seats, open_seats=[seats - 1])
    world.games[waiting["game_id"]] = (game, list(tokens_of(waiting).values()))
    finished = create(client, game, seats, seed=5)
    play_out([client], finished["game_id"], tokens_of(finished), random.Random(5))
    world.games[finished["game_id"]] = (game, list(tokens_of(finished).values()))
    with LiveServer(app) as server:
        run = run_schemathesis(server.url, GAME_OPERATIONS, MAX_EXAMPLES, world=world)
    print(run.report())
    assert run.errors == [], "\n".join(run.errors)
    assert run.failures == [], "\n".join(run.failures[:20])
    assert {"examples", "coverage", "fuzzing", "stateful"} <= set(run.cases), run.cases
    assert sum(run.cases.values()) >= MIN_CASES, run.cases
    assert_every_operation_covered(run, GAME_OPERATIONS, MIN_CASES_PER_OPERATION)


def test_every_operation_of_the_spec_is_in_a_schemathesis_run() -> None:
    """Rule: the four schemathesis tests together cover every operation of openapi.yaml, no more."""
    spec = yaml.safe_load(spec_yaml())
    operations = {
        op["operationId"] for path in spec["paths"].values() for op in path.values() if isinstance(op, dict)
    }
    covered = [*GAME_OPERATIONS, *BOT_OPERATIONS, *TOURNAMENT_OPERATIONS, *CHALLENGE_OPERATIONS]
    assert sorted(covered) == sorted(operations)
