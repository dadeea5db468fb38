"""schemathesis over the tournament and league operations: no 500, responses match openapi."""

from __future__ import annotations

import collections
from typing import Any

import schemathesis
from schemathesis.engine import Status, events, from_schema

from api.app import create_app

OPERATIONS = [
    "createTournament",
    "getTournament",
    "listTournamentMatches",
    "getTournamentStandings",
    "cancelTournament",
    "createLeague",
    "getLeague",
    "joinLeague",
    "leaveLeague",
    "getLeagueStandings",
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
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app).include(operation_id=OPERATIONS)
    config = schema.config
    config.checks.update(included_check_names=["all"])
    config.checks.positive_data_acceptance.expected_statuses = POSITIVE_EXPECTED
    config.generation.update(max_examples=25)
    config.phases.update(phases=["examples", "coverage", "fuzzing"])
    cases: collections.Counter[str] = collections.Counter()
    failures: list[str] = []
    errors: list[str] = []
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            cases[str(event.phase)] += len(event.recorder.cases)
            for case_id, checks in event.recorder.checks.items():
                for check in checks:
                    if check.status == Status.FAILURE:
                        case = event.recorder.cases[case_id].value
                        info = check.failure_info.failure if check.failure_info else None
                        failures.append(
                            f"{check.name}: {case.method} {case.formatted_path} {case.body!r}: {info}"
                        )
        elif isinstance(event, (events.NonFatalError, events.FatalError)):
            errors.append(repr(event))
    assert errors == []
    assert failures == [], "\n".join(failures[:15])
    assert sum(cases.values()) >= 200, cases
