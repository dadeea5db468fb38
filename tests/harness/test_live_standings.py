"""Live standings (issue 16): ratings and counts folded in as results are recorded equal a
recomputation from scratch; reads touch a bounded page, never the history; the intervals come
from a debounced background job; pages through the API; cooperative rating grows linearly."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from api.app import create_app
from harness import tournaments as T
from harness.ratings import Rating, RatingEvent, cooperative_events, rate
from harness.runner import HarnessContext
from harness.standings import HISTORY_POINTS, compute_standings
from harness.store import HarnessStore

from .conftest import WorkerProcs, wait_for

GAMES = {"tricky-teams": (4, False), "trick-n-trouble": (3, True)}


@pytest.fixture()
def stub_bots(ctx: HarnessContext, monkeypatch: pytest.MonkeyPatch) -> Callable[[int, str], list[str]]:
    """Registry bots that are never called (results are recorded by the test): probe stubbed."""

    def probe(url: str, games: list[str]) -> dict[str, Any]:
        return {"name": "stub", "author": "tests", "version": "1", "games": games}

    monkeypatch.setattr(ctx.bots, "probe", probe)
    made: dict[str, list[str]] = {}

    def make(count: int, game: str) -> list[str]:
        have = made.setdefault(game, [])
        while len(have) < count:
            created = ctx.bots.create(
                f"stub-{game}-{len(have)}-{time.monotonic_ns()}",
                f"http://127.0.0.1:9/{game}/{len(have)}",
                [game],
            )
            have.append(created.bot.id)
            OWNER_KEYS[created.bot.id] = created.owner_key
        return have[:count]

    return make


OWNER_KEYS: dict[str, str] = {}


@pytest.fixture()
def client(redis_url: str, key_prefix: str, queue_name: str) -> Any:
    """The API app on the test database, prefix and queue (Flask test client)."""
    config = {"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix, "TRICKARENA_QUEUE": queue_name}
    return create_app(config).test_client()


def _result(
    match: dict[str, Any], rng: random.Random, cooperative: bool, error: bool = False
) -> dict[str, Any]:
    seats = match["seats"]
    base = {k: match[k] for k in ("index", "deal", "table", "rotation", "seats")}
    if error:
        return {**base, "error": "RuntimeError: the game expired"}
    scores = [rng.randint(0, 8) for _ in seats]
    top = max(scores)
    faults = [rng.choice([0, 0, 0, 1, 4]) for _ in seats]
    res: dict[str, Any] = {
        **base,
        "scores": scores,
        "winners": [s for s, v in enumerate(scores) if v == top],
        "faults": faults,
        "fault_codes": [{"timeout": f} if f else {} for f in faults],
        "unrated": [s for s, f in enumerate(faults) if f > 3],
    }
    if cooperative:
        res["team_score"] = top
        res["reached"] = top >= 5
    return res


def _record_all(
    ctx: HarnessContext, tid: str, results: list[dict[str, Any]], order: list[int], fold_every: int
) -> None:
    """Record the results in `order` (as workers finishing out of order would), folding in now and then."""
    for k, i in enumerate(order):
        ctx.store.record_result(tid, i, results[i])
        if k % fold_every == 0 or k == len(order) - 1:
            T.finalize_if_complete(ctx, tid)


def _compare(doc: dict[str, Any], ref: dict[str, Any], cooperative: bool, intervals: bool = True) -> None:
    """The live page equals the from-scratch document, row by row and cell by cell."""
    assert doc["matches"] == ref["matches"]
    assert [r["entrant"] for r in doc["rows"]] == [r["entrant"] for r in ref["rows"]]
    for live, scratch in zip(doc["rows"], ref["rows"], strict=True):
        for key in ("rank", "games", "wins", "shared_wins", "faults", "unrated_matches"):
            assert live[key] == scratch[key], key
        assert live["rating"] == scratch["rating"]  # exactly: the same updates in the same order
        assert live["mean_score"] == pytest.approx(scratch["mean_score"])
        if cooperative:
            assert live["threshold_rate"] == pytest.approx(scratch["threshold_rate"])
        if intervals:
            assert live["score_ci"] == pytest.approx(scratch["score_ci"])
            assert set(live["not_separated_from"]) == set(scratch["not_separated_from"])
            assert live["not_separated_count"] == len(scratch["not_separated_from"])
            assert live["separated"] == scratch["separated"]
            assert live["provisional"] == scratch["provisional"]
    assert doc["faults"] == ref["faults"]
    matrix = "cross_play" if cooperative else "head_to_head"
    assert doc[matrix] == ref[matrix]  # integer scores: sums, means and rates are exact
    if cooperative:
        assert doc["compositions_total"] == len(ref["compositions"])
        assert {tuple(c["members"]): c["games"] for c in doc["compositions"]} == {
            tuple(c["members"]): c["games"] for c in ref["compositions"]
        }


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: each example is a tournament
)
@given(
    game=st.sampled_from(sorted(GAMES)),
    entrants=st.integers(2, 5),
    deals=st.integers(1, 3),
    max_tables=st.integers(2, 6),
    seed=st.integers(0, 2**32),
    fold_every=st.integers(1, 7),
)
def test_incremental_standings_equal_a_recomputation_from_scratch(
    ctx: HarnessContext,
    stub_bots: Callable[[int, str], list[str]],
    game: str,
    entrants: int,
    deals: int,
    max_tables: int,
    seed: int,
    fold_every: int,
) -> None:
    """Property: whatever order results are recorded in and however they are batched, the live
    standings (ratings to the last bit, counts, matrices, compositions, intervals, separation)
    equal `compute_standings` over every result; midway, the ratings equal those over the
    recorded prefix."""
    seats, cooperative = GAMES[game]
    ids = stub_bots(entrants, game)
    info = T.create_tournament(ctx, game, seats, ids, deals=deals, max_tables=max_tables, enqueue=False)
    tid = info["tournament_id"]
    rng = random.Random(seed)
    matches = ctx.store.match_specs(tid)
    errors = {i for i in range(len(matches)) if rng.random() < 0.08}
    results = [_result(m, rng, cooperative, m["index"] in errors) for m in matches]
    order = list(range(len(matches)))
    rng.shuffle(order)
    half = len(order) // 2
    _record_all(ctx, tid, results, order[:half], fold_every)
    T.finalize_if_complete(ctx, tid)
    prefix = 0
    while prefix < len(results) and ctx.store.has_result(tid, prefix):
        prefix += 1
    midway = T.get_standings(ctx, tid)
    spec = ctx.store.tournament(tid)["spec"]  # type: ignore[index]
    scratch = compute_standings(results[:prefix], ids, cooperative, spec["seed"], ended=False)
    assert {r["entrant"]: r["rating"] for r in midway["rows"]} == {
        r["entrant"]: r["rating"] for r in scratch["rows"]
    }
    _record_all(ctx, tid, results, order[half:], fold_every)
    doc = T.get_standings(ctx, tid)
    assert doc["final"] and doc["statistics"]["current"]
    _compare(doc, compute_standings(results, ids, cooperative, spec["seed"]), cooperative)
    # The ranking index holds one member per row, in the standings' order.
    index = [
        m.decode().split(":", 1)[1]
        for m in cast(list[bytes], ctx.store.client.zrange(ctx.store.scope_key(f"t:{tid}", "index"), 0, -1))
    ]
    assert index == [r["entrant"] for r in doc["rows"]]


def test_a_read_never_touches_the_results(
    ctx: HarnessContext, stub_bots: Callable[[int, str], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule: once folded in, a standings read (tournament or web page) reads no result at all:
    its cost does not grow with the history."""
    ids = stub_bots(6, "tricky-teams")
    info = T.create_tournament(ctx, "tricky-teams", 4, ids, deals=3, enqueue=False)
    tid = info["tournament_id"]
    rng = random.Random(3)
    results = [_result(m, rng, False) for m in ctx.store.match_specs(tid)]
    _record_all(ctx, tid, results, list(range(len(results))), 10)

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a standings read reached into the results")

    monkeypatch.setattr(HarnessStore, "results", forbidden)
    monkeypatch.setattr(HarnessStore, "results_at", forbidden)
    doc = T.get_standings(ctx, tid, 0, 3)
    assert [r["rank"] for r in doc["rows"]] == [1, 2, 3] and doc["total_rows"] == 6
    history = T.rating_history(ctx, f"t:{tid}", [r["entrant"] for r in doc["rows"]])
    assert all(len(points) <= HISTORY_POINTS + 1 for points in history["series"].values())


