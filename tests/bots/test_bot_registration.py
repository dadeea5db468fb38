"""Register once (issue 18, §3): the author's own secret at createBot, and a bot submitted while it
is still starting up. The real API app, a real Redis and real bots on loopback."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from api.app import create_app
from bots.bundled import make_bot
from bots.sdk import BotServer, new_secret
from core.bot_registry import NOT_A_BOT, PROBE_RETRY_S, BotRegistry
from tests.api.conftest import json_of

BOTH = ["trick-n-trouble", "tricky-teams"]


@pytest.fixture()
def client(redis_url: str, key_prefix: str) -> FlaskClient:
    """An API client with the default local policy (loopback allowed)."""
    config = {"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix, "TESTING": True}
    return create_app(config).test_client()


def auth(key: str) -> dict[str, str]:
    """The Authorization header of an owner key."""
    return {"Authorization": f"Bearer {key}"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_bot_runs_with_its_authors_secret_from_the_start(
    client: FlaskClient, redis_url: str, key_prefix: str
) -> None:
    """Rule: createBot with `secret` stores that secret and does not show it back; the bot, started
    with it before it was registered, passes checkBot without a restart."""
    secret = "-" + new_secret()[1:]  # a leading '-' (argv's trap) is fine here
    with BotServer(make_bot("heuristic"), secret) as server:
        created = client.post(
            "/bots", json={"name": "mine", "url": server.url, "games": BOTH, "secret": secret}
        )
        assert created.status_code == 201, created.json
        body: dict[str, Any] = json_of(created)
        assert set(body) == {"bot", "owner_key"}
        assert secret not in created.get_data(as_text=True)
        assert created.headers["Cache-Control"] == "no-store"
        stored = BotRegistry(redis.Redis.from_url(redis_url), key_prefix).record(body["bot"]["id"])
        assert stored.secret == secret
        report = json_of(client.post(f"/bots/{body['bot']['id']}/check", headers=auth(body["owner_key"])))
        assert report["ok"] is True and report["errors"] == 0, report


def test_without_a_secret_the_platform_makes_one_and_shows_it_once(client: FlaskClient) -> None:
    """Rule: no `secret`: a fresh one (URL-safe, 43 characters) is in the answer, as before."""
    with BotServer(make_bot("random"), None) as server:
        created = client.post("/bots", json={"name": "theirs", "url": server.url, "games": BOTH})
    assert created.status_code == 201
    assert len(json_of(created)["secret"]) == 43


@pytest.mark.parametrize(
    "secret",
    ["short", "a" * 31, "a" * 129, "a" * 31 + "+", "a" * 31 + "=", "a" * 31 + "/", "a" * 31 + " ", 42],
)
def test_a_malformed_secret_is_refused_and_nothing_is_stored(client: FlaskClient, secret: Any) -> None:
    """Rule: a secret not of 32-128 URL-safe base64 characters is 422 validation_error, naming the
    field, before the bot is called; nothing is stored."""
    body = {"name": "bad-secret", "url": "http://127.0.0.1:9", "games": BOTH, "secret": secret}
    answer = client.post("/bots", json=body)
    assert (answer.status_code, json_of(answer)["code"]) == (422, "validation_error")
    assert "secret" in json_of(answer)["details"]["json"]
    assert json_of(client.get("/bots?status=any"))["bots"] == []


def test_a_bot_still_starting_up_is_found(client: FlaskClient) -> None:
    """Rule: createBot tries a refused GET / again with back-off, so a bot that starts listening a
    second after the submission is registered."""
    port = _free_port()
    servers: list[BotServer] = []
    later = threading.Timer(
        1.0, lambda: servers.append(BotServer(make_bot("random"), None, port=port).start())
    )
    later.start()
    try:
        started = time.monotonic()
        created = client.post(
            "/bots", json={"name": "late", "url": f"http://127.0.0.1:{port}", "games": BOTH}
        )
        assert created.status_code == 201, created.json
        assert 0.9 < time.monotonic() - started < PROBE_RETRY_S
    finally:
        later.join()
        for server in servers:
            server.stop()


def test_nothing_listening_is_refused_within_the_retry_bound(client: FlaskClient) -> None:
    """Rule: the retries are bounded: nothing listening is 422 bot_unreachable after about 5 s."""
    started = time.monotonic()
    answer = client.post(
        "/bots", json={"name": "never", "url": f"http://127.0.0.1:{_free_port()}", "games": BOTH}
    )
    took = time.monotonic() - started
    assert (answer.status_code, json_of(answer)["code"]) == (422, NOT_A_BOT)
    assert PROBE_RETRY_S - 0.5 < took < PROBE_RETRY_S + 2, took
