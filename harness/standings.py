"""Standings over recorded match results (see docs/harness.md for every column): pure functions.

A *result* is the JSON record the runner stores once per match::

    {"index", "deal", "table", "rotation", "seats": [bot per seat], "scores": [per seat],
     "winners": [seats], "faults": [count per seat], "fault_codes": [{code: n} per seat],
     "unrated": [seats over the fault threshold], "team_score", "reached",  # these two: cooperative
     "versions": [each seat's bot version when the match ran],  # absent from older results: ""
     "calls": [/move calls per seat], "reasons": [{reason: n} per seat]}  # harness.faults

Counting is per seat: a bot filling two seats of a match plays two seat-games there (it holds two
hands). A win is a seat among the winners; a *shared* win is such a seat when several seats won
(ties share the win) -- counted as a win and also reported separately.

Two ways to the same numbers:

- `Tally` folds results in one at a time, in match-index order (past a stuck match, provisionally
  out of order: docs/harness.md, Standings), into per-scope *sections* of
  plain JSON (a row per bot, a cell per pair, a composition, a deal's cooperative chain, a bot's
  deal clusters and rating history); a caller loads only the fields a batch touches
  (`Tally.needs`), applies the batch and writes back `Tally.dirty`. `page` and `statistics` read
  the sections back into a bounded standings page and into the intervals (the expensive part,
  computed once per change in the background).
- `compute_standings` recomputes everything from the full list of results, the reference the
  incremental path is tested against.
"""

from __future__ import annotations

import bisect
import json
import struct
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.faults import add_reason, fault_flag
from harness.ratings import (
    CooperativeChain,
    Rating,
    RatingEvent,
    cluster_interval,
    competitive_events,
    cooperative_events,
    is_provisional,
    overlaps,
    rate,
)

# A bot's rating history keeps at most this many points: when full, every other point goes and
# the bot keeps a point only every twice as many of its events (first point always kept).
HISTORY_POINTS = 64
# Deal clusters per bot (and per composition) are halved -- neighbours merged -- past this many,
# so a long league's interval data stays bounded; a merged cluster is still one resampling unit.
MAX_CLUSTERS = 256
# A row lists at most this many entrants it is not yet separated from (nearest in rank first).
NOT_SEPARATED_SHOWN = 20
SECTIONS = ("rows", "pairs", "comps", "deals", "clusters", "history", "versions")


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _interval(ci: tuple[float, float] | None) -> list[float] | None:
    return [ci[0], ci[1]] if ci is not None else None


def _fault_row() -> dict[str, Any]:
    return {"total": 0, "by_code": {}, "by_reason": {}, "unrated_matches": 0}


