"""The viewer explains a game wherever it is opened (issue 24, item 2), in a real headless Chromium:
a tournament played by real RQ workers against real HTTP bots on loopback, the API served on a
loopback port. The owner of a bot watches its live game from its seat, a spectator sees who plays
and when the game opens (and the page opens it by itself), and from the bot page's replay link, a
direct link or an uploaded replay file the viewer names every seat, shows faults with reasons and
answer times, marks the caller's own seat and links back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests

from harness.runner import HarnessContext
from harness.tournaments import create_tournament, get_tournament, list_matches
from tests.ops.test_web import browser  # noqa: F401  (the fixture: headless Chromium, never a skip)

from .bot_servers import delayed_bots, owned_faulty_bot
from .conftest import wait_for
from .test_cli_api import api_base  # noqa: F401  (the fixture: the API on a loopback port)

KEY_ITEM = "trickarena.owner-key"  # where the viewer keeps an owner key (localStorage)


def _page(browser: Any, key: str | None = None) -> Any:  # noqa: F811
    """A fresh browser context's page recording script errors; `key` kept as the viewer keeps it."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    if key:
        context.add_init_script(f"localStorage.setItem({json.dumps(KEY_ITEM)}, {json.dumps(key)})")
    page = context.new_page()
    page.set_default_timeout(20000)
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return page


def _player_names(page: Any) -> list[str]:
    """The names in the players' panel, by seat."""
    return [t.strip() for t in page.locator("#players tr[data-seat] .player-name").all_inner_texts()]


