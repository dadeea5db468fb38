"""schemathesis against the bot operations: no 500, every answer matches openapi.yaml."""

from __future__ import annotations

import collections

import redis
import schemathesis
from schemathesis.engine import Status, events, from_schema

from api.app import create_app
from api.bot_registry import BotRegistry
from harness.outbound import AddressPolicy

BOT_OPERATIONS = ["createBot", "listBots", "getBot", "updateBot", "deleteBot"]
EXPECTED = ["2xx", "401", "403", "404", "409", "422"]


def _no_dns(host: str, port: int) -> list[str]:
    # Generated host names must not reach the network: every name is unresolvable here.
    raise OSError("no DNS in this test")


def test_rule_bot_operations_hold_their_contract_under_generated_input(
    redis_url: str, key_prefix: str
) -> None:
    """Rule: generated requests to the bot operations never get a 500 and every answer fits the schema."""
    registry = BotRegistry(
        redis.Redis.from_url(redis_url), key_prefix, policy=AddressPolicy(()), resolver=_no_dns
    )
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "TRICKARENA_KEY_PREFIX": key_prefix,
            "TESTING": True,
            "TRICKARENA_BOT_REGISTRY": registry,
        }
    )
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app).include(operation_id=BOT_OPERATIONS)
    schema.config.checks.update(included_check_names=["all"])
    schema.config.checks.positive_data_acceptance.expected_statuses = EXPECTED
    schema.config.generation.update(max_examples=40)
    cases: collections.Counter[str] = collections.Counter()
    failures: list[str] = []
    errors: list[str] = []
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            cases[event.recorder.label] += len(event.recorder.cases)
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
