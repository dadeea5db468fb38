"""The web pages on a phone and on a desktop, and the details a newcomer reads (issue 24 §7, §11), in
a real headless Chromium (Debian's /usr/bin/chromium, driven by playwright).

Rules pinned: every page under /web -- home, bots, write a bot, tournament (both games), league,
bot, viewer -- fits a 390 px phone and a 1300 px desktop: nothing is wider than the window (tables
scroll inside their own box, charts scale), nothing is cut off by a hidden overflow, and the
header takes a small share of the height. Titles (the tab's and the h1) name the tournament,
league or bot, never its id. A bot the rating chart leaves out is named under the chart with the
reason. μ, σ, ordinal, the separation marks and the threshold rate are explained where they are
shown. The home page links to the bots and to "write a bot".

Screenshots land in $TRICKARENA_SCREENSHOTS (default: the test's temp dir), named
``layout-<page>-<width>.png``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bots.bundled import GAME_NAMES, make_bot
from bots.sdk import BotServer
from harness.platform import register_bot
from harness.runner import HarnessContext, run_match
from harness.tournaments import (
    create_league,
    create_tournament,
    finalize_if_complete,
    get_tournament,
    join_league,
    run_league_round,
)
from tests.ops import test_web
from tests.ops.conftest import Arena

# The Chromium fixtures of the web tests (headless browser, screenshots).
browser, shots = test_web.browser, test_web.shots

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1300, "height": 900}
HEADER_SHARE = 0.12  # the most of the window's height the header may take
FLAG = "every request answered 401 bad_signature: is the secret right?"


@dataclass
class Showcase:
    """A finished Tricky Teams tournament and a league round of three bots with long names, one of
    them run with the wrong secret (every call faults, so every match leaves it unrated)."""

    tid: str
    lid: str
    round_tid: str
    names: dict[str, str] = field(default_factory=dict)  # role -> bot name
    ids: dict[str, str] = field(default_factory=dict)  # role -> bot id
    game_id: str = ""  # a finished game of the tournament
    match: int = 0  # its match index


@pytest.fixture(scope="module")
def showcase(arena: Arena) -> Iterator[Showcase]:
    """Three bots through createBot; the tournament's matches and the league's first round played
    in-process to the end."""
    served = arena.served
    tag = uuid.uuid4().hex[:6]
    servers: list[BotServer] = []
    ids: dict[str, str] = {}
    names: dict[str, str] = {}
    keys: dict[str, str] = {}
    try:
        for role, kind in (("steady", "random"), ("clever", "heuristic")):
            name = f"{role}-{kind}-player-{tag}"
            unsigned = BotServer(make_bot(kind), None).start()
            reg = register_bot(served.base, name, unsigned.url, list(GAME_NAMES), None)
            unsigned.stop()
            servers.append(BotServer(make_bot(kind), reg["secret"], port=unsigned.port).start())
            ids[role], names[role], keys[role] = reg["bot_id"], name, reg["owner_key"]
        wrong_server = BotServer(make_bot("random"), "a-secret-the-platform-never-issued").start()
        servers.append(wrong_server)
        name = f"wrong-secret-player-{tag}"
        reg = register_bot(served.base, name, wrong_server.url, list(GAME_NAMES), None)
        ids["wrong"], names["wrong"], keys["wrong"] = reg["bot_id"], name, reg["owner_key"]
        ctx = HarnessContext.build(served.redis_url, served.prefix, f"ta-test-{tag}")
        info = create_tournament(
            ctx,
            "tricky-teams",
            4,
            list(ids.values()),
            deals=1,
            deadline_ms=300,
            options={"raids": 1},
            enqueue=False,
            name=f"Autumn open {tag}",
        )
        tid = info["tournament_id"]
        for index in range(info["progress"]["total"]):
            assert run_match(ctx, tid, index).status == "recorded"
        finalize_if_complete(ctx, tid)
        assert get_tournament(ctx, tid)["status"] == "finished"
        league = create_league(
            ctx,
            "tricky-teams",
            4,
            interval_s=3600,
            deadline_ms=300,
            name=f"Weekly ladder {tag}",
            options={"raids": 1},
            enqueue=False,
        )
        lid = league["league_id"]
        for role, bot_id in ids.items():
            join_league(ctx, lid, bot_id, keys[role])
        round_tid = run_league_round(ctx, lid, 1)
        assert round_tid is not None
        for index in range(get_tournament(ctx, round_tid)["progress"]["total"]):
            assert run_match(ctx, round_tid, index).status == "recorded"
        finalize_if_complete(ctx, round_tid)
        first = ctx.store.results(tid)[0]
        yield Showcase(tid, lid, round_tid, names, ids, first["game_id"], int(first["index"]))
    finally:
        for server in servers:
            server.stop()


@pytest.fixture()
def phone(browser: Any) -> Iterator[Any]:
    """A fresh phone-sized page that records console errors and uncaught exceptions."""
    yield from test_web.open_page(browser, PHONE)


@pytest.fixture()
def desktop(browser: Any) -> Iterator[Any]:
    """A fresh desktop-sized page that records console errors and uncaught exceptions."""
    yield from test_web.open_page(browser, DESKTOP)


# Every page, with what shows it has loaded: (path, selector) from the fixtures.
def _pages(arena: Arena, show: Showcase) -> dict[str, tuple[str, str]]:
    return {
        "home": ("/web/", "#tournament-list"),
        "bots": ("/web/bots/", "#bot-list"),
        "write-a-bot": ("/web/write-a-bot", "#steps"),
        "tournament": (f"/web/tournaments/{show.tid}", "#standings"),
        "tournament-coop": (f"/web/tournaments/{arena.tournaments['trick-n-trouble']}", "#standings"),
        "league": (f"/web/leagues/{show.lid}", "#standings"),
        "bot": (f"/web/bots/{show.ids['steady']}", "#match-list"),
        "bot-flagged": (f"/web/bots/{show.ids['wrong']}", "#flags-panel:not([hidden])"),
        "viewer": (
            f"/web/games/{show.game_id}?tournament={show.tid}&match={show.match}",
            "#step:has-text('move 0')",
        ),
        "viewer-coop": (f"/web/games/{arena.games['trick-n-trouble']}", "#step:has-text('move 0')"),
        "play": ("/web/play", "input.opponent"),
    }


PAGES = [
    "home",
    "bots",
    "write-a-bot",
    "tournament",
    "tournament-coop",
    "league",
    "bot",
    "bot-flagged",
    "viewer",
]
PAGES.append("viewer-coop")
PAGES.append("play")  # its table, at both widths, in tests/ops/test_web_play.py

# What sticks out: the page's width against the window's, elements reaching past the right edge
# without a horizontally scrolling box around them (cut off or widening the page), html or body
# hiding their overflow (which would only hide the problem), the header's height and position,
# and charts wider than their box.
MEASURE = """() => {
  const W = window.innerWidth;
  const scrolls = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  const label = (el) => `${el.tagName.toLowerCase()}#${el.id}.${el.getAttribute("class") || ""}`;
  const sticking = [];
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (!r.width || r.right <= W + 1 || getComputedStyle(el).visibility === "hidden") continue;
    let box = el.parentElement, inside = false;
    while (box && box !== document.body && !inside) { inside = scrolls(box); box = box.parentElement; }
    if (!inside) sticking.push(`${label(el)} right=${Math.round(r.right)}`);
  }
  const header = document.querySelector("header.top");
  const charts = [];
  for (const svg of document.querySelectorAll("svg")) {
    const wide = svg.getBoundingClientRect().width, room = svg.parentElement.clientWidth;
    if (wide > room + 1) charts.push(`${svg.getAttribute("aria-label")} ${Math.round(wide)} > ${room}`);
  }
  const clipped = (e) => ["hidden", "clip"].includes(getComputedStyle(e).overflowX);
  return {
    scrollWidth: document.documentElement.scrollWidth, innerWidth: W, innerHeight: window.innerHeight,
    sticking: sticking.slice(0, 12),
    hidden: [document.documentElement, document.body].filter(clipped).map((e) => e.tagName),
    header: header && {height: header.offsetHeight, position: getComputedStyle(header).position},
    charts,
  };
}"""


def _check_fits(pg: Any, name: str, shots: Path) -> None:
    m = pg.evaluate(MEASURE)
    pg.screenshot(path=str(shots / f"layout-{name}-{m['innerWidth']}.png"), full_page=True)
    assert m["scrollWidth"] <= m["innerWidth"], m
    assert m["sticking"] == [], m
    assert m["hidden"] == [], m
    assert m["charts"] == [], m
    assert m["header"] is not None, "every page has the header"
    assert m["header"]["height"] <= HEADER_SHARE * m["innerHeight"], m
    assert m["header"]["position"] != "fixed", m


@pytest.mark.parametrize("name", PAGES)
def test_every_page_fits_a_phone_and_a_desktop(
    phone: Any, desktop: Any, arena: Arena, showcase: Showcase, shots: Path, name: str
) -> None:
    """Rule (issue 24 §7): at 390 × 844 no page is wider than the window (document scrollWidth <=
    innerWidth), no content is cut off or pushes past the edge outside its own scrolling box (wide
    tables scroll inside it), charts scale to their box, and the header is not fixed and takes at
    most 12% of the height; the same holds at 1300 × 900 (the phone layout costs the desktop
    nothing)."""
    path, ready = _pages(arena, showcase)[name]
    for pg in (phone, desktop):
        pg.goto(f"{arena.served.base}{path}")
        pg.wait_for_selector(ready)
        _check_fits(pg, name, shots)
        assert pg.errors == []


def test_titles_name_the_tournament_league_and_bot_never_their_ids(
    desktop: Any, arena: Arena, showcase: Showcase
) -> None:
    """Rule (issue 24 §11): the tab's title and the h1 of a tournament, league or bot page are its
    name (the game and the rest go in the line below), never its id."""
    base = arena.served.base
    cases = [
        (f"/web/tournaments/{showcase.tid}", f"Autumn open {showcase.names['steady'][-6:]}", showcase.tid),
        (f"/web/leagues/{showcase.lid}", f"Weekly ladder {showcase.names['steady'][-6:]}", showcase.lid),
        (
            f"/web/tournaments/{showcase.round_tid}",
            f"Weekly ladder {showcase.names['steady'][-6:]} · round 1",
            showcase.round_tid,
        ),
        (f"/web/bots/{showcase.ids['steady']}", showcase.names["steady"], showcase.ids["steady"]),
    ]
    for path, name, ident in cases:
        desktop.goto(f"{base}{path}")
        desktop.wait_for_function("document.querySelector('#subtitle').textContent !== 'Loading…'")
        h1 = desktop.locator("h1#title").inner_text()
        assert h1.startswith(name) and ident not in h1, (path, h1)
        assert desktop.title() == f"{name} · Trick Arena", (path, desktop.title())
    desktop.goto(f"{base}/web/tournaments/{showcase.tid}")
    desktop.wait_for_selector("#standings")
    assert "tricky-teams" in desktop.locator("#subtitle").inner_text()
    # The bot page names the tournaments of its matches and of its flags.
    desktop.goto(f"{base}/web/bots/{showcase.ids['wrong']}")
    desktop.wait_for_selector("#flags-panel:not([hidden])")
    tournament = f"Autumn open {showcase.names['steady'][-6:]}"
    assert desktop.locator(f'#flags a[href="/web/tournaments/{showcase.tid}"]').inner_text() == tournament
    linked = desktop.locator(f'#match-list a.tournament[href="/web/tournaments/{showcase.tid}"]')
    assert linked.count() > 0 and set(linked.all_inner_texts()) == {tournament}
    assert showcase.tid not in desktop.locator("main").inner_text()
    assert desktop.errors == []


@pytest.mark.parametrize("kind", ["tournament", "league"])
def test_a_bot_left_unrated_is_named_under_the_chart_with_the_reason(
    desktop: Any, arena: Arena, showcase: Showcase, shots: Path, kind: str
) -> None:
    """Rule (issue 24 §11): a bot on the standings page that the rating chart draws no line for is
    named under the chart, saying why: here it faulted past the fault threshold in every match, so
    every match left it unrated, with its flag's cause in plain words. The bots with lines are not."""
    path = f"/web/tournaments/{showcase.tid}" if kind == "tournament" else f"/web/leagues/{showcase.lid}"
    desktop.goto(f"{arena.served.base}{path}")
    desktop.wait_for_selector("#standings")
    assert desktop.locator("#chart svg polyline").count() == 2
    notes = desktop.locator("#chart-notes li")
    assert notes.count() == 1
    note = notes.first
    assert note.get_attribute("data-entrant") == showcase.ids["wrong"]
    text = note.inner_text()
    assert text.startswith(showcase.names["wrong"]), text
    assert (
        "no rating yet" in text and "left it unrated" in text and "fault threshold" in text and FLAG in text
    ), text
    assert note.locator(f'a[href="/web/bots/{showcase.ids["wrong"]}"]').count() == 1
    desktop.locator("#chart-notes").screenshot(path=str(shots / f"chart-notes-{kind}.png"))
    assert desktop.errors == []


