"""The pages show why a bot's moves failed (issue 18): in a real headless Chromium, a tournament of a
good bot and one run with the wrong secret -- the standings flag it, and the viewer names every
seat's bot, marks each faulted move and its fallback, shows each move's latency, links back to
the tournament and gives every move its own URL."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from bots.bundled import GAME_NAMES, make_bot
from bots.sdk import BotServer
from harness.platform import register_bot
from harness.runner import HarnessContext, run_match
from harness.tournaments import create_tournament, finalize_if_complete, get_tournament
from tests.ops import test_web
from tests.ops.conftest import Served

# The Chromium fixtures of the web tests (headless browser, a page recording errors, screenshots).
browser, page, shots = test_web.browser, test_web.page, test_web.shots

FLAG = "every request answered 401 bad_signature: is the secret right?"


@dataclass
class Faulty:
    """A finished Tricky Teams tournament of a good bot and a bot with the wrong secret."""

    tid: str
    names: dict[str, str]  # bot id -> name
    good: str
    wrong: str


@pytest.fixture(scope="module")
def faulty(served: Served) -> Iterator[Faulty]:
    """Both bots registered through createBot; the matches played in-process to the end."""
    tag = uuid.uuid4().hex[:6]
    servers: list[BotServer] = []
    try:
        unsigned = BotServer(make_bot("random"), None).start()
        good = register_bot(served.base, f"steady-{tag}", unsigned.url, list(GAME_NAMES), None)
        unsigned.stop()
        servers.append(BotServer(make_bot("random"), good["secret"], port=unsigned.port).start())
        wrong_server = BotServer(make_bot("random"), "a-secret-the-platform-never-issued").start()
        servers.append(wrong_server)
        wrong = register_bot(served.base, f"wrongkey-{tag}", wrong_server.url, list(GAME_NAMES), None)
        ctx = HarnessContext.build(served.redis_url, served.prefix, f"ta-test-{tag}")
        ids = [good["bot_id"], wrong["bot_id"]]
        info = create_tournament(
            ctx, "tricky-teams", 4, ids, deals=1, deadline_ms=300, options={"raids": 1}, enqueue=False
        )
        tid = info["tournament_id"]
        for index in range(info["progress"]["total"]):
            assert run_match(ctx, tid, index).status == "recorded"
        finalize_if_complete(ctx, tid)
        assert get_tournament(ctx, tid)["status"] == "finished"
        names = {good["bot_id"]: f"steady-{tag}", wrong["bot_id"]: f"wrongkey-{tag}"}
        yield Faulty(tid, names, good["bot_id"], wrong["bot_id"])
    finally:
        for server in servers:
            server.stop()


def test_the_bot_page_flags_the_tournaments_where_its_calls_faulted(
    page: Any, served: Served, faulty: Faulty, shots: Path
) -> None:
    """Rule: a bot that faults on most of its calls in a tournament is flagged on its own page too,
    with the reason in plain words and a link to that tournament; a bot without faults is not."""
    page.goto(f"{served.base}/web/bots/{faulty.wrong}")
    page.wait_for_selector("#flags-panel:not([hidden])")
    flag = page.locator(f"#flags .flag[data-tournament='{faulty.tid}']")
    assert flag.inner_text().startswith(f"⚠ {FLAG}")
    assert flag.locator("a").get_attribute("href") == f"/web/tournaments/{faulty.tid}"
    page.screenshot(path=str(shots / "bot-page-flag.png"), full_page=True)
    page.goto(f"{served.base}/web/bots/{faulty.good}")
    page.wait_for_selector("#match-list")
    assert page.locator("#flags .flag").count() == 0 and page.locator("#flags-panel").is_hidden()
    assert page.errors == []


def _step(page: Any) -> tuple[int, int]:
    match = re.fullmatch(r"move (\d+) / (\d+)", page.locator("#step").inner_text())
    assert match, page.locator("#step").inner_text()
    return int(match.group(1)), int(match.group(2))


def test_standings_flag_the_bot_whose_calls_fault_with_the_reason(
    page: Any, served: Served, faulty: Faulty, shots: Path
) -> None:
    """Rule: a bot faulting on most of its calls is flagged in the web standings, in plain words."""
    page.goto(f"{served.base}/web/tournaments/{faulty.tid}")
    page.wait_for_selector("#standings")
    wrong_row = page.locator(f"#standings tr[data-entrant='{faulty.wrong}']")
    assert wrong_row.locator(".flag").inner_text() == f"⚠ {FLAG}"
    assert page.locator(f"#standings tr[data-entrant='{faulty.good}'] .flag").count() == 0
    page.screenshot(path=str(shots / "standings-flag.png"), full_page=True)
    assert page.errors == []


def test_viewer_names_bots_marks_faults_and_fallbacks_shows_latency_and_shares_moves(
    page: Any, served: Served, faulty: Faulty, shots: Path
) -> None:
    """Rule: the viewer of a tournament game names every seat's bot (the winner too), marks each
    faulted move with its code and as a fallback, shows each move's latency, links back to the
    tournament, and every position has a URL (#move=N) that opens at that move."""
    page.goto(f"{served.base}/web/tournaments/{faulty.tid}")
    link = page.locator("#match-list a[href^='/web/games/']").first
    href = link.get_attribute("href")
    assert href is not None and f"?tournament={faulty.tid}&match=0" in href
    link.click()
    page.wait_for_selector("#step:has-text('move 0')")
    detail = requests.get(f"{served.base}/tournaments/{faulty.tid}/matches/0", timeout=10).json()
    seats = [faulty.names[s["bot_id"]] for s in detail["seats"]]
    # Bot names on every seat, not "Seat N"; a link back to the tournament.
    headings = page.locator(".seat h3 span:first-child").all_inner_texts()
    assert headings == seats
    assert page.locator("#back").get_attribute("href") == f"/web/tournaments/{faulty.tid}"
    assert page.locator("#perspective option").all_inner_texts()[1:5] == seats
    # The end: the winners by name, and every move in the log with its latency or its fault.
    page.click("#last")
    step, total = _step(page)
    assert step == total == len(detail["decisions"])
    final = page.locator("#table").inner_text()
    winners = {seats[s] for s in detail["result"]["winners"]}
    assert "winner" in final and all(name in final for name in winners) and "Seat " not in final
    faults = [d for d in detail["decisions"] if d["outcome"] != "ok"]
    wrong_seats = sum(1 for s in detail["seats"] if s["bot_id"] == faulty.wrong)
    assert sum(1 for d in faults if d["outcome"] == "http_status") == 4 * wrong_seats
    assert page.locator("#log .fault[data-fault='http_status']").count() == sum(
        1 for d in faults if d["outcome"] == "http_status"
    )
    assert page.locator("#log .fault[data-fault='not_asked']").count() == sum(
        1 for d in faults if d["outcome"] == "not_asked"
    )
    assert page.locator("#log .fallback").count() == len(faults)
    assert page.locator("#log .latency").count() == sum(
        1 for d in detail["decisions"] if d["latency_ms"] is not None
    )
    first_fault = next(d for d in detail["decisions"] if d["outcome"] == "http_status")
    line = page.locator(f"#log div[data-step='{first_fault['version'] - 1}']").inner_text()
    assert line.startswith(f"{first_fault['version'] - 1}. {faulty.names[faulty.wrong]}:")
    assert "⚠ http_status 401" in line and "fallback move" in line and " ms" in line
    page.screenshot(path=str(shots / "viewer-faults.png"), full_page=True)
    # A URL per move: stepping sets #move=N; opening such a URL shows that move.
    page.click("#first")
    page.click("#next")
    page.click("#next")
    assert page.evaluate("location.hash") == "#move=2"
    shared = page.url.replace("#move=2", f"#move={first_fault['version'] - 1}")
    other = page.context.new_page()
    other.goto(shared)
    other.wait_for_selector(f"#step:has-text('move {first_fault['version'] - 1} /')")
    assert "fallback move (http_status 401)" in other.locator("#last-move").inner_text()
    other.close()
    assert page.errors == []
