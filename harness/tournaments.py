"""Tournament and league operations (plain Python; the API blueprint and the CLI call these).

Every function either succeeds or raises an `core.errors.ServiceError` having written nothing.
Queueing goes through `harness.queueing` (RQ); this module only decides and stores.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import time
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from croniter import (  # type: ignore[import-untyped]
    CroniterBadCronError,
    CroniterBadDateError,
    croniter,
)

from core import errors
from core.bot_registry import BotDeleted, BotNotFound, BotRecord, owner_digest
from games.base import GameError
from games.registry import get_game
from harness import queueing
from harness.ratings import Rating
from harness.runner import HarnessContext, is_cooperative
from harness.scheduling import (
    DEFAULT_MAX_TABLES,
    ScheduleError,
    derive_seed,
    fit_budget,
    make_table_plan,
    pair_coverage,
    resolve_pairing,
    schedule_size,
    schedule_tables,
)
from harness.standings import compute_standings, ratings_from_standings

MAX_MATCHES = 20000
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
    deadline_ms: int = 1000,
    time_bank_ms: int = 5000,
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
) -> dict[str, Any]:
    """Validate, schedule and store a tournament, then queue its matches (now or at `start_at`).

    `pairing` (docs/harness.md, Scheduling): `round_robin` (full, or a pair-covering subset of
    `max_tables`), `rating` (every entrant at `appearances` tables, matched by `prior` rating) or
    `auto`. A schedule over `max_matches` is refused (`schedule_too_large`), or with
    `fit_to_budget` (league rounds) thinned to fit: fewer tables, or fewer appearances.

    Fair play: without `seed` the seed comes from `secrets` and stays server-side (with every deal
    and match seed derived from it) until the tournament has ended (`is_published`); its games are
    sealed until then.  A chosen `seed` makes a *practice* tournament: its creator knows every deal,
    so it is marked as such and never counts toward a league.
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
            max_tables, appearances = fit_budget(
                len(entrants), seats, deals, cooperative, max_tables, budget, pairing, appearances
            )
    except ScheduleError as exc:
        raise _invalid(str(exc), code="schedule_too_large") from None
    size = schedule_size(len(entrants), seats, deals, cooperative, max_tables, pairing, appearances)
    if size > budget:
        raise _invalid(f"the schedule would have {size} matches, over {budget}", code="schedule_too_large")
    _check_options(game, seats, options)
    seed = seed if seed is not None else secrets.randbits(53)
    try:
        ranked = _ranked(entrants, prior or {}, seed) if pairing == "rating" else entrants
        tables = make_table_plan(ranked, seats, seed, cooperative, max_tables, pairing, appearances)
        matches = schedule_tables(tables, deals, seed)
    except ScheduleError as exc:
        raise _invalid(str(exc), code=exc.code) from None
    tid = tournament_id or secrets.token_hex(8)
    spec: dict[str, Any] = {
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
        "prior": {b: [r.mu, r.sigma] for b, r in (prior or {}).items()},
    }
    if league:
        spec["league"] = league
    owner_key = secrets.token_urlsafe(24)
    if not ctx.store.create_tournament(tid, spec, [m.to_dict() for m in matches], owner_digest(owner_key)):
        raise errors.Conflict(f"tournament {tid!r} already exists", code="tournament_exists")
    if enqueue:
        if start_at is not None and start_at > datetime.now(UTC):
            queueing.schedule_start(ctx, tid, start_at)
        else:
            queueing.enqueue_matches(ctx, tid, range(len(matches)))
    return {**get_tournament(ctx, tid), "owner_key": owner_key}


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
    if ctx.store.client.hsetnx(ctx.store.key_for("tournament", tid), "published_at", time.time()):
        game_ids = list(ctx.store.match_game_ids(tid, record["total"]).values())
        for start in range(0, len(game_ids), 1000):
            ctx.service.unseal(game_ids[start : start + 1000])
    return True


def _iso(stamp: float | None) -> str | None:
    return datetime.fromtimestamp(stamp, UTC).isoformat() if stamp else None


def list_matches(ctx: HarnessContext, tid: str) -> list[dict[str, Any]]:
    """Every match with its seats, deal, status, game id (watch it through the games API) and result."""
    record = _record(ctx, tid)
    specs = ctx.store.match_specs(tid)
    results = {int(r["index"]): r for r in ctx.store.results(tid)}
    game_ids = ctx.store.match_game_ids(tid, record["total"])
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