def test_ratings_separation_and_threshold_are_explained_where_shown(desktop: Any, arena: Arena) -> None:
    """Rule (issue 24 §11): the standings' μ, σ, ordinal and threshold headers each carry their
    meaning (an <abbr> title), and a legend under the table says in plain words what μ, σ, the
    ordinal (μ − 3σ), the 95% interval, "provisional", "not yet separated", unrated and the
    threshold rate mean; the bot page's rating chart says what the ordinal is."""
    base = arena.served.base
    desktop.goto(f"{base}/web/tournaments/{arena.tournaments['trick-n-trouble']}")
    desktop.wait_for_selector("#standings")
    for header in ("μ", "σ", "Ordinal", "Threshold"):
        abbr = desktop.locator("#standings th abbr", has_text=header)
        assert abbr.count() == 1, header
        assert len(abbr.get_attribute("title") or "") > 20, header
    legend = desktop.locator("#standings-legend")
    assert legend.is_visible()
    text = legend.inner_text()
    for words in (
        "μ",
        "σ",
        "ordinal",
        "μ − 3σ",
        "95%",
        "provisional",
        "not yet separated",
        "unrated",
        "threshold",
    ):
        assert words in text, words
    desktop.goto(f"{base}/web/bots/{arena.bots['random']}")
    desktop.wait_for_selector("#leagues svg")
    assert "μ − 3σ" in desktop.locator("#leagues-legend").inner_text()
    assert desktop.errors == []


