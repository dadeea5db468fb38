"""Tournament and league operations (plain Python; the API blueprint and the CLI call these).

Every function either succeeds or raises an `core.errors.ServiceError` having written nothing.
Queueing goes through `harness.queueing` (RQ); this module only decides and stores.
"""

from __future__ import annotations

import hmac
import json
import os
import re
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, cast

import redis
from croniter import (  # type: ignore[import-untyped]
    CroniterBadCronError,
    CroniterBadDateError,
    croniter,
)

from core import errors
from core.bot_registry import BotDeleted, BotNotFound, BotRecord, owner_digest
from core.timing import DEFAULT as TIMING
from games.base import GameError
from games.registry import get_game
from harness import queueing
from harness.bot_client import BotClient, HelloFault
from harness.ratings import Rating
from harness.runner import HarnessContext, is_cooperative
from harness.scheduling import (
    DEFAULT_MAX_TABLES,
    ScheduleError,
    derive_seed,
    make_table_plan,
    pair_coverage,
    resolve_pairing,
    round_matches,
    round_plan,
    round_tables,
    schedule_size,
    schedule_tables,
)
from harness.standings import (
    SECTIONS,
    Tally,
    composition_row,
    deal_key,
    fault_entry,
    member_entrant,
    new_row,
    pair_cell,
    rank_member,
    ranked,
    render_row,
    row_mean,
    statistics,
    version_rows,
)
from harness.store import loads_many

MAX_MATCHES = 20000
# How long a finished tournament of its own is kept, its games with it (docs/operations.md, Limits).
RETENTION_S = 90 * 86400
# The shortest time between two rounds of a league (an interval, or two cron firings), and the
# most members a league takes; both overridable per process (docs/operations.md, Limits). Past
# 64 members a league round pairs by rating (`pairing` auto), so its size grows linearly.
MIN_LEAGUE_INTERVAL_S = int(os.environ.get("TRICKARENA_MIN_LEAGUE_INTERVAL_S", "60"))
MAX_LEAGUE_MEMBERS = int(os.environ.get("TRICKARENA_MAX_LEAGUE_MEMBERS", "2000"))
# A cron expression is checked over this many firings; one that fires never within 8 years is refused.
CRON_SAMPLE = 50
CRON_HORIZON = timedelta(days=8 * 366)
STATUSES = ("scheduled", "running", "finished", "cancelled")
# After a cancel, running matches stop at their next check (about once a second) or after the bot
# call in flight: the seed and the games are published this long after the cancel, plus the deadline.
CANCEL_GRACE_S = 3.0
# Live standings (docs/harness.md, Standings): results folded in per transaction; at most this
# many by a standings read (a worker folds in the rest); a page's largest and default size.
STANDINGS_BATCH = 200
READ_CATCH_UP = 64
# A match missing while later results are recorded holds them back this long at most; then they
# are folded in ahead of it (provisional ratings, rebuilt in index order at the end). At most
# AHEAD_MAX results are folded ahead of the first missing one.
GAP_WAIT_S = 10.0
AHEAD_MAX = 1000
STANDINGS_PAGE_MAX = 64
STANDINGS_PAGE_DEFAULT = 25  # the API's and the web pages' (a 64-row page's matrix is 4,032 cells)
MATCH_PAGE_MAX = 500  # listTournamentMatches: matches per page
MATCH_PAGE_DEFAULT = 100
ROUNDS_LISTED = 100  # getLeague: the latest rounds it names (rounds_total counts them all)
# The statistics job (intervals) runs at most once per change and one queued at a time per
# scope, starting at least STATS_MIN_INTERVAL_S (or this many times its own last duration, at
# most STATS_MAX_DELAY_S) after the previous one started: at once after a quiet spell, else
# through RQ's scheduler.
STATS_MIN_INTERVAL_S = 2.0
STATS_DEBOUNCE_FACTOR = 4.0
STATS_MAX_DELAY_S = 30.0
STATS_PENDING_TTL_S = 300
# createTournament asks every entrant `GET /` (signed, through the outbound policy), all at once,
# each within this many seconds, before it stores anything (docs/harness.md, Endpoints).
ENTRANT_CHECK_TIMEOUT_S = 2.0
ENTRANT_CHECK_THREADS = 64  # the most entrants a tournament takes: every one is asked at once


class TournamentNotFound(errors.ServiceError):
    """No tournament with that id."""

    status = 404
    code = "tournament_not_found"


class LeagueNotFound(errors.ServiceError):
    """No league with that id."""

    status = 404
    code = "league_not_found"


def _invalid(message: str, code: str = "invalid_tournament", **details: Any) -> errors.Unprocessable:
    return errors.Unprocessable(message, code=code, details=details or None)


def _check_game(
    ctx: HarnessContext,
    game: str,
    seats: int,
    entrants: list[str],
    records: dict[str, BotRecord] | None = None,
) -> None:
    try:
        engine = get_game(game)
    except GameError as exc:
        raise _invalid(exc.message, code="unknown_game") from None
    if seats not in engine.seat_counts:
        raise _invalid(
            f"{game} is played by {list(engine.seat_counts)} seats, not {seats}", code="invalid_seats"
        )
    for bot_id in entrants:
        record = records[bot_id] if records and bot_id in records else ctx.bot(bot_id)
        if record is None:
            raise BotNotFound(f"no bot {bot_id!r}", details={"bot_id": bot_id})
        if record.status == "deleted":
            raise BotDeleted(f"bot {bot_id!r} was deleted", details={"bot_id": bot_id})
        if game not in record.games:
            raise _invalid(f"bot {bot_id!r} does not play {game}", code="bot_game_mismatch", bot_id=bot_id)


class EntrantNotAuthorized(errors.ServiceError):
    """A bot entered without its owner key that is not open to challenges."""

    status = 403
    code = "entrant_not_authorized"


def check_entrants_may_enter(ctx: HarnessContext, entrants: list[str], owner_keys: list[str]) -> None:
    """Refuse (403) an entrant that is neither open to challenges nor entered with its owner key."""
    for bot_id in entrants:
        record = ctx.bot(bot_id)
        if record is not None and not ctx.bots.may_enter(record, owner_keys):
            raise EntrantNotAuthorized(
                f"bot {bot_id!r} is not open to challenges: put its owner key in owner_keys",
                details={"bot_id": bot_id},
            )


def _hello(ctx: HarnessContext, record: BotRecord, timeout_s: float) -> HelloFault | None:
    client = BotClient(record.url, record.secret, ctx.policy)
    try:
        return client.hello(timeout_s)
    finally:
        client.close()


def check_entrants_answer(
    ctx: HarnessContext, entrants: list[str], timeout_s: float = ENTRANT_CHECK_TIMEOUT_S
) -> None:
    """Refuse (422 `entrants_unreachable`) a tournament whose entrants do not all answer `GET /`:
    each is asked concurrently, signed with its secret, within `timeout_s`; `details.unreachable`
    names each bot that did not answer and why (its fault code and what happened)."""
    records = [r for r in (ctx.bot(b) for b in dict.fromkeys(entrants)) if r is not None]
    if not records:
        return
    with ThreadPoolExecutor(max_workers=min(len(records), ENTRANT_CHECK_THREADS)) as pool:
        faults = list(pool.map(lambda r: _hello(ctx, r, timeout_s), records))
    missing = [
        {"bot_id": r.id, "name": r.name, "code": f.code, "message": f.message[:300]}
        for r, f in zip(records, faults, strict=True)
        if f is not None
    ]
    if missing:
        named = ", ".join(f"{m['name']} ({m['code']})" for m in missing)
        raise _invalid(
            f"{len(missing)} of {len(records)} entrants did not answer GET /: {named}",
            code="entrants_unreachable",
            unreachable=missing,
        )


def _check_options(game: str, seats: int, options: dict[str, Any] | None) -> None:
    if not options:
        return
    try:
        get_game(game).new_game(seats, options, seed=0)
    except GameError as exc:
        raise _invalid(exc.message, code=exc.code) from None
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        # Engines should raise InvalidOptions; anything else still means "bad options", not a 500.
        raise _invalid(f"invalid options: {exc}", code="invalid_options") from None


