"""schemathesis over the challenge operations (issue 28), with real open bots on loopback: every phase,
every check."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import LiveServer
from tests.api.schemathesis_util import RealWorld, assert_every_operation_covered, run_schemathesis
from tests.harness.bot_servers import random_bots
from tests.harness.test_tournaments_schemathesis import loopback_app

OPERATIONS = ["createChallenge", "getChallenge"]
MIN_CASES = 100
MIN_CASES_PER_OPERATION = 5


@pytest.mark.slow  # generated requests: `make test` runs it, `make test-fast` does not
def test_schemathesis_over_challenge_operations_finds_no_failure(
    redis_url: str, key_prefix: str, queue_name: str, ctx: Any
) -> None:
    """Rule: generated cases over createChallenge and getChallenge pass every check of schemathesis,
    with real bots open to challenges (no worker: the challenges stay queued); each operation answers
    2xx at least once."""
    # Every generated request comes from one address: no hourly or in-flight caps here
    # (tests/harness/test_challenges.py pins them).
    uncapped = {"per_address_per_hour": 0, "per_key_per_hour": 0, "per_bot": 0, "per_person": 0}
    client, registry, app = loopback_app(
        redis_url, key_prefix, queue_name, TRICKARENA_CHALLENGE_LIMITS=uncapped
    )
    with random_bots(registry, 3, prefix="challenged") as bots, LiveServer(app) as server:
        for bot_id, key in bots:
            registry.update(bot_id, key, open_to_challenges=True)
        world = RealWorld(bots=dict(bots))
        run = run_schemathesis(server.url, OPERATIONS, max_examples=25, world=world)
    client.close()
    print(run.report())
    assert run.errors == [], "\n".join(run.errors)
    assert run.failures == [], "\n".join(run.failures[:15])
    assert sum(run.cases.values()) >= MIN_CASES, run.cases
    assert_every_operation_covered(run, OPERATIONS, MIN_CASES_PER_OPERATION)