def fault_table(results: Sequence[Mapping[str, Any]], entrants: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per entrant: total faults, faults by code and by reason (`harness.faults`), and matches left
    unrated for it."""
    table: dict[str, dict[str, Any]] = {e: _fault_row() for e in entrants}
    for res in results:
        unrated_bots = {res["seats"][s] for s in res.get("unrated", ())}
        for bot in unrated_bots:
            table.setdefault(bot, _fault_row())["unrated_matches"] += 1
        codes_per_seat = res.get("fault_codes") or [{} for _ in res["seats"]]
        # Results from before the decision records carry no reasons (as `count_calls`).
        reasons_per_seat = (res.get("reasons") if res.get("calls") else None) or [{} for _ in res["seats"]]
        for seat, bot in enumerate(res["seats"]):
            row = table.setdefault(bot, _fault_row())
            row["total"] += int(res.get("faults", [0] * len(res["seats"]))[seat])
            for code, n in codes_per_seat[seat].items():
                row["by_code"][code] = row["by_code"].get(code, 0) + int(n)
            for reason, n in reasons_per_seat[seat].items():
                add_reason(row["by_reason"], reason, int(n))
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
        state = clusters_of(groups[key])
        ci = interval(state, seed, "team:" + ",".join(key), resamples)
        rows.append(
            {
                "members": list(key),
                "games": len(values),
                "mean_score": _mean(values),
                "score_ci": _interval(ci),
                "provisional": is_provisional(deal_count(state)),
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
    ended: bool = True,
) -> dict[str, Any]:
    """The whole standings document from scratch: per-entrant rows (sorted), matrices, faults.

    Ratings follow the results in match-index order; with `ended` (every result is in) the
    cooperative tables still open are closed as well.
    """
    everything = sorted(results, key=lambda r: int(r["index"]))
    results = [r for r in everything if not r.get("error")]  # errors count in no column
    per_deal: dict[str, dict[int, list[float]]] = {e: {} for e in entrants}
    wins = {e: 0 for e in entrants}
    shared = {e: 0 for e in entrants}
    reached = {e: 0 for e in entrants}
    calls: dict[str, dict[str, Any]] = {e: {"f": 0} for e in entrants}
    for res in results:
        winners = set(res.get("winners", ()))
        for seat, bot in enumerate(res["seats"]):
            if bot not in per_deal:
                continue  # a bot that left a league keeps its results out of this table
            calls[bot]["f"] += int((res.get("faults") or [0] * len(res["seats"]))[seat])
            count_calls(calls[bot], res, seat)
            value = float(res["team_score"] if cooperative else res["scores"][seat])
            per_deal[bot].setdefault(int(res["deal"]), []).append(value)
            if seat in winners:
                wins[bot] += 1
                if len(winners) > 1:
                    shared[bot] += 1
            if cooperative and res.get("reached"):
                reached[bot] += 1
    # An error result still counts as a missing game of its cooperative table.
    events = cooperative_events(everything, ended) if cooperative else competitive_events(results)
    ratings = rate(events, prior)
    faults = fault_table(results, entrants)
    rows = []
    for e in entrants:
        values = [v for d in sorted(per_deal[e]) for v in per_deal[e][d]]
        state = clusters_of(per_deal[e])
        ci = interval(state, seed, "entrant:" + e, resamples)
        rating = ratings.get(e, (prior or {}).get(e, Rating()))
        row: dict[str, Any] = {
            "entrant": e,
            "games": len(values),
            "wins": wins[e],
            "shared_wins": shared[e],
            "win_rate": wins[e] / len(values) if values else None,
            "mean_score": _mean(values),
            "score_ci": _interval(ci),
            "provisional": is_provisional(deal_count(state)),
            "rating": rating.to_dict(),
            "faults": faults[e]["total"],
            "unrated_matches": faults[e]["unrated_matches"],
            "flag": row_flag(calls[e]),
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
        row["not_separated_from"] = [
            other["entrant"]
            for other in rows
            if other is not row and overlaps(_separating(row), _separating(other))
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


def _separating(row: Mapping[str, Any]) -> tuple[float, float] | None:
    """The interval a row separates with: none while it is provisional (it overlaps everything)."""
    return None if row["provisional"] else _tuple(row["score_ci"])


def ratings_from_standings(doc: Mapping[str, Any]) -> dict[str, Rating]:
    """The ratings a standings document ends with (a league carries them into its next round)."""
    return {row["entrant"]: Rating(row["rating"]["mu"], row["rating"]["sigma"]) for row in doc["rows"]}


# --------------------------------------------------------------------------- deal clusters


def clusters_of(per_deal: Mapping[int, Sequence[float]]) -> dict[str, Any]:
    """The cluster section of one bot (or composition) from its values per deal, from scratch."""
    state: dict[str, Any] = {"d": [], "v": []}
    for deal in sorted(per_deal):
        for value in per_deal[deal]:
            add_to_clusters(state, deal, value)
    return state


def deal_count(state: Mapping[str, Any]) -> int:
    """How many deals a cluster section covers (its resampling units; merged ones count once)."""
    return len(state.get("d") or [])


def add_to_clusters(state: dict[str, Any], deal: int, value: float) -> None:
    """Add one game's value on `deal` (deals come in ascending order).

    ``d`` is a list of ``[first deal, sum, count]`` units; ``v`` keeps the individual values
    while there is one deal only (an interval over one deal resamples its games), and is dropped
    once there are two. Past `MAX_CLUSTERS` units, neighbours are merged (halving).
    """
    units = state["d"]
    if units and units[-1][0] == deal:
        units[-1][1] += value
        units[-1][2] += 1
    elif units and units[-1][0] > deal:
        # Out of order (a merged unit already covers later deals): count it with the last unit.
        units[-1][1] += value
        units[-1][2] += 1
    else:
        units.append([deal, value, 1])
        if len(units) > MAX_CLUSTERS:
            merged = []
            for i in range(0, len(units), 2):
                pair = units[i : i + 2]
                merged.append([pair[0][0], sum(u[1] for u in pair), sum(u[2] for u in pair)])
            state["d"] = merged
    if len(state["d"]) > 1:
        state["v"] = None
    elif state.get("v") is not None:
        state["v"].append(value)


def interval(
    state: Mapping[str, Any], seed: int, label: str, resamples: int = 1000
) -> tuple[float, float] | None:
    """The 95% interval of the mean over a cluster section (`ratings.cluster_interval`)."""
    units = [(float(s), int(c)) for _, s, c in state.get("d", [])]
    return cluster_interval(units, state.get("v") or [], seed, label, resamples)


# --------------------------------------------------------------------------- the tally


def _pair_key(a: str, b: str) -> str:
    return f"{a} {b}"


def _comp_key(members: Iterable[str]) -> str:
    return ",".join(sorted(members))


def new_row(rating: Rating) -> dict[str, Any]:
    """A bot's row before any result: games, wins, shared wins, threshold reached, score sum,
    faults (total, by code, unrated matches), rating (mu, sigma) and its rated events."""
    return {
        "g": 0,
        "w": 0,
        "sw": 0,
        "re": 0,
        "s": 0.0,
        "f": 0,
        "by": {},
        "um": 0,
        "mu": rating.mu,
        "sg": rating.sigma,
    }


class Tally:
    """One scope's standings state as far as a batch touches it; fold results in with `add`.

    `sections` maps each of `SECTIONS` to the loaded fields (parsed JSON; a missing field is a
    new one); `counters` holds ``matches`` (played results) and ``events`` (rating events).
    `prior` gives the starting rating of a bot not yet in ``rows``. After the batch, `dirty`
    names the fields to write back.
    """

    def __init__(
        self,
        cooperative: bool,
        sections: Mapping[str, dict[str, Any]] | None = None,
        counters: Mapping[str, int] | None = None,
        prior: Mapping[str, Rating] | None = None,
    ) -> None:
        self.cooperative = cooperative
        self.sections: dict[str, dict[str, Any]] = {
            name: dict((sections or {}).get(name, {})) for name in SECTIONS
        }
        self.counters = {"matches": 0, "events": 0, **(counters or {})}
        self.prior = prior or {}
        self.dirty: dict[str, set[str]] = {name: set() for name in SECTIONS}
        self.index_before: dict[str, str | None] = {}
        self.chain = CooperativeChain(self.sections["deals"])

    # -- what a batch needs -------------------------------------------------------------
    @staticmethod
    def needs(
        results: Sequence[Mapping[str, Any]], cooperative: bool, deals: Mapping[str, Any] | None = None
    ) -> dict[str, set[str]]:
        """The fields a batch reads. Cooperative batches need their deals' chains first (`deals`
        loaded), since the table a closing one is compared with may come from before the batch."""
        bots = {b for res in results for b in res["seats"]}
        need: dict[str, set[str]] = {name: set() for name in SECTIONS}
        for res in results:
            seats = res["seats"]
            if res.get("error"):
                continue
            if cooperative:
                members = sorted(set(seats))
                comp = _comp_key(seats)
                need["comps"].add(comp)
                need["clusters"].add("k:" + comp)
                if len(members) == 1:
                    need["pairs"].add(_pair_key(members[0], members[0]))
                need["pairs"].update(_pair_key(a, b) for a in members for b in members if a != b)
            else:
                need["pairs"].update(_pair_key(a, b) for a in seats for b in seats if a != b)
        if cooperative:
            need["deals"] = {str(deal_key(res)) for res in results}
            for state in (deals or {}).values():
                for entry in (state.get("last"), state.get("other")):
                    if entry:
                        bots.update(entry["team"])
        need["versions"] = {
            version_key(bot, version)
            for res in results
            if not res.get("error")
            for bot, version in zip(res["seats"], seat_versions(res), strict=True)
        }
        need["rows"] = set(bots)
        need["history"] = set(bots)
        need["clusters"].update(bots)
        return need

    # -- folding results in ---------------------------------------------------------------
    def row(self, bot: str) -> dict[str, Any]:
        """The bot's row (created from its prior rating on first use)."""
        rows = self.sections["rows"]
        if bot not in self.dirty["rows"]:
            # Where the row stood in the ranking index before this batch (None: a new row).
            self.index_before[bot] = rank_member(bot, rows[bot]) if bot in rows else None
        if bot not in rows:
            rows[bot] = new_row(self.prior.get(bot, Rating()))
        self.dirty["rows"].add(bot)
        return rows[bot]  # type: ignore[no-any-return]

    def index_changes(self) -> tuple[list[str], dict[str, int]]:
        """The ranking index's members to remove and to add for the rows this batch changed."""
        gone: list[str] = []
        added: dict[str, int] = {}
        for bot in sorted(self.dirty["rows"]):
            now = rank_member(bot, self.sections["rows"][bot])
            before = self.index_before.get(bot)
            if before != now:
                if before is not None:
                    gone.append(before)
                added[now] = 0
        return gone, added

    def _cell(self, section: str, key: str, empty: list[float]) -> list[float]:
        cells = self.sections[section]
        if key not in cells:
            cells[key] = list(empty)
        self.dirty[section].add(key)
        return cells[key]  # type: ignore[no-any-return]

    def _cluster(self, key: str) -> dict[str, Any]:
        clusters = self.sections["clusters"]
        if key not in clusters:
            clusters[key] = {"d": [], "v": []}
        self.dirty["clusters"].add(key)
        return clusters[key]  # type: ignore[no-any-return]

    def add(self, res: Mapping[str, Any]) -> None:
        """Fold one recorded result in (results must come in match-index order)."""
        if self.cooperative:
            events = self.chain.feed(res, str(deal_key(res)))
            self.dirty["deals"].add(str(deal_key(res)))
        else:
            events = [] if res.get("error") else competitive_events([res])
        if not res.get("error"):
            self._count(res)
        for event in events:
            self._rate(event)

    def close(self) -> None:
        """The scope's results are all in (or will never be): close the cooperative tables left open."""
        if self.cooperative:
            self.dirty["deals"].update(k for k, v in self.sections["deals"].items() if v.get("open"))
            for event in self.chain.flush():
                self._rate(event)

    def _count(self, res: Mapping[str, Any]) -> None:
        self.counters["matches"] += 1
        seats, scores = res["seats"], res["scores"]
        winners = set(res.get("winners", ()))
        faults = res.get("faults") or [0] * len(seats)
        codes = res.get("fault_codes") or [{} for _ in seats]
        deal = deal_key(res)
        versions = seat_versions(res)
        reached = self.cooperative and bool(res.get("reached"))
        for seat, bot in enumerate(seats):
            value = float(res["team_score"] if self.cooperative else scores[seat])
            won = seat in winners
            # The bot's row, and its version's row (`by=version`), count the seat alike.
            for row in (self.row(bot), self._version(bot, versions[seat])):
                row["g"] += 1
                row["s"] += value
                if won:
                    row["w"] += 1
                    if len(winners) > 1:
                        row["sw"] += 1
                if reached:
                    row["re"] += 1
                row["f"] += int(faults[seat])
                for code, n in codes[seat].items():
                    row["by"][code] = row["by"].get(code, 0) + int(n)
                count_calls(row, res, seat)
            add_to_clusters(self._cluster(bot), deal, value)
        for bot in {seats[s] for s in res.get("unrated", ())}:
            self.row(bot)["um"] += 1
        for bot, version in {(seats[s], versions[s]) for s in res.get("unrated", ())}:
            self._version(bot, version)["um"] += 1
        if self.cooperative:
            score = float(res["team_score"])
            comp = _comp_key(seats)
            cell = self._cell("comps", comp, [0, 0.0, 0])
            cell[0] += 1
            cell[1] += score
            cell[2] += 1 if res.get("reached") else 0
            add_to_clusters(self._cluster("k:" + comp), deal, score)
            members = sorted(set(seats))
            if len(members) == 1:
                members_pairs = [(members[0], members[0])]
            else:
                members_pairs = [(a, b) for a in members for b in members if a != b]
            for a, b in members_pairs:
                cell = self._cell("pairs", _pair_key(a, b), [0, 0.0])
                cell[0] += 1
                cell[1] += score
            return
        for i, a in enumerate(seats):
            for j, b in enumerate(seats):
                if a == b:
                    continue
                cell = self._cell("pairs", _pair_key(a, b), [0, 0, 0])
                cell[0 if scores[i] > scores[j] else 1 if scores[i] < scores[j] else 2] += 1

    def _version(self, bot: str, version: str) -> dict[str, Any]:
        """The bot version's row (`by=version` standings): a bot's row without a rating."""
        key = version_key(bot, version)
        cells = self.sections["versions"]
        if key not in cells:
            cells[key] = version_row()
        self.dirty["versions"].add(key)
        return cells[key]  # type: ignore[no-any-return]

    def _rate(self, event: RatingEvent) -> None:
        bots = {b for team in event.teams for b in team}
        current = {b: Rating(self.row(b)["mu"], self.row(b)["sg"]) for b in bots}
        before = self.counters["events"]
        updated = rate([event], current)
        self.counters["events"] = before + 1
        for bot in sorted(bots):
            row = self.row(bot)
            row["mu"], row["sg"] = updated[bot].mu, updated[bot].sigma
            self._remember(bot, before, current[bot], updated[bot], row_mean(row))

    def _remember(self, bot: str, before: int, old: Rating, new: Rating, mean: float | None) -> None:
        history = self.sections["history"]
        self.dirty["history"].add(bot)
        # Points are [event, mu, ordinal, mean score], four decimals (more than a chart shows); the
        # mean score (the standings' measure, what the chart draws) is the running mean of the games
        # counted when the point is taken.
        first = [before, round(old.mu, 4), round(old.ordinal, 4), mean]
        entry = history.get(bot) or {"s": 1, "c": 0, "p": [first]}
        history[bot] = entry
        entry["c"] += 1
        if entry["c"] >= entry["s"]:
            entry["c"] = 0
            entry["p"].append([before + 1, round(new.mu, 4), round(new.ordinal, 4), mean])
            if len(entry["p"]) > HISTORY_POINTS:
                entry["p"] = entry["p"][::2]
                entry["s"] *= 2

    def dumps(self) -> dict[str, dict[str, str]]:
        """The dirty fields, JSON-encoded, per section."""
        out: dict[str, dict[str, str]] = {}
        for name in SECTIONS:
            fields = self.sections[name]
            out[name] = {key: json.dumps(fields[key], separators=(",", ":")) for key in self.dirty[name]}
        return out


