"""One identity per address: a bot URL is compared as its resolved address, port and normalised
path (`core.outbound.canonical_url`), so no other spelling of an address another owner's bot uses
gets past `url_taken` (issue 26, row 5). Real Redis, a real bot on loopback, the system resolver."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask

from api.context import app_context
from bots.bundled import make_bot
from bots.sdk import BotServer
from core.outbound import canonical_url, normalise_path
from tests.api.conftest import make_app
from tests.bots.test_bot_urls import created, post_bot

# Every spelling of http://127.0.0.1:PORT the attack found accepted, and the ones it found refused.
SPELLINGS = [
    "http://127.0.0.1:{port}",
    "http://127.0.0.1:{port}/",
    "HTTP://127.0.0.1:{port}",
    "http://127.1:{port}",
    "http://localhost:{port}",
    "http://LOCALHOST:{port}",
    "http://2130706433:{port}",
    "http://0x7f000001:{port}",
    "http://0177.0.0.1:{port}",
    "http://127.000.000.001:{port}",
    "http://[::ffff:127.0.0.1]:{port}",
    "http://127.0.0.1:{port}/.",
    "http://127.0.0.1:{port}/%2e",
    "http://127.0.0.1:{port}/%2E/",
    "http://127.0.0.1:{port}/x/..",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_of_an_address_is_one_url(spelling: str) -> None:
    """Rule: every spelling of loopback port 9001 with an empty path has one canonical form."""
    assert canonical_url(spelling.format(port=9001)) == "http://127.0.0.1:9001"


@pytest.mark.parametrize(
    ("path", "normal"),
    [
        ("", ""),
        ("/", ""),
        ("/bot/", "/bot"),
        ("/a/./b", "/a/b"),
        ("/a/b/../c", "/a/c"),
        ("/../a", "/a"),
        ("/%7Ebot", "/~bot"),  # unreserved: decoded
        ("/a%2fb", "/a%2Fb"),  # reserved: kept encoded, hex in upper case
        ("/Bot", "/Bot"),  # the path's case stays
        ("/100%", "/100%"),  # a stray % stays as given
    ],
)
def test_paths_are_normalised_as_rfc_3986_says(path: str, normal: str) -> None:
    """Rule: RFC 3986 §6.2.2: percent-encoding normalised, dot segments removed, no trailing slash."""
    assert normalise_path(path) == normal


def test_different_ports_and_paths_stay_different_urls() -> None:
    """Rule: the port and the path are part of the identity: bots may share a host."""
    forms = {
        canonical_url("http://127.0.0.1:9001"),
        canonical_url("http://127.0.0.1:9002"),
        canonical_url("http://127.0.0.1:9001/alice"),
        canonical_url("https://127.0.0.1:9001"),
    }
    assert len(forms) == 4


@pytest.fixture(scope="module")
def bot_url() -> Iterator[str]:
    """A bundled random bot on loopback, served without a secret: its URL."""
    server = BotServer(make_bot("random"), None).start()
    yield server.url
    server.stop()


@pytest.fixture()
def app(redis_url: str, key_prefix: str) -> Flask:
    """The API app on the test Redis."""
    return make_app(redis_url, key_prefix)


def test_a_url_in_use_is_refused_in_every_spelling_of_its_address(app: Flask, bot_url: str) -> None:
    """Rule: createBot at another spelling (`127.1`, `localhost`, `2130706433`, `0x7f000001`,
    `0177.0.0.1`, `[::ffff:127.0.0.1]`, `/.`, `/%2e` ...) of another owner's bot's address is 409
    `url_taken` with the canonical URL in `details.url`, and writes nothing."""
    client = app.test_client()
    port = int(bot_url.rsplit(":", 1)[1])
    holder = created(post_bot(client, "holder", bot_url))
    registry = app_context(app).bots
    before = sorted(registry.client.scan_iter(match=registry.prefix + "*"))
    for n, spelling in enumerate(SPELLINGS):
        refused = post_bot(client, f"stranger{n}", spelling.format(port=port))
        body = refused.get_json()
        assert (refused.status_code, body["code"]) == (409, "url_taken"), (spelling, body)
        assert body["details"] == {"url": f"http://127.0.0.1:{port}"}
    assert sorted(registry.client.scan_iter(match=registry.prefix + "*")) == before
    # Deleting the holder frees every spelling at once.
    deleted = client.delete(f"/bots/{holder['bot']['id']}", headers=_bearer(holder["owner_key"]))
    assert deleted.status_code == 200
    moved = created(post_bot(client, "newcomer", f"http://localhost:{port}/"))
    assert moved["bot"]["url"] == f"http://localhost:{port}"


def test_moving_a_bot_to_another_spelling_of_its_own_url_keeps_its_claim(app: Flask, bot_url: str) -> None:
    """Rule: updateBot to another spelling of the same address moves no claim: the bot still holds
    it (a stranger is refused) and deleting it frees it."""
    client = app.test_client()
    port = int(bot_url.rsplit(":", 1)[1])
    holder = created(post_bot(client, "holder2", bot_url))
    key = _bearer(holder["owner_key"])
    moved = client.patch(f"/bots/{holder['bot']['id']}", json={"url": f"http://127.1:{port}/"}, headers=key)
    assert moved.status_code == 200, moved.get_json()
    assert post_bot(client, "stranger", bot_url).get_json()["code"] == "url_taken"
    assert client.delete(f"/bots/{holder['bot']['id']}", headers=key).status_code == 200
    created(post_bot(client, "after", bot_url))


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}
