"""The web pages in a real headless Chromium (Debian's /usr/bin/chromium, driven by playwright).

Rules pinned: the pages load without script errors; the home page lists the tournaments; a
finished tournament's page shows its final standings (one row per entrant, with intervals), the
rating chart (one line per entrant), the head-to-head or cross-play heat map and the match list
linking to the viewer; the viewer steps through a replay move by move and trick by trick, from
any seat's perspective, and follows a live game as moves are posted (as a spectator, or as a seat
with its token), turning into a replay when it ends.

Screenshots land in $TRICKARENA_SCREENSHOTS (default: the test's temp dir).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.ops.conftest import GAME_SEATS, TOURNAMENT_NAMES, Arena, Served, new_game

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TIMEOUT_MS = 15000


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go."""
    target = os.environ.get("TRICKARENA_SCREENSHOTS")
    path = Path(target) if target else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium; missing Chromium is a failure (make test installs it), never a skip."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), "Chromium is missing: `make test` installs Debian's chromium (apt-get)"
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield instance
        instance.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    """A fresh page that records console errors and uncaught exceptions."""
    yield from open_page(browser, {"width": 1300, "height": 900})


def open_page(browser: Any, viewport: dict[str, int]) -> Iterator[Any]:
    """A fresh page of that size, recording console errors and uncaught exceptions (in `errors`)."""
    context = browser.new_context(viewport=viewport)
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    pg.errors = []
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    pg.on("console", lambda msg: pg.errors.append(msg.text) if msg.type == "error" else None)
    yield pg
    context.close()


def test_home_page_lists_every_tournament_with_its_progress(page: Any, arena: Arena, shots: Path) -> None:
    """Rule: the home page lists the tournaments, each linking to its page, finished ones at 100%."""
    page.goto(f"{arena.served.base}/web/")
    page.wait_for_selector("#tournament-list")
    for game, tid in arena.tournaments.items():
        link = page.locator(f'a[href="/web/tournaments/{tid}"]')
        assert link.count() == 1
        row = page.locator("#tournament-list tr", has=link)
        assert game in row.inner_text() and "finished" in row.inner_text()
    page.screenshot(path=str(shots / "home.png"), full_page=True)
    assert page.errors == []


def test_home_page_names_tournaments_and_leagues_with_game_status_and_entrants(
    page: Any, arena: Arena, shots: Path
) -> None:
    """Rule (issue 17): the home page shows each tournament and league by its name (escaped, never
    its hex id as the label), with its game, status and entrant or member count, read from the
    public listings (listTournaments, listLeagues)."""
    listings: list[str] = []
    page.on("request", lambda r: listings.append(r.url) if "/web/data/" not in r.url else None)
    page.goto(f"{arena.served.base}/web/")
    page.wait_for_selector("#tournament-list")
    page.wait_for_selector("#league-list")
    assert any(u.endswith("/tournaments?limit=50") for u in listings)
    assert any(u.endswith("/leagues?limit=50") for u in listings)
    for game, tid in arena.tournaments.items():
        row = page.locator(f'#tournament-list tr[data-tournament="{tid}"]')
        assert row.locator("a.name").inner_text() == TOURNAMENT_NAMES[game]
        assert tid not in row.inner_text()
        assert row.locator(".game").inner_text().startswith(game)
        assert row.locator(".status").inner_text() == "finished"
        assert row.locator(".entrants").get_attribute("data-total") == str(len(arena.bots))
        assert sorted(row.locator(".entrants a.bot").all_inner_texts()) == sorted(arena.bots)
    round_row = page.locator(f'#tournament-list tr[data-tournament="{arena.league}r1"]')
    assert round_row.locator("a.name").inner_text() == "Nightly · round 1"
    league = page.locator(f'#league-list tr[data-league="{arena.league}"]')
    assert league.locator("a.name").inner_text() == "Nightly"
    assert league.locator(".game").inner_text().startswith("tricky-teams")
    assert league.locator(".status").inner_text() == "active"
    assert league.locator(".members").inner_text() == str(len(arena.bots))
    assert page.locator("#tournament-list cup").count() == 0  # the name was escaped, not parsed
    page.screenshot(path=str(shots / "home-names.png"), full_page=True)
    assert page.errors == []