def seat_versions(res: Mapping[str, Any]) -> list[str]:
    """Each seat's bot version in a result ("" for results recorded before versions were)."""
    versions = res.get("versions")
    return [str(v) for v in versions] if versions else [""] * len(res["seats"])


def version_key(bot: str, version: str) -> str:
    """The field of a bot version's row: bot id, a space, the version (bot ids have no spaces)."""
    return f"{bot} {version}"


def version_row() -> dict[str, Any]:
    """A bot version's row before any result: games, wins, shared wins, threshold reached, score
    sum, faults (total, by code), unrated matches."""
    return {"g": 0, "w": 0, "sw": 0, "re": 0, "s": 0.0, "f": 0, "by": {}, "um": 0}


def version_rows(
    cells: Mapping[str, Mapping[str, Any]],
    ratings: Mapping[str, Rating],
    cooperative: bool,
    offset: int,
    limit: int,
) -> tuple[list[dict[str, Any]], int]:
    """A page of the per-version standings (one row per bot version, by mean score) and their count.

    A version's row has the counts of a bot's row; its rating is the bot's (ratings are kept per
    bot), and it has no interval of its own (`score_ci` null, `provisional`)."""
    listed = sorted(
        cells.items(),
        key=lambda item: (-(item[1]["s"] / item[1]["g"]) if item[1]["g"] else float("inf"), item[0]),
    )
    page = []
    for rank, (key, cell) in enumerate(listed[offset : offset + limit], start=offset + 1):
        bot, version = key.split(" ", 1)
        row = render_row(bot, {**cell, "mu": 0.0, "sg": 0.0}, rank, cooperative, None)
        row["rating"] = ratings.get(bot, Rating()).to_dict()
        row["version"] = version
        row["faults_by_code"] = dict(cell["by"])
        page.append(row)
    return page, len(listed)


