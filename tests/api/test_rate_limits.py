"""Rate limits (api/limits.py): per client address and per credential, in Redis, on every route.

The rest of the suite runs with `TRICKARENA_RATE_LIMITS=off` (tests/conftest.py); these apps turn
them on with small limits in their own configuration.
"""

from __future__ import annotations

from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from tests.api.conftest import auth, create, make_app, tokens_of


def limited_app(redis_url: str, key_prefix: str, per_address: str, per_key: str = "off") -> Flask:
    """An app with the given limits (per client address, per credential)."""
    return make_app(
        redis_url, key_prefix, TRICKARENA_RATE_LIMITS=per_address, TRICKARENA_KEY_RATE_LIMITS=per_key
    )


def from_address(address: str) -> dict[str, Any]:
    """Test-client arguments of a request coming from `address`."""
    return {"environ_base": {"REMOTE_ADDR": address}}


def assert_rate_limited(answer: Any) -> None:
    """429 with the API's error body, code rate_limited, and a Retry-After in whole seconds."""
    assert answer.status_code == 429, answer.get_json()
    body = answer.get_json()
    assert body["code"] == "rate_limited" and body["message"]
    retry_after = int(answer.headers["Retry-After"])
    assert 1 <= retry_after <= 60 and body["details"]["retry_after"] == retry_after


def test_per_address_limit_answers_429_rate_limited_with_retry_after_and_writes_nothing(
    redis_url: str, key_prefix: str, raw_redis: redis.Redis
) -> None:
    """Rule: the sixth request of an address within a minute (limit 5/minute) is 429 rate_limited, on
    any route; another address is not affected; the refused createGame wrote no game."""
    client = limited_app(redis_url, key_prefix, "5/minute").test_client()
    for _ in range(4):
        assert client.get("/game-types", **from_address("10.1.1.1")).status_code == 200
    assert (
        client.post(
            "/games", json={"game": "trick-n-trouble", "seats": 3}, **from_address("10.1.1.1")
        ).status_code
        == 201
    )
    games_before = list(raw_redis.scan_iter(match=f"{key_prefix}game:*"))
    refused = client.post("/games", json={"game": "trick-n-trouble", "seats": 3}, **from_address("10.1.1.1"))
    assert_rate_limited(refused)
    assert list(raw_redis.scan_iter(match=f"{key_prefix}game:*")) == games_before
    assert client.get("/game-types", **from_address("10.1.1.2")).status_code == 200
    # The counts live in Redis under the app's prefix (and go with it).
    assert list(raw_redis.scan_iter(match=f"{key_prefix}ratelimit*"))


def test_per_credential_limit_covers_post_move_wherever_the_token_comes_from(
    redis_url: str, key_prefix: str
) -> None:
    """Rule: a seat token's requests count together from every address, postMove included: the fourth
    request with it (limit 3/minute) is 429 though each came from another address."""
    setup = make_app(redis_url, key_prefix).test_client()  # limits off: set the game up
    created = create(setup, "trick-n-trouble", 3, seed=4)
    game_id, tokens = created["game_id"], tokens_of(created)
    seat = setup.get(f"/games/{game_id}").get_json()["view"]["to_move"][0]
    moves = setup.get(f"/games/{game_id}/legal-moves", headers=auth(tokens[seat])).get_json()["legal_moves"]

    client = limited_app(redis_url, key_prefix, "1000/minute", "3/minute").test_client()
    for n in range(3):
        answer = client.get(f"/games/{game_id}", headers=auth(tokens[seat]), **from_address(f"10.2.0.{n}"))
        assert answer.status_code == 200
    refused = client.post(
        f"/games/{game_id}/moves", json=moves[0], headers=auth(tokens[seat]), **from_address("10.2.0.9")
    )
    assert_rate_limited(refused)
    assert refused.get_json()["details"]["per"] == "credential"
    assert setup.get(f"/games/{game_id}").get_json()["version"] == created["version"]  # nothing applied
    # Another seat's token has its own count.
    other = next(s for s in tokens if s != seat)
    assert (
        client.get(f"/games/{game_id}", headers=auth(tokens[other]), **from_address("10.2.0.9")).status_code
        == 200
    )


def test_limits_hold_across_api_processes(redis_url: str, key_prefix: str) -> None:
    """Rule: two apps on the same Redis (two gunicorn workers, two machines) share one count."""
    first = limited_app(redis_url, key_prefix, "4/minute").test_client()
    second = limited_app(redis_url, key_prefix, "4/minute").test_client()
    for client in (first, second, first, second):
        assert client.get("/game-types", **from_address("10.3.0.1")).status_code == 200
    assert_rate_limited(first.get("/game-types", **from_address("10.3.0.1")))
    assert_rate_limited(second.get("/game-types", **from_address("10.3.0.1")))


def test_health_and_metrics_are_never_limited(redis_url: str, key_prefix: str) -> None:
    """Rule: a probe or a scrape never sees 429."""
    client = limited_app(redis_url, key_prefix, "2/minute").test_client()
    for _ in range(5):
        assert client.get("/health", **from_address("10.4.0.1")).status_code == 200
        assert client.get("/metrics", **from_address("10.4.0.1")).status_code == 200
        assert client.get("/metrics/platform", **from_address("10.4.0.1")).status_code == 200


def test_off_switch_and_malformed_settings(redis_url: str, key_prefix: str) -> None:
    """Rule: `off` turns the limits off; a malformed limit stops the app from starting, naming it."""
    client: FlaskClient = limited_app(redis_url, key_prefix, "off").test_client()
    for _ in range(30):
        assert client.get("/game-types").status_code == 200
    with pytest.raises(ValueError, match="TRICKARENA_RATE_LIMITS"):
        limited_app(redis_url, key_prefix, "lots")


def test_trusted_proxy_hops_take_the_client_address_from_x_forwarded_for(
    redis_url: str, key_prefix: str
) -> None:
    """Rule: behind one trusted proxy (compose's nginx) each client has its own count; without the
    setting X-Forwarded-For is ignored (a client cannot pick its address)."""
    behind = make_app(
        redis_url,
        key_prefix,
        TRICKARENA_RATE_LIMITS="2/minute",
        TRICKARENA_KEY_RATE_LIMITS="off",
        TRICKARENA_TRUSTED_PROXIES=1,
    ).test_client()
    for client_ip in ("198.51.100.1", "198.51.100.2"):
        for _ in range(2):
            answer = behind.get(
                "/game-types", headers={"X-Forwarded-For": client_ip}, **from_address("10.5.0.1")
            )
            assert answer.status_code == 200
    assert_rate_limited(
        behind.get("/game-types", headers={"X-Forwarded-For": "198.51.100.1"}, **from_address("10.5.0.1"))
    )
    direct = limited_app(redis_url, key_prefix, "2/minute").test_client()
    for n in range(2):
        assert (
            direct.get(
                "/game-types", headers={"X-Forwarded-For": f"203.0.113.{n}"}, **from_address("10.6.0.1")
            ).status_code
            == 200
        )
    assert_rate_limited(
        direct.get("/game-types", headers={"X-Forwarded-For": "203.0.113.9"}, **from_address("10.6.0.1"))
    )
