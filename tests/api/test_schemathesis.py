"""schemathesis against the app: every phase (examples, coverage, fuzzing, stateful), every check."""

from __future__ import annotations

import pytest

from tests.api.conftest import make_app
from tests.api.schemathesis_util import run_schemathesis
from tests.api.test_openapi import CONTRACT_OPERATIONS

MIN_CASES = 1000
MAX_EXAMPLES = 50

# A JSON Schema cannot say "legal now" or "your turn": a schema-valid move may still be
# refused by the rules (409 not your turn / game over, 412 stale If-Match, 422 illegal move,
# invalid options or deal).  Those are the contract's answers, so positive data may get them.
POSITIVE_EXPECTED = ["2xx", "401", "403", "404", "409", "412", "422"]


@pytest.mark.slow  # a minute of generated requests: `make test` runs it, `make test-fast` does not
def test_schemathesis_all_phases_all_checks_zero_failures(redis_url: str, key_prefix: str) -> None:
    """Rule: >= 1,000 generated cases over the contract's operations, all checks pass, no 500 anywhere."""
    app = make_app(redis_url, key_prefix, TRICKARENA_SSE_MAX_SECONDS=0)
    run = run_schemathesis(app, CONTRACT_OPERATIONS, POSITIVE_EXPECTED, MAX_EXAMPLES)
    cases, failures, errors = run.cases, run.failures, run.errors
    print(
        f"schemathesis cases per phase: {dict(cases)}, total {sum(cases.values())}, failures {len(failures)}"
    )
    assert errors == []
    assert failures == [], "\n".join(failures[:20])
    assert {"examples", "coverage", "fuzzing", "stateful"} <= {p.lower().rsplit(".", 1)[-1] for p in cases}, (
        cases
    )
    assert sum(cases.values()) >= MIN_CASES, cases