def test_the_intervals_come_from_a_debounced_background_job(
    ctx: HarnessContext, stub_bots: Callable[[int, str], list[str]], workers: WorkerProcs
) -> None:
    """Rule: a change queues one statistics job (never two at once per tournament); a worker
    computes the intervals, and the page says which results they cover."""
    ids = stub_bots(4, "tricky-teams")
    info = T.create_tournament(ctx, "tricky-teams", 4, ids, deals=4, enqueue=False)
    tid = info["tournament_id"]
    rng = random.Random(5)
    results = [_result(m, rng, False) for m in ctx.store.match_specs(tid)]
    for res in results[:8]:
        ctx.store.record_result(tid, res["index"], res)
    assert T.update_standings(ctx, tid) == 8  # folded in; the job is queued
    assert not T.request_statistics(ctx, f"t:{tid}")  # already pending: debounced
    before = T.get_standings(ctx, tid)
    assert before["statistics"] == {"as_of": None, "current": False}
    assert all(r["score_ci"] is None and r["not_separated_count"] is None for r in before["rows"])
    workers.start()
    wait_for(lambda: T.get_standings(ctx, tid)["statistics"]["current"], 60, "the statistics job")
    after = T.get_standings(ctx, tid)
    assert after["statistics"]["as_of"] == 8
    assert all(r["score_ci"] is not None for r in after["rows"])


