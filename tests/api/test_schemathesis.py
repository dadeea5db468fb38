"""schemathesis against the app: every phase (examples, coverage, fuzzing, stateful), every check."""

from __future__ import annotations

import collections
from typing import Any

import schemathesis
from flask import Flask
from schemathesis.engine import Status, events, from_schema

from tests.api.conftest import make_app
from tests.api.test_openapi import CONTRACT_OPERATIONS

MIN_CASES = 1000
MAX_EXAMPLES = 50

# A JSON Schema cannot say "legal now" or "your turn": a schema-valid move may still be
# refused by the rules (409 not your turn / game over, 412 stale If-Match, 422 illegal move,
# invalid options or deal).  Those are the contract's answers, so positive data may get them.
POSITIVE_EXPECTED = ["2xx", "401", "403", "404", "409", "412", "422"]


def _run(app: Flask) -> tuple[collections.Counter[str], list[str], list[str]]:
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    schema = schema.include(operation_id=sorted(CONTRACT_OPERATIONS))
    config = schema.config
    config.checks.update(included_check_names=["all"])
    config.checks.positive_data_acceptance.expected_statuses = POSITIVE_EXPECTED
    config.generation.update(max_examples=MAX_EXAMPLES)
    cases: collections.Counter[str] = collections.Counter()
    failures: list[str] = []
    errors: list[str] = []
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            cases[str(event.phase)] += len(event.recorder.cases)
            for case_id, checks in event.recorder.checks.items():
                for check in checks:
                    if check.status == Status.FAILURE:
                        failures.append(_describe(event.recorder, case_id, check))
        elif isinstance(event, events.NonFatalError):
            errors.append(f"{event.label}: {event.value!r}")
        elif isinstance(event, events.FatalError):
            errors.append(f"fatal: {event.exception!r}")
    return cases, failures, errors


def _describe(recorder: Any, case_id: str, check: Any) -> str:
    case = recorder.cases[case_id].value
    interaction = recorder.interactions.get(case_id)
    status = interaction.response.status_code if interaction and interaction.response else None
    info = check.failure_info.failure if check.failure_info else None
    request = f"{case.method} {case.formatted_path} body={case.body!r}"
    return f"{check.name} on {recorder.label}: {request} -> {status}: {info}"


def test_schemathesis_all_phases_all_checks_zero_failures(redis_url: str, key_prefix: str) -> None:
    """Rule: >= 1,000 generated cases over the contract's operations, all checks pass, no 500 anywhere."""
    app = make_app(redis_url, key_prefix, TRICKARENA_SSE_MAX_SECONDS=0)
    cases, failures, errors = _run(app)
    print(
        f"schemathesis cases per phase: {dict(cases)}, total {sum(cases.values())}, failures {len(failures)}"
    )
    assert errors == []
    assert failures == [], "\n".join(failures[:20])
    assert {"examples", "coverage", "fuzzing", "stateful"} <= {p.lower().rsplit(".", 1)[-1] for p in cases}, (
        cases
    )
    assert sum(cases.values()) >= MIN_CASES, cases
