"""Pure rating helpers: OpenSkill (Plackett-Luce) over recorded results, and seeded bootstrap CIs.

Rating events:
- competitive games: each match is one event; every *rated* seat is a one-member team ranked by
  its score (equal scores tie);
- cooperative games: each deal is one event; every game played on that deal is a team (its
  rated seats' bots) ranked by the team score, so compositions are compared on the same hands.

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

from harness.scheduling import derive_seed

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
        unrated = set(res.get("unrated", ()))
        seat_scores = enumerate(zip(res["seats"], res["scores"], strict=True))
        pairs = [(bot, float(score)) for seat, (bot, score) in seat_scores if seat not in unrated]
        if len({bot for bot, _ in pairs}) < 2:
            continue  # one bot against itself teaches nothing
        events.append(RatingEvent(tuple((bot,) for bot, _ in pairs), tuple(score for _, score in pairs)))
    return events


def cooperative_events(results: Iterable[Mapping[str, Any]]) -> list[RatingEvent]:
    """One event per deal: each game on the deal is a team of its rated seats, ranked by team score."""
    by_deal: dict[int, list[Mapping[str, Any]]] = {}
    for res in results:
        by_deal.setdefault(int(res["deal"]), []).append(res)
    events = []
    for deal in sorted(by_deal):
        teams: list[tuple[str, ...]] = []
        scores: list[float] = []
        for res in sorted(by_deal[deal], key=lambda r: int(r["index"])):
            unrated = set(res.get("unrated", ()))
            team = tuple(bot for seat, bot in enumerate(res["seats"]) if seat not in unrated)
            if team:
                teams.append(team)
                scores.append(float(res["team_score"]))
        if len(teams) >= 2:
            events.append(RatingEvent(tuple(teams), tuple(scores)))
    return events


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
    rng = random.Random(derive_seed(seed, "bootstrap", label))
    sums = [sum(c) for c in nonempty]
    counts = [len(c) for c in nonempty]
    n = len(nonempty)
    means = []
    for _ in range(resamples):
        total = 0.0
        count = 0
        for _ in range(n):
            k = rng.randrange(n)
            total += sums[k]
            count += counts[k]
        means.append(total / count)
    means.sort()
    alpha = (1.0 - level) / 2.0
    lo = means[max(0, int(math.floor(alpha * resamples)))]
    hi = means[min(resamples - 1, int(math.ceil((1.0 - alpha) * resamples)) - 1)]
    return (lo, hi)


def overlaps(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool:
    """True when two intervals overlap (a missing interval overlaps everything: nothing is known)."""
    if a is None or b is None:
        return True
    return a[0] <= b[1] and b[0] <= a[1]
