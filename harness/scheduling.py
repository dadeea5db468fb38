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
   A **league round** (`round_tables`, `round_plan`) plays min(budget, every table,
   max(max_tables, ⌈N·appearances/seats⌉)) tables -- non-decreasing in N, so no jump at any
   member count -- with every member within one table of the others; its round robin rotates
   over the league's rounds (`rotating_tables`) so a stable field meets every pair within
   `cover_rounds` rounds.
2. **Deals** (duplicate deals): `deals` deal seeds drawn from the tournament seed; every table
   plays the same deals, so every team composition plays the same hands.
3. **Seat rotations**: each deal is played once per cyclic rotation of the table's seating,
   so every entrant holds every hand of the deal (in proportion to the seats it fills).
"""

from __future__ import annotations

import functools
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
    """`count` tables of `seats` distinct entrants (`_covering_indices`), as entrant ids."""
    tables = _covering_indices(len(entrants), seats, count, seed, [0] * len(entrants), None, None)
    return [tuple(entrants[e] for e in table) for table in tables]


def _covering_indices(
    n: int,
    seats: int,
    count: int,
    seed: int,
    met: list[int],
    meetings: list[list[int]] | None,
    carried: list[int] | None,
) -> list[tuple[int, ...]]:
    """`count` tables of `seats` distinct entrants: appearances within one, every pair met soonest.

    Greedy, one table at a time: only the least-played tier is eligible for the next seat (that
    keeps appearances within one); within it, the entrant that has not yet met the most of the
    table's chosen entrants (for the first seat: the most entrants overall), then the one that
    met them least, then a seeded tie-break. Each run of the greedy is a prefix of a longer run,
    so a larger budget covers at least the pairs a smaller one does. `met` (a bitset of the
    entrants each one has met) and `meetings` (pair counts, when given) carry what earlier
    rounds met and are updated in place (`rotating_tables`); appearances start afresh, and
    `carried` (the tables each entrant played in earlier rounds, updated in place) decides who
    plays the round's extra tables: once every entrant has its ⌊count·seats/n⌋, the least
    carried go first, so over the rounds nobody keeps drawing the extra table.
    """
    if n < seats:
        raise ScheduleError("a balanced subset needs at least as many entrants as seats")
    if n > ROUND_ROBIN_MAX_ENTRANTS:
        raise ScheduleError(
            f"round robin takes at most {ROUND_ROBIN_MAX_ENTRANTS} entrants past its table budget; "
            "use pairing 'rating' for a larger field"
        )
    rng = random.Random(derive_seed(seed, "balanced"))
    everyone = (1 << n) - 1
    meetings = meetings if meetings is not None else [[0] * n for _ in range(n)]
    appearances = [0] * n
    base = count * seats // n
    seen: set[tuple[int, ...]] = set()
    possible = math.comb(n, seats)
    tables: list[tuple[int, ...]] = []
    retries = 0
    while len(tables) < count:
        tie_break = [rng.random() for _ in range(n)]
        chosen: list[int] = []
        mask = 0
        for _ in range(seats):
            free = [e for e in range(n) if not mask >> e & 1]
            low = min(appearances[e] for e in free)
            tier = [e for e in free if appearances[e] == low]
            if carried is not None and low >= base:
                least = min(carried[e] for e in tier)
                tier = [e for e in tier if carried[e] == least]
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
        tables.append(table)
        for e in chosen:
            appearances[e] += 1
            if carried is not None:
                carried[e] += 1
            met[e] |= mask & ~(1 << e)
        for a, b in itertools.combinations(chosen, 2):
            meetings[a][b] += 1
            meetings[b][a] += 1
    return tables


def balanced_tables(entrants: Sequence[str], seats: int, count: int, seed: int) -> list[tuple[str, ...]]:
    """`count` tables of `seats` distinct entrants, appearances within one, covering pairs first."""
    return _covering_tables(entrants, seats, count, seed)


@functools.lru_cache(maxsize=16)
def _rotation_rounds(
    n: int, seats: int, count: int, seed: int
) -> tuple[tuple[tuple[tuple[int, ...], ...], ...], tuple[int, ...]]:
    """The rounds of one rotation cycle over entrants 0..n-1 (as index tables), and the tables
    each entrant plays in the whole cycle.

    Every round is a pair-covering greedy run of `count` tables (appearances within one inside
    the round) that carries the pairs met by the cycle's earlier rounds, so each round prefers
    pairs not met yet, and the tables played, so the extra tables go round. The cycle ends with
    the round after which every pair has met. Cached (a pure function of its arguments): a
    process that schedules a league's rounds replays the cycle once.
    """
    if n < seats or n > ROUND_ROBIN_MAX_ENTRANTS or count < 1:
        raise ScheduleError("a rotation needs seats <= entrants <= 64 and at least one table")
    met = [0] * n
    meetings = [[0] * n for _ in range(n)]
    carried = [0] * n
    everyone = (1 << n) - 1
    rounds: list[list[tuple[int, ...]]] = []
    while not rounds or any(met[e] | 1 << e != everyone for e in range(n)):
        seed_r = derive_seed(seed, "rotation", len(rounds))
        rounds.append(_covering_indices(n, seats, count, seed_r, met, meetings, carried))
    return tuple(tuple(r) for r in rounds), tuple(carried)


def cover_rounds(n: int, seats: int, count: int) -> int:
    """The documented bound on the rounds of `count` tables in which a league round robin over
    a stable field of `n` meets every pair: ⌈2·S/count⌉, S the Schönheim lower bound
    ⌈n/seats·⌈(n−1)/(seats−1)⌉⌉ on the tables of any covering (docs/harness.md, Budget).
    64 members at 4 seats and 60 tables: 12 (the rotation takes 7-8)."""
    schonheim = -(-n * -(-(n - 1) // (seats - 1)) // seats)
    return max(1, -(-2 * schonheim // count))


def rotation_length(n: int, seats: int, count: int, seed: int) -> int:
    """How many rounds of `count` tables a rotation over `n` entrants takes to meet every pair."""
    return len(_rotation_rounds(n, seats, count, seed)[0])


def rotating_tables(
    entrants: Sequence[str], seats: int, count: int, seed: int, round_no: int
) -> list[tuple[str, ...]]:
    """League round `round_no` (1-based) of a rotation: `count` pair-covering tables per round.

    Rounds rotate which pairs meet: the field (sorted, so the joining order does not matter)
    goes through cycles of `rotation_length` rounds, each round preferring the pairs the cycle
    has not met yet, so a stable field meets every pair within one cycle. Every cycle is the
    first one with the entrants relabelled: cycle c shifts the field by c times the number of
    entrants that play an extra table in a cycle, so those extras go round the field too and
    consecutive cycles pair differently. Deterministic in its arguments; costs one cycle of
    greedy rounds (a 64-member field at 4 seats: about 450 tables, 0.1-0.3 s).
    """
    if round_no < 1:
        raise ScheduleError("rounds are numbered from 1")
    field = sorted(entrants)
    n = len(field)
    rounds, totals = _rotation_rounds(n, seats, count, seed)
    cycle, position = divmod(round_no - 1, len(rounds))
    labels = sorted(range(n), key=lambda e: (-totals[e], e))  # who plays most in a cycle first
    extras = sum(1 for t in totals if t > min(totals))
    shift = cycle * max(1, extras)
    member = {label: field[(j + shift) % n] for j, label in enumerate(labels)}
    return [tuple(member[e] for e in table) for table in rounds[position]]


def make_tables(
    entrants: Sequence[str],
    seats: int,
    cooperative: bool,
    seed: int,
    max_tables: int = DEFAULT_MAX_TABLES,
    rotation: tuple[int, int] | None = None,
) -> list[tuple[str, ...]]:
    """Round robin: the full list of tables, or a pair-covering subset of exactly `max_tables`
    (with `rotation`, (seed, round number): that round of a league's `rotating_tables`)."""
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
            return selfplay + _subset(entrants, seats, mixed, seed, rotation)
    return _subset(entrants, seats, max_tables, seed, rotation)


def _subset(
    entrants: Sequence[str], seats: int, count: int, seed: int, rotation: tuple[int, int] | None
) -> list[tuple[str, ...]]:
    if rotation is None:
        return _covering_tables(entrants, seats, count, seed)
    return rotating_tables(entrants, seats, count, *rotation)


def exact_appearances(entrants: int, seats: int, appearances: int) -> int:
    """The least k >= `appearances` at which `entrants * k` seats fill whole tables."""
    step = seats // math.gcd(entrants, seats)
    return -(-appearances // step) * step


def rating_tables(
    ranked: Sequence[str],
    seats: int,
    appearances: int,
    seed: int,
    window_tables: int = RATING_WINDOW_TABLES,
    tables: int | None = None,
) -> list[tuple[str, ...]]:
    """Rating-based matchmaking: every entrant at exactly `exact_appearances(...)` tables, or,
    given `tables` (a league round, `round_tables`), exactly that many tables with every
    entrant at ⌊tables·seats/N⌋ or one more (who plays the extra table is drawn by the seed).

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
    if tables is not None and tables * seats < n:
        raise ScheduleError(f"{tables} tables cannot seat {n} entrants once each")
    rng = random.Random(derive_seed(seed, "rating"))
    if tables is None:
        layers = [list(ranked)] * exact_appearances(n, seats, appearances)
    else:
        full, extra = divmod(tables * seats, n)
        chosen = set(rng.sample(range(n), extra))
        layers = [list(ranked)] * full + [[e for i, e in enumerate(ranked) if i in chosen]]
    width = max(seats, window_tables * seats)
    seq: list[str] = []
    for layer in layers:
        start = -rng.randrange(width)
        while start < len(layer):
            window = layer[max(0, start) : start + width]
            rng.shuffle(window)
            seq.extend(window)
            start += width
    out: list[tuple[str, ...]] = []
    for first in range(0, len(seq), seats):
        for j in range(first + 1, first + seats):
            if seq[j] in seq[first:j]:
                _swap_repeat(seq, first, j, seats)
        out.append(tuple(seq[first : first + seats]))
    return out


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


def round_tables(
    entrants: int,
    seats: int,
    deals: int,
    cooperative: bool,
    max_tables: int,
    max_matches: int,
    appearances: int = 1,
) -> int:
    """How many tables a league round of `entrants` members plays (docs/harness.md, Budget).

    ``min(budget, every table there is, max(max_tables, ⌈N·appearances/seats⌉))`` with the budget
    ``(max_matches // deals - S) // seats``, S = N for a cooperative game (its self-play teams,
    `round_matches`) and 0 otherwise: each term is non-decreasing in N, so a round never shrinks
    when a member joins, and past the table cap it grows by ⌈appearances/seats⌉ tables per
    member at most -- one formula whatever the pairing, so nothing jumps where `auto` switches
    from round robin to rating. Members play ⌊tables·seats/N⌋ tables or one more. Raises
    ScheduleError when the budget cannot seat every member once.
    """
    if appearances < 1:
        raise ScheduleError("appearances must be at least 1")
    # Cooperative rounds also play every member's self-play team (`round_plan`): one match a deal.
    budget = (max_matches // max(1, deals) - (entrants if cooperative else 0)) // seats
    wanted = max(max_tables, -(-entrants * appearances // seats))
    tables = min(budget, count_tables(entrants, seats, cooperative), wanted)
    if tables < 1 or tables * seats < entrants:
        raise ScheduleError(
            f"{entrants} members need at least {-(-entrants // seats) * seats * deals} matches "
            f"to play once each, over the budget of {max_matches}"
        )
    return tables


def _selfplay_on_top(entrants: int, seats: int, cooperative: bool, tables: int) -> bool:
    """Whether a league round adds every member's self-play team to its `tables` mixed teams:
    cooperative, past the full cross-play, with at least `tables` teams of distinct members."""
    return (
        cooperative
        and entrants >= seats
        and math.comb(entrants, seats) >= tables
        and count_tables(entrants, seats, True) > tables
    )


def round_matches(entrants: int, seats: int, deals: int, cooperative: bool, tables: int) -> int:
    """The matches of a league round of `tables` tables (`round_plan`), at most: `seats`
    rotations a table and deal, plus one match a deal for each self-play team."""
    selfplay = entrants if _selfplay_on_top(entrants, seats, cooperative, tables) else 0
    return (tables * seats + selfplay) * deals


def round_plan(
    members: Sequence[str],
    seats: int,
    seed: int,
    cooperative: bool,
    tables: int,
    pairing: str,
    rotation: tuple[int, int],
) -> list[tuple[str, ...]]:
    """The tables of a league round of `tables` tables (`round_tables`); `members` ranked strongest
    first for rating pairing. Round robin rotates (`rotating_tables`) over the league's rounds:
    `rotation` is (the league's rotation seed, the round number)."""
    _check_field(members, seats, cooperative)
    n = len(members)
    rating = resolve_pairing(pairing, n) == "rating"
    if _selfplay_on_top(n, seats, cooperative, tables):
        # Cooperative: every member's self-play team (one match a deal, the cross-play anchor)
        # on top of `tables` mixed teams, so the round grows with the field at every size.
        selfplay = [tuple([e] * seats) for e in members]
        if rating:
            return selfplay + rating_tables(members, seats, 1, seed, tables=tables)
        return selfplay + rotating_tables(members, seats, tables, *rotation)
    if rating:
        return rating_tables(members, seats, 1, seed, tables=tables)
    return make_tables(members, seats, cooperative, seed, tables, rotation)


def not_before(when: datetime) -> datetime:
    """`when` rounded up to a whole second, the resolution of RQ's scheduler.

    RQ scores a scheduled job by `calendar.timegm(...)`, which drops the fraction of a second:
    a job queued for 12:00:00.8 would be due at 12:00:00, almost a second early.
    """
    if when.microsecond:
        return when.replace(microsecond=0) + timedelta(seconds=1)
    return when
