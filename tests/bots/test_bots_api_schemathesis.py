"""schemathesis over the bot operations, with real bots served on loopback and their owner keys."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

import pytest
import redis

from api.app import create_app
from bots.bundled import make_bot
from bots.sdk import BotServer
from core.bot_registry import BotRegistry
from core.outbound import AddressPolicy
from tests.api.conftest import LiveServer
from tests.api.schemathesis_util import RealWorld, assert_every_operation_covered, run_schemathesis
from tests.harness.bot_servers import random_bots

BOT_OPERATIONS = [
    "createBot",
    "listBots",
    "getBot",
    "updateBot",
    "deleteBot",
    "checkBot",
    "rotateBotKeys",
    "listBotMatches",
]
MIN_CASES = 700
MIN_CASES_PER_OPERATION = 10


def _no_dns(host: str, port: int) -> list[str]:
    # Generated host names must not reach the network: every name is unresolvable here.
    raise OSError("no DNS in this test")


@pytest.fixture()
def registry(redis_url: str, key_prefix: str) -> Iterator[BotRegistry]:
    """A registry that reaches loopback bots only (a refused port is given up on after 0.2 s)."""
    client = redis.Redis.from_url(redis_url)
    loopback = AddressPolicy((ipaddress.ip_network("127.0.0.0/8"),))
    yield BotRegistry(client, key_prefix, policy=loopback, resolver=_no_dns, probe_retry_s=0.2)
    client.close()


@pytest.mark.slow  # half a minute of generated requests: `make test` runs it, `make test-fast` does not
def test_rule_bot_operations_hold_their_contract_under_generated_input(
    redis_url: str, key_prefix: str, registry: BotRegistry
) -> None:
    """Rule: every check of schemathesis passes over every bot operation (>= 700 cases, >= 10 each),
    with real bots on loopback and their owner keys, and each operation answers 2xx at least once."""
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "TRICKARENA_KEY_PREFIX": key_prefix,
            "TESTING": True,
            "TRICKARENA_BOT_REGISTRY": registry,
        }
    )
    # Bots not registered yet, for createBot and updateBot to move to (a URL is one owner's: url_taken).
    fresh = [BotServer(make_bot("random"), None).start() for _ in range(12)]
    try:
        with random_bots(registry, 6, prefix="contract") as bots, LiveServer(app) as server:
            urls = [registry.record(b).url for b, _ in bots] + [bot.url for bot in fresh]
            world = RealWorld(bots=dict(bots), bot_urls=urls)
            run = run_schemathesis(server.url, BOT_OPERATIONS, max_examples=60, world=world)
    finally:
        for bot in fresh:
            bot.stop()
    print(run.report())
    assert run.errors == [], "\n".join(run.errors)
    assert run.failures == [], "\n".join(run.failures[:15])
    assert sum(run.cases.values()) >= MIN_CASES, run.cases
    assert_every_operation_covered(run, BOT_OPERATIONS, MIN_CASES_PER_OPERATION)
