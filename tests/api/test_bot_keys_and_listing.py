"""Bots: rotating the owner key and signing secret (rotateBotKeys), and listBots a page at a time
with filters (game, status, owner), against a real Redis and real bot servers on loopback."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from api.context import app_context
from bots.bundled import make_bot
from bots.sdk import BotServer
from core import bot_registry
from core.bot_registry import BotRegistry
from tests.api.conftest import auth, make_app

BOTH = ["trick-n-trouble", "tricky-teams"]


@pytest.fixture(scope="module")
def bot_url() -> Iterator[str]:
    """The bundled random bot, served without a secret (as before submission)."""
    with BotServer(make_bot("random"), None) as server:
        yield server.url


@pytest.fixture()
def app(redis_url: str, key_prefix: str) -> Flask:
    """The API app on the test Redis."""
    return make_app(redis_url, key_prefix)


def submit(client: FlaskClient, name: str, url: str, games: list[str] | None = None) -> dict[str, Any]:
    """createBot, asserting 201: the bot, its owner key and secret. Every bot of a test is served by
    one bot server: the first one registered at the URL lends its owner key to the others (a URL is
    one owner's; docs/api.md, url_taken)."""
    lenders: dict[str, str] = client.application.config.setdefault("TEST_URL_OWNERS", {})
    headers = {"Authorization": f"Bearer {lenders[url]}"} if url in lenders else {}
    answer = client.post("/bots", json={"name": name, "url": url, "games": games or BOTH}, headers=headers)
    assert answer.status_code == 201, answer.get_json()
    created: dict[str, Any] = answer.get_json()
    lenders.setdefault(url, created["owner_key"])
    return created


def registry_of(app: Flask) -> BotRegistry:
    """The app's bot registry (to look at what is stored)."""
    return app_context(app).bots


# --------------------------------------------------------------------------- rotateBotKeys


def test_rotating_the_owner_key_retires_the_old_one_at_once(app: Flask, bot_url: str) -> None:
    """Rule: the answer shows a new owner key once; the old key is refused (403) from then on, the new
    one works, and the signing secret is unchanged."""
    client = app.test_client()
    created = submit(client, "rot-owner", bot_url)
    bot_id, old_key = created["bot"]["id"], created["owner_key"]
    answer = client.post(f"/bots/{bot_id}/keys", json={"rotate": ["owner_key"]}, headers=auth(old_key))
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert set(body) == {"bot", "owner_key"} and body["bot"]["id"] == bot_id
    assert answer.headers["Cache-Control"] == "no-store"
    new_key = body["owner_key"]
    assert new_key != old_key and len(new_key) >= 32
    refused = client.patch(f"/bots/{bot_id}", json={"open": True}, headers=auth(old_key))
    assert refused.status_code == 403 and refused.get_json()["code"] == "not_owner"
    again = client.post(f"/bots/{bot_id}/keys", json={"rotate": ["owner_key"]}, headers=auth(old_key))
    assert again.status_code == 403
    assert client.patch(f"/bots/{bot_id}", json={"open": True}, headers=auth(new_key)).status_code == 200
    assert registry_of(app).record(bot_id).secret == created["secret"]


def test_rotating_the_secret_changes_what_the_platform_signs_with(app: Flask, bot_url: str) -> None:
    """Rule: a new signing secret, shown once; the stored one (what the harness signs with) is the
    new one at once; the owner key keeps working; the time of issue is shown to the owner."""
    client = app.test_client()
    created = submit(client, "rot-secret", bot_url)
    bot_id, key = created["bot"]["id"], created["owner_key"]
    answer = client.post(f"/bots/{bot_id}/keys", json={"rotate": ["secret"]}, headers=auth(key))
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert set(body) == {"bot", "secret"} and body["secret"] != created["secret"]
    record = registry_of(app).record(bot_id)
    assert record.secret == body["secret"] and record.secret_issued >= record.owner_key_issued
    both = client.post(f"/bots/{bot_id}/keys", json={"rotate": ["secret", "owner_key"]}, headers=auth(key))
    assert both.status_code == 200 and set(both.get_json()) == {"bot", "secret", "owner_key"}
    mine = client.get("/bots", headers=auth(both.get_json()["owner_key"])).get_json()["bots"]
    assert [b["id"] for b in mine] == [bot_id]
    assert mine[0]["secret_issued"] >= mine[0]["owner_key_issued"] >= mine[0]["created"]
    assert "secret" not in mine[0] and "owner" not in mine[0]


def test_rotation_refusals(app: Flask, bot_url: str) -> None:
    """Rule: no key 401, another key 403, unknown bot 404, a deleted bot 409, a bad body 422; none
    of them changes the stored keys."""
    client = app.test_client()
    created = submit(client, "rot-refused", bot_url)
    bot_id, key = created["bot"]["id"], created["owner_key"]
    before = registry_of(app).record(bot_id)
    cases = [
        (client.post(f"/bots/{bot_id}/keys", json={"rotate": ["secret"]}), 401, "missing_token"),
        (
            client.post(f"/bots/{bot_id}/keys", json={"rotate": ["secret"]}, headers=auth("x" * 32)),
            403,
            "not_owner",
        ),
        (
            client.post("/bots/0123456789abcdef/keys", json={"rotate": ["secret"]}, headers=auth(key)),
            404,
            "bot_not_found",
        ),
        (
            client.post(f"/bots/{bot_id}/keys", json={"rotate": []}, headers=auth(key)),
            422,
            "validation_error",
        ),
        (
            client.post(f"/bots/{bot_id}/keys", json={"rotate": ["password"]}, headers=auth(key)),
            422,
            "validation_error",
        ),
        (client.post(f"/bots/{bot_id}/keys", json={}, headers=auth(key)), 422, "validation_error"),
    ]
    for answer, status, code in cases:
        assert (answer.status_code, answer.get_json()["code"]) == (status, code), answer.get_json()
    after = registry_of(app).record(bot_id)
    assert (after.owner, after.secret) == (before.owner, before.secret)
    assert client.delete(f"/bots/{bot_id}", headers=auth(key)).status_code == 200
    deleted = client.post(f"/bots/{bot_id}/keys", json={"rotate": ["secret"]}, headers=auth(key))
    assert (deleted.status_code, deleted.get_json()["code"]) == (409, "bot_deleted")


def test_concurrent_rotations_with_one_key_have_one_winner(app: Flask, bot_url: str) -> None:
    """Rule: a rotation is a compare-and-set on the owner key: of 8 at once with the same old key,
    exactly one succeeds, and only its new key works afterwards."""
    created = submit(app.test_client(), "rot-race", bot_url)
    bot_id, key = created["bot"]["id"], created["owner_key"]
    registry = registry_of(app)
    results: list[Any] = []
    start = threading.Barrier(8)

    def rotate() -> None:
        start.wait()
        try:
            results.append(registry.rotate(bot_id, key, owner=True, secret=False).owner_key)
        except Exception as exc:  # noqa: BLE001 (the refusals are counted)
            results.append(exc)

    threads = [threading.Thread(target=rotate) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    winners = [r for r in results if isinstance(r, str)]
    assert len(results) == 8 and len(winners) == 1, results
    assert all(getattr(r, "code", None) == "not_owner" for r in results if not isinstance(r, str))
    assert registry.authorize(bot_id, winners[0]).id == bot_id


# --------------------------------------------------------------------------- listBots


def test_listing_pages_through_every_bot_in_creation_order(app: Flask, bot_url: str) -> None:
    """Rule: `limit` bots a page, `next_cursor` to go on, null on the last page; every bot once."""
    client = app.test_client()
    ids = [submit(client, f"page-{n}", bot_url)["bot"]["id"] for n in range(7)]
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        query = "?limit=3" + (f"&cursor={cursor}" if cursor else "")
        answer = client.get("/bots" + query)
        assert answer.status_code == 200, answer.get_json()
        body = answer.get_json()
        assert len(body["bots"]) <= 3
        seen += [bot["id"] for bot in body["bots"]]
        assert all("owner_key_issued" not in bot for bot in body["bots"])  # public fields only
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert seen == ids and pages == 3
    assert len(client.get("/bots").get_json()["bots"]) == 7  # default limit 50


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "cursor=abc", "cursor=-1", "status=gone", "game="])
def test_listing_refuses_bad_paging_and_filters(client: FlaskClient, query: str) -> None:
    """Rule: a page is at most 100 bots; cursors and statuses are what the API hands out."""
    answer = client.get(f"/bots?{query}")
    assert answer.status_code == 422 and answer.get_json()["code"] == "validation_error"


