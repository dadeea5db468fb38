"""Pure standings over recorded match results (see docs/harness.md for every column).

A *result* is the JSON record the runner stores once per match::

    {"index", "deal", "table", "rotation", "seats": [bot per seat], "scores": [per seat],
     "winners": [seats], "faults": [count per seat], "fault_codes": [{code: n} per seat],
     "unrated": [seats over the fault threshold], "team_score", "reached"}  # last two: cooperative

Counting is per seat: a bot filling two seats of a match plays two seat-games there (it holds two
hands). A win is a seat among the winners; a *shared* win is such a seat when several seats won
(ties share the win) -- counted as a win and also reported separately.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.ratings import (
    Rating,
    bootstrap_ci,
    competitive_events,
    cooperative_events,
    overlaps,
    rate,
)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _interval(ci: tuple[float, float] | None) -> list[float] | None:
    return [ci[0], ci[1]] if ci is not None else None


def fault_table(results: Sequence[Mapping[str, Any]], entrants: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per entrant: total faults, faults by code, and matches left unrated for it."""
    table: dict[str, dict[str, Any]] = {
        e: {"total": 0, "by_code": {}, "unrated_matches": 0} for e in entrants
    }
    for res in results:
        unrated_bots = {res["seats"][s] for s in res.get("unrated", ())}
        for bot in unrated_bots:
            table.setdefault(bot, {"total": 0, "by_code": {}, "unrated_matches": 0})["unrated_matches"] += 1
        codes_per_seat = res.get("fault_codes") or [{} for _ in res["seats"]]
        for seat, bot in enumerate(res["seats"]):
            row = table.setdefault(bot, {"total": 0, "by_code": {}, "unrated_matches": 0})
            row["total"] += int(res.get("faults", [0] * len(res["seats"]))[seat])
            for code, n in codes_per_seat[seat].items():
                row["by_code"][code] = row["by_code"].get(code, 0) + int(n)
    return table


def head_to_head(results: Sequence[Mapping[str, Any]], entrants: Sequence[str]) -> dict[str, dict[str, Any]]:
    """h2h[a][b]: over every pair of seats (a's, b's) at the same match, a's wins/losses/ties and rate."""
    h2h: dict[str, dict[str, dict[str, float]]] = {
        a: {b: {"wins": 0, "losses": 0, "ties": 0} for b in entrants if b != a} for a in entrants
    }
    for res in results:
        seats, scores = res["seats"], res["scores"]
        for i, a in enumerate(seats):
            for j, b in enumerate(seats):
                if a == b or a not in h2h or b not in h2h[a]:
                    continue
                cell = h2h[a][b]
                if scores[i] > scores[j]:
                    cell["wins"] += 1
                elif scores[i] < scores[j]:
                    cell["losses"] += 1
                else:
                    cell["ties"] += 1
    for row in h2h.values():
        for cell in row.values():
            total = cell["wins"] + cell["losses"] + cell["ties"]
            cell["rate"] = (cell["wins"] + 0.5 * cell["ties"]) / total if total else None  # type: ignore[assignment]
    return h2h


