"""Scheduling rules: round robin, balanced subsets, duplicate deals, seat rotations, determinism."""

from __future__ import annotations

import calendar
import itertools
import math
from collections import Counter
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.scheduling import (
    ScheduleError,
    count_tables,
    make_schedule,
    make_tables,
    not_before,
    rotations,
)


@pytest.mark.parametrize(
    ("entrants", "seats", "cooperative", "expected"),
    [
        # Rule: with enough entrants, every combination of distinct entrants is a table.
        ("ABCD", 3, False, ["ABC", "ABD", "ACD", "BCD"]),
        ("ABCD", 4, False, ["ABCD"]),
        # Rule: fewer bots than seats -> every bot sits, the extra seats take every multiset.
        ("AB", 4, False, ["AAAB", "AABB", "ABBB"]),
        ("ABC", 5, False, ["AAABC", "AABBC", "AABCC", "ABBBC", "ABBCC", "ABCCC"]),
        # Rule: cooperative cross-play is every team composition, self-play included.
        ("AB", 3, True, ["AAA", "AAB", "ABB", "BBB"]),
        ("A", 3, True, ["AAA"]),
    ],
)
def test_full_round_robin_tables(entrants: str, seats: int, cooperative: bool, expected: list[str]) -> None:
    """The full round robin is exactly the documented table list."""
    tables = make_tables(list(entrants), seats, cooperative, seed=1)
    assert ["".join(t) for t in tables] == expected
    assert len(tables) == count_tables(len(entrants), seats, cooperative)


@pytest.mark.parametrize(
    ("entrants", "seats", "cooperative", "deals", "max_tables", "error"),
    [
        ("A", 4, False, 1, 10, "at least 2"),  # rule: a competitive tournament needs two entrants
        ("AA", 4, False, 1, 10, "distinct"),
        ("AB", 4, False, 0, 10, "deals"),
        ("AB", 4, False, 1, 0, "max_tables"),
        ("AB", 0, False, 1, 10, "seats"),
    ],
)
def test_impossible_schedules_are_refused(
    entrants: str, seats: int, cooperative: bool, deals: int, max_tables: int, error: str
) -> None:
    """Bad requests raise ScheduleError naming the problem."""
    with pytest.raises(ScheduleError, match=error):
        make_schedule(list(entrants), seats, deals, seed=1, cooperative=cooperative, max_tables=max_tables)


def test_rotations_put_every_entrant_in_every_seat() -> None:
    """Rule: each deal is played in every cyclic rotation of the table."""
    assert rotations(["A", "B", "C"]) == [("A", "B", "C"), ("B", "C", "A"), ("C", "A", "B")]
    assert rotations(["A", "A", "A"]) == [("A", "A", "A")]  # identical seatings are played once


def test_duplicate_deals_are_shared_by_every_table() -> None:
    """Rule: every table plays the same deal seeds (duplicate deals / cross-play on the same hands)."""
    matches = make_schedule(list("ABCD"), 3, deals=3, seed=9)
    by_table: dict[int, set[int]] = {}
    for m in matches:
        by_table.setdefault(m.table, set()).add(m.deal_seed)
    assert len({frozenset(s) for s in by_table.values()}) == 1
    assert len(next(iter(by_table.values()))) == 3


def test_schedule_is_deterministic_from_the_seed() -> None:
    """Rule: the schedule is a function of the tournament seed (and differs for another seed)."""
    a = make_schedule(list("ABCDEFGHIJ"), 4, 2, seed=5, max_tables=20)
    b = make_schedule(list("ABCDEFGHIJ"), 4, 2, seed=5, max_tables=20)
    c = make_schedule(list("ABCDEFGHIJ"), 4, 2, seed=6, max_tables=20)
    assert a == b
    assert [m.seats for m in a] != [m.seats for m in c]
    assert len({m.match_seed for m in a}) == len(a)


