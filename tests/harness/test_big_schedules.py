"""Scheduling for large fields and thinned round robins (issue 16): equal play, balanced seats,
pair coverage whenever the budget allows, and time bounds; the pairing reaches the tournament."""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.runner import HarnessContext
from harness.scheduling import (
    ScheduleError,
    exact_appearances,
    make_schedule,
    make_table_plan,
    make_tables,
    pair_coverage,
    rating_tables,
    resolve_pairing,
    round_tables,
)
from harness.tournaments import (
    create_league,
    create_tournament,
    get_tournament,
    join_league,
    run_league_round,
)


@pytest.fixture()
def fake_bots(ctx: HarnessContext, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Registry bots that are never called (no match is played here): the URL probe is stubbed."""

    def probe(url: str, games: list[str]) -> dict[str, Any]:
        return {"name": "stub", "author": "tests", "version": "1", "games": games}

    monkeypatch.setattr(ctx.bots, "probe", probe)

    def make(count: int, keys: bool = False) -> list[Any]:
        made = [
            ctx.bots.create(
                f"stub-{i}-{time.monotonic_ns()}", f"http://127.0.0.1:9/stub-{i}", ["tricky-teams"]
            )
            for i in range(count)
        ]
        return [(c.bot.id, c.owner_key) for c in made] if keys else [c.bot.id for c in made]

    return make


def schonheim(n: int, seats: int) -> int:
    """The Schönheim lower bound on the tables of any design in which every pair meets."""
    return math.ceil(n / seats * math.ceil((n - 1) / (seats - 1)))


def covering_budget(n: int, seats: int) -> int:
    """The budget at which the round robin promises that every pair meets (docs/harness.md)."""
    return min(math.comb(n, seats), math.ceil(2 * schonheim(n, seats)))


def field(n: int) -> list[str]:
    return [f"b{i:04d}" for i in range(n)]


def _tables_per_entrant(tables: list[tuple[str, ...]]) -> Counter[str]:
    return Counter(e for t in tables for e in t)


@pytest.mark.parametrize(
    ("n", "seats", "appearances", "expected_k"),
    [
        (1000, 4, 1, 1),
        (1000, 3, 1, 3),  # 1000 seats do not fill tables of 3: every member plays 3
        (1001, 4, 1, 4),
        (1001, 4, 5, 8),
        (12, 6, 2, 2),
        (6, 6, 1, 1),  # one full table
        (7, 6, 1, 6),
        (2000, 5, 2, 2),
    ],
)
def test_rating_pairing_seats_every_member_equally_often(
    n: int, seats: int, appearances: int, expected_k: int
) -> None:
    """Rule: every member plays exactly k tables (the least k >= appearances that fills whole
    tables), at every table distinct members, every member holds every seat equally often."""
    assert exact_appearances(n, seats, appearances) == expected_k
    entrants = field(n)
    tables = rating_tables(entrants, seats, appearances, seed=7)
    assert all(len(set(t)) == seats for t in tables)
    counts = _tables_per_entrant(tables)
    assert set(counts) == set(entrants) and set(counts.values()) == {expected_k}
    matches = make_schedule(entrants, seats, 2, seed=7, pairing="rating", appearances=appearances)
    assert len(matches) == n * expected_k * 2  # seats rotations per table, two duplicate deals
    seat_counts: Counter[tuple[str, int]] = Counter((b, s) for m in matches for s, b in enumerate(m.seats))
    assert {seat_counts[(e, s)] for e in entrants for s in range(seats)} == {expected_k * 2}
    per_deal: dict[int, set[int]] = {}
    for m in matches:
        per_deal.setdefault(m.table, set()).add(m.deal_seed)
    assert len({frozenset(s) for s in per_deal.values()}) == 1  # every table plays the same deals


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(3, 40), seats=st.integers(3, 6), appearances=st.integers(1, 4), seed=st.integers(0, 2**40)
)
def test_rating_pairing_property(n: int, seats: int, appearances: int, seed: int) -> None:
    """Property: for any field at least one table large, tables hold distinct members and every
    member plays the same number of tables; the schedule is a function of the seed."""
    if n < seats:
        with pytest.raises(ScheduleError):
            rating_tables(field(n), seats, appearances, seed)
        return
    tables = rating_tables(field(n), seats, appearances, seed)
    assert all(len(set(t)) == seats for t in tables)
    assert set(_tables_per_entrant(tables).values()) == {exact_appearances(n, seats, appearances)}
    assert tables == rating_tables(field(n), seats, appearances, seed)


def test_rating_pairing_matches_members_close_in_rating() -> None:
    """Rule: a table gathers members close in the ranking (within a few tables' worth of ranks)."""
    ranked = field(1000)
    rank = {e: i for i, e in enumerate(ranked)}
    tables = rating_tables(ranked, 4, 2, seed=3)
    spreads = sorted(max(rank[e] for e in t) - min(rank[e] for e in t) for t in tables)
    assert spreads[len(spreads) // 2] < 4 * 4 and spreads[-1] < 2 * 4 * 4


@pytest.mark.parametrize(("n", "seats"), [(1000, 4), (1000, 3), (1000, 6), (2000, 4)])
def test_a_big_league_round_schedules_in_under_a_second(n: int, seats: int) -> None:
    """Goal: a 1,000-member (and a 2,000-member) round, matches and all, in < 1 s; every member plays."""
    entrants = field(n)
    started = time.perf_counter()
    matches = make_schedule(entrants, seats, 1, seed=1, pairing="auto")
    elapsed = time.perf_counter() - started
    assert elapsed < 1.0, elapsed
    assert {b for m in matches for b in m.seats} == set(entrants)


@pytest.mark.parametrize("cooperative", [False, True])
def test_no_round_enumerates_every_composition(cooperative: bool) -> None:
    """Rule: past the budget nothing lists C(N, seats) tables or C(N+2, 3) compositions (700
    members used to be a MemoryError): big fields pair by rating, round robin is capped at 64."""
    started = time.perf_counter()
    tables = make_table_plan(field(700), 3, seed=2, cooperative=cooperative, pairing="auto")
    assert time.perf_counter() - started < 1.0
    assert set(_tables_per_entrant(tables).values()) == {3}
    with pytest.raises(ScheduleError, match="at most 64"):
        make_tables(field(65), 3, cooperative, seed=2, max_tables=60)
    started = time.perf_counter()
    make_tables(field(64), 3, cooperative, seed=2, max_tables=1000)
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize(
    ("n", "seats"),
    [(10, 4), (12, 3), (16, 4), (16, 6), (20, 5), (24, 4), (32, 4), (32, 3), (48, 6), (64, 4)],
)
def test_round_robin_meets_every_pair_whenever_the_budget_allows(n: int, seats: int) -> None:
    """Rule: with a budget of at least twice the Schönheim bound every pair of entrants meets
    (measured: within 1.75x for every N <= 64, seats 3-6); below it, coverage says how many."""
    budget = covering_budget(n, seats)
    for seed in (1, 2, 3):
        tables = make_tables(field(n), seats, cooperative=False, seed=seed, max_tables=budget)
        coverage = pair_coverage(field(n), tables)
        assert coverage["pairs_met"] == coverage["pairs_total"] == n * (n - 1) // 2
        assert coverage["max_tables"] - coverage["min_tables"] <= 1


@settings(max_examples=40, deadline=None)
@given(n=st.integers(5, 40), seats=st.integers(3, 6), seed=st.integers(0, 2**40))
def test_coverage_is_complete_at_the_covering_budget_and_grows_with_the_budget(
    n: int, seats: int, seed: int
) -> None:
    """Property: pairs met never shrink as the budget grows (each run is a prefix of a longer
    one), and reach every pair at the covering budget."""
    if n <= seats:
        return
    budget = covering_budget(n, seats)
    small = pair_coverage(field(n), make_tables(field(n), seats, False, seed, max(1, budget // 2)))
    full = pair_coverage(field(n), make_tables(field(n), seats, False, seed, budget))
    assert small["pairs_met"] <= full["pairs_met"] == full["pairs_total"]


def test_the_default_budget_at_32_entrants_says_it_does_not_cover_every_pair() -> None:
    """Rule: 60 tables of 4 seat 360 pairs at most, fewer than 496: coverage tells (it was silent)."""
    tables = make_tables(field(32), 4, cooperative=False, seed=5, max_tables=60)
    coverage = pair_coverage(field(32), tables)
    assert coverage["pairs_total"] == 496 and 330 <= coverage["pairs_met"] <= 360
    assert make_tables(field(32), 4, False, 5, 60) == tables


def test_cooperative_round_robin_drops_self_play_only_when_mixed_teams_would_not_fit() -> None:
    """Rule: self-play is kept when every entrant also fits in a mixed team; else mixed teams only."""
    with_self = make_tables(field(12), 3, cooperative=True, seed=1, max_tables=20)
    assert sum(len(set(t)) == 1 for t in with_self) == 12 and len(with_self) == 20
    mixed = make_tables(field(30), 3, cooperative=True, seed=1, max_tables=35)
    assert all(len(set(t)) == 3 for t in mixed) and len(mixed) == 35
    assert pair_coverage(field(30), mixed)["min_tables"] >= 3


@pytest.mark.parametrize(
    ("pairing", "n", "expected"),
    [
        ("auto", 64, "round_robin"),
        ("auto", 65, "rating"),
        ("round_robin", 3, "round_robin"),
        ("rating", 3, "rating"),
    ],
)
def test_auto_pairing(pairing: str, n: int, expected: str) -> None:
    """Rule: `auto` is round robin up to 64 entrants, rating pairing above."""
    assert resolve_pairing(pairing, n) == expected


@pytest.mark.parametrize(
    ("n", "seats", "deals", "max_tables", "budget", "appearances", "expected"),
    [
        (10, 4, 1, 60, 20000, 1, 60),
        (10, 4, 2, 60, 100, 1, 12),  # 12 tables x 4 rotations x 2 deals = 96
        (1000, 4, 1, 60, 20000, 5, 1250),  # 5 tables each
        (1000, 4, 1, 60, 3000, 5, 750),  # thinned: 3 tables each
        (1000, 3, 1, 60, 7000, 9, 2333),  # thinned: 6 or 7 tables each (within one)
        (1001, 4, 1, 60, 2000, 1, 251),  # 1 or 2 tables each: 1,004 matches, not 4,004
    ],
)
def test_a_league_round_is_thinned_to_its_match_budget(
    n: int, seats: int, deals: int, max_tables: int, budget: int, appearances: int, expected: int
) -> None:
    """Rule (issue 25, big fields): a league round plays as many tables as the budget allows."""
    assert round_tables(n, seats, deals, False, max_tables, budget, appearances) == expected


def test_a_budget_too_small_for_every_member_to_play_is_refused() -> None:
    """Rule: never a round in which some members do not play: not fitting is an error."""
    with pytest.raises(ScheduleError, match="over the budget"):
        round_tables(1001, 4, 1, False, 60, 1000, 1)  # needs 251 tables: 1,004 matches


def _pairs(tables: list[tuple[str, ...]]) -> set[tuple[str, str]]:
    return {p for t in tables for p in itertools.combinations(sorted(set(t)), 2)}


def test_tournament_reports_pairing_and_coverage(ctx: HarnessContext, fake_bots: Any) -> None:
    """Rule: getTournament says how the tables were drawn and whether every pair met."""
    ids = fake_bots(9)
    thin = create_tournament(ctx, "tricky-teams", 4, ids, max_tables=5, enqueue=False)
    assert thin["pairing"] == "round_robin"
    assert thin["coverage"]["pairs_total"] == 36 and not thin["coverage"]["all_pairs_met"]
    full = create_tournament(ctx, "tricky-teams", 4, ids, max_tables=40, enqueue=False)
    assert full["coverage"]["all_pairs_met"] and full["coverage"]["pairs_met"] == 36
    rated = create_tournament(ctx, "tricky-teams", 4, ids[:8], pairing="rating", appearances=2, enqueue=False)
    assert rated["pairing"] == "rating" and rated["progress"]["total"] == 8 * 2
    assert rated["coverage"]["min_tables"] == rated["coverage"]["max_tables"] == 2


@pytest.mark.timeout(120)
def test_a_thousand_member_league_round_every_member_plays(ctx: HarnessContext, fake_bots: Any) -> None:
    """Goal: a 1,000-member league (over the old cap of 64) holds a round in which every member
    plays the same number of matches, created well within seconds."""
    league = create_league(ctx, "tricky-teams", 4, interval_s=3600, enqueue=False)
    lid = league["league_id"]
    assert league["max_members"] >= 2000 and league["pairing"] == "auto"
    for bot_id, key in fake_bots(1000, keys=True):
        join_league(ctx, lid, bot_id, key)
    started = time.perf_counter()
    tid = run_league_round(ctx, lid, 1)
    elapsed = time.perf_counter() - started
    assert tid == f"{lid}r1", ctx.store.client.get(ctx.store.key_for("round", lid, 1))
    info = get_tournament(ctx, tid)
    assert info["pairing"] == "rating" and info["progress"]["total"] == 1000
    played = Counter(b for m in ctx.store.match_specs(tid) for b in m["seats"])
    assert len(played) == 1000 and set(played.values()) == {4}  # 1 table x 4 rotations each
    assert elapsed < 10, elapsed