def test_listing_filters_by_game_status_and_owner(app: Flask, bot_url: str) -> None:
    """Rule: filters combine; with an owner key only that owner's bots (with their private fields);
    a key of nobody's lists nothing."""
    client = app.test_client()
    first = submit(client, "filter-a", bot_url, ["tricky-teams"])
    second = submit(client, "filter-b", bot_url, BOTH)
    third = submit(client, "filter-c", bot_url, ["trick-n-trouble"])
    assert client.delete(f"/bots/{third['bot']['id']}", headers=auth(third["owner_key"])).status_code == 200

    def names(query: str = "", key: str | None = None) -> list[str]:
        answer = client.get(f"/bots{query}", headers=auth(key) if key else {})
        assert answer.status_code == 200, answer.get_json()
        return [bot["name"] for bot in answer.get_json()["bots"]]

    assert names() == ["filter-a", "filter-b"]
    assert names("?game=trick-n-trouble") == ["filter-b"]
    assert names("?status=deleted") == ["filter-c"]
    assert names("?status=any&game=trick-n-trouble") == ["filter-b", "filter-c"]
    assert names("?include_deleted=true") == ["filter-a", "filter-b", "filter-c"]
    assert names(key=first["owner_key"]) == ["filter-a"]
    assert names("?status=any", key=third["owner_key"]) == ["filter-c"]
    assert names(key="n" * 32) == []
    mine = client.get("/bots", headers=auth(second["owner_key"])).get_json()["bots"]
    assert set(mine[0]) == {*second["bot"], "owner_key_issued", "secret_issued"}
    assert client.get("/bots", headers={"Authorization": "Basic abc"}).status_code == 401


def test_a_page_reads_a_bounded_number_of_bots(
    app: Flask, bot_url: str, monkeypatch: pytest.MonkeyPatch, raw_redis: redis.Redis
) -> None:
    """Rule: one page reads at most SCAN_BUDGET stored bots, whatever the filters skip: an owner whose
    only bot is the last gets empty pages with a cursor until the page that holds it."""
    client = app.test_client()
    for n in range(4):
        submit(client, f"budget-{n}", bot_url)
    last = submit(client, "budget-last", bot_url)
    monkeypatch.setattr(bot_registry, "SCAN_BUDGET", 2)
    pages: list[list[str]] = []
    cursor: str | None = ""
    while cursor is not None:
        answer = client.get(f"/bots?cursor={cursor or 0}", headers=auth(last["owner_key"])).get_json()
        pages.append([bot["name"] for bot in answer["bots"]])
        cursor = answer["next_cursor"]
    assert pages == [[], [], ["budget-last"]]