def deal_key(res: Mapping[str, Any]) -> int:
    """The deal a result counts on (a league scope makes it unique across rounds: ``round_deal``)."""
    return int(res.get("round_deal", res["deal"]))


# --------------------------------------------------------------------------- reading back


def row_mean(row: Mapping[str, Any]) -> float | None:
    """A row's mean score (the standings' measure), four decimals; None before any game."""
    return round(row["s"] / row["g"], 4) if row["g"] else None


def row_order(entrant: str, row: Mapping[str, Any]) -> tuple[float, float, str]:
    """Sort key of the standings: mean score (highest first), then ordinal, then id."""
    mean = row["s"] / row["g"] if row["g"] else float("-inf")
    return (-mean, -(row["mu"] - 3.0 * row["sg"]), entrant)


def _sortable(value: float) -> str:
    """16 hex digits that sort as the float does (IEEE 754 bits, sign folded)."""
    bits = int.from_bytes(struct.pack(">d", value + 0.0), "big")
    return f"{(bits ^ 0xFFFFFFFFFFFFFFFF) if bits >> 63 else (bits | 1 << 63):016x}"


def rank_member(entrant: str, row: Mapping[str, Any]) -> str:
    """The row's member of the ranking index (a sorted set of equal scores, so ordered by member):
    `row_order` as text, so that the index's order is the standings' order."""
    first, second, _ = row_order(entrant, row)
    return f"{_sortable(first)}{_sortable(second)}:{entrant}"