def create_tournament(
    ctx: HarnessContext,
    game: str,
    seats: int,
    entrants: list[str],
    deals: int = 1,
    deadline_ms: int = TIMING.deadline_ms,
    time_bank_ms: int = TIMING.time_bank_ms,
    start_at: datetime | None = None,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    max_tables: int = DEFAULT_MAX_TABLES,
    fault_threshold: int = 3,
    league: dict[str, Any] | None = None,
    prior: dict[str, Rating] | None = None,
    enqueue: bool = True,
    tournament_id: str | None = None,
    owner_keys: list[str] | None = None,
    pairing: str = "round_robin",
    appearances: int = 1,
    max_matches: int = MAX_MATCHES,
    fit_to_budget: bool = False,
    records: dict[str, BotRecord] | None = None,
    check_answers: bool = False,
    name: str | None = None,
) -> dict[str, Any]:
    """Validate, schedule and store a tournament, then queue its matches (now or at `start_at`).

    `name`: shown in listings and on the web pages (default "<game> tournament <first 6 of id>").

    `pairing` (docs/harness.md, Scheduling): `round_robin` (full, or a pair-covering subset of
    `max_tables`), `rating` (every entrant at `appearances` tables, matched by `prior` rating) or
    `auto`. A schedule over `max_matches` is refused (`schedule_too_large`), or with
    `fit_to_budget` (league rounds) thinned to fit: fewer tables, or fewer appearances.

    Fair play: without `seed` the seed comes from `secrets` and stays server-side (with every deal
    and match seed derived from it) until the tournament has ended (`is_published`); its games are
    sealed until then.  A chosen `seed` makes a *practice* tournament: its creator knows every deal,
    so it is marked as such and never counts toward a league.

    `check_answers` (createTournament): every entrant must answer `GET /` first
    (`check_entrants_answer`); league rounds are not checked (a member that is down faults).
    """
    practice = seed is not None
    if owner_keys is not None:
        # From the API: every entrant is open to challenges or entered with its owner key (in-process
        # callers -- the operator's CLI, league rounds whose members joined with their keys -- pass None).
        check_entrants_may_enter(ctx, entrants, owner_keys)
    if practice and league:
        raise _invalid("a league round never has a chosen seed", code="practice_league")
    if len(set(entrants)) != len(entrants):
        raise _invalid("entrants must be distinct bot ids", code="duplicate_entrants")
    _check_game(ctx, game, seats, entrants, records)  # `records`: bots the caller has just read
    cooperative = is_cooperative(game)
    budget = min(max_matches, MAX_MATCHES)
    try:
        pairing = resolve_pairing(pairing, len(entrants))
        if fit_to_budget:
            # A league round (docs/harness.md, Budget): as many tables as the budget allows,
            # growing with the field, every member within one table of the others.
            max_tables = round_tables(
                len(entrants), seats, deals, cooperative, max_tables, budget, appearances
            )
    except ScheduleError as exc:
        raise _invalid(str(exc), code="schedule_too_large") from None
    if fit_to_budget:
        size = round_matches(len(entrants), seats, deals, cooperative, max_tables)
    else:
        size = schedule_size(len(entrants), seats, deals, cooperative, max_tables, pairing, appearances)
    if size > budget:
        raise _invalid(f"the schedule would have {size} matches, over {budget}", code="schedule_too_large")
    _check_options(game, seats, options)
    if check_answers:
        check_entrants_answer(ctx, entrants)  # last: the only check that calls out
    seed = seed if seed is not None else secrets.randbits(53)
    try:
        ranked = _ranked(entrants, prior or {}, seed) if pairing == "rating" else entrants
        if fit_to_budget:
            rotation = (derive_seed(0, "rotation", league["league_id"] if league else ""), _round_no(league))
            tables = round_plan(ranked, seats, seed, cooperative, max_tables, pairing, rotation)
        else:
            tables = make_table_plan(ranked, seats, seed, cooperative, max_tables, pairing, appearances)
        matches = schedule_tables(tables, deals, seed)
    except ScheduleError as exc:
        raise _invalid(str(exc), code=exc.code) from None
    tid = tournament_id or secrets.token_hex(8)
    spec: dict[str, Any] = {
        "name": name or default_name(game, "tournament", tid),
        "game": game,
        "seats": seats,
        "entrants": entrants,
        "deals": deals,
        "deadline_ms": deadline_ms,
        "time_bank_ms": time_bank_ms,
        "seed": seed,
        "practice": practice,
        "options": options or {},
        "max_tables": max_tables,
        "pairing": pairing,
        "appearances": appearances,
        "coverage": pair_coverage(entrants, tables),
        "fault_threshold": fault_threshold,
        "cooperative": cooperative,
        "start_at": start_at.isoformat() if start_at else None,
    }
    if league:
        spec["league"] = league
    owner_key = secrets.token_urlsafe(24)
    starting = {e: (prior or {}).get(e, Rating()) for e in entrants}
    stored = ctx.store.create_tournament(
        tid,
        spec,
        [m.to_dict() for m in matches],
        owner_digest(owner_key),
        rows={e: new_row(r) for e, r in starting.items()},
        prior={e: [r.mu, r.sigma] for e, r in starting.items() if prior and e in prior},
        index=[rank_member(e, new_row(r)) for e, r in starting.items()],
        league_id=league["league_id"] if league else None,
    )
    if not stored:
        raise errors.Conflict(f"tournament {tid!r} already exists", code="tournament_exists")
    if enqueue:
        if start_at is not None and start_at > datetime.now(UTC):
            queueing.schedule_start(ctx, tid, start_at)
        else:
            queueing.enqueue_matches(ctx, tid, range(len(matches)))
    return {**get_tournament(ctx, tid), "owner_key": owner_key}


def _round_no(league: dict[str, Any] | None) -> int:
    """The round number of a league round (1 for a budget-fitted tournament outside a league)."""
    return int(league["round"]) if league else 1


def default_name(game: str, kind: str, ident: str) -> str:
    """The name of a tournament or league (`kind`) created without one."""
    return f"{game} {kind} {ident[:6]}"


def tournament_name(tid: str, spec: dict[str, Any]) -> str:
    """A tournament's name (tournaments stored before names existed get the default)."""
    return str(spec.get("name") or default_name(spec["game"], "tournament", tid))


def _ranked(entrants: list[str], prior: dict[str, Rating], seed: int) -> list[str]:
    """Entrants strongest first by prior ordinal (default rating for newcomers), ties shuffled by seed."""
    default = Rating()
    return sorted(
        entrants,
        key=lambda e: (-prior.get(e, default).ordinal, derive_seed(seed, "rank", e)),
    )


def _coverage(spec: dict[str, Any]) -> dict[str, Any] | None:
    """Pairs of entrants that meet at some table (null for tournaments from before it was kept)."""
    coverage = spec.get("coverage")
    if coverage is None:
        return None
    return {**coverage, "all_pairs_met": coverage["pairs_met"] == coverage["pairs_total"]}


def _record(ctx: HarnessContext, tid: str) -> dict[str, Any]:
    record = ctx.store.tournament(tid)
    if record is None:
        raise TournamentNotFound(f"no tournament {tid!r}")
    return record


def get_tournament(ctx: HarnessContext, tid: str) -> dict[str, Any]:
    """The tournament's spec, status and progress."""
    record = _record(ctx, tid)
    if (
        record["status"] in ("scheduled", "running")
        and record["total"]
        and record["completed"] >= record["total"]
    ):
        finalize_if_complete(ctx, tid)
        record = _record(ctx, tid)
    spec = record["spec"]
    out = {
        "tournament_id": tid,
        "name": tournament_name(tid, spec),
        "status": record["status"],
        "game": spec["game"],
        "seats": spec["seats"],
        "entrants": spec["entrants"],
        "deals": spec["deals"],
        "deadline_ms": spec["deadline_ms"],
        "time_bank_ms": spec["time_bank_ms"],
        "seed": spec["seed"] if publish_if_due(ctx, tid, record) else None,
        "practice": bool(spec.get("practice")),
        "options": spec["options"],
        "fault_threshold": spec["fault_threshold"],
        "pairing": spec.get("pairing", "round_robin"),
        "coverage": _coverage(spec),
        "start_at": spec.get("start_at"),
        "progress": {
            "total": record["total"],
            "completed": record["completed"],
            "fraction": record["completed"] / record["total"] if record["total"] else 1.0,
        },
        "created_at": _iso(record.get("created_at")),
        "started_at": _iso(record.get("started_at")),
        "finished_at": _iso(record.get("finished_at")),
    }
    if "league" in spec:
        out["league"] = spec["league"]
    return out


def is_published(record: dict[str, Any], now: float | None = None) -> bool:
    """True once the tournament has ended: finished, or cancelled and every match has stopped."""
    if record["status"] == "finished":
        return True
    if record["status"] != "cancelled":
        return False
    grace = CANCEL_GRACE_S + int(record["spec"]["deadline_ms"]) / 1000
    return (now if now is not None else time.time()) >= float(record.get("finished_at") or 0) + grace


def publish_if_due(ctx: HarnessContext, tid: str, record: dict[str, Any]) -> bool:
    """Once the tournament has ended, unseal its games (once); True if its seeds may be shown."""
    if not is_published(record):
        return False
    if "published_at" in record:
        return True
    if ctx.store.client.hsetnx(ctx.store.key_for("tournament", tid), "published_at", time.time()):
        game_ids = list(ctx.store.match_game_ids(tid, record["total"]).values())
        for start in range(0, len(game_ids), 1000):
            ctx.service.unseal(game_ids[start : start + 1000])
    return True


def _iso(stamp: float | None) -> str | None:
    return datetime.fromtimestamp(stamp, UTC).isoformat() if stamp else None


def match_page(ctx: HarnessContext, tid: str, offset: int, limit: int) -> dict[str, Any]:
    """listTournamentMatches: at most `limit` (capped at MATCH_PAGE_MAX) matches from index `offset`."""
    record = _record(ctx, tid)
    limit = max(1, min(limit, MATCH_PAGE_MAX))
    offset = max(0, offset)
    following = offset + limit
    return {
        "matches": list_matches(ctx, tid, offset, limit, record),
        "total": record["total"],
        "offset": offset,
        "limit": limit,
        "next_offset": following if following < record["total"] else None,
    }


