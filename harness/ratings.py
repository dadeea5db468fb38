"""Pure rating helpers: OpenSkill (Plackett-Luce) over recorded results, and seeded intervals.

Rating events, each one a function of the results before it in match-index order, so that
ratings can be updated as results come in and always equal a recomputation from scratch:

- competitive games: each match is one event; every *rated* seat is a one-member team ranked by
  its score (equal scores tie);
- cooperative games: the games of one table on one deal (its seat rotations) are the team's
  *duplicate score* on that deal: their mean. When a table's games on a deal are all recorded,
  that score is one event of two teams: this table's rated members against the table before it
  on the same deal whose composition differs, ranked by score (`CooperativeChain`). Compositions
  are compared on the same hands, and each table costs one two-team event: linear in the games,
  where one event over every game of a deal was quadratic (2,415 teams: 1.8 s).

A bot filling several seats of one event is updated once per seat from the same prior and the
updates are summed for mu; sigma takes the smallest of the per-seat posteriors (each seat is
evidence, but not independent evidence, so sigma is not shrunk once per seat). Seats marked
unrated (their bot passed the fault threshold in that match) are left out of the event.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from harness.scheduling import derive_seed, rotations

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0


@dataclass(frozen=True)
class Rating:
    """An OpenSkill rating; `ordinal` is the conservative mu - 3 sigma."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma: the rating the bot is 99.7% likely to be above."""
        return self.mu - 3.0 * self.sigma

    def to_dict(self) -> dict[str, float]:
        """JSON-compatible form."""
        return {"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal}


@dataclass(frozen=True)
class RatingEvent:
    """One ranking of teams: `teams[i]` (bot ids, one per rated seat) scored `scores[i]`."""

    teams: tuple[tuple[str, ...], ...]
    scores: tuple[float, ...]


def competitive_events(results: Iterable[Mapping[str, Any]]) -> list[RatingEvent]:
    """One event per match, seats as one-member teams (unrated seats dropped), in match order."""
    events = []
    for res in sorted(results, key=lambda r: int(r["index"])):
        if res.get("error"):
            continue  # a match that could not be played
        unrated = set(res.get("unrated", ()))
        seat_scores = enumerate(zip(res["seats"], res["scores"], strict=True))
        pairs = [(bot, float(score)) for seat, (bot, score) in seat_scores if seat not in unrated]
        if len({bot for bot, _ in pairs}) < 2:
            continue  # one bot against itself teaches nothing
        events.append(RatingEvent(tuple((bot,) for bot, _ in pairs), tuple(score for _, score in pairs)))
    return events


class CooperativeChain:
    """Cooperative rating events, fed one result at a time in match-index order (see the module).

    The state is plain JSON per deal (`deals[deal]`), so a caller can keep only the deals a batch
    of results touches: ``{"open": {"<table>:<members>": group}, "last": entry, "other": entry}``. A *group*
    gathers one table's games on the deal (``members`` sorted, ``sum``, ``n`` played, ``seen``
    recorded, ``expected`` rotations, ``unrated`` bots); an *entry* is a closed group's rated
    ``team``, mean ``score`` and composition. `last` is the latest closed table of the deal and
    `other` the latest one whose composition differs from `last`'s.
    """

    def __init__(self, deals: dict[str, Any] | None = None) -> None:
        self.deals: dict[str, Any] = deals if deals is not None else {}

    def feed(self, result: Mapping[str, Any], deal: str) -> list[RatingEvent]:
        """Count one recorded result (an error result counts as a missing game); the events it closes."""
        state = self.deals.setdefault(deal, {"open": {}, "last": None, "other": None})
        seats = list(result["seats"])
        # A table's games share one composition; keyed by both, a table is never mixed up.
        table = f"{int(result.get('table', 0)):09d}:{','.join(sorted(seats))}"
        group = state["open"].setdefault(
            table,
            {
                "members": sorted(seats),
                "sum": 0.0,
                "n": 0,
                "seen": 0,
                "expected": len(rotations(seats)),
                "unrated": [],
            },
        )
        group["seen"] += 1
        if not result.get("error"):
            group["sum"] += float(result["team_score"])
            group["n"] += 1
            unrated = {seats[s] for s in result.get("unrated", ())}
            group["unrated"] = sorted(set(group["unrated"]) | unrated)
        if group["seen"] < group["expected"]:
            return []
        del state["open"][table]
        return self._close(state, group)

    def flush(self) -> list[RatingEvent]:
        """Close every table still open (a tournament that ended with matches unplayed), in order."""
        events: list[RatingEvent] = []
        for deal in sorted(self.deals, key=_natural):
            state = self.deals[deal]
            for table in sorted(state["open"]):
                events += self._close(state, state["open"].pop(table))
        return events

    @staticmethod
    def _close(state: dict[str, Any], group: dict[str, Any]) -> list[RatingEvent]:
        if not group["n"]:
            return []
        team = [bot for bot in group["members"] if bot not in set(group["unrated"])]
        if not team:
            return []
        entry = {"team": team, "score": group["sum"] / group["n"], "comp": group["members"]}
        last, other = state["last"], state["other"]
        partner = last if last is not None and last["comp"] != entry["comp"] else other
        if last is None or last["comp"] != entry["comp"]:
            state["other"] = last
        state["last"] = entry
        if partner is None:
            return []
        return [RatingEvent((tuple(team), tuple(partner["team"])), (entry["score"], float(partner["score"])))]


def _natural(key: str) -> tuple[int, str]:
    return (int(key), "") if key.lstrip("-").isdigit() else (0, key)


def cooperative_events(results: Iterable[Mapping[str, Any]], ended: bool = True) -> list[RatingEvent]:
    """Every cooperative event of the results, from scratch (tables still open closed if `ended`)."""
    chain = CooperativeChain()
    events: list[RatingEvent] = []
    for res in sorted(results, key=lambda r: int(r["index"])):
        events += chain.feed(res, str(res["deal"]))
    return events + (chain.flush() if ended else [])


def rate(events: Sequence[RatingEvent], prior: Mapping[str, Rating] | None = None) -> dict[str, Rating]:
    """Apply the events in order, starting from `prior` (default ratings for bots not in it)."""
    model = PlackettLuce()
    ratings: dict[str, Rating] = dict(prior or {})
    for event in events:
        current = {bot: ratings.get(bot, Rating()) for team in event.teams for bot in team}
        teams = [
            [model.rating(mu=current[b].mu, sigma=current[b].sigma) for b in team] for team in event.teams
        ]
        updated = model.rate(teams, scores=list(event.scores))
        delta: dict[str, float] = {}
        sigma: dict[str, float] = {}
        for team, new_team in zip(event.teams, updated, strict=True):
            for bot, new in zip(team, new_team, strict=True):
                delta[bot] = delta.get(bot, 0.0) + (new.mu - current[bot].mu)
                sigma[bot] = min(sigma.get(bot, math.inf), new.sigma)
        for bot in current:
            ratings[bot] = Rating(current[bot].mu + delta[bot], sigma[bot])
    return ratings


# Up to this many resampling units (deals; or games, with one deal) an interval is a percentile
# bootstrap; above it the cluster-robust normal interval, to which the bootstrap converges and
# which costs O(units) instead of O(units x resamples).
BOOTSTRAP_MAX_UNITS = 20
Z95 = 1.959963984540054
# An interval over fewer deals than this is *provisional*: shown as such, and it separates no one
# (two deals resample into an interval far narrower than what is known; see docs/harness.md).
PROVISIONAL_DEALS = 10


def bootstrap_ci(
    clusters: Sequence[Sequence[float]],
    seed: int,
    label: str = "",
    resamples: int = 1000,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile bootstrap CI of the mean, resampling whole clusters (deals) with replacement.

    None when there is too little data for an interval (fewer than two values).
    """
    nonempty = [list(c) for c in clusters if len(c)]
    if sum(len(c) for c in nonempty) < 2:
        return None
    if len(nonempty) < 2:
        # One deal only: fall back to resampling its games individually.
        nonempty = [[v] for v in nonempty[0]]
    return _bootstrap([sum(c) for c in nonempty], [len(c) for c in nonempty], seed, label, resamples, level)


def _bootstrap(
    sums: Sequence[float], counts: Sequence[int], seed: int, label: str, resamples: int, level: float
) -> tuple[float, float]:
    rng = random.Random(derive_seed(seed, "bootstrap", label))
    n = len(sums)
    # All draws at once (`choices` is several times faster than a randrange per draw), then each
    # resample's sums through C-level map/sum.
    picks = rng.choices(range(n), k=n * resamples)
    take_sum, take_count = sums.__getitem__, counts.__getitem__
    means = []
    for start in range(0, n * resamples, n):
        chunk = picks[start : start + n]
        means.append(sum(map(take_sum, chunk)) / sum(map(take_count, chunk)))
    means.sort()
    alpha = (1.0 - level) / 2.0
    lo = means[max(0, int(math.floor(alpha * resamples)))]
    hi = means[min(resamples - 1, int(math.ceil((1.0 - alpha) * resamples)) - 1)]
    return (lo, hi)


def cluster_interval(
    clusters: Sequence[tuple[float, int]],
    values: Sequence[float],
    seed: int,
    label: str = "",
    resamples: int = 1000,
) -> tuple[float, float] | None:
    """95% interval of the mean from per-deal (sum, count) clusters (`values`: the games of the one deal).

    The same interval as `bootstrap_ci` over the same data up to `BOOTSTRAP_MAX_UNITS` units; past
    it the normal interval with the cluster-robust (ratio-estimator) standard error.
    """
    units = [(s, c) for s, c in clusters if c]
    if len(units) < 2:
        units = [(v, 1) for v in values]
        if len(units) < 2:
            return None
    if len(units) <= BOOTSTRAP_MAX_UNITS:
        return _bootstrap([s for s, _ in units], [c for _, c in units], seed, label, resamples, 0.95)
    total = sum(c for _, c in units)
    mean = sum(s for s, _ in units) / total
    k = len(units)
    variance = k / (k - 1) * sum((s - mean * c) ** 2 for s, c in units) / total**2
    half = Z95 * math.sqrt(variance)
    return (mean - half, mean + half)


def is_provisional(deals: int) -> bool:
    """Whether an interval over this many deals (resampling units of distinct deals) is provisional."""
    return deals < PROVISIONAL_DEALS


def overlaps(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool:
    """True when two intervals overlap (a missing interval overlaps everything: nothing is known)."""
    if a is None or b is None:
        return True
    return a[0] <= b[1] and b[0] <= a[1]