def member_entrant(member: str) -> str:
    """The entrant of a ranking index member."""
    return member.split(":", 1)[1]


def ranked(
    rows: Mapping[str, Mapping[str, Any]], entrants: Iterable[str], prior: Mapping[str, Rating]
) -> list[tuple[str, Mapping[str, Any]]]:
    """Every entrant with its row (a fresh one from its prior if it has none), in standings order."""
    listed = [(e, rows.get(e) or new_row(prior.get(e, Rating()))) for e in dict.fromkeys(entrants)]
    listed.sort(key=lambda item: row_order(*item))
    return listed


def render_row(
    entrant: str, row: Mapping[str, Any], rank: int, cooperative: bool, stat: Mapping[str, Any] | None
) -> dict[str, Any]:
    """One standings row as the API shows it (`stat`: its interval and separation, if computed)."""
    games = int(row["g"])
    rating = Rating(float(row["mu"]), float(row["sg"]))
    ci = (stat or {}).get("ci")
    shown = list((stat or {}).get("ns", []))
    out: dict[str, Any] = {
        "rank": rank,
        "entrant": entrant,
        "games": games,
        "wins": int(row["w"]),
        "shared_wins": int(row["sw"]),
        "win_rate": row["w"] / games if games else None,
        "mean_score": row["s"] / games if games else None,
        "score_ci": ci,
        # Until computed, or from fewer than `PROVISIONAL_DEALS` deals: provisional.
        "provisional": bool((stat or {}).get("pv", True)),
        "rating": rating.to_dict(),
        "faults": int(row["f"]),
        "unrated_matches": int(row["um"]),
        "not_separated_from": shown,
        "not_separated_count": int(stat["nc"]) if stat is not None else None,
        "separated": stat is not None and int(stat["nc"]) == 0,
        "flag": row_flag(row),
    }
    if cooperative:
        out["threshold_rate"] = row["re"] / games if games else None
    return out