@pytest.mark.timeout(240)
def test_viewer_names_faults_latencies_own_seat_live_owner_view_from_anywhere(
    ctx: HarnessContext,
    workers: Any,
    api_base: str,  # noqa: F811 - the fixture imported above
    browser: Any,  # noqa: F811 - the fixture imported above
    tmp_path: Path,
) -> None:
    """Rule (#24 item 2): the owner of a bot watches its live tournament game from its seat (its own
    hand face up, every other hand face down), the page following the game by itself; a spectator
    gets the sealed notice with the players and a link back, and the page opens the game by itself
    once the tournament has ended; from the bot page's replay link, a direct link and an uploaded
    replay file the viewer names every seat, shows faults with reasons in plain words and answer
    times, and marks the caller's own seat."""
    # The flaky bot answers 500 to every third request.
    with (
        owned_faulty_bot(ctx.bots, "flaky", f"flaky-{ctx.store.prefix[-7:-1]}") as (flaky_id, owner),
        delayed_bots(ctx.bots, 3, 0.25, "steady") as steady,
    ):
        workers.start()
        info = create_tournament(
            ctx, "tricky-teams", 4, [flaky_id, *steady], deals=1, deadline_ms=2000, seed=4,
            options={"raids": 1}, max_tables=1,
        )  # fmt: skip
        tid = info["tournament_id"]
        wait_for(lambda: list_matches(ctx, tid, 0, 1)[0]["game_id"] is not None, 60, "match 0's game")
        match = list_matches(ctx, tid, 0, 1)[0]
        gid, seats = match["game_id"], match["seats"]
        mine = seats.index(flaky_id)
        names = [b.name for b in (ctx.bot(s) for s in seats) if b is not None]

        # The owner of the flaky bot, live: its seat's view, exactly what the bot is sent.
        owner_page = _page(browser, owner)
        owner_page.goto(f"{api_base}/web/games/{gid}")
        owner_page.wait_for_selector("#mode:has-text('your seat')")
        owner_page.wait_for_selector(f"#table .seat.yours[data-seat='{mine}']")
        assert f"seat {mine}" in owner_page.inner_text("#seat-note")
        own = owner_page.locator(f"#table .seat[data-seat='{mine}'] .card")
        assert (
            own.count() > 0
            and owner_page.locator(f"#table .seat[data-seat='{mine}'] .card.back").count() == 0
        )
        for other in (s for s in range(4) if s != mine):
            assert owner_page.locator(f"#table .seat[data-seat='{other}'] .card.back").count() > 0
        assert owner_page.locator("#players tr.yours").get_attribute("data-seat") == str(mine)
        assert _player_names(owner_page) == names
        # It follows the game by itself (streamGamePlayers): the state changes with no reload.
        before = owner_page.inner_text("#info")
        owner_page.wait_for_function("(t) => document.getElementById('info').innerText !== t", arg=before)

        # A spectator, live: who plays, the sealed notice, links back; no table.
        spectator = _page(browser)
        spectator.goto(f"{api_base}/web/games/{gid}")
        spectator.wait_for_selector("#mode:has-text('sealed')")
        assert "once its tournament has ended" in spectator.inner_text("#sealed-note")
        assert spectator.locator("#table .seat").count() == 0
        assert spectator.locator("#back").get_attribute("href") == f"/web/tournaments/{tid}"
        assert _player_names(spectator) == names
        assert spectator.locator("#withheld").is_visible()  # faults shown once it has ended
        assert requests.get(f"{api_base}/games/{gid}", timeout=10).status_code == 409  # the rule kept

        wait_for(lambda: get_tournament(ctx, tid)["status"] == "finished", 120, "the tournament's end")
        # The spectator's page opens the game by itself once the tournament has ended.
        spectator.wait_for_selector("#mode:has-text('replay')", timeout=30000)
        spectator.wait_for_selector("#table .seat[data-seat]")
        assert spectator.locator("#withheld").count() == 0
        assert owner_page.errors == [] and spectator.errors == []

    # From the bot page's replay link, with the owner's key: back links, names, faults, times, own seat.
    page = _page(browser, owner)
    page.goto(f"{api_base}/web/bots/{flaky_id}")
    link = page.locator(f"#match-list tr[data-match='{tid}:0'] a.replay")
    assert link.get_attribute("href") == f"/web/games/{gid}?bot={flaky_id}"
    link.click()
    page.wait_for_selector("#step:has-text('move 0')")
    assert page.locator("#back-bot").get_attribute("href") == f"/web/bots/{flaky_id}"
    assert page.locator("#back").get_attribute("href") == f"/web/tournaments/{tid}"
    assert page.locator(".seat h3 span:first-child").all_inner_texts() == names
    page.wait_for_selector(f"#table .seat.yours[data-seat='{mine}']")
    flaky_row = page.locator(f"#players tr[data-seat='{mine}']")
    assert "answered 500" in flaky_row.locator(".faults").inner_text()
    for s in range(4):
        assert " ms" in page.locator(f"#players tr[data-seat='{s}'] .latencies").inner_text()
    assert page.errors == []

    # A direct link, nobody's key: the same names, faults and times; no seat is "yours".
    direct = _page(browser)
    direct.goto(f"{api_base}/web/games/{gid}")
    direct.wait_for_selector("#step:has-text('move 0')")
    assert direct.locator(".seat h3 span:first-child").all_inner_texts() == names
    assert "answered 500" in direct.locator(f"#players tr[data-seat='{mine}'] .faults").inner_text()
    assert direct.locator(".seat.yours, #players tr.yours").count() == 0
    direct.click("#last")
    direct.wait_for_selector("#log .latency")
    assert direct.errors == []

    # An uploaded replay file, as `trickarena play` writes it: its names, decisions, the author's seat.
    replay = requests.get(f"{api_base}/games/{gid}/replay", timeout=10).json()
    detail = requests.get(f"{api_base}/games/{gid}/players", timeout=10).json()
    path = tmp_path / "replay.json"
    upload_names = [f"bot-{s}" if s != mine else f"you({s})" for s in range(4)]
    path.write_text(
        json.dumps({**replay, "players": upload_names, "your_seat": mine, "decisions": detail["decisions"]})
    )
    uploaded = _page(browser)
    uploaded.goto(f"{api_base}/web/replay")
    uploaded.set_input_files("#upload", str(path))
    uploaded.wait_for_selector("#mode:has-text('replay')")
    uploaded.wait_for_selector("#step:has-text('move 0')")
    assert uploaded.locator(".seat h3 span:first-child").all_inner_texts() == upload_names
    assert uploaded.locator("#table .seat.yours").get_attribute("data-seat") == str(mine)
    assert "answered 500" in uploaded.locator(f"#players tr[data-seat='{mine}'] .faults").inner_text()
    assert " ms" in uploaded.locator(f"#players tr[data-seat='{(mine + 1) % 4}'] .latencies").inner_text()
    uploaded.click("#last")
    uploaded.wait_for_selector("#log .latency")
    assert uploaded.errors == []
