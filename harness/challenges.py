"""Challenges (issue 28): people play a game against bots open to challenges, through the platform.

`create_challenge` (the API's createChallenge) checks the bots and the limits, creates the game
(not sealed: its deal is played at this table only; its seed stays secret until the end), hands
back the people's seat tokens and queues one RQ job (`harness.jobs.run_challenge_job`). The job
plays the bot seats with `ChallengeRun`, a `harness.runner.MatchRun`: the same signing,
deadlines, time banks, fault records, write-ahead record and lease as a tournament's match, and
the same write path (`GameService.apply_move`). People play their seats through the ordinary
move endpoints with their seat tokens; while a person is to move the run waits on the worker's
event hub (`core.event_hub`: one pub/sub connection per worker process), renewing its lease.

Bounds (docs/operations.md, Limits; `ChallengeLimits`):
- per client address and per owner key: at most `per_address_per_hour` / `per_key_per_hour`
  challenges created per hour (429 `rate_limited`);
- in flight: at most `per_bot` running challenges per bot (429 `bot_busy`) and `per_person` per
  client address (429 `too_many_challenges`);
- a person who does not move within `idle_s` gets the documented fallback move (the runner's
  seeded random legal move, `harness.runner.fallback_move`) and an `idle_timeout` decision
  record; after `ABSENT_AFTER` idle timeouts in a row the seat is absent and every later move of
  it is a fallback at once; no challenge lasts longer than `max_s` (then the same);
- the bot's owner turns challenges off with the bot's `open` flag (updateBot): a closed bot is
  refused (403 `challenges_off`) unless its owner key is given.

Challenge games are never rated: they belong to no tournament or league. Each bot's latest
`BOT_CHALLENGES_KEPT` challenges are listed on its page (`bot_challenges`), with their results.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any, cast

from rq import Callback, Retry

from core import errors
from core.bot_registry import BotDeleted, BotNotFound, BotRecord, owner_digest
from core.event_hub import EventHub, Listener
from core.timing import DEFAULT as TIMING
from core.timing import env_int
from games.base import GameError
from games.registry import get_game
from harness.queueing import job_id, queue_for
from harness.runner import (
    HarnessContext,
    LeaseLost,
    MatchOutcome,
    MatchRun,
    _Asked,
    _lease_ttl_ms,
    drive,
    fallback_move,
)
from harness.store import MAX_DECISION_BYTES, encode_decision, tournament_tag

# Idle timeouts in a row after which a person's seat is absent: its later moves are fallbacks at once.
ABSENT_AFTER = 3
# How long a finished challenge (its record, its game's match records) is kept.
RETENTION_S = 30 * 86400
BOT_CHALLENGES_KEPT = 200
RETRIES = 3
BOT_ID = re.compile(r"^[0-9a-f]{16}$")
MAX_NAME = 64
# Event streams (person waits) one worker process holds at once; a worker runs 64 jobs by default.
HUB_STREAMS = 1024
IDLE_OUTCOME = "idle_timeout"


class BotBusy(errors.Busy):
    """The bot plays as many challenges as it may at once (429)."""

    status = 429
    code = "bot_busy"


class TooManyChallenges(errors.Busy):
    """The client address has as many challenges in flight as it may (429)."""

    status = 429
    code = "too_many_challenges"


class ChallengeRateLimited(errors.Busy):
    """Over the hourly number of challenges of an address or an owner key (429)."""

    status = 429
    code = "rate_limited"


class ChallengesOff(errors.ServiceError):
    """The bot's owner does not take challenges (the bot is not open) and no owner key was given."""

    status = 403
    code = "challenges_off"


class ChallengeNotFound(errors.ServiceError):
    """No such challenge."""

    status = 404
    code = "challenge_not_found"


