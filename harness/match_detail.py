"""One tournament match in detail (`getTournamentMatch`): seats with bot names and versions, status,
result, fault counts and its per-decision records (issue 18, "see why").

What is shown to whom (docs/harness.md, Fair play; docs/api.md):

- Once the tournament has ended, to anyone: each decision's seat, bot, game version, latency,
  outcome (``ok``, a fault code, ``not_asked``), whether the fallback move was played, and a
  fault's HTTP status; and each seat's fault tallies.
- While it is live, only to the owners of the bots seated in this match (their bots see this
  game anyway): the records hold no move or card, but their order does tell a deal's story (who
  led each trick, so who won the one before; who was asked to hand out loot or choose a leader),
  and the same deal is in play at other tables. Anyone else gets no decisions and no tallies
  (``withheld``).
- A fault's ``detail`` (the first 512 bytes of the bot's answer, or the transport error) is written
  by the bot and may echo what it saw (its own hand): it is shown to the owner of that seat's bot
  (``Authorization: Bearer <bot owner key>``) at any time, and to the tournament's owner (or the
  league's, for a round) once the tournament has ended. Everyone else gets ``detail: null``.
"""

from __future__ import annotations

import hmac
from typing import Any

from core import errors
from core.bot_registry import BotRecord, owner_digest
from harness.challenges import ChallengeNotFound, get_challenge
from harness.faults import explain_counts, fault_flag, fault_reason
from harness.runner import NOT_ASKED, HarnessContext
from harness.tournaments import (
    TournamentNotFound,
    is_published,
    league_owner,
    list_matches,
    tournament_name,
)


class MatchNotFound(errors.ServiceError):
    """No match with that index in the tournament."""

    status = 404
    code = "match_not_found"


def _decision(index: int, raw: list[Any], seats: list[str]) -> dict[str, Any]:
    seat, version, latency_ms, outcome, fallback = raw[:5]
    status, detail = (raw[5], raw[6]) if len(raw) > 6 else (None, None)
    return {
        "index": index,
        "seat": seat,
        "bot_id": seats[seat] if 0 <= seat < len(seats) else None,
        "version": version,
        "latency_ms": latency_ms,
        "outcome": outcome,
        "fallback": bool(fallback),
        "status": status,
        "detail": detail,
    }


def seat_faults(decisions: list[dict[str, Any]], seats: int) -> list[dict[str, Any]]:
    """Each seat's calls, faults by code and by reason, and flag, from decisions (as `_decision`'s)."""
    out: list[dict[str, Any]] = [
        {"calls": 0, "total": 0, "by_code": {}, "by_reason": {}} for _ in range(seats)
    ]
    for d in decisions:
        if not 0 <= d["seat"] < seats or d["outcome"] == NOT_ASKED:
            continue
        entry = out[d["seat"]]
        entry["calls"] += 1
        if d["outcome"] != "ok":
            entry["total"] += 1
            entry["by_code"][d["outcome"]] = entry["by_code"].get(d["outcome"], 0) + 1
            reason = fault_reason(d["outcome"], d["status"], d["detail"])
            entry["by_reason"][reason] = entry["by_reason"].get(reason, 0) + 1
    for entry in out:
        entry["flag"] = fault_flag(entry["calls"], entry["total"], entry["by_reason"])
    return out


def match_detail(ctx: HarnessContext, tid: str, index: int, key: str | None) -> dict[str, Any]:
    """The match `index` of tournament `tid`, its decisions' details as far as `key` may read them
    (module docstring); a key that owns neither a seat's bot nor the tournament is refused (403)."""
    return _match_detail(ctx, tid, index, key)[0]


def _match_detail(
    ctx: HarnessContext, tid: str, index: int, key: str | None
) -> tuple[dict[str, Any], set[str], dict[str, Any]]:
    """`match_detail`, the seated bots `key` owns and the tournament's record."""
    record = ctx.store.tournament(tid)
    if record is None:
        raise TournamentNotFound(f"no tournament {tid!r}")
    if not 0 <= index < record["total"]:
        raise MatchNotFound(f"tournament {tid!r} has no match {index}", details={"matches": record["total"]})
    match = list_matches(ctx, tid, index, 1, record=record)[0]
    seats: list[str] = match["seats"]
    versions, raw = ctx.store.match_decisions(tid, index)
    bots: dict[str, BotRecord | None] = {b: ctx.bot(b) for b in dict.fromkeys(seats)}
    ended = is_published(record)
    mine, tournament_owner = _key_rights(ctx, record, bots, key)
    withheld = not ended and not mine  # a live deal's decisions only to its seated bots' owners
    readable = set(bots) if tournament_owner and ended else mine
    decisions = [] if withheld else [_decision(i, r, seats) for i, r in enumerate(raw)]
    faults = seat_faults(decisions, len(seats))  # counted with the details, before any is hidden
    for d in decisions:
        if d["bot_id"] not in readable:
            d["detail"] = None
    match.update(
        tournament_id=tid,
        sealed=not ended,
        withheld=withheld,
        seats=[
            {
                "seat": s,
                "bot_id": b,
                "name": _name(bots[b], b),
                "version": versions[s] if versions and s < len(versions) else None,
                "faults": None if withheld else faults[s],
            }
            for s, b in enumerate(seats)
        ],
        decisions=decisions,
        details_shown=sorted(readable),
    )
    return match, mine, record


def _name(record: BotRecord | None, bot_id: str) -> str:
    return record.name if record is not None else bot_id