def _prior(spec: dict[str, Any]) -> dict[str, Rating]:
    return {b: Rating(mu, sigma) for b, (mu, sigma) in (spec.get("prior") or {}).items()}


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


def _played(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Matches recorded as errors count towards completion, not towards the standings.
    return [r for r in results if not r.get("error")]


def _standings_now(ctx: HarnessContext, tid: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The standings over the results recorded so far (error results left out)."""
    return compute_standings(
        _played(ctx.store.results(tid)),
        spec["entrants"],
        spec["cooperative"],
        spec["seed"],
        prior=_prior(spec),
    )


def get_standings(ctx: HarnessContext, tid: str) -> dict[str, Any]:
    """Final standings once finished; live standings over the results so far before that."""
    record = _record(ctx, tid)
    stored = ctx.store.standings(tid)
    if stored is not None:
        return stored
    doc = _standings_now(ctx, tid, record["spec"])
    doc.update({"tournament_id": tid, "final": False, "status": record["status"]})
    return doc


def finalize_if_complete(ctx: HarnessContext, tid: str) -> bool:
    """Once every match is recorded: store the standings, carry league ratings, mark finished.

    Idempotent: any job (or a read) may call it any number of times; the standings are stored
    with SET NX and the league ratings written are the same values every time.
    """
    record = ctx.store.tournament(tid)
    if record is None or record["status"] in ("finished", "cancelled"):
        return False
    if record["completed"] < record["total"]:
        return False
    spec = record["spec"]
    doc = _standings_now(ctx, tid, spec)
    doc.update({"tournament_id": tid, "final": True, "status": "finished"})
    ctx.store.save_standings(tid, doc)
    doc = ctx.store.standings(tid) or doc
    league = spec.get("league")
    if league:
        ratings = ratings_from_standings(doc)
        key = ctx.store.key_for("ratings", league["league_id"])
        for bot_id, rating in ratings.items():
            ctx.store.client.hset(key, bot_id, json.dumps([rating.mu, rating.sigma]))
    finished = ctx.store.set_status(tid, "finished", only_from=("scheduled", "running"))
    publish_if_due(ctx, tid, _record(ctx, tid))
    return finished


def cancel_tournament(ctx: HarnessContext, tid: str, owner_key: str | None) -> dict[str, Any]:
    """Stop a tournament (its owner key): queued matches won't start, running ones stop soon."""
    record = _record(ctx, tid)
    if not owner_key:
        raise errors.MissingToken("cancelling needs the tournament's owner key as a Bearer token")
    owners = [record.get("owner", "")]
    league = record["spec"].get("league")
    if league:  # a league round belongs to the league's owner
        owners.append(_league(ctx, league["league_id"]).get("owner", ""))
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
            raise _invalid(
                f"interval_s must be between {min_interval_s} and 31622400",
                code="invalid_schedule",
                min_interval_s=min_interval_s,
            )
        return {"interval_s": int(interval_s)}
    assert cron is not None
    if not croniter.is_valid(cron):
        raise _invalid(f"not a valid cron expression: {cron!r}", code="invalid_schedule")
    check_cron_spacing(cron, min_interval_s)
    return {"cron": cron}


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
            min_interval_s=min_interval_s,
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
    deadline_ms: int = 1000,
    time_bank_ms: int = 5000,
    options: dict[str, Any] | None = None,
    max_tables: int = DEFAULT_MAX_TABLES,
    name: str = "",
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
        "name": name,
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
    ctx.store.client.hset(
        ctx.store.key_for("league", lid),
        mapping={
            "spec": json.dumps(spec),
            "owner": owner_digest(owner_key),
            "status": "active",
            "created_at": time.time(),
            "next_round": 1,
            "next_at": first.isoformat(),
        },
    )
    ctx.store.client.zadd(ctx.store.key_for("league_index"), {lid: time.time()})
    if enqueue:
        queueing.schedule_league_round(ctx, lid, 1, first)
    return {**get_league(ctx, lid), "owner_key": owner_key}


LEAGUE_STATUSES = ("active", "paused", "deleted")


def _authorize_league(ctx: HarnessContext, lid: str, owner_key: str | None) -> dict[str, Any]:
    league = _league(ctx, lid)
    if not owner_key:
        raise errors.MissingToken("this needs the league's owner key as a Bearer token")
    if not hmac.compare_digest(league.get("owner", ""), owner_digest(owner_key)):
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
    """The league's carried-over ratings."""
    raw = cast(dict[bytes, bytes], ctx.store.client.hgetall(ctx.store.key_for("ratings", lid)))
    return {b.decode(): Rating(*json.loads(v)) for b, v in raw.items()}


def league_rounds(ctx: HarnessContext, lid: str) -> list[str]:
    """Tournament ids of the league's rounds, oldest first."""
    raw = cast(list[bytes], ctx.store.client.lrange(ctx.store.key_for("rounds", lid), 0, -1))
    return [t.decode() for t in raw]


def get_league(ctx: HarnessContext, lid: str) -> dict[str, Any]:
    """League spec, members, rounds and next round time."""
    league = _league(ctx, lid)
    spec = league["spec"]
    return {
        "league_id": lid,
        "name": spec["name"],
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
        "members": league_members(ctx, lid),
        "rounds": league_rounds(ctx, lid),
        "next_round": int(league["next_round"]),
        "next_at": league["next_at"],
    }


def join_league(ctx: HarnessContext, lid: str, bot_id: str, owner_key: str | None) -> dict[str, Any]:
    """Add a bot (its owner key required) to the league's members."""
    spec = _league(ctx, lid)["spec"]
    ctx.bots.authorize(bot_id, owner_key)
    _check_game(ctx, spec["game"], spec["seats"], [bot_id])
    members_key = ctx.store.key_for("members", lid)
    cap = int(spec.get("max_members", MAX_LEAGUE_MEMBERS))
    if not ctx.store.client.hexists(members_key, bot_id) and ctx.store.client.hlen(members_key) >= cap:
        raise errors.Conflict(f"the league is full ({cap} members)", code="league_full", details={"max": cap})
    ctx.store.client.hsetnx(members_key, bot_id, time.time())
    return get_league(ctx, lid)


def leave_league(ctx: HarnessContext, lid: str, bot_id: str, owner_key: str | None) -> dict[str, Any]:
    """Remove a bot (its owner key required); its past results stay in earlier rounds."""
    _league(ctx, lid)
    ctx.bots.authorize(bot_id, owner_key)
    if not ctx.store.client.hdel(ctx.store.key_for("members", lid), bot_id):
        raise errors.Conflict(f"bot {bot_id!r} is not a member", code="not_a_member")
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
        members = [b for b, r in records.items() if r.status == "active"]
        minimum = 1 if is_cooperative(spec["game"]) else 2
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
                prior=league_ratings(ctx, lid),
                tournament_id=tid,
                pairing=spec.get("pairing", "auto"),
                appearances=int(spec.get("appearances", 1)),
                max_matches=int(spec.get("max_matches", MAX_MATCHES)),
                fit_to_budget=True,
                records=records,
            )
            ctx.store.client.rpush(ctx.store.key_for("rounds", lid), tid)
            created = True
        except errors.ServiceError as exc:
            if exc.code != "tournament_exists":
                # The round is skipped (recorded with the reason); the league goes on.
                ctx.store.client.set(round_key, f"skipped:{exc.code}")
    if not created and int(league["next_round"]) > round_no:
        return None  # a duplicate firing: the next round is already scheduled
    nxt = next_time(spec["schedule"], datetime.now(UTC))
    ctx.store.client.hset(
        ctx.store.key_for("league", lid), mapping={"next_round": round_no + 1, "next_at": nxt.isoformat()}
    )
    queueing.schedule_league_round(ctx, lid, round_no + 1, nxt)
    return tid if created else None


def league_standings(ctx: HarnessContext, lid: str) -> dict[str, Any]:
    """Standings over every round so far; ratings carried over round by round (results in order)."""
    league = _league(ctx, lid)
    spec = league["spec"]
    combined: list[dict[str, Any]] = []
    entrants: list[str] = []
    for number, tid in enumerate(league_rounds(ctx, lid), start=1):
        record = ctx.store.tournament(tid)
        if record is None:
            continue
        for b in record["spec"]["entrants"]:
            if b not in entrants:
                entrants.append(b)
        for res in _played(ctx.store.results(tid)):
            # Make match and deal indices unique across rounds, keeping the round order.
            combined.append(
                {
                    **res,
                    "index": number * 1_000_000 + int(res["index"]),
                    "deal": number * 1_000_000 + int(res["deal"]),
                }
            )
    for b in league_members(ctx, lid):
        if b not in entrants:
            entrants.append(b)
    doc = compute_standings(combined, entrants, is_cooperative(spec["game"]), seed=int(lid, 16) % (2**31))
    doc.update(
        {"league_id": lid, "rounds": len(league_rounds(ctx, lid)), "members": league_members(ctx, lid)}
    )
    return doc