def test_the_home_page_links_to_the_bots_and_to_writing_a_bot(
    desktop: Any, arena: Arena, showcase: Showcase
) -> None:
    """Rule (issue 24 §11): the home page (and every page's header) links to a bots page, which
    lists every registered bot linking to its own page, and to "write a bot", which shows the ten
    lines of a bot and the commands from your machine to a tournament, without leaving the site."""
    base = arena.served.base
    desktop.goto(f"{base}/web/")
    desktop.wait_for_selector("#tournament-list")
    assert desktop.locator("main a[href='/web/bots/']").count() >= 1
    assert desktop.locator("main a[href='/web/write-a-bot']").count() >= 1
    assert desktop.locator("header.top a[href='/web/bots/']").count() == 1
    assert desktop.locator("header.top a[href='/web/write-a-bot']").count() == 1
    desktop.locator("main a[href='/web/bots/']").first.click()
    desktop.wait_for_selector("#bot-list")
    for role, bot_id in showcase.ids.items():
        link = desktop.locator(f'#bot-list a[href="/web/bots/{bot_id}"]')
        assert link.count() == 1 and link.inner_text() == showcase.names[role]
    for name, bot_id in arena.bots.items():
        assert desktop.locator(f'#bot-list a[href="/web/bots/{bot_id}"]').inner_text() == name
    desktop.goto(f"{base}/web/")
    desktop.locator("main a[href='/web/write-a-bot']").first.click()
    desktop.wait_for_selector("#steps")
    text = desktop.locator("main").inner_text()
    assert "def choose(view, legal_moves):" in text and "trickarena bot check" in text
    assert "trickarena tournament create" in text
    assert desktop.errors == []
