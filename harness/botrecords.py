"""A bot's own records (issue 18, "My bot"): its matches, its results per version, its leagues.

Read from the per-bot indexes the standings fold writes once per result (`HarnessStore`
``b:<bot>:…``, `HarnessStore.index_results`), so a page costs a few round trips whatever
the bot's history: never a scan of tournaments or results.

Fair play (docs/harness.md): a match is listed once its result is recorded and folded in, with
what `listTournamentMatches` already shows to anyone (seats, deal number, scores, winners,
faults, game id); nothing of a deal's cards or seeds. While its tournament has not ended the
entry says ``sealed: true`` (its game answers 409 `game_sealed` until then).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from harness.runner import HarnessContext
from harness.standings import row_flag, seat_versions
from harness.store import loads_many
from harness.tournaments import is_published

MAX_PAGE = 100  # matches per page (like listBots)
DEFAULT_PAGE = 50
# Entries folded in the same microsecond at the same batch position share a score; a page reads
# this many more to step past the ones the cursor has already shown.
TIE_SLACK = 32
LEAGUES_SHOWN = 10  # leagues on a bot's page (latest first)


@dataclass
class MatchPage:
    """One page of a bot's matches, newest first, and the cursor of the next one (None: no more)."""

    matches: list[dict[str, Any]]
    next_cursor: str | None


def _iso(micros: float) -> str:
    return datetime.fromtimestamp(micros / 1e6, UTC).isoformat()


def parse_cursor(cursor: str) -> tuple[int, str]:
    """A `next_cursor` as (score, member); ValueError if it is not one."""
    score, member = cursor.split(":", 1)
    return int(score), member


def _window(
    ctx: HarnessContext, key: str, limit: int, cursor: str | None
) -> tuple[list[tuple[str, int]], bool]:
    """Up to `limit` (member, score) entries after `cursor`, newest first, and whether more follow."""
    client = ctx.store.client
    if cursor is None:
        raw = client.zrevrange(key, 0, limit, withscores=True)
        entries = [(m.decode(), int(s)) for m, s in cast(list[tuple[bytes, float]], raw)]
    else:
        score, member = parse_cursor(cursor)
        raw = client.zrevrangebyscore(key, score, "-inf", start=0, num=limit + 1 + TIE_SLACK, withscores=True)
        pairs = [(m.decode(), int(s)) for m, s in cast(list[tuple[bytes, float]], raw)]
        # Equal scores come in reverse member order: skip those at or before the cursor's member.
        entries = [(m, s) for m, s in pairs if s < score or m < member]
    return entries[:limit], len(entries) > limit


def bot_matches(
    ctx: HarnessContext,
    bot_id: str,
    tournament_id: str | None = None,
    league_id: str | None = None,
    limit: int = DEFAULT_PAGE,
    cursor: str | None = None,
) -> MatchPage:
    """The bot's recorded matches, newest first (all, or one tournament's, or one league's)."""
    store = ctx.store
    limit = max(1, min(limit, MAX_PAGE))
    if tournament_id is not None:
        key = store.key_for("bot_scope_matches", bot_id, f"t:{tournament_id}")
    elif league_id is not None:
        key = store.key_for("bot_scope_matches", bot_id, f"l:{league_id}")
    else:
        key = store.key_for("bot_matches", bot_id)
    entries, more = _window(ctx, key, limit, cursor)
    refs = [(m.rsplit(":", 1)[0], int(m.rsplit(":", 1)[1]), s) for m, s in entries]
    tids = list(dict.fromkeys(tid for tid, _, _ in refs))
    pipe = store.client.pipeline(transaction=False)
    for tid in tids:
        pipe.hgetall(store.key_for("tournament", tid))
    for tid, index, _ in refs:
        pipe.hget(store.key_for("results", tid), str(index))
    answers = pipe.execute()
    records = {
        tid: store.parse_tournament(tid, raw) for tid, raw in zip(tids, answers[: len(tids)], strict=True)
    }
    results = loads_many(answers[len(tids) :])
    matches = []
    for (tid, index, score), res in zip(refs, results, strict=True):
        record = records.get(tid)
        if record is None or res is None:
            continue  # expired or removed since
        matches.append(match_entry(bot_id, tid, index, score, record, res))
    last = entries[-1] if entries else None
    return MatchPage(matches, f"{last[1]}:{last[0]}" if more and last else None)