@dataclass(frozen=True)
class ChallengeLimits:
    """The bounds of challenges (docs/operations.md, Limits); each has its environment variable."""

    per_address_per_hour: int = 30
    per_key_per_hour: int = 60
    per_bot: int = 8
    per_person: int = 2
    idle_s: int = 120
    max_s: int = 3600

    @classmethod
    def from_env(cls) -> ChallengeLimits:
        """`TRICKARENA_CHALLENGE_PER_ADDRESS_HOUR`, `..._PER_KEY_HOUR`, `..._PER_BOT`, `..._PER_PERSON`,
        `..._IDLE_S`, `..._MAX_S` (TRICKARENA_CHALLENGE_ prefix), else the defaults."""
        d = cls()
        return cls(
            env_int("TRICKARENA_CHALLENGE_PER_ADDRESS_HOUR", d.per_address_per_hour),
            env_int("TRICKARENA_CHALLENGE_PER_KEY_HOUR", d.per_key_per_hour),
            env_int("TRICKARENA_CHALLENGE_PER_BOT", d.per_bot),
            env_int("TRICKARENA_CHALLENGE_PER_PERSON", d.per_person),
            env_int("TRICKARENA_CHALLENGE_IDLE_S", d.idle_s),
            env_int("TRICKARENA_CHALLENGE_MAX_S", d.max_s),
        )


# -- keys ------------------------------------------------------------------------------------------
def _key(ctx: HarnessContext, *parts: str) -> str:
    """A challenge's keys (Redis Cluster hash tags): its record ``ch:{<cid>}`` in the slot of its
    match's keys (`HarnessStore.key_for` of the challenge id); the in-flight slots, which one
    script reserves together, all in one slot: ``ch:{live}:...``; the hourly counts untagged."""
    if len(parts) == 1:
        return ctx.store.prefix + "ch:" + tournament_tag(parts[0])
    if parts[0] == "live":
        return ctx.store.prefix + "ch:{live}:" + ":".join(parts[1:])
    return ctx.store.prefix + "ch:" + ":".join(parts)


def _bot_index(ctx: HarnessContext, bot_id: str) -> str:
    return ctx.store.prefix + f"b:{bot_id}:challenges"


# Reserve one in-flight slot in each sorted set (member: the challenge, score: when the slot lapses
# at the latest), after dropping lapsed ones; all or nothing. KEYS: the sets. ARGV: now ms, lapse ms,
# challenge id, then one cap per key (0: none). Returns 0, or the 1-based position of the first full set.
_RESERVE_LUA = """
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[1])
  local cap = tonumber(ARGV[3 + i])
  if cap > 0 and redis.call('ZCARD', key) >= cap then return i end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, ARGV[2], ARGV[3])
  redis.call('PEXPIREAT', key, ARGV[2])
end
return 0
"""


def _slot_keys(ctx: HarnessContext, bots: list[str], address: str) -> list[str]:
    return [_key(ctx, "live", "bot", b) for b in dict.fromkeys(bots)] + [_key(ctx, "live", "addr", address)]


def _release_slots(ctx: HarnessContext, cid: str, keys: list[str]) -> None:
    pipe = ctx.store.client.pipeline(transaction=False)
    for key in keys:
        pipe.zrem(key, cid)
    pipe.execute()


