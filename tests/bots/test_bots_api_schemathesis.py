"""schemathesis against the bot operations: no 500, every answer matches openapi.yaml."""

from __future__ import annotations

import redis

from api.app import create_app
from core.bot_registry import BotRegistry
from core.outbound import AddressPolicy
from tests.api.schemathesis_util import run_schemathesis

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
    run = run_schemathesis(app, BOT_OPERATIONS, EXPECTED, max_examples=40)
    cases, failures, errors = run.cases_by_operation, run.failures, run.errors
    assert errors == []
    assert failures == [], "\n".join(failures[:15])
    assert sum(cases.values()) >= 200, cases