def _key_rights(
    ctx: HarnessContext, record: dict[str, Any], bots: dict[str, BotRecord | None], key: str | None
) -> tuple[set[str], bool]:
    """The seats' bots `key` owns, and whether it owns the tournament (or its league); nothing
    without a key, 403 for a key that owns neither."""
    if not key:
        return set(), False
    digest = owner_digest(key)
    mine = {b for b, rec in bots.items() if rec is not None and hmac.compare_digest(rec.owner, digest)}
    owners = [record.get("owner", ""), league_owner(ctx, record)]
    tournament_owner = any(hmac.compare_digest(o, digest) for o in owners if o)
    if not mine and not tournament_owner:
        raise errors.InvalidToken(
            "that key owns no bot of this match and not the tournament", code="not_owner"
        )
    return mine, tournament_owner


# -- any game: its players (getGamePlayers) and a seat's view for its bot's owner (getGameSeatView)


class NotMatchGame(errors.ServiceError):
    """The game is not a tournament match's: no bot sits in it."""

    status = 404
    code = "not_a_match_game"


class NoSuchSeat(errors.ServiceError):
    """The game has no seat of that number."""

    status = 404
    code = "seat_not_found"


def latency_summary(decisions: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    """A seat's answer times: how many were timed, their mean, median and maximum in ms (null
    without any)."""
    times = sorted(d["latency_ms"] for d in decisions if d["seat"] == seat and d["latency_ms"] is not None)
    if not times:
        return {"timed": 0, "mean_ms": None, "median_ms": None, "max_ms": None}
    return {
        "timed": len(times),
        "mean_ms": round(sum(times) / len(times)),
        "median_ms": times[len(times) // 2],
        "max_ms": times[-1],
    }


def game_players(ctx: HarnessContext, game_id: str, key: str | None) -> dict[str, Any]:
    """Who plays game `game_id`: per seat its bot (id, name, version), whether `key` owns it
    (``yours``), its faults with their reasons in plain words and its answer times -- for a
    tournament match's game as `match_detail` shows them to `key` (withheld from others while the
    tournament is live); a challenge's game its players' names (people and bots); a game of no match
    has numbered seats only. A key that owns nothing here
    reads what anyone reads. GameNotFound for an unknown game."""
    stored = ctx.service.load(game_id, with_actions=False)
    doc: dict[str, Any] = {
        "game_id": game_id,
        "game": stored.game,
        "seats": stored.seats,
        "version": stored.version,
        "status": ctx.service.render_status(stored),
        "sealed": stored.sealed,
        "source": "game",
        "tournament_id": None,
        "tournament_name": None,
        "match_index": None,
        "withheld": False,
        "decisions": [],
        "details_shown": [],
    }
    where = ctx.store.game_match(game_id)
    if where is not None and ctx.store.tournament(where[0]) is None:
        # A challenge's game: its runner keeps the match's records under the challenge's id.
        try:
            challenge = get_challenge(ctx, where[0])
        except ChallengeNotFound:
            challenge = None
        if challenge is not None:
            doc["players"] = [player_entry(p["seat"], p["bot_id"], p["name"]) for p in challenge["players"]]
            return doc
        where = None
    if where is None:
        doc["players"] = [player_entry(s, None, f"Seat {s}") for s in range(stored.seats)]
        return doc
    tid, index = where
    try:
        match, mine, record = _match_detail(ctx, tid, index, key)
    except errors.InvalidToken:
        match, mine, record = _match_detail(ctx, tid, index, None)
    doc.update(
        source="tournament",
        tournament_id=tid,
        tournament_name=tournament_name(tid, record["spec"]),
        match_index=index,
        withheld=match["withheld"],
        decisions=match["decisions"],
        details_shown=match["details_shown"],
    )
    doc["players"] = [
        player_entry(
            seat["seat"],
            seat["bot_id"],
            seat["name"],
            version=seat["version"],
            yours=seat["bot_id"] in mine,
            faults=seat["faults"],
            latency=None if match["withheld"] else latency_summary(match["decisions"], seat["seat"]),
        )
        for seat in match["seats"]
    ]
    return doc


def player_entry(
    seat: int,
    bot_id: str | None,
    name: str,
    *,
    version: str | None = None,
    yours: bool = False,
    faults: dict[str, Any] | None = None,
    latency: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One seat of getGamePlayers's `players`."""
    return {
        "seat": seat,
        "bot_id": bot_id,
        "name": name,
        "version": version,
        "yours": yours,
        "faults": faults,
        "reasons": None if faults is None else explain_counts(faults["by_reason"]),
        "latency": latency,
    }


def check_seat_owner(ctx: HarnessContext, game_id: str, seat: int, key: str) -> None:
    """Pass when `key` owns the bot seated at `seat` of match game `game_id`: that owner may read
    the seat's view (what the bot itself is sent, no more) at any time. GameNotFound, NoSuchSeat,
    NotMatchGame (404) or InvalidToken ``not_owner`` (403) otherwise."""
    stored = ctx.service.load(game_id, with_actions=False)
    if not 0 <= seat < stored.seats:
        raise NoSuchSeat(f"game {game_id} has seats 0 to {stored.seats - 1}", details={"seats": stored.seats})
    where = ctx.store.game_match(game_id)
    if where is None:
        raise NotMatchGame(f"game {game_id} is not a tournament match's: use its seat token")
    tid, index = where
    record = ctx.store.tournament(tid)
    if record is None:
        raise TournamentNotFound(f"no tournament {tid!r}")
    bot_id = list_matches(ctx, tid, index, 1, record=record)[0]["seats"][seat]
    bot = ctx.bot(bot_id)
    if bot is None or not hmac.compare_digest(bot.owner, owner_digest(key)):
        raise errors.InvalidToken(f"that key does not own the bot in seat {seat}", code="not_owner")
