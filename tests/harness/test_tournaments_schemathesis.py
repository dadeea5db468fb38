"""schemathesis over the tournament and league operations: no 500, responses match openapi."""

from __future__ import annotations

from typing import Any

from api.app import create_app
from tests.api.schemathesis_util import run_schemathesis

OPERATIONS = [
    "createTournament",
    "getTournament",
    "listTournamentMatches",
    "getTournamentStandings",
    "cancelTournament",
    "getTournamentMatch",
    "createLeague",
    "getLeague",
    "joinLeague",
    "leaveLeague",
    "getLeagueStandings",
    "listTournaments",
    "listLeagues",
    "rotateTournamentKey",
    "rotateLeagueKey",
]
# A schema can't say "this bot exists" or "this key is the owner's": those answers are the contract's.
POSITIVE_EXPECTED = ["2xx", "401", "403", "404", "409", "422"]


def test_schemathesis_over_tournament_operations_finds_no_failure(
    redis_url: str, key_prefix: str, queue_name: str, ctx: Any
) -> None:
    """Rule: generated requests (examples, coverage, fuzzing) never get a 500 or an undocumented answer."""
    app = create_app(
        {"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix, "TRICKARENA_QUEUE": queue_name}
    )
    run = run_schemathesis(
        app, OPERATIONS, POSITIVE_EXPECTED, max_examples=25, phases=["examples", "coverage", "fuzzing"]
    )
    cases, failures, errors = run.cases, run.failures, run.errors
    assert errors == []
    assert failures == [], "\n".join(failures[:15])
    assert sum(cases.values()) >= 200, cases