def test_standings_pages_through_the_api(
    ctx: HarnessContext, stub_bots: Callable[[int, str], list[str]], client: Any
) -> None:
    """Rule: getTournamentStandings and getLeagueStandings answer pages (offset, limit <= 64, 25 by default):
    pages put together are the whole ranking; the matrix covers the page; bad bounds are 422."""
    ids = stub_bots(7, "tricky-teams")
    info = T.create_tournament(ctx, "tricky-teams", 3, ids, deals=1, max_tables=12, enqueue=False)
    tid = info["tournament_id"]
    rng = random.Random(9)
    results = [_result(m, rng, False) for m in ctx.store.match_specs(tid)]
    _record_all(ctx, tid, results, list(range(len(results))), 5)
    whole = client.get(f"/tournaments/{tid}/standings").get_json()
    assert whole["total_rows"] == 7 and len(whole["rows"]) == 7 and whole["limit"] == 25
    pages = [client.get(f"/tournaments/{tid}/standings?offset={o}&limit=3").get_json() for o in (0, 3, 6)]
    assert [r["entrant"] for p in pages for r in p["rows"]] == [r["entrant"] for r in whole["rows"]]
    assert [r["rank"] for p in pages for r in p["rows"]] == list(range(1, 8))
    second = pages[1]
    bots = [r["entrant"] for r in second["rows"]]
    assert set(second["head_to_head"]) == set(bots) == set(second["faults"])
    assert all(set(row) == set(bots) - {a} for a, row in second["head_to_head"].items())
    assert client.get(f"/tournaments/{tid}/standings?offset=50").get_json()["rows"] == []
    for bad in ("limit=0", "limit=65", "offset=-1", "limit=x"):
        answer = client.get(f"/tournaments/{tid}/standings?{bad}")
        assert answer.status_code == 422, bad
    league = T.create_league(ctx, "tricky-teams", 3, interval_s=3600, max_tables=12, enqueue=False)
    lid = league["league_id"]
    for bot_id in ids:
        T.join_league(ctx, lid, bot_id, OWNER_KEYS[bot_id])
    rid = T.run_league_round(ctx, lid, 1)
    assert rid is not None
    round_results = [_result(m, rng, False) for m in ctx.store.match_specs(rid)]
    _record_all(ctx, rid, round_results, list(range(len(round_results))), 5)
    round_doc = client.get(f"/tournaments/{rid}/standings").get_json()
    first = client.get(f"/leagues/{lid}/standings?limit=4").get_json()
    rest = client.get(f"/leagues/{lid}/standings?offset=4&limit=4").get_json()
    assert first["rounds"] == 1 and first["total_rows"] == 7 and len(rest["rows"]) == 3
    league_rows = first["rows"] + rest["rows"]
    assert [r["entrant"] for r in league_rows] == [r["entrant"] for r in round_doc["rows"]]
    assert [r["rating"] for r in league_rows] == [r["rating"] for r in round_doc["rows"]]
    assert T.league_ratings(ctx, lid) == {
        r["entrant"]: Rating(r["rating"]["mu"], r["rating"]["sigma"]) for r in round_doc["rows"]
    }


