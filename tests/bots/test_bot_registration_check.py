"""`POST /bots/{id}/check` (checkBot) through the real API app, a real Redis and real bots on loopback."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from api import bots_api
from bots.bundled import make_bot
from bots.sdk import BotServer
from tests.api.conftest import json_of
from tests.harness.bot_servers import FaultyBotServer

from .test_bot_registration import BOTH, client
from .test_bot_registration import auth as _auth

__all__ = ["client"]  # the fixture, shared


@pytest.fixture()
def registered(client: FlaskClient) -> Iterator[tuple[dict[str, Any], BotServer]]:
    """The bundled heuristic bot registered (createBot), then served with the secret it was given."""
    with BotServer(make_bot("heuristic"), None) as unsigned:
        created = client.post("/bots", json={"name": "checked", "url": unsigned.url, "games": BOTH})
        assert created.status_code == 201, created.json
    body: dict[str, Any] = json_of(created)
    with BotServer(make_bot("heuristic"), body["secret"]) as signed:
        moved = client.patch(
            f"/bots/{body['bot']['id']}", json={"url": signed.url}, headers=_auth(body["owner_key"])
        )
        assert moved.status_code == 200, moved.json
        yield body, signed


def test_a_registered_bot_is_checked_with_its_stored_secret(
    client: FlaskClient, registered: tuple[dict[str, Any], BotServer]
) -> None:
    """Rule: checkBot answers 200 with the report (every decision type of both games, ok), no-store;
    a second check at once is 429 rate_limited with Retry-After, and changes nothing."""
    body, server = registered
    bot_id = body["bot"]["id"]
    answer = client.post(f"/bots/{bot_id}/check", headers=_auth(body["owner_key"]))
    assert answer.status_code == 200, answer.json
    report = json_of(answer)
    assert set(report) == {"url", "ok", "errors", "warnings", "info", "findings"}
    assert report["ok"] is True and report["errors"] == 0 and report["url"] == server.url
    assert report["info"]["name"] == "heuristic"
    steps = [f["step"] for f in report["findings"]]
    assert steps[0] == "GET /" and "POST /move (wrong signature)" in steps
    for game in BOTH:
        assert any(step.startswith(f"POST /move ({game}, ") for step in steps)
    assert answer.headers["Cache-Control"] == "no-store"
    assert body["secret"] not in answer.get_data(as_text=True)
    again = client.post(f"/bots/{bot_id}/check", headers=_auth(body["owner_key"]))
    assert (again.status_code, json_of(again)["code"]) == (429, "rate_limited")
    assert int(again.headers["Retry-After"]) >= 1
    assert client.get(f"/bots/{bot_id}").json == body["bot"] | {"url": server.url, "updated": ANY_TIME}


class _AnyTime:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, float)


ANY_TIME: Any = _AnyTime()


def test_only_the_owner_checks_a_live_bot(
    client: FlaskClient, registered: tuple[dict[str, Any], BotServer]
) -> None:
    """Rule: without the owner key 401, with another 403, an unknown id 404, a deleted bot 409; none
    of them calls the bot or holds the check slot."""
    body, server = registered
    bot_id = body["bot"]["id"]
    url = f"/bots/{bot_id}/check"
    assert (client.post(url).status_code, json_of(client.post(url))["code"]) == (401, "missing_token")
    other = client.post(url, headers=_auth("x" * 32))
    assert (other.status_code, json_of(other)["code"]) == (403, "not_owner")
    for unknown in ("0123456789abcdef", "nope"):
        missing = client.post(f"/bots/{unknown}/check", headers=_auth(body["owner_key"]))
        assert (missing.status_code, json_of(missing)["code"]) == (404, "bot_not_found")
    assert client.delete(f"/bots/{bot_id}", headers=_auth(body["owner_key"])).status_code == 200
    deleted = client.post(url, headers=_auth(body["owner_key"]))
    assert (deleted.status_code, json_of(deleted)["code"]) == (409, "bot_deleted")


def test_a_bot_with_the_wrong_secret_is_reported_not_refused(client: FlaskClient) -> None:
    """Rule: whatever the bot does, checkBot answers 200; a bot that refuses the platform's signature
    gets `ok: false` and the plain-words reason with the bot's status and code."""
    with BotServer(make_bot("random"), "not-the-platforms-secret") as server:
        created = json_of(client.post("/bots", json={"name": "wrong", "url": server.url, "games": BOTH}))
        answer = client.post(f"/bots/{created['bot']['id']}/check", headers=_auth(created["owner_key"]))
    assert answer.status_code == 200
    report = json_of(answer)
    assert report["ok"] is False and report["errors"] == 2
    failed = [f for f in report["findings"] if f["severity"] == "error"]
    assert {f["step"] for f in failed} == {"POST /start (tricky-teams)", "POST /start (trick-n-trouble)"}
    assert failed[0]["status"] == 401 and failed[0]["fault"] == "http_status"
    assert failed[0]["message"].startswith("answered 401 bad_signature: is the secret right?")


def test_a_slow_bot_is_checked_within_the_budget(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule: the whole check is bounded: a bot that hangs on every move stops the check before a
    call could overrun the budget, with an error finding that says so."""
    monkeypatch.setattr(bots_api, "CHECK_BUDGET_S", 4.0)
    server = FaultyBotServer("hang").start()
    try:
        created = json_of(client.post("/bots", json={"name": "hangs", "url": server.url, "games": BOTH}))
        server.secret = created["secret"]
        started = time.monotonic()
        answer = client.post(f"/bots/{created['bot']['id']}/check", headers=_auth(created["owner_key"]))
        took = time.monotonic() - started
    finally:
        server.stop()
    assert answer.status_code == 200
    report = json_of(answer)
    assert took < 4.0 + 1.5, took
    assert report["ok"] is False
    assert report["findings"][-1]["step"] == "time budget"
    assert "budget" in report["findings"][-1]["message"]
