"""Running schemathesis against an app in-process: the setup the API, bots and tournaments suites share."""

from __future__ import annotations

import collections
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import schemathesis
from flask import Flask
from schemathesis.engine import Status, events, from_schema


@dataclass
class SchemathesisRun:
    """What one run found: generated cases per phase and per operation, failed checks, engine errors."""

    cases: collections.Counter[str] = field(default_factory=collections.Counter)
    cases_by_operation: collections.Counter[str] = field(default_factory=collections.Counter)
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def run_schemathesis(
    app: Flask,
    operations: Sequence[str],
    expected_statuses: Sequence[str],
    max_examples: int,
    phases: Sequence[str] | None = None,
) -> SchemathesisRun:
    """Every schemathesis check over `operations` of the app's /openapi.json (all phases unless given)."""
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app).include(operation_id=sorted(operations))
    config = schema.config
    config.checks.update(included_check_names=["all"])
    # Answers a schema cannot rule out (not your turn, no such bot, ...) are the contract's own.
    config.checks.positive_data_acceptance.expected_statuses = list(expected_statuses)
    config.generation.update(max_examples=max_examples)
    if phases is not None:
        config.phases.update(phases=list(phases))
    run = SchemathesisRun()
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            run.cases[str(event.phase)] += len(event.recorder.cases)
            run.cases_by_operation[event.recorder.label] += len(event.recorder.cases)
            for case_id, checks in event.recorder.checks.items():
                for check in checks:
                    if check.status == Status.FAILURE:
                        run.failures.append(_describe(event.recorder, case_id, check))
        elif isinstance(event, events.NonFatalError):
            run.errors.append(f"{event.label}: {event.value!r}")
        elif isinstance(event, events.FatalError):
            run.errors.append(f"fatal: {event.exception!r}")
    return run


def _describe(recorder: Any, case_id: str, check: Any) -> str:
    case = recorder.cases[case_id].value
    interaction = recorder.interactions.get(case_id)
    status = interaction.response.status_code if interaction and interaction.response else None
    info = check.failure_info.failure if check.failure_info else None
    request = f"{case.method} {case.formatted_path} body={case.body!r}"
    return f"{check.name} on {recorder.label}: {request} -> {status}: {info}"