@pytest.mark.parametrize("game", sorted(GAME_SEATS))
def test_tournament_page_shows_final_standings_chart_heat_map_and_matches(
    page: Any, arena: Arena, shots: Path, game: str
) -> None:
    """Rule: standings (a row per entrant, intervals marked provisional from too few deals), the
    mean-score lines (the standings' measure), heat map, matches to the viewer."""
    tid = arena.tournaments[game]
    page.goto(f"{arena.served.base}/web/tournaments/{tid}")
    page.wait_for_selector("#standings")
    assert page.locator("#standings-title").inner_text() == "Final standings"
    rows = page.locator("#standings tr[data-entrant]")
    assert rows.count() == len(arena.bots)
    text = page.locator("#standings").inner_text()
    for name in arena.bots:
        assert name in text
    assert page.locator("#standings .ci .dot").count() == len(arena.bots)
    assert page.locator("#chart svg polyline").count() == len(arena.bots)
    # One deal per pairing: every interval is provisional, shown so, and separates no one.
    assert page.locator("#standings td.provisional .prov").count() == len(arena.bots)
    assert page.locator("#standings .tie").count() == len(arena.bots)
    heat_title = "Cross-play" if game == "trick-n-trouble" else "Head to head"
    assert page.locator("#heat-title").inner_text() == heat_title
    assert page.locator("#heatmap td.cell").count() == len(arena.bots) ** 2
    data = requests.get(f"{arena.served.base}/web/data/tournaments/{tid}", timeout=10).json()
    total = data["tournament"]["progress"]["total"]
    assert page.locator("#match-list a[href^='/web/games/']").count() == total
    page.screenshot(path=str(shots / f"tournament-{game}.png"), full_page=True)
    assert page.errors == []


def test_bot_page_shows_its_matches_versions_faults_and_rating_across_leagues(
    page: Any, arena: Arena, shots: Path
) -> None:
    """Rule (issue 18, My bot): bot names in the standings, match lists and home page link to
    the bot's page, which shows its matches newest first (the same ones, in the same order, as
    listBotMatches, paged with "older"), its results and faults by reason per version, and its
    rating line in each league it plays."""
    bot_id = arena.bots["random"]
    page.goto(f"{arena.served.base}/web/")
    page.wait_for_selector("#tournament-list")
    # Both tournaments and the league round list it.
    links = page.locator(f'#tournament-list a[href="/web/bots/{bot_id}"]')
    assert links.count() == len(arena.tournaments) + 1
    page.goto(f"{arena.served.base}/web/tournaments/{arena.tournaments['tricky-teams']}")
    page.wait_for_selector("#standings")
    assert page.locator(f'#match-list a[href="/web/bots/{bot_id}"]').count() > 0
    page.click(f'#standings a[href="/web/bots/{bot_id}"]')
    page.wait_for_selector("#match-list")
    assert page.locator("#title").inner_text() == "random"
    api = arena.served.base
    first = requests.get(f"{api}/bots/{bot_id}/matches?limit=50", timeout=10).json()
    shown = [row.get_attribute("data-match") for row in page.locator("#match-list tr[data-match]").all()]
    assert shown == [f"{m['tournament_id']}:{m['index']}" for m in first["matches"]]
    # Ten a page: "older" walks every page, in the API's order; "newer" comes back.
    page.goto(f"{api}/web/bots/{bot_id}?limit=10")
    page.wait_for_selector("#match-list")
    everything: list[str] = []
    pages = 0
    while True:
        rows = page.locator("#match-list tr[data-match]")
        assert 1 <= rows.count() <= 10
        everything += [row.get_attribute("data-match") for row in rows.all()]
        pages += 1
        if page.locator("#older").count() == 0:
            break
        before = rows.first.get_attribute("data-match")
        page.click("#older")
        page.wait_for_function(
            f"document.querySelector('#match-list tr[data-match]').dataset.match !== {before!r}"
        )
    assert pages >= 3 and len(everything) == len(set(everything))
    page.click("#newer")
    page.wait_for_selector("#older")
    expected = set()
    for tid in [*arena.tournaments.values(), f"{arena.league}r1"]:
        listing = requests.get(f"{api}/tournaments/{tid}/matches?limit=500", timeout=10).json()["matches"]
        expected |= {(tid, r["index"]) for r in listing if bot_id in r["seats"]}
    assert set(everything) == {f"{tid}:{index}" for tid, index in expected}
    # Per version: the league round's Tricky Teams games (the practice tournaments are left out).
    version = requests.get(f"{api}/bots/{bot_id}", timeout=10).json()["version"]
    rows = page.locator("#version-list tr[data-version]")
    assert rows.count() == 1 and rows.first.get_attribute("data-version") == version
    assert "tricky-teams" in rows.first.inner_text()
    assert page.locator("#leagues svg polyline").count() == 1
    assert "Nightly" in page.locator("#leagues").inner_text()
    page.screenshot(path=str(shots / "bot.png"), full_page=True)
    assert page.errors == []


