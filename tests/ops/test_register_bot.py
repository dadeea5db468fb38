"""`make run`'s bot registration (`harness.platform.register_bot`) through a served API: it retries
under a fresh name only when the name is taken, and stops at any other refusal (issue 17)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from bots.bundled import GAME_NAMES, make_bot
from bots.sdk import BotServer
from harness.platform import register_bot
from tests.ops.conftest import Served


@pytest.fixture()
def unsigned() -> Iterator[BotServer]:
    """A bundled bot served without a secret, as before its registration."""
    server = BotServer(make_bot("random"), None).start()
    yield server
    server.stop()


def bots_named(served: Served, stem: str) -> list[str]:
    """Names of the registered bots whose name starts with `stem` (every page)."""
    names: list[str] = []
    cursor: str | None = None
    while True:
        query = "?limit=100" + (f"&cursor={cursor}" if cursor else "")
        body = requests.get(f"{served.base}/bots{query}", timeout=10).json()
        names += [b["name"] for b in body["bots"] if b["name"].startswith(stem)]
        cursor = body["next_cursor"]
        if cursor is None:
            return names


def test_a_taken_name_is_retried_under_a_fresh_one(served: Served, unsigned: BotServer) -> None:
    """Rule: createBot's 409 duplicate_name (a registration we no longer hold) makes register_bot
    register under `<name>-<4 hex digits>`."""
    first = register_bot(served.base, "dup-name", unsigned.url, list(GAME_NAMES), None)
    other = BotServer(make_bot("random"), None).start()
    try:
        again = register_bot(served.base, "dup-name", other.url, list(GAME_NAMES), None)
    finally:
        other.stop()
    assert first["name"] == "dup-name" and again["name"].startswith("dup-name-") and len(again["name"]) == 13
    assert again["bot_id"] != first["bot_id"]


def test_a_taken_url_is_not_retried(served: Served, unsigned: BotServer) -> None:
    """Rule: createBot's 409 url_taken (another registration holds the URL) is final: register_bot
    raises naming the code, and registers nothing under another name."""
    register_bot(served.base, "url-holder", unsigned.url, list(GAME_NAMES), None)
    with pytest.raises(RuntimeError, match="url_taken"):
        register_bot(served.base, "url-grabber", unsigned.url, list(GAME_NAMES), None)
    assert bots_named(served, "url-grabber") == []