def list_matches(
    ctx: HarnessContext,
    tid: str,
    offset: int = 0,
    limit: int | None = None,
    record: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The matches (all, or `limit` from `offset` on, by index) with their seats, deal, status, game
    id (watch it through the games API) and result; `record`: the tournament, if just read."""
    record = record or _record(ctx, tid)
    if limit is None:
        specs = ctx.store.match_specs(tid)
        results = {int(r["index"]): r for r in ctx.store.results(tid)}
        game_ids = ctx.store.match_game_ids(tid, record["total"])
    else:
        indices = list(range(max(0, offset), min(record["total"], max(0, offset) + max(0, limit))))
        specs, found, game_ids = ctx.store.match_window(tid, indices)
        results = {i: r for i, r in zip(indices, found, strict=True) if r is not None}
    out = []
    for m in specs:
        i = int(m["index"])
        res = results.get(i)
        status = "finished" if res else ("playing" if i in game_ids else "pending")
        if res and res.get("error"):
            status = "error"
        if record["status"] == "cancelled" and not res:
            status = "cancelled"
        row: dict[str, Any] = {
            "index": i,
            "table": m["table"],
            "deal": m["deal"],
            "rotation": m["rotation"],
            "seats": m["seats"],
            "status": status,
            "game_id": game_ids.get(i),
        }
        if res and res.get("error"):
            row["error"] = res["error"]
        elif res:
            row["result"] = {k: res[k] for k in ("scores", "winners", "faults", "unrated")}
            if "team_score" in res:
                row["result"]["team_score"] = res["team_score"]
                row["result"]["reached"] = res["reached"]
        out.append(row)
    return out


def tournament_prior(ctx: HarnessContext, tid: str) -> dict[str, Rating]:
    """The ratings a league round started from (the league's, carried over); empty otherwise."""
    return _prior(ctx, tid, _record(ctx, tid)["spec"])


def _prior(ctx: HarnessContext, tid: str, spec: dict[str, Any]) -> dict[str, Rating]:
    """The ratings a tournament started from (a league round's carried ratings; default otherwise)."""
    if "prior" in spec:  # tournaments from before the prior moved out of the spec
        return {b: Rating(mu, sigma) for b, (mu, sigma) in (spec.get("prior") or {}).items()}
    raw = cast(dict[bytes, bytes], ctx.store.client.hgetall(ctx.store.scope_key(f"t:{tid}", "prior")))
    return {b.decode(): Rating(*json.loads(v)) for b, v in raw.items()}


def record_match_error(ctx: HarnessContext, tid: str, index: int, message: str) -> bool:
    """Record a match that could not be played (retries exhausted) so the tournament can finish."""
    match = ctx.store.match_spec(tid, index) or {}
    record = {
        "index": index,
        "error": message[:500],
        "seats": match.get("seats", []),
        "deal": match.get("deal", 0),
        "table": match.get("table", 0),
        "rotation": match.get("rotation", 0),
    }
    recorded, _completed = ctx.store.record_result(tid, index, record)
    return recorded


# --------------------------------------------------------------------------- live standings
#
# Each result is folded into its tournament's standings (and a league round's into its league's)
# once, in match-index order, when it is recorded (`update_standings`, called after every match
# by `finalize_if_complete`); the intervals are computed once per change by a debounced
# background job (`statistics_job`). A standings read touches only the page it answers.


@dataclass
class _Batch:
    """The next results a scope folds in, in index order, and where its cursor goes after them."""

    results: list[dict[str, Any]]
    cursor: dict[str, Any]
    close: bool = False  # the scope (a tournament, or the league's current round) ends with them
    close_deals: set[str] = field(default_factory=set)  # the deals whose open tables a close flushes
    more: bool = False  # cut at the batch size: look for more at once


Step = Callable[[dict[str, str]], "_Batch | None"]


def _fold(
    ctx: HarnessContext,
    scope: str,
    cooperative: bool,
    step: Step,
    prior: dict[str, Rating],
    spec: dict[str, Any] | None = None,
) -> int:
    """Advance one scope, batch by batch, while `step` has more; the results folded in.

    `step(live)` names the next batch from the scope's cursor. Each batch is one optimistic
    transaction on ``<scope>:live`` (a concurrent folder makes it retry) that reads only the
    fields its results touch. A tournament's fold (`spec` given) also marks each result due in its
    bots' own indexes in the same transaction (`HarnessStore.queue_bot_index`, once per result),
    and writes them after it (`HarnessStore.index_bots`: other hash slots; idempotent).
    """
    store = ctx.store
    live_key = store.scope_key(scope, "live")
    folded = 0
    while True:
        with store.client.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(live_key)  # type: ignore[no-untyped-call]
                raw = cast(dict[bytes, bytes], pipe.hgetall(live_key))
                live = {k.decode(): v.decode() for k, v in raw.items()}
                batch = step(live)
                if batch is None:
                    return folded
                deals: dict[str, Any] = {}
                if cooperative:
                    wanted = {str(deal_key(r)) for r in batch.results}
                    wanted |= batch.close_deals if batch.close else set()
                    deals = store.load_sections(scope, {"deals": wanted})["deals"]
                need = Tally.needs(batch.results, cooperative, deals)
                need.pop("deals")
                sections = store.load_sections(scope, need)
                sections["deals"] = deals
                counters = {"matches": int(live.get("matches", 0)), "events": int(live.get("events", 0))}
                tally = Tally(cooperative, sections, counters, prior)
                for res in batch.results:
                    tally.add(res)
                if batch.close:
                    tally.close()
                pipe.multi()
                for section, encoded in tally.dumps().items():
                    if encoded:
                        fields: dict[Any, Any] = dict(encoded)
                        pipe.hset(store.scope_key(scope, section), mapping=fields)
                comps = tally.sections["comps"]
                scores = {k: -comps[k][1] / comps[k][0] for k in tally.dirty["comps"] if comps[k][0]}
                if scores:
                    pipe.zadd(store.scope_key(scope, "compz"), scores)
                gone, added = tally.index_changes()
                if gone:
                    pipe.zrem(store.scope_key(scope, "index"), *gone)
                if added:
                    pipe.zadd(store.scope_key(scope, "index"), added)
                if batch.close and batch.close_deals:
                    pipe.hdel(store.scope_key(scope, "deals"), *sorted(batch.close_deals))
                if spec is not None and batch.results and not live.get("rebuild"):
                    # Once per result: a rebuild (`_rebuild_if_gapped`) folds them in again, unindexed.
                    store.queue_bot_index(pipe, scope[2:], batch.results, time.time_ns() // 1000)
                closing = {"closed": 1} if batch.close and scope.startswith("t:") else {}
                update: dict[Any, Any] = {**batch.cursor, **tally.counters, **closing}
                pipe.hset(live_key, mapping=update)
                pipe.execute()
            except redis.WatchError:
                continue
        if spec is not None:
            store.index_bots(scope[2:], spec)
        folded += len(batch.results)
        if not batch.more:
            return folded


def _tournament_ended(record: dict[str, Any]) -> bool:
    """No result will come any more: every match recorded, or cancelled and stopped."""
    return bool(record["completed"] >= record["total"] or is_published(record))


def _fold_tournament(ctx: HarnessContext, tid: str, record: dict[str, Any], budget: int | None = None) -> int:
    """Fold the tournament's newly recorded results into its standings (at most `budget` of them)."""
    spec = record["spec"]
    total = int(record["total"])
    left = [budget if budget is not None else total + 1]
    all_deals = {str(d) for d in range(int(spec["deals"]))}

    def step(live: dict[str, str]) -> _Batch | None:
        if live.get("closed") or left[0] <= 0:
            return None
        n = int(live.get("n", 0))
        ahead = {int(i) for i in live.get("ahead", "").split(",") if i}
        size = min(STANDINGS_BATCH, left[0])
        indices = list(range(n, min(total, n + size)))
        found = ctx.store.results_at(tid, indices)
        results: list[dict[str, Any]] = []
        reach = n  # everything below it is folded in
        for index, res in zip(indices, found, strict=True):
            if index in ahead:
                reach = index + 1
                continue
            if res is None:
                break
            results.append(res)
            reach = index + 1
        still_ahead = ",".join(str(i) for i in sorted(ahead) if i >= reach)
        if reach >= total:
            return _Batch(results, {"n": total, "ahead": ""}, close=True, close_deals=all_deals)
        if reach > n:
            left[0] -= max(1, len(results))
            return _Batch(results, {"n": reach, "ahead": still_ahead}, more=reach - n == size)
        if _tournament_ended(record):
            # Cancelled and stopped: the matches never played leave gaps; fold in what was recorded.
            rest = [
                r
                for i, r in zip(
                    range(n, total), ctx.store.results_at(tid, list(range(n, total))), strict=True
                )
                if r is not None and i not in ahead
            ]
            return _Batch(rest, {"n": total, "ahead": ""}, close=True, close_deals=all_deals)
        # Match `n` is missing: the results recorded after it wait for it at most GAP_WAIT_S.
        later = [r for i, r in zip(indices, found, strict=True) if r is not None and i not in ahead]
        later = later[: max(0, AHEAD_MAX - len(ahead))]
        if not later:
            return None
        gap, _, since = live.get("gap", "").partition(":")
        now = time.time()
        if gap != str(n):
            return _Batch([], {"gap": f"{n}:{now:.3f}"})  # the wait starts now
        if now - float(since) < GAP_WAIT_S:
            return None
        left[0] -= len(later)
        folded_ahead = sorted(ahead | {int(r["index"]) for r in later})
        cursor = {"ahead": ",".join(str(i) for i in folded_ahead), "gapped": 1}
        return _Batch(later, cursor)

    # New tournaments have a row per entrant from the start; older ones kept the prior in the spec.
    prior = {b: Rating(mu, sigma) for b, (mu, sigma) in (spec.get("prior") or {}).items()}
    ctx.store.index_bots(tid, spec)  # what a fold that died after its transaction left due
    folded = _fold(ctx, f"t:{tid}", bool(spec["cooperative"]), step, prior, spec)
    if _rebuild_if_gapped(ctx, tid, record):
        folded += _fold(ctx, f"t:{tid}", bool(spec["cooperative"]), step, prior, spec)
    return folded


def _rebuild_if_gapped(ctx: HarnessContext, tid: str, record: dict[str, Any]) -> bool:
    """Once a tournament whose results were folded in out of order (past a stuck match: `gapped`)
    is closed, start its standings again from the rows it was created with, so that a fold in
    index order makes them exact (equal to `compute_standings`); True if this call reset them.

    One optimistic transaction: of concurrent callers one resets. The results' per-bot indexes
    are not written again (``rebuild`` in the cursor)."""
    store = ctx.store
    scope = f"t:{tid}"
    live_key = store.scope_key(scope, "live")
    spec = record["spec"]
    with store.client.pipeline(transaction=True) as pipe:
        try:
            pipe.watch(live_key)  # type: ignore[no-untyped-call]
            live = cast(dict[bytes, bytes], pipe.hgetall(live_key))
            if not (live.get(b"closed") and live.get(b"gapped")):
                return False
            stored_prior = cast(dict[bytes, bytes], pipe.hgetall(store.scope_key(scope, "prior")))
            prior = {k.decode(): Rating(*json.loads(v)) for k, v in stored_prior.items()}
            starting = {e: prior.get(e, Rating()) for e in spec["entrants"]}
            pipe.multi()
            pipe.delete(
                *(store.scope_key(scope, section) for section in (*SECTIONS, "compz", "index", "live"))
            )
            rows = {e: new_row(r) for e, r in starting.items()}
            store.seed_rows(pipe, scope, rows, [rank_member(e, row) for e, row in rows.items()])
            pipe.hset(live_key, mapping={"rebuild": 1})
            pipe.execute()
        except redis.WatchError:
            return False
    return True


def _fold_league(ctx: HarnessContext, lid: str, cooperative: bool, budget: int | None = None) -> int:
    """Fold the league's rounds, in order, into the league's standings, as far as each round's own
    standings go (a round's results enter its league after they entered the round)."""
    store = ctx.store
    rounds_key = store.key_for("rounds", lid)
    left = [budget if budget is not None else 1 << 62]

    def step(live: dict[str, str]) -> _Batch | None:
        if left[0] <= 0:
            return None
        pos, idx = int(live.get("pos", 0)), int(live.get("idx", 0))
        raw_tid = cast(bytes | None, store.client.lindex(rounds_key, pos))
        if raw_tid is None:
            return None
        tid = raw_tid.decode()
        round_live = store.live(f"t:{tid}")
        if not round_live.get("closed") and idx >= int(round_live.get("n", 0)):
            status = cast(bytes | None, store.client.hget(store.key_for("tournament", tid), "status"))
            if status is None:  # a round that was never stored: skip it
                return _Batch([], {"pos": pos + 1, "idx": 0}, more=True)
            if status != b"cancelled":
                return None  # nothing new in the round yet
            record = store.tournament(tid)
            if record is None or not _tournament_ended(record) or not _fold_tournament(ctx, tid, record):
                return None
            round_live = store.live(f"t:{tid}")
        upto, closed = int(round_live.get("n", 0)), bool(round_live.get("closed"))
        end = min(upto, idx + min(STANDINGS_BATCH, left[0]))
        number = pos + 1
        results = [
            {**r, "round_deal": number * 1_000_000 + int(r["deal"])}
            for r in store.results_at(tid, list(range(idx, end)))
            if r is not None
        ]
        left[0] -= max(1, len(results))
        if closed and end >= upto:
            record = store.tournament(tid)
            deals = int(record["spec"]["deals"]) if record else 0
            close_deals = {str(number * 1_000_000 + d) for d in range(deals)}
            return _Batch(results, {"pos": pos + 1, "idx": 0}, close=True, close_deals=close_deals, more=True)
        if end > idx:
            return _Batch(results, {"pos": pos, "idx": end}, more=end < upto)
        return None

    return _fold(ctx, f"l:{lid}", cooperative, step, {})


def update_standings(ctx: HarnessContext, tid: str, record: dict[str, Any] | None = None) -> int:
    """Fold newly recorded results into the tournament's (and its league's) standings; ask for
    fresh intervals when anything changed. A few cheap reads when nothing did. The results folded in."""
    record = record or ctx.store.tournament(tid)
    if record is None:
        return 0
    folded = 0
    live = ctx.store.live(f"t:{tid}")
    if live.get("closed"):
        ctx.store.index_bots(tid, record["spec"])  # what a last fold that died after its transaction left due
    elif int(live.get("n", 0)) < record["completed"] or _tournament_ended(record):
        folded = _fold_tournament(ctx, tid, record)
        if folded and record["completed"] < record["total"]:
            request_statistics(ctx, f"t:{tid}")
    league = record["spec"].get("league")
    if league:
        lid = league["league_id"]
        # After new results -- or at the end, in case a read folded the last ones in.
        ending = record["completed"] >= record["total"] and _league_lags(ctx, lid)
        if (folded or ending) and _fold_league(ctx, lid, bool(record["spec"]["cooperative"])):
            request_statistics(ctx, f"l:{lid}")
    return folded


def _league_lags(ctx: HarnessContext, lid: str) -> bool:
    """Whether the league's standings are behind its current round's (three cheap reads)."""
    live = ctx.store.live(f"l:{lid}")
    raw_tid = cast(
        bytes | None, ctx.store.client.lindex(ctx.store.key_for("rounds", lid), int(live.get("pos", 0)))
    )
    if raw_tid is None:
        return False
    round_live = ctx.store.live(f"t:{raw_tid.decode()}")
    return int(live.get("idx", 0)) < int(round_live.get("n", 0)) or bool(round_live.get("closed"))


def request_statistics(ctx: HarnessContext, scope: str) -> bool:
    """Queue the scope's statistics job unless one is already pending (debounced); True if queued."""
    store = ctx.store
    if not store.client.set(store.scope_key(scope, "stats_pending"), 1, nx=True, ex=STATS_PENDING_TTL_S):
        return False
    cost_raw, last_raw = store.client.hmget(store.scope_key(scope, "live"), ["stats_cost", "stats_at"])
    spacing = min(STATS_MAX_DELAY_S, max(STATS_MIN_INTERVAL_S, STATS_DEBOUNCE_FACTOR * float(cost_raw or 0)))
    delay = float(last_raw or 0) + spacing - time.time()
    queue = queueing.queue_for(ctx)
    options: dict[str, Any] = {"result_ttl": 0, "failure_ttl": 3600, "job_timeout": 600}
    if delay < 0.5:
        queue.enqueue("harness.tournaments.statistics_job", scope, at_front=True, **options)
    else:
        queue.enqueue_in(timedelta(seconds=delay), "harness.tournaments.statistics_job", scope, **options)
    return True


@lru_cache(maxsize=1)
def _job_context() -> HarnessContext:
    return HarnessContext.from_env()


def statistics_job(scope: str) -> int:
    """RQ job: the scope's intervals and separation, once per change; the results they cover."""
    return compute_statistics(_job_context(), scope)


def compute_statistics(ctx: HarnessContext, scope: str) -> int:
    """Compute and store the scope's statistics (intervals, separation) over its results so far.

    Reads the scope in one transaction; writes only if nothing newer was written meanwhile. The
    number of played results the statistics cover.
    """
    store = ctx.store
    store.client.delete(store.scope_key(scope, "stats_pending"))
    store.client.hset(store.scope_key(scope, "live"), "stats_at", time.time())
    started = time.perf_counter()
    with store.client.pipeline(transaction=True) as pipe:
        pipe.hget(store.scope_key(scope, "live"), "matches")
        pipe.hgetall(store.scope_key(scope, "rows"))
        pipe.hgetall(store.scope_key(scope, "clusters"))
        matches_raw, rows_raw, clusters_raw = pipe.execute()
    as_of = int(matches_raw or 0)
    rows = {k.decode(): json.loads(v) for k, v in rows_raw.items()}
    clusters = {k.decode(): json.loads(v) for k, v in clusters_raw.items()}
    entrants, prior, seed = _scope_field(ctx, scope)
    order = [e for e, _ in ranked(rows, [*entrants, *rows], prior)]
    stats = statistics(order, clusters, seed)
    stats_key = store.scope_key(scope, "stats")
    with store.client.pipeline(transaction=True) as pipe:
        try:
            pipe.watch(stats_key)  # type: ignore[no-untyped-call]
            stored = cast(bytes | None, pipe.hget(stats_key, "as_of"))
            if stored is not None and int(stored) > as_of:
                return int(stored)  # a newer computation already wrote its statistics
            pipe.multi()
            pipe.delete(stats_key)
            fields: dict[Any, Any] = {k: json.dumps(v, separators=(",", ":")) for k, v in stats.items()}
            pipe.hset(stats_key, mapping={**fields, "as_of": as_of})
            pipe.hset(store.scope_key(scope, "live"), "stats_cost", time.perf_counter() - started)
            pipe.execute()
        except redis.WatchError:
            pass  # someone else wrote meanwhile: theirs stands
    return as_of


def _scope_field(ctx: HarnessContext, scope: str) -> tuple[list[str], dict[str, Rating], int]:
    """A scope's entrants, their prior ratings and its seed (for intervals)."""
    kind, ident = scope.split(":", 1)
    if kind == "t":
        record = _record(ctx, ident)
        return (
            list(record["spec"]["entrants"]),
            _prior(ctx, ident, record["spec"]),
            int(record["spec"]["seed"]),
        )
    return league_members(ctx, ident), {}, int(ident, 16) % (2**31)


@dataclass
class _Snapshot:
    """What a standings read loads first, in one round trip: the tournament record (for a
    tournament), the scope's cursor and counters, the page's rows in ranking order with the count
    of all rows (from the ranking index), and whether a legacy whole document is stored."""

    record: dict[str, Any] | None
    live: dict[str, str]
    page: list[tuple[str, dict[str, Any]]]
    total: int
    legacy: bool


# The snapshot of a standings read (`_Snapshot`), in one script (one slot: the scope's, which a
# tournament's record shares). KEYS: index, rows, live, then the tournament's hash and its legacy
# standings (a tournament only). ARGV: first, last rank. Returns the live hash (flat), the record
# (flat; empty for a league), legacy (0/1), the number of rows, then (member, row JSON) per row.
_SNAPSHOT_LUA = """
local out = {redis.call('HGETALL', KEYS[3]), {}, 0, redis.call('ZCARD', KEYS[1])}
if #KEYS > 3 then
  out[2] = redis.call('HGETALL', KEYS[4])
  out[3] = redis.call('EXISTS', KEYS[5])
end
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2])) do
  out[#out + 1] = member
  out[#out + 1] = redis.call('HGET', KEYS[2], string.sub(member, 34)) or ''
end
return out
"""


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    return dict(zip(flat[0::2], flat[1::2], strict=True))


def _snapshot(ctx: HarnessContext, scope: str, offset: int, limit: int, tid: str | None = None) -> _Snapshot:
    store = ctx.store
    keys = [store.scope_key(scope, s) for s in ("index", "rows", "live")]
    if tid:
        keys += [store.key_for("tournament", tid), store.key_for("standings", tid)]
    reply = store.client.eval(_SNAPSHOT_LUA, len(keys), *keys, offset, offset + limit - 1)
    live_raw, record_raw, legacy, total, *flat = cast(list[Any], reply)
    rows = loads_many([r or None for r in flat[1::2]])
    page = [(member_entrant(m.decode()), r) for m, r in zip(flat[0::2], rows, strict=True) if r is not None]
    return _Snapshot(
        store.parse_tournament(tid, _pairs(record_raw)) if tid else None,
        {k.decode(): v.decode() for k, v in _pairs(live_raw).items()},
        page,
        int(total),
        bool(legacy),
    )


def _standings_page(
    ctx: HarnessContext,
    snapshot: _Snapshot,
    scope: str,
    entrants: Callable[[], Sequence[str]],
    cooperative: bool,
    prior: Callable[[], dict[str, Rating]],
    offset: int,
    limit: int,
) -> dict[str, Any]:
    """One page of a scope's standings: rows, their faults, the page's matrix, compositions.

    The page comes from the ranking index; a scope without one (folded in before it existed)
    is ranked here from all its rows and `entrants()` (with `prior()` ratings for those without).
    """
    store = ctx.store
    live = snapshot.live
    page, total = snapshot.page, snapshot.total
    if not total:
        rows = store.scope_hash(scope, "rows")
        listing = ranked(rows, [*entrants(), *rows], prior())
        page, total = [(e, dict(r)) for e, r in listing[offset : offset + limit]], len(listing)
    bots = [e for e, _ in page]
    pair_keys = [f"{a} {b}" for a in bots for b in bots if a != b or cooperative]
    pipe = store.client.pipeline(transaction=False)
    pipe.hmget(store.scope_key(scope, "stats"), ["as_of", *bots])
    pipe.hmget(store.scope_key(scope, "pairs"), [*pair_keys, "-"])
    answers = pipe.execute()
    if cooperative:  # a script: not in a pipeline, which a cluster client cannot run scripts in
        keys = [store.scope_key(scope, s) for s in ("compz", "comps", "stats")]
        answers.append(store.client.eval(_COMPOSITIONS_LUA, 3, *keys, offset, offset + limit - 1))
    stat_raw = answers[0]
    as_of = int(stat_raw[0]) if stat_raw[0] is not None else None
    stats = {b: v for b, v in zip(bots, loads_many(stat_raw[1:]), strict=True) if v is not None}
    cells = dict(zip(pair_keys, loads_many(answers[1][:-1]), strict=True))
    matrix = {
        a: {b: pair_cell(cells.get(f"{a} {b}"), cooperative) for b in bots if a != b or cooperative}
        for a in bots
    }
    matches = int(live.get("matches", 0))
    doc: dict[str, Any] = {
        "matches": matches,
        "cooperative": cooperative,
        "total_rows": total,
        "offset": offset,
        "limit": limit,
        "rows": [
            render_row(e, row, rank, cooperative, stats.get(e))
            for rank, (e, row) in enumerate(page, start=offset + 1)
        ],
        "faults": {e: fault_entry(row) for e, row in page},
        "statistics": {"as_of": as_of, "current": as_of == matches},
    }
    if not cooperative:
        doc["head_to_head"] = matrix
        return doc
    doc["cross_play"] = matrix
    total, *flat = answers[2]
    doc["compositions_total"] = int(total)
    doc["compositions"] = [
        composition_row(k.decode(), json.loads(c), _json(st or None))
        for k, c, st in zip(flat[0::3], flat[1::3], flat[2::3], strict=True)
        if c
    ]
    return doc


# A page of compositions by mean score: KEYS compz, comps, stats; ARGV first, last rank. Returns
# the total, then (key, cell, interval or '') per composition.
_COMPOSITIONS_LUA = """
local out = {redis.call('ZCARD', KEYS[1])}
for _, key in ipairs(redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2])) do
  out[#out + 1] = key
  out[#out + 1] = redis.call('HGET', KEYS[2], key) or ''
  out[#out + 1] = redis.call('HGET', KEYS[3], 'k:' .. key) or ''
end
return out
"""


def _json(raw: bytes | None) -> Any:
    return json.loads(raw) if raw is not None else None


def _page_of(doc: dict[str, Any], offset: int, limit: int) -> dict[str, Any]:
    """A page of a stored whole standings document (tournaments finished before live standings)."""
    limit = max(1, min(limit, STANDINGS_PAGE_MAX))
    offset = max(0, offset)
    rows = doc["rows"][offset : offset + limit]
    bots = [r["entrant"] for r in rows]
    out = {**doc, "rows": rows, "total_rows": len(doc["rows"]), "offset": offset, "limit": limit}
    out["faults"] = {b: doc["faults"][b] for b in bots if b in doc.get("faults", {})}
    for name in ("head_to_head", "cross_play"):
        if name in doc:
            out[name] = {a: {b: c for b, c in doc[name].get(a, {}).items() if b in bots} for a in bots}
    if "compositions" in doc:
        out["compositions"] = doc["compositions"][offset : offset + limit]
        out["compositions_total"] = len(doc["compositions"])
    for row in rows:
        row.setdefault("not_separated_count", len(row["not_separated_from"]))
        row.setdefault("provisional", False)  # stored before provisional intervals were marked
    out["statistics"] = {"as_of": doc["matches"], "current": True}
    return out


def _version_page(
    ctx: HarnessContext, scope: str, cooperative: bool, offset: int, limit: int, prior: dict[str, Rating]
) -> dict[str, Any]:
    """A page of the per-version standings (`by=version`): one row per bot version, by mean score.

    Reads the scope's version rows (one per bot version that played) and the page's bots' ratings:
    two round trips, no result."""
    store = ctx.store
    pipe = store.client.pipeline(transaction=True)
    pipe.hgetall(store.scope_key(scope, "versions"))
    pipe.hget(store.scope_key(scope, "live"), "matches")
    cells_raw, matches_raw = pipe.execute()
    cells = {k.decode(): json.loads(v) for k, v in cells_raw.items()}
    bots = sorted({key.split(" ", 1)[0] for key in cells})
    rows_raw = cast(list[bytes | None], store.client.hmget(store.scope_key(scope, "rows"), [*bots, "-"]))
    ratings = dict(prior)
    for bot, raw in zip(bots, loads_many(rows_raw), strict=False):
        if raw is not None:
            ratings[bot] = Rating(float(raw["mu"]), float(raw["sg"]))
    rows, total = version_rows(cells, ratings, cooperative, offset, limit)
    doc: dict[str, Any] = {
        "by": "version",
        "matches": int(matches_raw or 0),
        "cooperative": cooperative,
        "total_rows": total,
        "offset": offset,
        "limit": limit,
        "rows": rows,
        "faults": {},
        "statistics": {"as_of": None, "current": False},
    }
    doc["cross_play" if cooperative else "head_to_head"] = {}
    return doc


def get_standings(
    ctx: HarnessContext, tid: str, offset: int = 0, limit: int = STANDINGS_PAGE_MAX, by: str = "bot"
) -> dict[str, Any]:
    """A page of the standings: final once finished, live over the results so far before that.

    `by`: ``bot`` (a row per entrant) or ``version`` (a row per bot version, `_version_page`)."""
    scope = f"t:{tid}"
    limit = max(1, min(limit, STANDINGS_PAGE_MAX))
    offset = max(0, offset)
    snapshot = _snapshot(ctx, scope, offset, limit, tid)
    record = snapshot.record
    if record is None:
        raise TournamentNotFound(f"no tournament {tid!r}")
    spec = record["spec"]
    extra = {"tournament_id": tid, "final": record["status"] == "finished", "status": record["status"]}
    if snapshot.legacy and by != "version":
        stored = ctx.store.standings(tid)
        if stored is not None:
            return {**_page_of(stored, offset, limit), **extra}
    live = snapshot.live
    if not live.get("closed") and (int(live.get("n", 0)) < record["completed"] or _tournament_ended(record)):
        # Results the workers have not folded in (yet): a read folds in at most READ_CATCH_UP.
        if _fold_tournament(ctx, tid, record, READ_CATCH_UP):
            request_statistics(ctx, scope)
            league = spec.get("league")
            if league and _fold_league(ctx, league["league_id"], bool(spec["cooperative"]), READ_CATCH_UP):
                request_statistics(ctx, f"l:{league['league_id']}")
        snapshot = _snapshot(ctx, scope, offset, limit, tid)
    if by == "version":
        prior = _prior(ctx, tid, spec)
        return {**_version_page(ctx, scope, bool(spec["cooperative"]), offset, limit, prior), **extra}
    doc = _standings_page(
        ctx,
        snapshot,
        scope,
        lambda: spec["entrants"],
        bool(spec["cooperative"]),
        lambda: _prior(ctx, tid, spec),
        offset,
        limit,
    )
    return {**doc, **extra}


def rating_history(ctx: HarnessContext, scope: str, bots: Sequence[str]) -> dict[str, Any]:
    """The bots' lines, ending at now: per bot a list of [rated event, mu, ordinal, mean score]
    points (four decimals; thinned to at most `HISTORY_POINTS` points each; the mean score, the
    standings' measure and what the charts draw, is missing from points stored before it was kept)."""
    store = ctx.store
    pipe = store.client.pipeline(transaction=True)
    pipe.hget(store.scope_key(scope, "live"), "events")
    pipe.hmget(store.scope_key(scope, "history"), [*bots, "-"])
    pipe.hmget(store.scope_key(scope, "rows"), [*bots, "-"])
    events_raw, history_raw, rows_raw = pipe.execute()
    events = int(events_raw or 0)
    series: dict[str, list[list[float | None]]] = {}
    for bot, hist, row in zip(bots, history_raw, rows_raw, strict=False):
        if hist is None or row is None:
            continue
        points: list[list[float | None]] = json.loads(hist)["p"]
        if points[-1][0] != events:
            now = json.loads(row)
            points.append([events, round(now["mu"], 4), round(now["mu"] - 3.0 * now["sg"], 4), row_mean(now)])
        series[bot] = points
    return {"events": events, "series": series}


def finalize_if_complete(ctx: HarnessContext, tid: str) -> bool:
    """Fold new results into the standings; once every match is recorded, compute the final
    intervals, mark the tournament finished and publish it.

    Called after every match (the hook where results enter the standings) and by reads; idempotent:
    anyone may call it any number of times.
    """
    record = ctx.store.tournament(tid)
    if record is None:
        return False
    update_standings(ctx, tid, record)
    if record["status"] in ("finished", "cancelled") or record["completed"] < record["total"]:
        return False
    compute_statistics(ctx, f"t:{tid}")  # the final intervals, once
    finished = ctx.store.set_status(tid, "finished", only_from=("scheduled", "running"))
    final = _record(ctx, tid)
    publish_if_due(ctx, tid, final)
    if finished:
        retain(ctx, tid, final)
    return finished


def retention_s() -> int:
    """Seconds a finished tournament of its own is kept: $TRICKARENA_TOURNAMENT_RETENTION_S, or
    `RETENTION_S`; 0 keeps it for ever."""
    return int(os.environ.get("TRICKARENA_TOURNAMENT_RETENTION_S", "") or RETENTION_S)


def retain(ctx: HarnessContext, tid: str, record: dict[str, Any]) -> bool:
    """Give every key of a finished tournament of its own -- its record, matches, results,
    decision records, standings, the bots' per-tournament indexes and its games -- one expiry,
    `retention_s()` after it finished: it stays visible, replays included, until then, and then
    goes whole (listings skip it). League rounds are kept (their league folds them). True if set."""
    ttl = retention_s()
    if ttl <= 0 or record["spec"].get("league"):
        return False
    until = int(float(record.get("finished_at") or time.time())) + ttl
    repository = ctx.service.repository
    games = ctx.store.match_game_ids(tid, int(record["total"])).values()
    game_keys = [repository.key_for(kind, g) for g in games for kind in ("game", "events", "actions")]
    game_keys += [ctx.store.key_for("game_match", g) for g in games]
    ctx.store.expire_tournament(tid, int(record["total"]), list(record["spec"]["entrants"]), game_keys, until)
    return True


def league_owner(ctx: HarnessContext, record: dict[str, Any]) -> str:
    """The owner-key digest of the league a round belongs to (a round is its league owner's too);
    '' for a tournament of its own."""
    league = record["spec"].get("league")
    return str(_league(ctx, league["league_id"]).get("owner", "")) if league else ""


def cancel_tournament(ctx: HarnessContext, tid: str, owner_key: str | None) -> dict[str, Any]:
    """Stop a tournament (its owner key): queued matches won't start, running ones stop soon."""
    record = _record(ctx, tid)
    if not owner_key:
        raise errors.MissingToken("cancelling needs the tournament's owner key as a Bearer token")
    owners = [record.get("owner", ""), league_owner(ctx, record)]
    digest = owner_digest(owner_key)
    if not any(hmac.compare_digest(owner, digest) for owner in owners if owner):
        raise errors.InvalidToken("that is not this tournament's owner key", code="not_owner")
    if record["status"] in ("finished", "cancelled"):
        raise errors.Conflict(f"the tournament is already {record['status']}", code="tournament_over")
    ctx.store.set_status(tid, "cancelled", only_from=("scheduled", "running"))
    return get_tournament(ctx, tid)


# --------------------------------------------------------------------------- leagues


def parse_schedule(
    interval_s: int | None, cron: str | None, min_interval_s: int = MIN_LEAGUE_INTERVAL_S
) -> dict[str, Any]:
    """Validate a league schedule: exactly one of an interval (seconds) or a cron expression.

    Rounds may not come closer than `min_interval_s`: an interval below it, a cron that ever
    fires twice within it (over its next `CRON_SAMPLE` firings), or a cron that never fires (in
    `CRON_HORIZON`) is refused.
    """
    if (interval_s is None) == (cron is None):
        raise _invalid("give exactly one of interval_s or cron", code="invalid_schedule")
    if interval_s is not None:
        if not min_interval_s <= interval_s <= 366 * 86400:
            # The message names the bounds: `ErrorDetails` (the API's contract) has no field for them.
            raise _invalid(
                f"interval_s must be between {min_interval_s} and 31622400", code="invalid_schedule"
            )
        return {"interval_s": int(interval_s)}
    assert cron is not None
    if not re.fullmatch(CRON_PATTERN, cron) or not croniter.is_valid(cron):
        raise _invalid(f"not a valid cron expression: {cron!r}", code="invalid_schedule")
    check_cron_spacing(cron, min_interval_s)
    return {"cron": cron}


def _cron_field(value: str) -> str:
    item = rf"(\*|({value})(-({value}))?)(/[1-9][0-9]{{0,2}})?"
    return rf"{item}(,{item})*"


# The cron syntax a league takes (openapi.yaml states it as `cron`'s pattern; the server refuses
# anything else, croniter's extensions included): five numeric fields (minute, hour, day of month,
# month, day of week 0-7), each a comma list of `*` or `N` or `N-M`, each with an optional `/step`,
# and optionally croniter's sixth field, the second. Every string it matches croniter parses.
CRON_FIELDS = [r"[1-5]?[0-9]", r"1?[0-9]|2[0-3]", r"[1-9]|[12][0-9]|3[01]", r"[1-9]|1[0-2]", r"[0-7]"]
CRON_PATTERN = "^" + " ".join(_cron_field(v) for v in CRON_FIELDS) + f"( {_cron_field(CRON_FIELDS[0])})?$"


def check_cron_spacing(cron: str, min_interval_s: int, now: datetime | None = None) -> None:
    """Refuse (422 invalid_schedule) a cron that never fires, or fires twice within `min_interval_s`."""
    start = now or datetime.now(UTC)
    try:
        times = croniter(cron, start, max_years_between_matches=9)
        fires: list[datetime] = [times.get_next(datetime) for _ in range(CRON_SAMPLE)]
    except (CroniterBadDateError, CroniterBadCronError, ValueError):
        fires = []
    if not fires or fires[0] - start > CRON_HORIZON:
        raise _invalid(f"the cron expression {cron!r} never fires", code="invalid_schedule")
    closest = min((b - a for a, b in zip(fires, fires[1:], strict=False)), default=CRON_HORIZON)
    if closest.total_seconds() < min_interval_s:
        raise _invalid(
            f"the cron expression {cron!r} fires {closest.total_seconds():g} s apart; "
            f"rounds must be at least {min_interval_s} s apart",
            code="invalid_schedule",
        )


def next_time(schedule: dict[str, Any], after: datetime) -> datetime:
    """The next round time after `after` (UTC)."""
    if "interval_s" in schedule:
        return after + timedelta(seconds=int(schedule["interval_s"]))
    nxt: datetime = croniter(schedule["cron"], after).get_next(datetime)
    return nxt if nxt.tzinfo else nxt.replace(tzinfo=UTC)


def create_league(
    ctx: HarnessContext,
    game: str,
    seats: int,
    interval_s: int | None = None,
    cron: str | None = None,
    deals: int = 1,
    deadline_ms: int = TIMING.deadline_ms,
    time_bank_ms: int = TIMING.time_bank_ms,
    options: dict[str, Any] | None = None,
    max_tables: int = DEFAULT_MAX_TABLES,
    name: str | None = None,
    enqueue: bool = True,
    pairing: str = "auto",
    appearances: int = 1,
    max_matches: int = MAX_MATCHES,
) -> dict[str, Any]:
    """Create a league; its first round is scheduled one period from now.

    Each round pairs its members by `pairing` (`auto`: round robin up to 64 members, by rating
    above) within the per-round budget of `max_matches` matches (thinned to fit).
    """
    schedule = parse_schedule(interval_s, cron, ctx.min_league_interval_s)
    _check_game(ctx, game, seats, [])
    _check_options(game, seats, options)
    lid = secrets.token_hex(8)
    spec = {
        "name": name or default_name(game, "league", lid),
        "game": game,
        "seats": seats,
        "schedule": schedule,
        "deals": deals,
        "deadline_ms": deadline_ms,
        "time_bank_ms": time_bank_ms,
        "options": options or {},
        "max_tables": max_tables,
        "pairing": pairing,
        "appearances": appearances,
        "max_matches": min(max_matches, MAX_MATCHES),
        "max_members": MAX_LEAGUE_MEMBERS,
    }
    first = next_time(schedule, datetime.now(UTC))
    owner_key = secrets.token_urlsafe(24)
    digest, now = owner_digest(owner_key), time.time()
    # The league's record, then its listings (other hash slots; ZADD: idempotent).
    with ctx.store.client.pipeline(transaction=False) as pipe:
        pipe.hset(
            ctx.store.key_for("league", lid),
            mapping={
                "spec": json.dumps(spec),
                "owner": digest,
                "status": "active",
                "created_at": now,
                "next_round": 1,
                "next_at": first.isoformat(),
            },
        )
        pipe.zadd(ctx.store.key_for("league_index"), {lid: now})
        pipe.zadd(ctx.store.key_for("league_owner_index", digest), {lid: now})
        pipe.execute()
    if enqueue:
        queueing.schedule_league_round(ctx, lid, 1, first)
    return {**get_league(ctx, lid), "owner_key": owner_key}


LEAGUE_STATUSES = ("active", "paused", "deleted")


def _owns_league(league: dict[str, Any], owner_key: str | None) -> bool:
    """Whether `owner_key` is the league's owner key."""
    if not owner_key:
        return False
    return hmac.compare_digest(league.get("owner", ""), owner_digest(owner_key))


def _authorize_league(ctx: HarnessContext, lid: str, owner_key: str | None) -> dict[str, Any]:
    league = _league(ctx, lid)
    if not owner_key:
        raise errors.MissingToken("this needs the league's owner key as a Bearer token")
    if not _owns_league(league, owner_key):
        raise errors.InvalidToken("that is not this league's owner key", code="not_owner")
    if league["status"] == "deleted":
        raise errors.Conflict("the league was deleted", code="league_deleted")
    return league


def update_league(
    ctx: HarnessContext,
    lid: str,
    owner_key: str | None,
    *,
    name: str | None = None,
    status: str | None = None,
    interval_s: int | None = None,
    cron: str | None = None,
    enqueue: bool = True,
) -> dict[str, Any]:
    """The owner pauses or resumes the league, renames it or changes its schedule.

    A new schedule (or a resume) takes effect from now: the next round is due one period from
    now (its RQ job, whose id is fixed per round, is moved to that time).
    """
    league = _authorize_league(ctx, lid, owner_key)
    spec = league["spec"]
    if name is not None:
        spec["name"] = name
    reschedule = False
    if interval_s is not None or cron is not None:
        spec["schedule"] = parse_schedule(interval_s, cron, ctx.min_league_interval_s)
        reschedule = True
    new_status = league["status"]
    if status is not None:
        if status not in ("active", "paused"):
            raise _invalid("status must be active or paused (deleteLeague deletes)", code="invalid_status")
        reschedule = reschedule or (status == "active" and league["status"] != "active")
        new_status = status
    key = ctx.store.key_for("league", lid)
    ctx.store.client.hset(key, mapping={"spec": json.dumps(spec), "status": new_status})
    if reschedule and new_status == "active":
        when = next_time(spec["schedule"], datetime.now(UTC))
        ctx.store.client.hset(key, "next_at", when.isoformat())
        if enqueue:
            queueing.schedule_league_round(ctx, lid, int(league["next_round"]), when)
    return get_league(ctx, lid)


def delete_league(ctx: HarnessContext, lid: str, owner_key: str | None) -> dict[str, Any]:
    """The owner deletes the league: no more rounds; it, its rounds and standings stay readable."""
    _authorize_league(ctx, lid, owner_key)
    ctx.store.client.hset(ctx.store.key_for("league", lid), "status", "deleted")
    return get_league(ctx, lid)


def rotate_league_key(ctx: HarnessContext, lid: str, owner_key: str | None) -> dict[str, Any]:
    """A new owner key for the league (its current one required), shown once; the old one stops
    working at once, for the league and its rounds (cancelTournament checks the league's key)."""
    league = _authorize_league(ctx, lid, owner_key)
    new_key = secrets.token_urlsafe(24)
    _rotated(
        ctx.store.rotate_owner("league", lid, league["owner"], owner_digest(new_key), "deleted"), "league"
    )
    return {"league": get_league(ctx, lid), "owner_key": new_key}


def rotate_tournament_key(ctx: HarnessContext, tid: str, owner_key: str | None) -> dict[str, Any]:
    """A new owner key for a tournament (its current one required), shown once; the old one stops
    working at once. A league round has no key of its own: its league's key is rotated instead."""
    record = _record(ctx, tid)
    if not owner_key:
        raise errors.MissingToken("this needs the tournament's owner key as a Bearer token")
    league = record["spec"].get("league")
    if league:
        raise errors.Conflict(
            "a league round belongs to its league's owner: rotate the league's key",
            code="league_round",
            details={"league_id": league["league_id"]},
        )
    if not hmac.compare_digest(record.get("owner", ""), owner_digest(owner_key)):
        raise errors.InvalidToken("that is not this tournament's owner key", code="not_owner")
    new_key = secrets.token_urlsafe(24)
    _rotated(ctx.store.rotate_owner("tournament", tid, record["owner"], owner_digest(new_key)), "tournament")
    return {"tournament": get_tournament(ctx, tid), "owner_key": new_key}


def _rotated(status: int, what: str) -> None:
    """Raise for a rotation the store refused (the key changed or the league went meanwhile)."""
    if status == -2:  # another rotation with the same key won meanwhile
        raise errors.InvalidToken(f"that is not this {what}'s owner key", code="not_owner")
    if status == -3:
        raise errors.Conflict("the league was deleted", code="league_deleted")
    if status < 0:
        raise (LeagueNotFound if what == "league" else TournamentNotFound)(f"no such {what}")


def _league(ctx: HarnessContext, lid: str) -> dict[str, Any]:
    raw = cast(dict[bytes, bytes], ctx.store.client.hgetall(ctx.store.key_for("league", lid)))
    if not raw:
        raise LeagueNotFound(f"no league {lid!r}")
    out: dict[str, Any] = {k.decode(): v.decode() for k, v in raw.items()}
    out["spec"] = json.loads(out["spec"])
    return out


def league_members(ctx: HarnessContext, lid: str) -> list[str]:
    """Current members, in joining order."""
    raw = cast(dict[bytes, bytes], ctx.store.client.hgetall(ctx.store.key_for("members", lid)))
    return [b.decode() for b, _ in sorted(raw.items(), key=lambda kv: (float(kv[1]), kv[0]))]


def league_ratings(ctx: HarnessContext, lid: str) -> dict[str, Rating]:
    """The league's ratings now: its standings' (every round folded in, in order), which the next
    round starts from."""
    rows = ctx.store.scope_hash(f"l:{lid}", "rows")
    return {b: Rating(r["mu"], r["sg"]) for b, r in rows.items()}


def league_rounds(ctx: HarnessContext, lid: str, latest: int | None = None) -> list[str]:
    """Tournament ids of the league's rounds, oldest first: all, or the `latest` ones."""
    start = -latest if latest else 0
    raw = cast(list[bytes], ctx.store.client.lrange(ctx.store.key_for("rounds", lid), start, -1))
    return [t.decode() for t in raw]


def _league_settings(lid: str, league: dict[str, Any]) -> dict[str, Any]:
    """A league's settings, status and next round (what getLeague and the web pages share)."""
    spec = league["spec"]
    return {
        "league_id": lid,
        "name": league_name(lid, spec),
        "game": spec["game"],
        "seats": spec["seats"],
        "schedule": spec["schedule"],
        "deals": spec["deals"],
        "deadline_ms": spec["deadline_ms"],
        "time_bank_ms": spec["time_bank_ms"],
        "pairing": spec.get("pairing", "auto"),
        "appearances": spec.get("appearances", 1),
        "max_matches": spec.get("max_matches", MAX_MATCHES),
        "max_members": int(spec.get("max_members", MAX_LEAGUE_MEMBERS)),
        "status": league["status"],
        "next_round": int(league["next_round"]),
        "next_at": league["next_at"],
        "created_at": _iso(float(league["created_at"])) if league.get("created_at") else None,
    }


def league_name(lid: str, spec: dict[str, Any]) -> str:
    """A league's name (leagues stored before names were required get the default)."""
    return str(spec.get("name") or default_name(spec["game"], "league", lid))


def get_league(ctx: HarnessContext, lid: str) -> dict[str, Any]:
    """League spec, members, rounds and next round time."""
    return {
        **_league_settings(lid, _league(ctx, lid)),
        "members": league_members(ctx, lid),
        "rounds": league_rounds(ctx, lid, ROUNDS_LISTED),
        "rounds_total": int(ctx.store.client.llen(ctx.store.key_for("rounds", lid))),
    }


def league_overview(ctx: HarnessContext, lid: str, rounds: int = 20) -> dict[str, Any]:
    """The league's settings with member and round counts and its latest `rounds` rounds (status
    and progress each): bounded, whatever the league's size and age (the web pages read it)."""
    league = _league(ctx, lid)
    store = ctx.store
    pipe = store.client.pipeline(transaction=False)
    pipe.hlen(store.key_for("members", lid))
    pipe.llen(store.key_for("rounds", lid))
    pipe.lrange(store.key_for("rounds", lid), -rounds, -1) if rounds > 0 else pipe.llen(
        store.key_for("rounds", lid)
    )
    members, total, latest_raw = pipe.execute()
    latest = [t.decode() for t in latest_raw] if rounds > 0 else []
    pipe = store.client.pipeline(transaction=False)
    for tid in latest:
        pipe.hmget(store.key_for("tournament", tid), ["status", "total", "completed"])
    summaries = []
    for tid, (status, done_total, completed) in zip(latest, pipe.execute(), strict=True):
        if status is None:
            continue
        summaries.append(
            {
                "tournament_id": tid,
                "status": status.decode(),
                "league": {"league_id": lid, "round": int(tid.rsplit("r", 1)[1])},
                "progress": {"total": int(done_total), "completed": int(completed)},
            }
        )
    return {
        **_league_settings(lid, league),
        "members_total": int(members),
        "rounds_total": int(total),
        "latest_rounds": summaries,
    }


def join_league(ctx: HarnessContext, lid: str, bot_id: str, owner_key: str | None) -> dict[str, Any]:
    """Add a bot to the league's members: with the bot's owner key, or with the league's owner key
    when the bot may be entered without its key (open to challenges: the rule of a tournament's
    entrants, `check_entrants_may_enter`). A bot added so is a *guest*: it plays a round only while
    it is still open (`run_league_round`), so its owner's flag takes it out of every such league."""
    league = _league(ctx, lid)
    spec = league["spec"]
    guest = _owns_league(league, owner_key)
    if guest:
        check_entrants_may_enter(ctx, [bot_id], [])
    else:
        ctx.bots.authorize(bot_id, owner_key)
    _check_game(ctx, spec["game"], spec["seats"], [bot_id])
    members_key = ctx.store.key_for("members", lid)
    cap = int(spec.get("max_members", MAX_LEAGUE_MEMBERS))
    if not ctx.store.client.hexists(members_key, bot_id) and ctx.store.client.hlen(members_key) >= cap:
        raise errors.Conflict(f"the league is full ({cap} members)", code="league_full", details={"max": cap})
    added = ctx.store.client.hsetnx(members_key, bot_id, time.time())
    guests_key = ctx.store.key_for("guests", lid)
    if not guest:
        ctx.store.client.srem(guests_key, bot_id)  # its owner joined it: a member like any other
    elif added:
        ctx.store.client.sadd(guests_key, bot_id)
    # A member is in the league's standings from now on (games or not), as before its first round.
    fresh = new_row(Rating())
    keys = [ctx.store.scope_key(f"l:{lid}", s) for s in ("rows", "index")]
    ctx.store.client.eval(_ADD_ROW_LUA, 2, *keys, bot_id, json.dumps(fresh), rank_member(bot_id, fresh))
    return get_league(ctx, lid)


# A row and its ranking index member, only if the bot has no row yet. KEYS rows, index; ARGV bot,
# row JSON, member.
_ADD_ROW_LUA = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then redis.call('ZADD', KEYS[2], 0, ARGV[3]) end
return 1
"""


def leave_league(ctx: HarnessContext, lid: str, bot_id: str, owner_key: str | None) -> dict[str, Any]:
    """Remove a bot (its owner key, or the league's); its past results stay in earlier rounds."""
    if not _owns_league(_league(ctx, lid), owner_key):
        ctx.bots.authorize(bot_id, owner_key)
    if not ctx.store.client.hdel(ctx.store.key_for("members", lid), bot_id):
        raise errors.Conflict(f"bot {bot_id!r} is not a member", code="not_a_member")
    ctx.store.client.srem(ctx.store.key_for("guests", lid), bot_id)
    return get_league(ctx, lid)


def run_league_round(ctx: HarnessContext, lid: str, round_no: int) -> str | None:
    """Run league round `round_no` once and schedule the next; the tournament id if this call created it.

    Idempotent: the round's tournament id is derived from the league and the round (its seed is
    secret and random, like every tournament's), its creation is atomic (a second creator gets
    `tournament_exists`, and its own seed is thrown away with its schedule), and the next round's
    job id is deterministic -- so a duplicate firing or a retried job converges on one round.
    """
    league = _league(ctx, lid)
    if league["status"] != "active":
        return None
    spec = league["spec"]
    tid = f"{lid}r{round_no}"
    round_key = ctx.store.key_for("round", lid, round_no)
    previous = ctx.store.tournament(f"{lid}r{round_no - 1}") if round_no > 1 else None
    if previous is not None and previous["status"] in ("scheduled", "running"):
        # Rounds never overlap: a round due while the previous one still plays is skipped.
        ctx.store.client.set(round_key, "skipped:previous_round_running", nx=True)
    ctx.store.client.set(round_key, tid, nx=True)
    created = False
    if ctx.store.client.get(round_key) == tid.encode() and ctx.store.tournament(tid) is None:
        records = {b: r for b in league_members(ctx, lid) if (r := ctx.bot(b)) is not None}
        stored = cast(set[bytes], ctx.store.client.smembers(ctx.store.key_for("guests", lid)))
        guests = {g.decode() for g in stored}
        # A guest (added by the league's owner) plays only while it may be entered without its key.
        members = [
            b
            for b, r in records.items()
            if r.status == "active" and (b not in guests or ctx.bots.may_enter(r, []))
        ]
        minimum = 1 if is_cooperative(spec["game"]) else 2
        _fold_league(ctx, lid, is_cooperative(spec["game"]))  # the ratings this round starts from
        try:
            if len(members) < minimum:
                raise _invalid("too few members", code="too_few_members")
            create_tournament(
                ctx,
                spec["game"],
                spec["seats"],
                members,
                deals=spec["deals"],
                deadline_ms=spec["deadline_ms"],
                time_bank_ms=spec["time_bank_ms"],
                options=spec["options"] or None,
                max_tables=spec["max_tables"],
                league={"league_id": lid, "round": round_no},
                name=f"{league_name(lid, spec)} · round {round_no}",
                prior=league_ratings(ctx, lid),
                tournament_id=tid,
                pairing=spec.get("pairing", "auto"),
                appearances=int(spec.get("appearances", 1)),
                max_matches=int(spec.get("max_matches", MAX_MATCHES)),
                fit_to_budget=True,
                records=records,
            )
            ctx.store.add_round(lid, tid)
            created = True
        except errors.ServiceError as exc:
            if exc.code != "tournament_exists":
                # The round is skipped (recorded with the reason); the league goes on.
                ctx.store.client.set(round_key, f"skipped:{exc.code}")
    elif ctx.store.client.get(round_key) == tid.encode():
        # The round exists: a repeated firing (RQ's retry of a job whose worker died after the
        # round's own transaction) completes the steps after it, each idempotent: its listings
        # (`t:index`, its owner's) and its place in the league's rounds.
        ctx.store.list_tournament(tid, lid)
        ctx.store.add_round(lid, tid)
    if not created and int(league["next_round"]) > round_no:
        return None  # a duplicate firing: the next round is already scheduled
    nxt = next_time(spec["schedule"], datetime.now(UTC))
    ctx.store.client.hset(
        ctx.store.key_for("league", lid), mapping={"next_round": round_no + 1, "next_at": nxt.isoformat()}
    )
    queueing.schedule_league_round(ctx, lid, round_no + 1, nxt)
    return tid if created else None


def league_standings(
    ctx: HarnessContext, lid: str, offset: int = 0, limit: int = STANDINGS_PAGE_MAX, by: str = "bot"
) -> dict[str, Any]:
    """A page of the standings over every round so far (rounds folded in, in order: ratings carry);
    `by=version`: a row per bot version instead (`_version_page`)."""
    league = _league(ctx, lid)
    cooperative = is_cooperative(league["spec"]["game"])
    scope = f"l:{lid}"
    if _league_lags(ctx, lid) and _fold_league(ctx, lid, cooperative, READ_CATCH_UP):
        request_statistics(ctx, scope)
    limit = max(1, min(limit, STANDINGS_PAGE_MAX))
    offset = max(0, offset)
    rounds = int(ctx.store.client.llen(ctx.store.key_for("rounds", lid)))
    if by == "version":
        return {
            **_version_page(ctx, scope, cooperative, offset, limit, {}),
            "league_id": lid,
            "rounds": rounds,
        }
    snapshot = _snapshot(ctx, scope, offset, limit)
    doc = _standings_page(
        ctx, snapshot, scope, lambda: league_members(ctx, lid), cooperative, dict, offset, limit
    )
    return {**doc, "league_id": lid, "rounds": rounds}
