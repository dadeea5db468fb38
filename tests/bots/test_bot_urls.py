"""One URL, one owner: createBot and updateBot refuse a URL another owner's active bot uses (409
`url_taken`), compared in a normal form, atomically; real Redis, real bot servers on loopback (issue 17)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.context import app_context
from bots.bundled import make_bot
from bots.sdk import BotServer
from core.bot_registry import normalise_url
from tests.api.conftest import make_app

GAMES = ["tricky-teams"]


@pytest.fixture(scope="module")
def urls() -> Iterator[list[str]]:
    """Three bundled random bots, served without a secret (as before submission): their URLs."""
    servers = [BotServer(make_bot("random"), None).start() for _ in range(3)]
    yield [server.url for server in servers]
    for server in servers:
        server.stop()


@pytest.fixture()
def app(redis_url: str, key_prefix: str) -> Flask:
    """The API app on the test Redis."""
    return make_app(redis_url, key_prefix)


def post_bot(client: FlaskClient, name: str, url: str, key: str | None = None) -> Any:
    """createBot (with `key` as Bearer when given)."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return client.post("/bots", json={"name": name, "url": url, "games": GAMES}, headers=headers)


def created(answer: Any) -> dict[str, Any]:
    """The body of a 201."""
    assert answer.status_code == 201, answer.get_json()
    body: dict[str, Any] = answer.get_json()
    return body


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("http://127.0.0.1:9001", "http://127.0.0.1:9001"),
        ("http://127.0.0.1:9001/", "http://127.0.0.1:9001"),
        ("HTTP://Bots.Example.COM:80/", "http://bots.example.com"),
        ("https://bots.example.com:443/alice/", "https://bots.example.com/alice"),
        ("https://bots.example.com:80/alice", "https://bots.example.com:80/alice"),
        ("http://bots.example.com:443", "http://bots.example.com:443"),
        ("http://user:pw@Bots.example.com/Path/", "http://bots.example.com/Path"),
        ("http://[::1]:80/", "http://[::1]"),
        ("http://[FE80::1]:8080//", "http://[fe80::1]:8080"),
        ("http://h.example/p?x=1#frag", "http://h.example/p?x=1"),
        ("http://h.example:99999/", "http://h.example:99999/"),  # not a URL: as given (the probe refuses it)
    ],
)
def test_urls_are_compared_in_a_normal_form(url: str, normal: str) -> None:
    """Rule: scheme and host in lower case, no default port, no user info, no trailing slash, no
    fragment; the path's case and the query stay."""
    assert normalise_url(url) == normal


def test_a_url_in_use_is_refused_to_another_owner_in_every_spelling(app: Flask, urls: list[str]) -> None:
    """Rule: createBot with the URL of another owner's active bot, however spelled, is 409 url_taken
    (`details.url` the normal form), before the bot is even called, and writes nothing."""
    client = app.test_client()
    first = created(post_bot(client, "holder", urls[0]))
    host_port = urls[0].removeprefix("http://")
    registry = app_context(app).bots
    before = sorted(registry.client.scan_iter(match=registry.prefix + "*"))
    for n, spelling in enumerate([urls[0], urls[0] + "/", f"HTTP://{host_port}/", f"http://{host_port}//"]):
        refused = post_bot(client, f"stranger{n}", spelling)
        assert refused.status_code == 409, (spelling, refused.get_json())
        assert refused.get_json()["code"] == "url_taken"
        assert refused.get_json()["details"] == {"url": urls[0]}
        wrong_key = post_bot(client, f"stranger-key{n}", spelling, key="x" * 32)
        assert wrong_key.status_code == 409 and wrong_key.get_json()["code"] == "url_taken"
    assert sorted(registry.client.scan_iter(match=registry.prefix + "*")) == before
    assert client.get(f"/bots/{first['bot']['id']}").get_json()["url"] == urls[0]


def test_the_owner_of_a_bot_at_a_url_may_register_more_bots_there(app: Flask, urls: list[str]) -> None:
    """Rule: with the owner key of an active bot at the URL as Bearer, createBot shares the URL: the
    new bot gets its own key, and either key admits further bots there; strangers stay refused."""
    client = app.test_client()
    first = created(post_bot(client, "first", urls[0]))
    second = created(post_bot(client, "second", urls[0] + "/", key=first["owner_key"]))
    assert second["owner_key"] != first["owner_key"]
    created(post_bot(client, "third", urls[0], key=second["owner_key"]))
    assert post_bot(client, "stranger", urls[0]).get_json()["code"] == "url_taken"
    listed = client.get("/bots").get_json()["bots"]
    assert sorted(b["name"] for b in listed if normalise_url(b["url"]) == urls[0]) == [
        "first",
        "second",
        "third",
    ]


def test_updating_a_bot_to_a_url_in_use_is_refused_and_moving_or_deleting_frees_it(
    app: Flask, urls: list[str]
) -> None:
    """Rule: updateBot to another owner's URL is 409 url_taken and changes nothing; a bot that moves
    away or is deleted releases its URL, which anyone may then register."""
    client = app.test_client()
    a = created(post_bot(client, "a", urls[0]))
    b = created(post_bot(client, "b", urls[1]))
    mine = {"Authorization": f"Bearer {b['owner_key']}"}
    refused = client.patch(f"/bots/{b['bot']['id']}", json={"url": urls[0] + "/"}, headers=mine)
    assert (refused.status_code, refused.get_json()["code"]) == (409, "url_taken")
    assert client.get(f"/bots/{b['bot']['id']}").get_json()["url"] == urls[1]
    assert post_bot(client, "c", urls[1]).get_json()["code"] == "url_taken"  # b still holds its own
    same = client.patch(f"/bots/{b['bot']['id']}", json={"url": urls[1] + "/"}, headers=mine)
    assert same.status_code == 200, same.get_json()  # its own URL, spelled otherwise
    theirs = {"Authorization": f"Bearer {a['owner_key']}"}
    moved = client.patch(f"/bots/{a['bot']['id']}", json={"url": urls[2]}, headers=theirs)
    assert moved.status_code == 200, moved.get_json()
    created(post_bot(client, "d", urls[0]))  # a's old URL is free
    assert client.delete(f"/bots/{b['bot']['id']}", headers=mine).status_code == 200
    created(post_bot(client, "e", urls[1]))  # b's URL is free once b is deleted


def test_of_simultaneous_registrations_of_one_url_exactly_one_wins(app: Flask, urls: list[str]) -> None:
    """Rule: the URL is claimed in the same Lua step that stores the bot: of 6 createBot calls for one
    URL at once (each passes the early check and probes the bot), one is 201 and 5 are 409 url_taken."""
    start = threading.Barrier(6)
    answers: list[tuple[int, str | None]] = []

    def register(n: int) -> None:
        client = app.test_client()
        start.wait()
        answer = post_bot(client, f"racer{n}", urls[2])
        answers.append((answer.status_code, answer.get_json().get("code")))

    threads = [threading.Thread(target=register, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers, key=str) == [(201, None)] + [(409, "url_taken")] * 5