def count_calls(row: dict[str, Any], res: Mapping[str, Any], seat: int) -> None:
    """Add a result seat's /move calls (``c``) and faults by reason (``rs``) to a bot's row (results
    from before the decision records carry neither)."""
    calls = res.get("calls")
    if not calls:
        return
    row["c"] = int(row.get("c", 0)) + int(calls[seat])
    reasons = row.setdefault("rs", {})
    for reason, n in (res.get("reasons") or [{} for _ in calls])[seat].items():
        add_reason(reasons, reason, int(n))


def row_flag(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """The row's flag (`harness.faults.fault_flag`): most of the bot's calls faulted, and why."""
    return fault_flag(int(row.get("c", 0)), int(row["f"]), row.get("rs") or {})


def fault_entry(row: Mapping[str, Any]) -> dict[str, Any]:
    """A bot's line of the fault table."""
    return {
        "total": int(row["f"]),
        "by_code": dict(row["by"]),
        "by_reason": dict(row.get("rs") or {}),
        "unrated_matches": int(row["um"]),
    }


def pair_cell(cell: Sequence[float] | None, cooperative: bool) -> dict[str, Any]:
    """A head-to-head (wins, losses, ties, rate) or cross-play (games, mean) cell."""
    if cooperative:
        games = int(cell[0]) if cell else 0
        return {"games": games, "mean": cell[1] / games if cell and games else None}
    wins, losses, ties = (int(v) for v in cell) if cell else (0, 0, 0)
    total = wins + losses + ties
    return {
        "wins": wins,
        "losses": losses,
        "ties": ties,
        "rate": (wins + 0.5 * ties) / total if total else None,
    }


def composition_row(key: str, cell: Sequence[float], stat: Mapping[str, Any] | None) -> dict[str, Any]:
    """A team composition's line: members, games, mean team score with interval (and whether it
    is provisional), threshold rate."""
    games = int(cell[0])
    ci = (stat or {}).get("ci")
    return {
        "members": key.split(","),
        "games": games,
        "mean_score": cell[1] / games if games else None,
        "score_ci": list(ci) if ci is not None else None,
        "provisional": bool((stat or {}).get("pv", True)),
        "threshold_rate": cell[2] / games if games else None,
    }


def statistics(
    order: Sequence[str],
    clusters: Mapping[str, Mapping[str, Any]],
    seed: int,
    resamples: int = 1000,
) -> dict[str, dict[str, Any]]:
    """The expensive part, once per change: each entrant's interval and whom it is not separated from.

    `order` is the standings order (for "nearest in rank first"); `clusters` holds each bot's and
    each composition's (``k:<members>``) cluster section. Compositions get ``{"ci"}`` only.
    """
    out: dict[str, dict[str, Any]] = {}
    cis: dict[str, tuple[float, float] | None] = {}
    provisional: dict[str, bool] = {}
    for bot in order:
        state = clusters.get(bot) or {}
        cis[bot] = interval(state, seed, "entrant:" + bot, resamples)
        provisional[bot] = is_provisional(deal_count(state))
    for key, state in clusters.items():
        if key.startswith("k:"):
            ci = interval(state, seed, "team:" + key[2:], resamples)
            out[key] = {"ci": list(ci) if ci else None, "pv": is_provisional(deal_count(state))}
    # A provisional interval separates no one: for separation it counts as unknown.
    seps = {bot: None if provisional[bot] else ci for bot, ci in cis.items()}
    known = [ci for ci in seps.values() if ci is not None]
    los = sorted(ci[0] for ci in known)
    his = sorted(ci[1] for ci in known)
    unknown = len(order) - len(known)
    position = {bot: i for i, bot in enumerate(order)}
    for bot in order:
        ci = seps[bot]
        if ci is None:
            count = len(order) - 1  # nothing known yet: not separated from anyone
        else:
            overlapping = bisect.bisect_right(los, ci[1]) - bisect.bisect_left(his, ci[0]) - 1
            count = overlapping + unknown
        shown: list[str] = []
        i = position[bot]
        step = 1
        while len(shown) < min(count, NOT_SEPARATED_SHOWN) and step < len(order):
            for j in (i - step, i + step):
                if 0 <= j < len(order) and len(shown) < NOT_SEPARATED_SHOWN and overlaps(ci, seps[order[j]]):
                    shown.append(order[j])
            step += 1
        shown_ci = cis[bot]
        out[bot] = {
            "ci": list(shown_ci) if shown_ci else None,
            "pv": provisional[bot],
            "ns": shown,
            "nc": count,
        }
    return out
