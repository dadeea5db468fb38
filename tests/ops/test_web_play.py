"""The play page (/web/play, issue 28) in a real headless Chromium (Debian's /usr/bin/chromium, driven
by playwright): a person plays a whole game of each game against the bundled bots through the page
alone -- clicks on its cards and move buttons, and the number keys -- at desktop and phone width,
while a real RQ worker plays the bots' seats over HTTP. Every game document the page receives is
its own seat's view (no other hand, no other loot); the page fits the window; the finished game
links to the viewer's replay, and the opponent's page lists the challenge with its result.

Screenshots land in $TRICKARENA_SCREENSHOTS (default: the test's temp dir), ``play-<game>-<width>.png``.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from werkzeug.serving import make_server

from api.app import create_app
from bots.bundled import GAME_NAMES, make_bot
from bots.sdk import BotServer
from harness.platform import register_bot
from tests.harness.conftest import WorkerProcs
from tests.ops import test_web
from tests.ops.conftest import _delete_prefix

browser, shots = test_web.browser, test_web.shots

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1300, "height": 900}
GAME_OPTIONS = {"tricky-teams": {"raids": "1"}, "trick-n-trouble": {}}
GAME_TIMEOUT_S = 180


@pytest.fixture(scope="module")
def table(redis_url: str) -> Iterator[str]:
    """The API on a loopback port with its own prefix and queue, the bundled `random` and
    `heuristic` bots registered open to challenges (as `make run` registers them), and a worker."""
    prefix = f"ta-test:{uuid.uuid4().hex[:12]}:"
    queue = f"ta-test-{uuid.uuid4().hex[:8]}"
    app = create_app(
        {
            "REDIS_URL": redis_url,
            "TRICKARENA_KEY_PREFIX": prefix,
            "TRICKARENA_QUEUE": queue,
            "TRICKARENA_CHALLENGE_LIMITS": {"per_person": 8},
        }
    )
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    servers: list[BotServer] = []
    workers = WorkerProcs(redis_url, prefix, queue)
    try:
        for name in ("random", "heuristic"):
            unsigned = BotServer(make_bot(name), None).start()
            reg = register_bot(base, name, unsigned.url, list(GAME_NAMES), None)
            unsigned.stop()
            servers.append(BotServer(make_bot(name), reg["secret"], port=unsigned.port).start())
        workers.start(scheduler=False)
        yield base
    finally:
        workers.stop_all()
        for bot in servers:
            bot.stop()
        server.shutdown()
        thread.join(timeout=10)
        _delete_prefix(redis_url, prefix, queue)


def _check_view(body: dict[str, Any], seat: int) -> None:
    """A game document the page received: exactly its seat's view while the game runs."""
    if body.get("status") == "finished":
        return
    view = body["view"]
    assert body["seat"] == seat and view["seat"] == seat, "the page read another seat's view"
    assert "hands" not in view
    if view["game"] == "tricky-teams":
        for player in view["players"]:
            if player["seat"] != seat:
                assert "loot" not in player, "another seat's loot reached the page"


def _play_through_the_page(pg: Any, base: str, game: str, seat: int, shots: Path, width: int) -> None:
    received: list[dict[str, Any]] = []

    def on_response(response: Any) -> None:
        path = response.url.split("?")[0][len(base) :]
        if path.startswith("/games/") and path.count("/") == 2 and response.request.method == "GET":
            if response.status == 200:
                received.append(json.loads(response.body()))

    pg.on("response", on_response)
    pg.goto(f"{base}/web/play")
    pg.wait_for_selector("input.opponent", state="attached")
    pg.select_option("#game", game)
    pg.select_option("#seats", "3")
    pg.select_option("#you", str(seat))
    for field, value in GAME_OPTIONS[game].items():
        pg.select_option(f"#{field}", value)
    opponents = pg.eval_on_selector_all("input.opponent", "els => els.map(e => e.value)")
    assert len(opponents) == 2 and all(opponents), "the bundled bots are the default opponents"
    pg.click("#start")
    pg.wait_for_selector("#play:not([hidden])")
    deadline = time.monotonic() + GAME_TIMEOUT_S
    moves = 0
    shot = False
    while pg.locator("#end:not([hidden])").count() == 0:
        assert time.monotonic() < deadline, f"the {game} game did not finish through the page"
        target = pg.locator("#moves button.move, #hand button.card-btn.legal")
        if target.count():
            if not shot and pg.locator("#hand button.card-btn.legal").count():
                pg.screenshot(path=str(shots / f"play-{game}-{width}.png"), full_page=True)
                shot = True
            if moves % 4 == 1:
                pg.keyboard.press("1")  # the keyboard: the first numbered move / playable card
            else:
                target.first.click(timeout=5000)
            moves += 1
            # The page answers with the new view (or reads it again): wait for the next state.
            pg.wait_for_timeout(120)
        else:
            pg.wait_for_timeout(100)
        assert pg.evaluate("document.documentElement.scrollWidth") <= width, (
            "the page is wider than the window"
        )
    assert moves > 0
    names = pg.inner_text("#players")
    assert "ms" in names, "the opponents' answer times are shown"
    assert pg.inner_text("#final").startswith("Final")
    assert received and all(cast(object, _check_view(b, seat)) is None for b in received)
    bot_page = pg.get_attribute("#players a", "href")
    pg.click("#replay-link")
    pg.wait_for_selector("#table .seat")
    assert "/web/games/" in pg.url
    pg.wait_for_function("document.getElementById('mode').textContent.length > 0")
    # The viewer names the challenge's players (issue 24 item 2: names wherever a game is opened).
    pg.wait_for_selector("#players tr[data-seat]")
    assert all(name in pg.inner_text("#players") for name in opponents), pg.inner_text("#players")
    # The opponent's page lists the challenge with its result (challenges are never rated).
    pg.goto(f"{base}{bot_page}")
    pg.wait_for_selector("#challenge-list tr[data-challenge]")
    assert game in pg.inner_text("#challenge-list")
    assert pg.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_person_plays_each_game_through_the_page(
    browser: Any, table: str, shots: Path, viewport: dict[str, int]
) -> None:
    """Issue 28: /web/play, with no knowledge of the API: pick a game (the bundled bots are the default
    opponents), play a whole game with clicks and keys on the highlighted legal moves, follow the bots'
    moves live, and open the replay; the page fits the width and only ever receives its own seat's view."""
    for game, seat in (("tricky-teams", 1), ("trick-n-trouble", 0)):
        for pg in test_web.open_page(browser, viewport):
            _play_through_the_page(pg, table, game, seat, shots, viewport["width"])
            errors = [e for e in pg.errors if "Failed to load resource" not in e]
            assert errors == [], errors
