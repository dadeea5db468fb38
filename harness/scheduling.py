"""Pure tournament scheduling: which entrants sit at which tables, which deals, which seats.

Everything here is a deterministic function of its arguments (the tournament seed included),
so a schedule can be recomputed anywhere (API process, worker, test) and always agrees.

The schedule, in the order it is built:

1. **Tables** (who plays together), by one of two pairings (`PAIRINGS`):
   - ``round_robin``. Competitive games (Tricky Teams): with at least as many entrants as seats,
     every combination of `seats` distinct entrants; with fewer entrants than seats, every
     entrant sits at the one table and the remaining seats are filled by every multiset of
     entrants (so with 2 bots at 4 seats: AAAB, AABB, ABBB -- each bot fills several seats
     equally). Cooperative games (Trick 'n Trouble, *cross-play*): every team composition, i.e.
     every multiset of `seats` entrants, self-play teams included. Past the table budget
     (`max_tables`) a **pair-covering subset** of exactly that many tables is chosen greedily:
     each new table takes entrants from the least-played tier only (appearances never differ by
     more than one), preferring entrants that have *not yet met* the ones already at the table,
     then those that met them least, then a seeded shuffle -- so every pair of entrants meets as
     soon as the budget allows (`pair_coverage` says whether it did). Cooperative subsets keep
     every self-play team when the budget leaves room for mixed teams too. The full list is only
     ever built when it fits the budget (or has fewer entrants than seats): nothing enumerates
     C(N, seats) tables.
   - ``rating`` (large fields, `rating_tables`): rating-based matchmaking in layers. Each layer
     is a partition of the whole field into tables, cut from the entrants ranked by rating
     after a seeded shuffle inside windows of a few tables, so each table's members are close
     in rating and every layer differs. Every entrant plays exactly `appearances` tables (raised
     to the next value at which the field divides into full tables), built in O(N * k).
   - ``auto`` is round robin up to `ROUND_ROBIN_MAX_ENTRANTS` entrants and rating pairing above.
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
PAIRINGS = ("auto", "round_robin", "rating")
# `auto` pairs a field of up to this many entrants round robin, a larger one by rating; round
# robin itself is refused above it (its pair bookkeeping is quadratic in the field).
ROUND_ROBIN_MAX_ENTRANTS = 64
# Rating pairing shuffles entrants within windows of this many tables' worth of the ranking.
RATING_WINDOW_TABLES = 4


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


def _covering_tables(entrants: Sequence[str], seats: int, count: int, seed: int) -> list[tuple[str, ...]]:
    """`count` tables of `seats` distinct entrants: appearances within one, every pair met soonest.

    Greedy, one table at a time: only the least-played tier is eligible for the next seat (that
    keeps appearances within one); within it, the entrant that has not yet met the most of the
    table's chosen entrants (for the first seat: the most entrants overall), then the one that
    met them least, then a seeded tie-break. Each run of the greedy is a prefix of a longer run,
    so a larger budget covers at least the pairs a smaller one does.
    """
    n = len(entrants)
    if n < seats:
        raise ScheduleError("a balanced subset needs at least as many entrants as seats")
    if n > ROUND_ROBIN_MAX_ENTRANTS:
        raise ScheduleError(
            f"round robin takes at most {ROUND_ROBIN_MAX_ENTRANTS} entrants past its table budget; "
            "use pairing 'rating' for a larger field"
        )
    rng = random.Random(derive_seed(seed, "balanced"))
    everyone = (1 << n) - 1
    met = [0] * n  # bitset of the entrants each one has met
    meetings = [[0] * n for _ in range(n)]
    appearances = [0] * n
    seen: set[tuple[int, ...]] = set()
    possible = math.comb(n, seats)
    tables: list[tuple[str, ...]] = []
    retries = 0
    while len(tables) < count:
        tie_break = [rng.random() for _ in range(n)]
        chosen: list[int] = []
        mask = 0
        for _ in range(seats):
            free = [e for e in range(n) if not mask >> e & 1]
            low = min(appearances[e] for e in free)
            tier = [e for e in free if appearances[e] == low]
            if not chosen:
                best = min(tier, key=lambda e: (-(everyone & ~met[e] & ~(1 << e)).bit_count(), tie_break[e]))
            else:
                best = min(
                    tier,
                    key=lambda e: (
                        -(mask & ~met[e]).bit_count(),
                        sum(meetings[e][c] for c in chosen),
                        tie_break[e],
                    ),
                )
            chosen.append(best)
            mask |= 1 << best
        table = tuple(sorted(chosen))
        if table in seen and retries < 20 and len(seen) < possible:
            # Rare: the greedy rule re-derived an earlier table; new tie-breaks usually avoid it,
            # and after a bounded number of tries a repeat is accepted (it is still balanced).
            retries += 1
            continue
        retries = 0
        seen.add(table)
        tables.append(tuple(entrants[e] for e in table))
        for e in chosen:
            appearances[e] += 1
            met[e] |= mask & ~(1 << e)
        for a, b in itertools.combinations(chosen, 2):
            meetings[a][b] += 1
            meetings[b][a] += 1
    return tables


def balanced_tables(entrants: Sequence[str], seats: int, count: int, seed: int) -> list[tuple[str, ...]]:
    """`count` tables of `seats` distinct entrants, appearances within one, covering pairs first."""
    return _covering_tables(entrants, seats, count, seed)


def make_tables(
    entrants: Sequence[str], seats: int, cooperative: bool, seed: int, max_tables: int = DEFAULT_MAX_TABLES
) -> list[tuple[str, ...]]:
    """Round robin: the full list of tables, or a pair-covering subset of exactly `max_tables`."""
    _check_field(entrants, seats, cooperative)
    if max_tables < 1:
        raise ScheduleError("max_tables must be at least 1")
    n = len(entrants)
    if count_tables(n, seats, cooperative) <= max_tables:
        return _full_tables(entrants, seats, cooperative)
    if n < seats:
        # Fewer entrants than seats: the full list is small (n < seats), so listing it is bounded.
        full = _full_tables(entrants, seats, cooperative)
        if not cooperative:
            return full[:max_tables]
        rng = random.Random(derive_seed(seed, "sample"))
        picked = sorted(rng.sample(range(len(full)), max_tables))
        return [full[i] for i in picked]
    if cooperative:
        selfplay = [tuple([e] * seats) for e in entrants]
        # Self-play anchors the cross-play matrix, but only with room left for every entrant to
        # sit in a mixed team too; otherwise the budget goes to mixed teams alone.
        mixed = max_tables - n
        if mixed >= -(-n // seats):
            return selfplay + _covering_tables(entrants, seats, mixed, seed)
    return _covering_tables(entrants, seats, max_tables, seed)


def exact_appearances(entrants: int, seats: int, appearances: int) -> int:
    """The least k >= `appearances` at which `entrants * k` seats fill whole tables."""
    step = seats // math.gcd(entrants, seats)
    return -(-appearances // step) * step


def rating_tables(
    ranked: Sequence[str], seats: int, appearances: int, seed: int, window_tables: int = RATING_WINDOW_TABLES
) -> list[tuple[str, ...]]:
    """Rating-based matchmaking: every entrant at exactly `exact_appearances(...)` tables.

    `ranked` is the field ordered by rating, strongest first. Each of the k layers is the ranking
    with a seeded shuffle inside windows of `window_tables * seats` entrants (the windows start
    at a seeded offset per layer), so tables gather entrants close in rating and differ from
    layer to layer. The layers, one after another, are cut into tables of `seats`; a table that
    would hold an entrant twice (where one layer ends and the next begins) swaps the repeat with
    the nearest entrant after it (or, at the very end, before it) that fits. O(N * k * seats).
    """
    n = len(ranked)
    if len(set(ranked)) != n:
        raise ScheduleError("entrants must be distinct")
    if n < seats:
        raise ScheduleError(f"rating pairing needs at least {seats} entrants (one full table)")
    if appearances < 1:
        raise ScheduleError("appearances must be at least 1")
    k = exact_appearances(n, seats, appearances)
    rng = random.Random(derive_seed(seed, "rating"))
    width = max(seats, window_tables * seats)
    seq: list[str] = []
    for _layer in range(k):
        start = -rng.randrange(width)
        while start < n:
            window = list(ranked[max(0, start) : start + width])
            rng.shuffle(window)
            seq.extend(window)
            start += width
    tables: list[tuple[str, ...]] = []
    for first in range(0, len(seq), seats):
        for j in range(first + 1, first + seats):
            if seq[j] in seq[first:j]:
                _swap_repeat(seq, first, j, seats)
        tables.append(tuple(seq[first : first + seats]))
    return tables


def _swap_repeat(seq: list[str], first: int, j: int, seats: int) -> None:
    """Replace the repeat at `j` (table starting at `first`) by swapping with an entrant that fits."""
    table = set(seq[first:j]) | set(seq[j + 1 : first + seats])
    for m in range(first + seats, len(seq)):
        if seq[m] not in table:
            seq[j], seq[m] = seq[m], seq[j]
            return
    for m in range(first - 1, -1, -1):  # the last table: look back for a swap both tables accept
        other = m - m % seats
        mates = set(seq[other : other + seats]) - {seq[m]}
        if seq[m] not in table and seq[j] not in mates:
            seq[j], seq[m] = seq[m], seq[j]
            return
    raise ScheduleError("no table arrangement without a repeated entrant")  # unreachable for n >= seats


def resolve_pairing(pairing: str, entrants: int) -> str:
    """`round_robin` or `rating`: what `auto` means for a field of `entrants`."""
    if pairing not in PAIRINGS:
        raise ScheduleError(f"pairing must be one of {', '.join(PAIRINGS)}")
    if pairing == "auto":
        return "round_robin" if entrants <= ROUND_ROBIN_MAX_ENTRANTS else "rating"
    return pairing


def pair_coverage(entrants: Sequence[str], tables: Sequence[Sequence[str]]) -> dict[str, int]:
    """How many of the pairs of distinct entrants sit together at some table, and tables per entrant."""
    pairs: set[tuple[str, str]] = set()
    appearances: Counter[str] = Counter()
    for table in tables:
        members = sorted(set(table))
        appearances.update(members)
        pairs.update(itertools.combinations(members, 2))
    n = len(entrants)
    counts = [appearances.get(e, 0) for e in entrants]
    return {
        "pairs_met": len(pairs),
        "pairs_total": n * (n - 1) // 2,
        "min_tables": min(counts, default=0),
        "max_tables": max(counts, default=0),
    }


def _check_field(entrants: Sequence[str], seats: int, cooperative: bool) -> None:
    if seats < 1:
        raise ScheduleError("seats must be at least 1")
    if len(set(entrants)) != len(entrants):
        raise ScheduleError("entrants must be distinct")
    minimum = 1 if cooperative else 2
    if len(entrants) < minimum:
        raise ScheduleError(f"at least {minimum} entrant(s) needed")


def rotations(table: Sequence[str]) -> list[tuple[str, ...]]:
    """Every distinct cyclic rotation of a seating: rotation r puts table[(s + r) % n] in seat s."""
    n = len(table)
    out: list[tuple[str, ...]] = []
    for r in range(n):
        seating = tuple(table[(s + r) % n] for s in range(n))
        if seating not in out:
            out.append(seating)
    return out


def make_table_plan(
    entrants: Sequence[str],
    seats: int,
    seed: int,
    cooperative: bool = False,
    max_tables: int = DEFAULT_MAX_TABLES,
    pairing: str = "round_robin",
    appearances: int = 1,
) -> list[tuple[str, ...]]:
    """The tables of a tournament by its pairing (`entrants` ranked strongest first for `rating`)."""
    _check_field(entrants, seats, cooperative)
    if resolve_pairing(pairing, len(entrants)) == "rating":
        return rating_tables(entrants, seats, appearances, seed)
    return make_tables(entrants, seats, cooperative, seed, max_tables)


def schedule_tables(tables: Sequence[tuple[str, ...]], deals: int, seed: int) -> list[MatchSpec]:
    """Every match of the tables, in play order (deal-major so early standings cover all tables)."""
    if deals < 1:
        raise ScheduleError("deals per pairing must be at least 1")
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


def make_schedule(
    entrants: Sequence[str],
    seats: int,
    deals: int,
    seed: int,
    cooperative: bool = False,
    max_tables: int = DEFAULT_MAX_TABLES,
    pairing: str = "round_robin",
    appearances: int = 1,
) -> list[MatchSpec]:
    """Every match of a tournament, in play order (deal-major so early standings cover all tables)."""
    if deals < 1:
        raise ScheduleError("deals per pairing must be at least 1")
    tables = make_table_plan(entrants, seats, seed, cooperative, max_tables, pairing, appearances)
    return schedule_tables(tables, deals, seed)


def schedule_size(
    entrants: int,
    seats: int,
    deals: int,
    cooperative: bool,
    max_tables: int,
    pairing: str = "round_robin",
    appearances: int = 1,
) -> int:
    """Upper bound on the number of matches (for validating a request before building it)."""
    if resolve_pairing(pairing, entrants) == "rating" and entrants >= seats >= 1:
        return entrants * exact_appearances(entrants, seats, appearances) * deals
    return min(count_tables(entrants, seats, cooperative), max_tables) * deals * seats


def fit_budget(
    entrants: int,
    seats: int,
    deals: int,
    cooperative: bool,
    max_tables: int,
    max_matches: int,
    pairing: str = "round_robin",
    appearances: int = 1,
) -> tuple[int, int]:
    """(max_tables, appearances) thinned so the schedule fits `max_matches` (a league round's budget).

    Round robin keeps fewer tables; rating pairing fewer appearances (never fewer than the least
    at which every entrant plays equally often). Raises ScheduleError when not even that fits.
    """
    if resolve_pairing(pairing, entrants) == "rating" and entrants >= seats >= 1:
        least = exact_appearances(entrants, seats, 1)
        most = max_matches // max(1, entrants * deals)
        if most < least:
            raise ScheduleError(
                f"{entrants} entrants need at least {entrants * least * deals} matches "
                f"to play equally often, over the budget of {max_matches}"
            )
        fitting = (min(appearances, most) // least) * least
        return max_tables, max(least, fitting)
    tables = min(max_tables, max_matches // max(1, seats * deals))
    if tables < 1:
        raise ScheduleError(f"not even one table fits the budget of {max_matches} matches")
    return tables, appearances


def not_before(when: datetime) -> datetime:
    """`when` rounded up to a whole second, the resolution of RQ's scheduler.

    RQ scores a scheduled job by `calendar.timegm(...)`, which drops the fraction of a second:
    a job queued for 12:00:00.8 would be due at 12:00:00, almost a second early.
    """
    if when.microsecond:
        return when.replace(microsecond=0) + timedelta(seconds=1)
    return when