def cross_play(results: Sequence[Mapping[str, Any]], entrants: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Cooperative matrix: [a][b] mean team score of games with both a and b; [a][a] self-play only."""
    cells: dict[str, dict[str, list[float]]] = {a: {b: [] for b in entrants} for a in entrants}
    for res in results:
        members = set(res["seats"])
        score = float(res["team_score"])
        if len(members) == 1:
            (only,) = members
            if only in cells:
                cells[only][only].append(score)
            continue
        for a in members:
            for b in members:
                if a != b and a in cells and b in cells[a]:
                    cells[a][b].append(score)
    return {a: {b: {"games": len(v), "mean": _mean(v)} for b, v in row.items()} for a, row in cells.items()}


def compositions(
    results: Sequence[Mapping[str, Any]], seed: int, resamples: int = 1000
) -> list[dict[str, Any]]:
    """Cooperative: per team composition (sorted members) games, mean score with CI, threshold rate."""
    groups: dict[tuple[str, ...], dict[int, list[float]]] = {}
    reached: dict[tuple[str, ...], list[bool]] = {}
    for res in results:
        key = tuple(sorted(res["seats"]))
        groups.setdefault(key, {}).setdefault(int(res["deal"]), []).append(float(res["team_score"]))
        reached.setdefault(key, []).append(bool(res.get("reached")))
    rows: list[dict[str, Any]] = []
    for key in sorted(groups):
        values = [v for deal in sorted(groups[key]) for v in groups[key][deal]]
        clusters = [groups[key][d] for d in sorted(groups[key])]
        ci = bootstrap_ci(clusters, seed, "team:" + ",".join(key), resamples)
        rows.append(
            {
                "members": list(key),
                "games": len(values),
                "mean_score": _mean(values),
                "score_ci": _interval(ci),
                "threshold_rate": sum(reached[key]) / len(reached[key]),
            }
        )
    rows.sort(key=lambda r: -float(r["mean_score"] or 0.0))
    return rows


def compute_standings(
    results: Sequence[Mapping[str, Any]],
    entrants: Sequence[str],
    cooperative: bool,
    seed: int,
    prior: Mapping[str, Rating] | None = None,
    resamples: int = 1000,
) -> dict[str, Any]:
    """The whole standings document: per-entrant rows (sorted), matrices, fault counts."""
    results = sorted(results, key=lambda r: int(r["index"]))
    per_deal: dict[str, dict[int, list[float]]] = {e: {} for e in entrants}
    wins = {e: 0 for e in entrants}
    shared = {e: 0 for e in entrants}
    reached = {e: 0 for e in entrants}
    for res in results:
        winners = set(res.get("winners", ()))
        for seat, bot in enumerate(res["seats"]):
            if bot not in per_deal:
                continue  # a bot that left a league keeps its results out of this table
            value = float(res["team_score"] if cooperative else res["scores"][seat])
            per_deal[bot].setdefault(int(res["deal"]), []).append(value)
            if seat in winners:
                wins[bot] += 1
                if len(winners) > 1:
                    shared[bot] += 1
            if cooperative and res.get("reached"):
                reached[bot] += 1
    events = cooperative_events(results) if cooperative else competitive_events(results)
    ratings = rate(events, prior)
    faults = fault_table(results, entrants)
    rows = []
    for e in entrants:
        values = [v for d in sorted(per_deal[e]) for v in per_deal[e][d]]
        ci = bootstrap_ci([per_deal[e][d] for d in sorted(per_deal[e])], seed, "entrant:" + e, resamples)
        rating = ratings.get(e, (prior or {}).get(e, Rating()))
        row: dict[str, Any] = {
            "entrant": e,
            "games": len(values),
            "wins": wins[e],
            "shared_wins": shared[e],
            "win_rate": wins[e] / len(values) if values else None,
            "mean_score": _mean(values),
            "score_ci": _interval(ci),
            "rating": rating.to_dict(),
            "faults": faults[e]["total"],
            "unrated_matches": faults[e]["unrated_matches"],
        }
        if cooperative:
            row["threshold_rate"] = reached[e] / len(values) if values else None
        rows.append(row)
    rows.sort(
        key=lambda r: (
            -(r["mean_score"] if r["mean_score"] is not None else float("-inf")),
            -r["rating"]["ordinal"],
            r["entrant"],
        )
    )
    for row in rows:
        mine = row["score_ci"]
        row["not_separated_from"] = [
            other["entrant"]
            for other in rows
            if other is not row and overlaps(_tuple(mine), _tuple(other["score_ci"]))
        ]
        row["separated"] = not row["not_separated_from"]
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    doc: dict[str, Any] = {
        "matches": len(results),
        "cooperative": cooperative,
        "rows": rows,
        "faults": faults,
    }
    if cooperative:
        doc["cross_play"] = cross_play(results, entrants)
        doc["compositions"] = compositions(results, seed, resamples)
    else:
        doc["head_to_head"] = head_to_head(results, entrants)
    return doc


def _tuple(ci: list[float] | None) -> tuple[float, float] | None:
    return (ci[0], ci[1]) if ci is not None else None


def ratings_from_standings(doc: Mapping[str, Any]) -> dict[str, Rating]:
    """The ratings a standings document ends with (a league carries them into its next round)."""
    return {row["entrant"]: Rating(row["rating"]["mu"], row["rating"]["sigma"]) for row in doc["rows"]}