def test_league_page_shows_standings_over_its_rounds(page: Any, arena: Arena, shots: Path) -> None:
    """Rule: a league lists on the home page; its page shows standings (per bot, or per bot version
    at a click), mean-score lines and each round."""
    page.goto(f"{arena.served.base}/web/")
    page.wait_for_selector(f'a[href="/web/leagues/{arena.league}"]')
    page.click(f'a[href="/web/leagues/{arena.league}"]')
    page.wait_for_selector("#standings")
    assert "Nightly" in page.locator("#title").inner_text()
    assert page.locator("#standings tr[data-entrant]").count() == len(arena.bots)
    assert page.locator("#heatmap td.cell").count() == len(arena.bots) ** 2
    assert page.locator("#chart svg polyline").count() == len(arena.bots)
    # Per version (issue 18): a row per bot version (one each here), then back to per bot.
    page.click("#by-version")
    page.wait_for_selector("#standings.by-version")
    versions = {
        bot_id: requests.get(f"{arena.served.base}/bots/{bot_id}", timeout=10).json()["version"]
        for bot_id in arena.bots.values()
    }
    rows = page.locator("#standings tr[data-version]")
    assert rows.count() == len(arena.bots)
    assert {(r.get_attribute("data-entrant"), r.get_attribute("data-version")) for r in rows.all()} == set(
        versions.items()
    )
    page.click("#by-bot")
    page.wait_for_selector("#standings:not(.by-version)")
    round_link = page.locator("#rounds a[href^='/web/tournaments/']")
    assert round_link.count() == 1 and "finished" in page.locator("#rounds").inner_text()
    page.screenshot(path=str(shots / "league.png"), full_page=True)
    round_link.click()
    page.wait_for_selector("#standings")
    assert "league round 1" in page.locator("#subtitle").inner_text()
    assert page.errors == []


def _step(page: Any) -> tuple[int, int]:
    match = re.fullmatch(r"move (\d+) / (\d+)", page.locator("#step").inner_text())
    assert match, page.locator("#step").inner_text()
    return int(match.group(1)), int(match.group(2))