def match_entry(
    bot_id: str, tid: str, index: int, score: int, record: dict[str, Any], res: dict[str, Any]
) -> dict[str, Any]:
    """One of the bot's matches as the API shows it (its seats, the table, its result and faults)."""
    spec = record["spec"]
    seats: list[str] = list(res["seats"])
    mine = [s for s, b in enumerate(seats) if b == bot_id]
    league = spec.get("league") or {}
    entry: dict[str, Any] = {
        "tournament_id": tid,
        "index": index,
        "game": spec["game"],
        "league_id": league.get("league_id"),
        "league_round": league.get("round"),
        "practice": bool(spec.get("practice")),
        "sealed": not is_published(record),
        "recorded_at": _iso(score),
        "deal": int(res.get("deal", 0)),
        "seats": mine,
        "table": seats,
        "opponents": [b for b in dict.fromkeys(seats) if b != bot_id],
        "version": next((seat_versions(res)[s] for s in mine), None) if res.get("versions") else None,
        "game_id": res.get("game_id"),
    }
    if res.get("error"):
        return {**entry, "status": "error", "error": str(res["error"]), "result": None}
    winners = set(res.get("winners", ()))
    codes: dict[str, int] = {}
    for seat in mine:
        for code, n in (res.get("fault_codes") or [{}] * len(seats))[seat].items():
            codes[code] = codes.get(code, 0) + int(n)
    faults = res.get("faults") or [0] * len(seats)
    result: dict[str, Any] = {
        "scores": [res["scores"][s] for s in mine],
        "all_scores": list(res["scores"]),
        "winners": sorted(winners),
        "won": any(s in winners for s in mine),
        "faults": sum(int(faults[s]) for s in mine),
        "faults_by_code": codes,
        "unrated": any(s in set(res.get("unrated", ())) for s in mine),
        "team_score": res.get("team_score"),
        "reached": res.get("reached"),
    }
    return {**entry, "status": "finished", "error": None, "result": result}


def version_summary(ctx: HarnessContext, bot_id: str) -> list[dict[str, Any]]:
    """The bot's results per game and version over every tournament and league round it played
    (practice tournaments and error results left out): matches, seat-games, wins, mean score,
    faults by code, unrated matches. One read of a hash bounded by games x versions x fault codes."""
    raw = cast(dict[bytes, bytes], ctx.store.client.hgetall(ctx.store.key_for("bot_versions", bot_id)))
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for field, value in raw.items():
        game, version, counter = field.decode().split("\t", 2)
        row = rows.setdefault(
            (game, version),
            {"game": game, "version": version, "matches": 0, "games": 0, "wins": 0, "score_sum": 0.0,
             "faults": 0, "faults_by_code": {}, "unrated_matches": 0},
        )  # fmt: skip
        number = float(value)
        if counter.startswith("f:"):
            row["faults_by_code"][counter[2:]] = int(number)
        else:
            name = {"m": "matches", "g": "games", "w": "wins", "s": "score_sum", "f": "faults"}
            row[name.get(counter, "unrated_matches")] = number if counter == "s" else int(number)
    out = []
    for _key, row in sorted(rows.items()):
        games = row["games"]
        out.append(
            {
                **{k: v for k, v in row.items() if k != "score_sum"},
                "mean_score": row["score_sum"] / games if games else None,
                "win_rate": row["wins"] / games if games else None,
            }
        )
    return out


def bot_leagues(ctx: HarnessContext, bot_id: str, count: int = LEAGUES_SHOWN) -> list[str]:
    """The leagues the bot has results in, latest first (at most `count`)."""
    raw = ctx.store.client.zrevrange(ctx.store.key_for("bot_leagues", bot_id), 0, count - 1)
    return [m.decode() for m in cast(Sequence[bytes], raw)]


def tournament_flags(ctx: HarnessContext, bot_id: str, tids: Sequence[str]) -> list[dict[str, Any]]:
    """The tournaments among `tids` whose standings flag the bot (most of its calls faulted there),
    each with the flag's plain-words reason (`harness.faults.fault_flag`): one round trip."""
    unique = list(dict.fromkeys(tids))
    pipe = ctx.store.client.pipeline(transaction=False)
    for tid in unique:
        pipe.hget(ctx.store.scope_key(f"t:{tid}", "rows"), bot_id)
    flagged = []
    for tid, row in zip(unique, loads_many(pipe.execute()), strict=True):
        flag = row_flag(row) if row is not None else None
        if flag is not None:
            flagged.append({"tournament_id": tid, **flag})
    return flagged
