"""Pure tournament scheduling: which entrants sit at which tables, which deals, which seats.

Everything here is a deterministic function of its arguments (the tournament seed included),
so a schedule can be recomputed anywhere (API process, worker, test) and always agrees.

The schedule, in the order it is built:

1. **Tables** (who plays together).
   - Competitive games (Tricky Teams): with at least as many entrants as seats, every
     combination of `seats` distinct entrants; with fewer entrants than seats, every entrant
     sits at the one table and the remaining seats are filled by every multiset of entrants
     (so with 2 bots at 4 seats: AAAB, AABB, ABBB -- each bot fills several seats equally).
   - Cooperative games (Trick 'n Trouble, *cross-play*): every team composition, i.e. every
     multiset of `seats` entrants, self-play teams included.
   - When there are more tables than `max_tables`, a **balanced subset** of `max_tables`
     tables is chosen greedily: each new table takes the entrants with the fewest appearances
     so far (so appearance counts never differ by more than one), breaking ties by the fewest
     earlier meetings with the entrants already chosen for the table (so pairs meet as evenly
     as the greedy rule allows), then by a seeded shuffle. Cooperative subsets keep every
     self-play team (they anchor the cross-play matrix) and fill the rest the same way.
2. **Deals** (duplicate deals): `deals` deal seeds drawn from the tournament seed; every table
   plays the same deals, so every team composition plays the same hands.
3. **Seat rotations**: each deal is played once per cyclic rotation of the table's seating,
   so every entrant holds every hand of the deal (in proportion to the seats it fills).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

DEFAULT_MAX_TABLES = 60


class ScheduleError(ValueError):
    """The requested schedule is impossible (too few entrants, bad counts)."""

    code = "invalid_schedule"


@dataclass(frozen=True)
class MatchSpec:
    """One match of a tournament: a table, a deal and a seat rotation."""

    index: int
    table: int  # index into the schedule's tables
    deal: int  # index of the deal (0 .. deals-1)
    deal_seed: int  # the seed the game is created with (same for every table: duplicate deals)
    rotation: int  # 0 .. seats-1
    seats: tuple[str, ...]  # entrant id per seat
    match_seed: int  # seeds the fallback moves of faulting bots

    def to_dict(self) -> dict[str, object]:
        """JSON-compatible form."""
        return {
            "index": self.index,
            "table": self.table,
            "deal": self.deal,
            "deal_seed": self.deal_seed,
            "rotation": self.rotation,
            "seats": list(self.seats),
            "match_seed": self.match_seed,
        }


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed derived from `seed` and labels (stable across processes, unlike hash())."""
    text = ":".join([str(seed), *(str(p) for p in parts)]).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


def count_tables(entrants: int, seats: int, cooperative: bool) -> int:
    """How many tables the full round robin has (before any balanced subset)."""
    if cooperative:
        return math.comb(entrants + seats - 1, seats)
    if entrants >= seats:
        return math.comb(entrants, seats)
    extra = seats - entrants
    return math.comb(entrants + extra - 1, extra)


def _full_tables(entrants: Sequence[str], seats: int, cooperative: bool) -> list[tuple[str, ...]]:
    if cooperative:
        return list(itertools.combinations_with_replacement(entrants, seats))
    if len(entrants) >= seats:
        return list(itertools.combinations(entrants, seats))
    order = {e: i for i, e in enumerate(entrants)}
    tables = []
    for extra in itertools.combinations_with_replacement(entrants, seats - len(entrants)):
        tables.append(tuple(sorted([*entrants, *extra], key=order.__getitem__)))
    return tables


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def balanced_tables(entrants: Sequence[str], seats: int, count: int, seed: int) -> list[tuple[str, ...]]:
    """`count` tables of `seats` distinct entrants, appearances within one of each other, pairs spread."""
    if len(entrants) < seats:
        raise ScheduleError("a balanced subset needs at least as many entrants as seats")
    rng = random.Random(derive_seed(seed, "balanced"))
    order = {e: i for i, e in enumerate(entrants)}
    appearances: Counter[str] = Counter({e: 0 for e in entrants})
    meetings: Counter[tuple[str, str]] = Counter()
    seen: set[tuple[str, ...]] = set()
    tables: list[tuple[str, ...]] = []
    retries = 0
    while len(tables) < count:
        tie_break = {e: rng.random() for e in entrants}
        chosen: list[str] = []
        for _ in range(seats):
            low = min(appearances[e] for e in entrants if e not in chosen)
            # Only the least-played tier is eligible: that keeps appearances within one.
            tier = [e for e in entrants if e not in chosen and appearances[e] == low]
            best = min(
                tier,
                key=lambda e: (sum(meetings[_pair(e, c)] for c in chosen), tie_break[e]),
            )
            chosen.append(best)
        table = tuple(sorted(chosen, key=order.__getitem__))
        if table in seen and retries < 20 and len(seen) < math.comb(len(entrants), seats):
            # Rare: the greedy rule re-derived an earlier table; new tie-breaks usually avoid it,
            # and after a bounded number of tries a repeat is accepted (it is still balanced).
            retries += 1
            continue
        retries = 0
        seen.add(table)
        tables.append(table)
        for e in table:
            appearances[e] += 1
        for a, b in itertools.combinations(table, 2):
            meetings[_pair(a, b)] += 1
    return tables