@pytest.mark.parametrize("game", sorted(GAME_SEATS))
def test_viewer_steps_through_a_replay_by_move_and_by_trick_from_any_seat(
    page: Any, arena: Arena, shots: Path, game: str
) -> None:
    """Rule: a finished game replays from its start; next/next-trick/end step it; seats see their hands."""
    seats = GAME_SEATS[game]
    page.goto(f"{arena.served.base}/web/games/{arena.games[game]}")
    page.wait_for_selector("#step:has-text('move 0')")
    assert page.locator("#mode").inner_text() == "replay"
    step, total = _step(page)
    assert step == 0 and total > seats
    # All seats at once (the default for a finished game): every hand face up.
    assert page.locator(".seat").count() == seats
    assert page.locator(".seat .hand .card.back").count() == 0
    page.click("#next")
    assert _step(page) == (1, total)
    assert page.locator("#log div").count() == 1
    page.click("#next-trick")
    after_trick, _ = _step(page)
    assert after_trick > 1
    page.screenshot(path=str(shots / f"viewer-{game}-trick.png"), full_page=True)
    page.click("#last")
    assert _step(page) == (total, total)
    assert "Final" in page.locator("#table").inner_text()
    page.click("#prev-trick")
    assert _step(page)[0] < total
    # One seat's perspective: its own hand face up, every other hand face down.
    page.select_option("#perspective", "1")
    page.click("#first")
    page.wait_for_selector(".seat[data-seat='0'] .hand .card.back")
    assert page.locator(".seat[data-seat='1'] .hand .card.back").count() == 0
    assert page.locator(".seat[data-seat='1'] .hand .card").count() > 0
    page.select_option("#perspective", "spectator")
    page.wait_for_selector(".seat[data-seat='1'] .hand .card.back")
    # Only Tricky Teams 8s show face up in a hidden hand: they have no card back.
    face_up = page.locator(".seat .hand .card:not(.back) .rank").all_inner_texts()
    assert all(rank == "8" for rank in face_up) and (game == "tricky-teams" or not face_up)
    page.screenshot(path=str(shots / f"viewer-{game}-spectator.png"), full_page=True)
    assert page.errors == []


def test_viewer_follows_a_live_game_as_moves_are_posted(page: Any, served: Served, shots: Path) -> None:
    """Rule: an unfinished game is shown live (spectator view) and updates from the event stream."""
    created = new_game(served.base, "tricky-teams", seed=9)
    gid = created["game_id"]
    page.goto(f"{served.base}/web/games/{gid}")
    page.wait_for_selector("#mode:has-text('live')")
    page.wait_for_selector("#trick:has-text('no cards on the table')")
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    doc = requests.get(f"{served.base}/games/{gid}", timeout=10).json()
    seat = doc["view"]["to_move"][0]
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    answer = requests.get(f"{served.base}/games/{gid}/legal-moves", headers=auth, timeout=10)
    legal = answer.json()["legal_moves"]
    answer = requests.post(f"{served.base}/games/{gid}/moves", json=legal[0], headers=auth, timeout=10)
    assert answer.status_code == 200, answer.text
    page.wait_for_selector("#trick .card")
    assert page.locator("#trick .card").count() == 1
    page.screenshot(path=str(shots / "viewer-live.png"), full_page=True)
    assert page.errors == []
    # With a seat token in the fragment, the live view is that seat's: its hand face up only.
    other = next(s for s in tokens if s != seat)
    page.goto("about:blank")  # a fragment-only change would not reload the page
    page.goto(f"{served.base}/web/games/{gid}#token={tokens[other]}")
    page.wait_for_selector("#subtitle:has-text('as your seat')")
    page.wait_for_selector(f".seat[data-seat='{other}'] .hand .card")
    assert page.locator(f".seat[data-seat='{other}'] .hand .card.back").count() == 0
    assert page.errors == []


def test_a_live_game_turns_into_a_replay_when_it_ends(page: Any, served: Served) -> None:
    """Rule: the viewer following a live game switches to the replay when the game finishes."""
    import random

    created = new_game(served.base, "tricky-teams", seed=3, options={"raids": 1})
    gid = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    page.goto(f"{served.base}/web/games/{gid}")
    page.wait_for_selector("#mode:has-text('live')")
    rng = random.Random(3)
    session = requests.Session()
    while True:
        doc = session.get(f"{served.base}/games/{gid}", timeout=10).json()
        if doc["status"] == "finished":
            break
        seat = doc["view"]["to_move"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = session.get(f"{served.base}/games/{gid}/legal-moves", headers=auth, timeout=10).json()
        sent = {**auth, "If-Match": f'"{doc["version"]}"'}  # a repeated own move is no duplicate
        answer = session.post(
            f"{served.base}/games/{gid}/moves",
            json=rng.choice(legal["legal_moves"]),
            headers=sent,
            timeout=10,
        )
        assert answer.ok, answer.text
    page.wait_for_selector("#mode:has-text('replay')")
    page.wait_for_selector("#step:has-text('move 0')")
    assert page.errors == []