def test_web_data_pages_are_bounded(
    ctx: HarnessContext, stub_bots: Callable[[int, str], list[str]], client: Any
) -> None:
    """Rule: the web data documents hold a page of rows, at most 12 rating lines of at most 65
    points, and a window of matches, however many results there are; each line (the chart) ends at
    its row's mean score, the measure the standings are ranked by."""
    ids = stub_bots(16, "tricky-teams")
    info = T.create_tournament(ctx, "tricky-teams", 4, ids, deals=4, max_tables=60, enqueue=False)
    tid = info["tournament_id"]
    rng = random.Random(2)
    results = [_result(m, rng, False) for m in ctx.store.match_specs(tid)]
    assert len(results) == 960
    _record_all(ctx, tid, results, list(range(len(results))), 50)
    doc = client.get(f"/web/data/tournaments/{tid}?limit=10&matches_offset=100").get_json()
    assert len(doc["standings"]["rows"]) == 10 and doc["standings"]["total_rows"] == 16
    assert len(doc["history"]["series"]) == 10
    assert all(len(p) <= HISTORY_POINTS + 1 for p in doc["history"]["series"].values())
    assert [m["index"] for m in doc["matches"]] == list(range(100, 150))
    assert doc["matches_window"] == {"offset": 100, "limit": 50, "total": 960}
    assert doc["tournament"]["entrants_total"] == 16
    last = doc["history"]["series"][doc["standings"]["rows"][0]["entrant"]][-1]
    assert last[1] == pytest.approx(doc["standings"]["rows"][0]["rating"]["mu"], abs=1e-4)
    # The chart draws the standings' own measure: every line ends at its row's mean score.
    for row in doc["standings"]["rows"]:
        assert doc["history"]["series"][row["entrant"]][-1][3] == pytest.approx(row["mean_score"], abs=1e-4)


def test_cooperative_rating_grows_linearly() -> None:
    """Rule: a cooperative deal played by many tables is rated by two-team events, one per table
    (all its seat rotations), so twice the games cost about twice the time (it was quadratic:
    2,415 teams in one event took 1.8 s)."""

    def deal_of(tables: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for t in range(tables):
            members = [f"b{(t * 7 + k) % 97}" for k in range(3)]
            for r in range(3):
                seats = members[r:] + members[:r]
                out.append(
                    {
                        "index": len(out),
                        "deal": 0,
                        "table": t,
                        "rotation": r,
                        "seats": seats,
                        "scores": [t % 11] * 3,
                        "team_score": t % 11,
                        "reached": False,
                        "winners": [],
                    }
                )
        return out

    def cost(tables: int) -> tuple[float, list[RatingEvent]]:
        # This thread's CPU time, the least of three tries: wall time on a shared machine measures
        # the other processes too (CI saw 0.80 s against 4 x 0.12 s under a load of 20).
        spent = []
        for _ in range(3):
            started = time.thread_time()
            events = cooperative_events(deal_of(tables))
            rate(events)
            spent.append(time.thread_time() - started)
        return min(spent), events

    small, events = cost(800)
    large, _ = cost(1600)
    assert all(len(e.teams) == 2 for e in events) and len(events) <= 800
    assert large < 4 * small + 0.2, (small, large)
    assert large < 5.0


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_stuck_match_does_not_hold_later_results_back(
    ctx: HarnessContext,
    stub_bots: Callable[[int, str], list[str]],
    monkeypatch: pytest.MonkeyPatch,
    game: str,
) -> None:
    """Issue 25, "fast rescue": results recorded after a match that is still missing are folded in
    once they have waited `GAP_WAIT_S` for it (0.3 s here; 10 s by default), so a stuck match
    does not keep them out of the standings; when it comes in, the closed standings are rebuilt in
    index order and equal `compute_standings` to the last bit (the per-bot indexes written once)."""
    monkeypatch.setattr(T, "GAP_WAIT_S", 0.3, raising=False)
    seats, cooperative = GAMES[game]
    ids = stub_bots(3, game)
    info = T.create_tournament(ctx, game, seats, ids, deals=2, max_tables=4, enqueue=False)
    tid = info["tournament_id"]
    rng = random.Random(25)
    matches = ctx.store.match_specs(tid)
    results = [_result(m, rng, cooperative) for m in matches]
    later = list(range(1, len(matches)))
    _record_all(ctx, tid, results, later, 3)  # match 0 is stuck
    T.get_standings(ctx, tid)
    time.sleep(0.4)
    doc = T.get_standings(ctx, tid)
    assert doc["matches"] == len(later)  # no longer waiting behind match 0
    assert sum(r["games"] for r in doc["rows"]) == sum(len(r["seats"]) for r in results[1:])
    _record_all(ctx, tid, results, [0], 1)
    doc = T.get_standings(ctx, tid)
    assert doc["final"]
    spec = ctx.store.tournament(tid)["spec"]  # type: ignore[index]
    _compare(doc, compute_standings(results, ids, cooperative, spec["seed"]), cooperative, intervals=False)
    # Each bot's own records counted each of its results once, the rebuild notwithstanding.
    for bot in ids:
        counts = cast(dict[bytes, bytes], ctx.store.client.hgetall(ctx.store.key_for("bot_versions", bot)))
        matches_counted = sum(int(v) for k, v in counts.items() if k.decode().endswith("\tm"))
        assert matches_counted == sum(bot in r["seats"] for r in results)