def make_tables(
    entrants: Sequence[str], seats: int, cooperative: bool, seed: int, max_tables: int = DEFAULT_MAX_TABLES
) -> list[tuple[str, ...]]:
    """The tables of the tournament: the full round robin, or a balanced subset past `max_tables`."""
    if seats < 1:
        raise ScheduleError("seats must be at least 1")
    if len(set(entrants)) != len(entrants):
        raise ScheduleError("entrants must be distinct")
    minimum = 1 if cooperative else 2
    if len(entrants) < minimum:
        raise ScheduleError(f"at least {minimum} entrant(s) needed")
    if max_tables < 1:
        raise ScheduleError("max_tables must be at least 1")
    if count_tables(len(entrants), seats, cooperative) <= max_tables:
        return _full_tables(entrants, seats, cooperative)
    if cooperative:
        selfplay = [tuple([e] * seats) for e in entrants]
        if len(selfplay) >= max_tables or len(entrants) < seats:
            # Too many entrants even for self-play, or too few for mixed teams of distinct
            # members: fall back to a seeded sample of the full list (documented limit).
            full = _full_tables(entrants, seats, cooperative)
            rng = random.Random(derive_seed(seed, "sample"))
            picked = sorted(rng.sample(range(len(full)), max_tables))
            return [full[i] for i in picked]
        return selfplay + balanced_tables(entrants, seats, max_tables - len(selfplay), seed)
    if len(entrants) < seats:
        full = _full_tables(entrants, seats, cooperative)
        return full[:max_tables]
    return balanced_tables(entrants, seats, max_tables, seed)


def rotations(table: Sequence[str]) -> list[tuple[str, ...]]:
    """Every distinct cyclic rotation of a seating: rotation r puts table[(s + r) % n] in seat s."""
    n = len(table)
    out: list[tuple[str, ...]] = []
    for r in range(n):
        seating = tuple(table[(s + r) % n] for s in range(n))
        if seating not in out:
            out.append(seating)
    return out


def make_schedule(
    entrants: Sequence[str],
    seats: int,
    deals: int,
    seed: int,
    cooperative: bool = False,
    max_tables: int = DEFAULT_MAX_TABLES,
) -> list[MatchSpec]:
    """Every match of a tournament, in play order (deal-major so early standings cover all tables)."""
    if deals < 1:
        raise ScheduleError("deals per pairing must be at least 1")
    tables = make_tables(entrants, seats, cooperative, seed, max_tables)
    deal_seeds = [derive_seed(seed, "deal", d) for d in range(deals)]
    matches: list[MatchSpec] = []
    for deal, deal_seed in enumerate(deal_seeds):
        for t, table in enumerate(tables):
            for r, seating in enumerate(rotations(table)):
                index = len(matches)
                matches.append(
                    MatchSpec(
                        index=index,
                        table=t,
                        deal=deal,
                        deal_seed=deal_seed,
                        rotation=r,
                        seats=seating,
                        match_seed=derive_seed(seed, "match", index),
                    )
                )
    return matches


def schedule_size(entrants: int, seats: int, deals: int, cooperative: bool, max_tables: int) -> int:
    """Upper bound on the number of matches (for validating a request before building it)."""
    return min(count_tables(entrants, seats, cooperative), max_tables) * deals * seats


def not_before(when: datetime) -> datetime:
    """`when` rounded up to a whole second, the resolution of RQ's scheduler.

    RQ scores a scheduled job by `calendar.timegm(...)`, which drops the fraction of a second:
    a job queued for 12:00:00.8 would be due at 12:00:00, almost a second early.
    """
    if when.microsecond:
        return when.replace(microsecond=0) + timedelta(seconds=1)
    return when