entrant_lists = st.integers(min_value=2, max_value=9).map(lambda n: [f"bot{i}" for i in range(n)])


@settings(max_examples=40, deadline=None)
@given(entrants=entrant_lists, seats=st.integers(3, 6), deals=st.integers(1, 3), seed=st.integers(0, 2**32))
def test_every_entrant_holds_every_hand(entrants: list[str], seats: int, deals: int, seed: int) -> None:
    """Property: at every table and deal, each entrant of the table plays every seat (hand)."""
    matches = make_schedule(entrants, seats, deals, seed, max_tables=12)
    groups: dict[tuple[int, int], list[tuple[str, ...]]] = {}
    for m in matches:
        groups.setdefault((m.table, m.deal), []).append(m.seats)
    for seatings in groups.values():
        for entrant in set(seatings[0]):
            held = {s for seating in seatings for s, bot in enumerate(seating) if bot == entrant}
            assert held == set(range(seats))
        # balance: within a table and deal, each entrant holds each hand equally often
        per_seat = [Counter(seating[s] for seating in seatings) for s in range(seats)]
        assert all(c == per_seat[0] for c in per_seat)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(5, 14), seats=st.integers(3, 6), cap=st.integers(3, 40), seed=st.integers(0, 2**32))
def test_balanced_subset_keeps_appearances_within_one(n: int, seats: int, cap: int, seed: int) -> None:
    """Property: past the cap, exactly `cap` tables of distinct entrants, appearances differ by <= 1."""
    entrants = [f"e{i}" for i in range(n)]
    if math.comb(n, seats) <= cap:
        return
    tables = make_tables(entrants, seats, cooperative=False, seed=seed, max_tables=cap)
    assert len(tables) == cap
    assert all(len(set(t)) == seats for t in tables)
    counts = Counter(e for t in tables for e in t)
    per_entrant = [counts.get(e, 0) for e in entrants]
    assert max(per_entrant) - min(per_entrant) <= 1


def test_balanced_subset_spreads_pairs() -> None:
    """Balance: 10 bots, 4 seats, 30 tables: no pair meets more than twice the mean meetings + 1."""
    entrants = [f"e{i}" for i in range(10)]
    tables = make_tables(entrants, 4, cooperative=False, seed=3, max_tables=30)
    meetings = Counter(pair for t in tables for pair in itertools.combinations(t, 2))
    mean = 30 * 6 / 45
    assert max(meetings.values()) <= 2 * mean + 1
    assert len(set(tables)) == len(tables)  # no repeated table


def test_cooperative_subset_keeps_self_play() -> None:
    """Rule: a cooperative balanced subset keeps every self-play team."""
    entrants = [f"e{i}" for i in range(8)]
    tables = make_tables(entrants, 3, cooperative=True, seed=2, max_tables=20)
    assert len(tables) == 20
    for e in entrants:
        assert (e, e, e) in tables


@pytest.mark.parametrize(
    "when, due",
    [
        ("2026-11-29T12:00:00.800000+00:00", "2026-11-29T12:00:01+00:00"),
        ("2026-11-29T12:00:00.000001+00:00", "2026-11-29T12:00:01+00:00"),
        ("2026-11-29T12:00:00+00:00", "2026-11-29T12:00:00+00:00"),
        ("2026-11-29T23:59:59.500000+00:00", "2026-11-30T00:00:00+00:00"),
    ],
)
def test_scheduled_jobs_are_never_due_early(when: str, due: str) -> None:
    """Rule: a start or league round is queued at its time rounded up to whole seconds, never before it."""
    rounded = not_before(datetime.fromisoformat(when))
    assert rounded == datetime.fromisoformat(due)
    assert rounded >= datetime.fromisoformat(when)
    # RQ's scheduler scores jobs by whole seconds (calendar.timegm drops the fraction).
    assert calendar.timegm(rounded.utctimetuple()) >= datetime.fromisoformat(when).timestamp()