def _count_hourly(ctx: HarnessContext, what: str, ident: str, limit: int) -> None:
    """Count one challenge of `ident` in this hour's window; 429 over `limit`."""
    if limit <= 0:
        return
    now = time.time()
    hour = int(now // 3600)
    key = _key(ctx, "rate", what, ident, str(hour))
    pipe = ctx.store.client.pipeline(transaction=True)
    pipe.incr(key)
    pipe.expire(key, 3700)
    count = int(pipe.execute()[0])
    if count > limit:
        retry_after = max(1, int((hour + 1) * 3600 - now))
        per = "client address" if what == "addr" else "owner key"
        raise ChallengeRateLimited(
            f"at most {limit} challenges an hour per {per}; retry after {retry_after} s",
            retry_after=retry_after,
            details={"limit": limit, "per": per},
        )


# -- creating ----------------------------------------------------------------------------------------
def resolve_bot(ctx: HarnessContext, ident: str) -> BotRecord:
    """A bot by its id or its (case-insensitive) name; 404 `bot_not_found` otherwise."""
    if len(ident) > MAX_NAME or not ident.strip():
        raise BotNotFound(f"no bot {ident[:MAX_NAME]!r}", details={"bot": ident[:MAX_NAME]})
    bot_id = ident if BOT_ID.match(ident) else None
    if bot_id is None:
        raw = ctx.store.client.get(ctx.bots.key_for("name", ident.strip()))
        bot_id = cast(bytes, raw).decode() if raw else None
    record = ctx.bot(bot_id) if bot_id else None
    if record is None:
        raise BotNotFound(f"no bot {ident!r}", details={"bot": ident})
    return record


def _check_bot(ctx: HarnessContext, record: BotRecord, game: str, owner_keys: list[str]) -> None:
    if record.status == "deleted":
        raise BotDeleted(f"bot {record.name!r} was deleted", details={"bot_id": record.id})
    if game not in record.games:
        raise errors.Unprocessable(
            f"bot {record.name!r} does not play {game}",
            code="bot_game_mismatch",
            details={"bot_id": record.id},
        )
    if not ctx.bots.may_enter(record, owner_keys):
        raise ChallengesOff(
            f"bot {record.name!r} does not take challenges now (its owner turned them off); "
            "its owner key in owner_keys still enters it",
            details={"bot_id": record.id},
        )


def create_challenge(
    ctx: HarnessContext,
    limits: ChallengeLimits,
    game: str,
    seats: int,
    people: list[int],
    bots: list[str],
    options: dict[str, Any] | None,
    owner_keys: list[str],
    address: str,
) -> dict[str, Any]:
    """Check, create the game, reserve the slots and queue the run; the challenge with the people's
    seat tokens (shown only now). Raises a `ServiceError` having written nothing (but rate counts)."""
    try:
        engine = get_game(game)
    except GameError as exc:
        raise errors.Unprocessable(exc.message, code="unknown_game") from None
    if seats not in engine.seat_counts:
        raise errors.Unprocessable(
            f"{game} is played by {list(engine.seat_counts)} seats, not {seats}", code="invalid_seats"
        )
    if len(set(people)) != len(people) or not all(0 <= s < seats for s in people):
        raise errors.Unprocessable("people must be distinct seats of the game", code="invalid_seats")
    if not people or len(people) + len(bots) != seats or not bots:
        raise errors.Unprocessable(
            f"a challenge has at least one person and one bot: {seats} seats, {len(people)} people, "
            f"{len(bots)} bots",
            code="invalid_seats",
        )
    records = [resolve_bot(ctx, b) for b in bots]
    for record in records:
        _check_bot(ctx, record, game, owner_keys)
    _count_hourly(ctx, "addr", address, limits.per_address_per_hour)
    for key in dict.fromkeys(owner_keys):
        _count_hourly(ctx, "key", owner_digest(key)[:32], limits.per_key_per_hour)
    bot_seats = [s for s in range(seats) if s not in people]
    seat_bots = [""] * seats
    for seat, record in zip(bot_seats, records, strict=True):
        seat_bots[seat] = record.id
    cid = "ch" + secrets.token_hex(7)
    now = time.time()
    keys = _slot_keys(ctx, [r.id for r in records], address)
    caps = [limits.per_bot] * (len(keys) - 1) + [limits.per_person]
    reserve = ctx.store.client.register_script(_RESERVE_LUA)
    lapse_ms = int((now + limits.max_s + 120) * 1000)
    full = int(cast(int, reserve(keys=keys, args=[int(now * 1000), lapse_ms, cid, *caps])))
    if full:
        if full == len(keys):
            raise TooManyChallenges(
                f"this address plays {limits.per_person} challenges already; finish one first",
                retry_after=30,
                details={"limit": limits.per_person},
            )
        busy = list(dict.fromkeys(r.id for r in records))[full - 1]
        raise BotBusy(
            f"bot {busy} plays {limits.per_bot} challenges already; retry later",
            retry_after=30,
            details={"limit": limits.per_bot, "bot_id": busy},
        )
    try:
        created = ctx.service.create_game(game, seats, options or None)
    except Exception:
        _release_slots(ctx, cid, keys)
        raise
    seed = secrets.randbits(53)
    names = {r.id: r.name for r in records}
    spec = {
        "game": game,
        "seats": seats,
        "options": options or {},
        "people": sorted(people),
        "bots": seat_bots,
        "names": [names.get(b, "") for b in seat_bots],
        "game_id": created.game_id,
        "deadline_ms": TIMING.deadline_ms,
        "time_bank_ms": TIMING.time_bank_ms,
        "fault_threshold": 3,
        "idle_s": limits.idle_s,
        "max_s": limits.max_s,
        "slots": keys,
        "match": {
            "index": 0,
            "deal": 0,
            "table": 0,
            "rotation": 0,
            "seats": [b or "person" for b in seat_bots],
            "match_seed": seed,
            "deal_seed": 0,
        },
    }
    client = ctx.store.client
    pipe = client.pipeline(transaction=True)
    pipe.hset(
        _key(ctx, cid),
        mapping={"spec": json.dumps(spec), "status": "running", "created_at": now, "address": address},
    )
    pipe.expire(_key(ctx, cid), limits.max_s + RETENTION_S)
    pipe.execute()
    # The bots' listings: other hash slots, after the record (ZADD: idempotent).
    pipe = client.pipeline(transaction=False)
    for bot_id in dict.fromkeys(r.id for r in records):
        pipe.zadd(_bot_index(ctx, bot_id), {cid: now})
        pipe.zremrangebyrank(_bot_index(ctx, bot_id), 0, -BOT_CHALLENGES_KEPT - 1)
    pipe.execute()
    queue_for(ctx).enqueue(
        "harness.jobs.run_challenge_job",
        cid,
        job_id=job_id(ctx, "challenge", cid),
        job_timeout=limits.max_s + 300,
        result_ttl=0,
        failure_ttl=7 * 86400,
        retry=Retry(max=RETRIES),
        on_failure=Callback("harness.jobs.challenge_failed"),
        at_front=True,  # a person waits for it
    )
    out = get_challenge(ctx, cid)
    out["tokens"] = [{"seat": s, "token": created.tokens[s]} for s in sorted(people)]
    return out


# -- reading ---------------------------------------------------------------------------------------
def _load(ctx: HarnessContext, cid: str) -> dict[str, Any]:
    if not re.fullmatch(r"ch[0-9a-f]{14}", cid):
        raise ChallengeNotFound(f"no challenge {cid[:20]!r}")
    raw = cast(dict[bytes, bytes], ctx.store.client.hgetall(_key(ctx, cid)))
    if not raw:
        raise ChallengeNotFound(f"no challenge {cid!r}")
    text = {k.decode(): v.decode() for k, v in raw.items()}
    out: dict[str, Any] = {
        "challenge_id": cid,
        "spec": json.loads(text["spec"]),
        "status": text.get("status", "running"),
        "created_at": float(text["created_at"]),
        "finished_at": float(text["finished_at"]) if "finished_at" in text else None,
        "result": json.loads(text["result"]) if "result" in text else None,
        "answers": json.loads(text["answers"]) if "answers" in text else {},
        "error": text.get("error"),
    }
    return out


def get_challenge(ctx: HarnessContext, cid: str) -> dict[str, Any]:
    """What anyone may read of a challenge: game, seats (each a person or a bot, named, with its
    answer times so far), status and result; never a token or a card."""
    record = _load(ctx, cid)
    spec = record["spec"]
    answers = record["answers"]
    players = []
    for seat in range(int(spec["seats"])):
        person = seat in spec["people"]
        times = answers.get(str(seat)) or {}
        players.append(
            {
                "seat": seat,
                "kind": "person" if person else "bot",
                "bot_id": None if person else spec["bots"][seat],
                "name": "person" if person else spec["names"][seat],
                "moves": int(times.get("n", 0)),
                "last_ms": times.get("last"),
                "mean_ms": round(times["sum"] / times["n"]) if times.get("n") else None,
                "idle_timeouts": int(times.get("idle", 0)),
            }
        )
    result = record["result"]
    return {
        "challenge_id": cid,
        "game": spec["game"],
        "seats": int(spec["seats"]),
        "options": spec["options"],
        "game_id": spec["game_id"],
        "status": record["status"],
        "rated": False,
        "players": players,
        "idle_s": int(spec["idle_s"]),
        "created_at": _iso(record["created_at"]),
        "finished_at": _iso(record["finished_at"]),
        "result": {"scores": result["scores"], "winners": result["winners"]} if result else None,
        "error": record["error"],
    }


def _iso(stamp: float | None) -> str | None:
    if stamp is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


def bot_challenges(ctx: HarnessContext, bot_id: str, limit: int = 20) -> list[dict[str, Any]]:
    """The bot's latest challenges (newest first, at most `limit`), each as `get_challenge` shows it."""
    ids = [
        c.decode()
        for c in cast(list[bytes], ctx.store.client.zrevrange(_bot_index(ctx, bot_id), 0, limit - 1))
    ]
    out = []
    for cid in ids:
        try:
            out.append(get_challenge(ctx, cid))
        except ChallengeNotFound:
            continue  # expired
    return out


# -- running ---------------------------------------------------------------------------------------
_hub_lock = threading.Lock()
_hubs: dict[int, EventHub] = {}


def worker_hub(ctx: HarnessContext) -> EventHub:
    """The worker process's event hub (one pub/sub connection for every person it waits for)."""
    with _hub_lock:
        hub = _hubs.get(id(ctx.service))
        if hub is None:
            hub = _hubs[id(ctx.service)] = EventHub(ctx.service, HUB_STREAMS)
        return hub


class ChallengeRun(MatchRun):
    """A challenge's match: bot seats as in a tournament; a person's seat waits for its move."""

    def __init__(self, ctx: HarnessContext, record: dict[str, Any], token: str, ttl_ms: int) -> None:
        spec = record["spec"]
        super().__init__(ctx, record["challenge_id"], 0, spec, spec["match"], token, ttl_ms)
        self.people = frozenset(int(s) for s in spec["people"])
        self.idle_s = float(spec["idle_s"])
        self.ends_at = time.monotonic() + max(0.0, record["created_at"] + float(spec["max_s"]) - time.time())
        self.answers: dict[str, dict[str, int]] = dict(record["answers"])
        self.listener: Listener | None = None

    def is_bot(self, seat: int) -> bool:
        """People's seats are not bots: never asked, never notified."""
        return seat not in self.people

    def open_game(self) -> None:
        """The challenge's game, created with it; its events watched from here on."""
        game_id = self.ctx.store.claim_game_id(self.tid, 0, self.spec["game_id"])
        self.listener = worker_hub(self.ctx).attach(game_id)
        self.game = self.ctx.service.load(game_id)

    def cancelled(self) -> bool:
        """A challenge is not cancelled: it ends, or its people are replaced by fallbacks."""
        return False

    def play_decision(self, seat: int | None = None) -> None:
        """A bot to move plays as in a tournament; otherwise wait for the person to move."""
        to_move = self.engine.to_move(self.game.state)
        bots = [s for s in to_move if self.is_bot(s)]
        if bots:
            super().play_decision(bots[0])
            return
        self.wait_for_person(to_move[0])

    def account(self, seat: int, asked: _Asked | None) -> None:
        """The runner's accounting, and the seat's answer time for the page."""
        super().account(seat, asked)
        if asked is not None:
            self._note(seat, round(asked.answer.elapsed_s * 1000))

    def _note(self, seat: int, ms: int | None, idle: bool = False) -> None:
        times = self.answers.setdefault(str(seat), {"n": 0, "sum": 0, "last": 0, "idle": 0})
        if idle:
            times["idle"] = times.get("idle", 0) + 1
            times["streak"] = times.get("streak", 0) + 1
            return
        times["n"] += 1
        times["sum"] += ms or 0
        times["last"] = ms or 0
        times["streak"] = 0

    def _publish(self) -> None:
        self.ctx.store.client.hset(_key(self.ctx, self.tid), "answers", json.dumps(self.answers))

    def _renew(self) -> None:
        if not self.ctx.store.renew_lease(self.tid, 0, self.token, self.ttl_ms):
            raise LeaseLost(f"lost the lease of challenge {self.tid}")

    def wait_for_person(self, seat: int) -> None:
        """Wait (up to the idle timeout) for the person's move on the event hub; else play the
        fallback for them through the same write path."""
        self._publish()
        assert self.listener is not None
        version = self.game.version
        started = time.monotonic()
        absent = int(self.answers.get(str(seat), {}).get("streak", 0)) >= ABSENT_AFTER
        deadline = min(started + (0.0 if absent else self.idle_s), self.ends_at)
        while (remaining := deadline - time.monotonic()) > 0:
            batches, lost = self.listener.take(min(remaining, self.ttl_ms / 3000))
            self._renew()
            if not batches and not lost:
                continue
            current = self.ctx.service.load(self.game.game_id)
            if current.version != version:
                self._took(current, started)
                return
        current = self.ctx.service.load(self.game.game_id)
        if current.version != version:  # moved just in time
            self._took(current, started)
            return
        legal = self.engine.legal_moves(self.game.state, seat)
        move = fallback_move(legal, int(self.match["match_seed"]), self.game.version)
        self.acct.decisions += 1
        self.pending.append(encode_decision(seat, None, IDLE_OUTCOME))
        self._note(seat, None, idle=True)
        self.commit(seat, move)

    def _took(self, current: Any, started: float) -> None:
        """People moved (the game went on without the runner): record their decisions."""
        ms = round((time.monotonic() - started) * 1000)
        before = len(self.game.state["actions"])
        for action in current.state["actions"][before:]:
            seat = int(action["seat"])
            self.pending.append(encode_decision(seat, ms, "ok"))
            self.acct.decisions += 1
            self._note(seat, ms)
        self.game = current

    def store_result(self, record: dict[str, Any]) -> tuple[bool, int]:
        """The result in the challenge's own record (once), the decision records with the match's."""
        store = self.ctx.store
        client = store.client
        decisions = store.key_for("decisions", self.tid, 0)
        recorded = bool(client.hsetnx(_key(self.ctx, self.tid), "result", json.dumps(record)))
        if recorded:
            self.answers = {k: {**v, "streak": 0} for k, v in self.answers.items()}
            data = "".join(self.pending)
            used = int(client.strlen(decisions))
            pipe = client.pipeline(transaction=True)
            if data and used + len(data) <= MAX_DECISION_BYTES:
                pipe.append(decisions, data)
            pipe.hset(
                _key(self.ctx, self.tid),
                mapping={
                    "status": "finished",
                    "finished_at": time.time(),
                    "answers": json.dumps(self.answers),
                },
            )
            for key in (decisions, store.key_for("match", self.tid, 0)):
                pipe.expire(key, RETENTION_S)
            pipe.expire(_key(self.ctx, self.tid), RETENTION_S)
            pipe.execute()
        else:
            # A run that died between the result and the status: the result is in, so is the end.
            pipe = client.pipeline(transaction=True)
            pipe.hset(_key(self.ctx, self.tid), "status", "finished")
            pipe.hsetnx(_key(self.ctx, self.tid), "finished_at", time.time())
            pipe.execute()
        _release_slots(self.ctx, self.tid, list(self.spec["slots"]))
        return recorded, 1

    def close(self) -> None:
        """Close the bots' connections and stop watching the game."""
        super().close()
        if self.listener is not None:
            worker_hub(self.ctx).detach(self.listener)
            self.listener = None


def run_challenge(ctx: HarnessContext, cid: str, wait_s: float | None = None) -> MatchOutcome:
    """Play (or resume) a challenge to its end; its result recorded once."""
    record = _load(ctx, cid)
    if record["result"] is not None:
        return MatchOutcome("already_recorded")
    spec = record["spec"]
    ttl_ms = _lease_ttl_ms(spec)
    store = ctx.store
    token = store.acquire_lease(cid, 0, ttl_ms)
    give_up = time.monotonic() + (wait_s if wait_s is not None else ttl_ms / 1000 + 5)
    while token is None:
        if time.monotonic() > give_up:
            return MatchOutcome("busy")
        time.sleep(0.2)
        token = store.acquire_lease(cid, 0, ttl_ms)
    try:
        return drive(ChallengeRun(ctx, record, token, ttl_ms))
    finally:
        store.release_lease(cid, 0, token)


def challenge_error(ctx: HarnessContext, cid: str, message: str) -> None:
    """A challenge whose run failed for good: marked `error`, its slots freed. One that finished is
    left as it is: its job can still fail after the result is in (RQ 3.0 raises on success when a
    dead worker's execution of the same job has expired but is still listed, for up to 60 s)."""
    try:
        record = _load(ctx, cid)
    except ChallengeNotFound:
        return
    if record["status"] == "finished":
        return
    pipe = ctx.store.client.pipeline(transaction=True)
    pipe.hset(_key(ctx, cid), mapping={"status": "error", "error": message[:300]})
    for key in (_key(ctx, cid), ctx.store.key_for("match", cid, 0), ctx.store.key_for("decisions", cid, 0)):
        pipe.expire(key, RETENTION_S)
    pipe.execute()
    _release_slots(ctx, cid, list(record["spec"]["slots"]))
