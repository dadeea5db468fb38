"""The match runner: plays one scheduled match through the games service, asking bots over HTTP.

Fault-proofing, in the order a match goes:

- **One runner per match.** A lease (`HarnessStore.acquire_lease`, renewed at least every third
  of its TTL) keeps a retried job from playing alongside a runner that is still alive; a retried
  job waits for a dead runner's lease to expire, then continues.
- **The game in Redis is the checkpoint.** The game is created through `core.service.GameService`
  (so it is visible live through the games API) and its id recorded with HSETNX; a resumed run
  reloads it and goes on from the last applied move.
- **Write-ahead record.** Before a move that changes the accounting is applied (a fault, time
  taken from the bank) -- and at least with every lease renewal -- the runner stores ``wal``:
  the game version the move applies to, the number of actions before it, the move, its fault
  and the per-seat fault counters / time banks *after* it. On resume, a WAL whose version is
  still the game's version is applied as decided (the bot is not asked twice, no fault is
  counted twice); every later action in the game was an accepted answer (anything else would
  have written a WAL), which restores each seat's ``previous``. Accepted moves of well-behaved
  bots thus cost one Redis round trip (the game's own compare-and-set), not two.
- **Faults** (timeout, connection error, non-200, oversize, malformed body, illegal move) are
  replaced by a fallback move drawn from the legal moves with a RNG seeded by the match seed
  and the game version (deterministic), and told to the bot on its next request. Once a bot
  passes the fault threshold it is marked unrated for the match and no longer called in it
  (its remaining moves are fallbacks), so a hanging bot can't stall the tournament.
- **Exactly once.** The result is written with a Lua HSETNX that also counts completions.
- **Decision records.** Every decision leaves a compact record (`harness.store.encode_decision`:
  seat, latency, outcome, whether the fallback was played, and for a fault the bot's
  HTTP status and the first 512 bytes of its answer or the transport error). They are buffered
  and travel with the writes the runner makes anyway -- the write-ahead record (so a fault's
  record is stored before its move) and the result -- so they cost no round trip of their own.
  A resumed run re-creates the records a dead run had not stored from the game's actions (each
  an accepted answer, as above) without their latency.
"""

from __future__ import annotations

import logging
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import redis

from bots.protocol import MoveStatus
from core.bot_registry import BotNotFound, BotRecord, BotRegistry
from core.errors import GameNotFound, PreconditionFailed
from core.outbound import AddressPolicy
from core.redis_factory import API_RETRY, WORKER_RETRY, RetryPolicy, redis_url, rq_client, rq_url
from core.repository import GameRepository, StoredGame
from core.service import GameService, new_game_id
from core.telemetry import BOT_LATENCY_BUCKETS, latency_bucket, record_match
from core.timing import TimePolicy
from games.base import Game
from games.registry import get_game
from harness.bot_client import BotClient, MoveAnswer, move_request
from harness.faults import add_reason, fault_reason
from harness.health import WorkerHealth, WorkerUnreachable
from harness.scheduling import derive_seed
from harness.store import HarnessStore, encode_decision

log = logging.getLogger("trickarena.harness")

LEASE_MARGIN_MS = 5000
# A fault's answer body (or transport error) is kept for a seat's first faults of a match only.
DETAIL_FAULTS = 8
DETAIL_CHARS = 512
# The outcome of a decision the bot was not asked for (it was past the fault threshold).
NOT_ASKED = "not_asked"
# A match abandoned this many times as an infrastructure error (harness.health) no longer is: a
# doubt that keeps moving it between workers is charged to the bot as usual.
MAX_ABANDONS = 3


def is_cooperative(game: str) -> bool:
    """True for games whose seats play as one team (cross-play standings): the game declares it."""
    return get_game(game).cooperative


@dataclass
class HarnessContext:
    """Everything a job needs, built once per worker process from the environment."""

    store: HarnessStore
    service: GameService
    bots: BotRegistry
    policy: AddressPolicy | None = None
    queue_name: str = "trickarena"
    redis_url: str = ""
    # The shortest time between two league rounds (docs/operations.md, Limits).
    min_league_interval_s: int = int(os.environ.get("TRICKARENA_MIN_LEAGUE_INTERVAL_S", "60"))
    # RQ's Redis (`RQ_REDIS_URL`); None: the store's own client.
    rq: redis.Redis | None = None
    # A worker's view of its own network (set by `harness.jobs.HarnessWorker`); None elsewhere.
    health: WorkerHealth | None = None

    @property
    def rq_connection(self) -> redis.Redis:
        """The client of RQ's queues, jobs and workers."""
        return self.rq if self.rq is not None else self.store.client

    @classmethod
    def from_env(cls, retry: RetryPolicy = WORKER_RETRY) -> HarnessContext:
        """REDIS_URL, RQ_REDIS_URL, TRICKARENA_KEY_PREFIX, TRICKARENA_QUEUE (the same variables as
        the API); a worker's clients by default (they ride out a failover)."""
        prefix = os.environ.get("TRICKARENA_KEY_PREFIX", "ta:")
        return cls.build(redis_url(), prefix, os.environ.get("TRICKARENA_QUEUE", "trickarena"), retry)

    @classmethod
    def build(
        cls, url: str, prefix: str, queue_name: str = "trickarena", retry: RetryPolicy = API_RETRY
    ) -> HarnessContext:
        """A context on the Redis `url` names (and RQ on `RQ_REDIS_URL`, default the same) with
        key prefix `prefix`."""
        repository = GameRepository.from_url(url, prefix=prefix, retry=retry)
        store = HarnessStore(repository.client, prefix)
        policy = AddressPolicy.from_env()
        bots = BotRegistry(repository.client, prefix, policy=policy)
        queue_url = rq_url(storage_url=url)
        rq = rq_client(queue_url, retry) if queue_url != url else None
        return cls(store, GameService(repository), bots, policy, queue_name, url, rq=rq)

    def bot(self, bot_id: str) -> BotRecord | None:
        """A bot of the registry (deleted ones included: their matches still finish), or None."""
        try:
            return self.bots.record(bot_id)
        except BotNotFound:
            return None


@dataclass
class MatchOutcome:
    """What `run_match` did: recorded now, found already recorded, cancelled, or lease busy."""

    status: str  # "recorded" | "already_recorded" | "cancelled" | "busy"
    result: dict[str, Any] | None = None
    completed: int = 0


@dataclass
class _Accounting:
    faults: list[int]
    fault_codes: list[dict[str, int]]
    bank_ms: list[int]
    previous: list[dict[str, Any] | None]
    decisions: int = 0
    bot_s: float = 0.0
    unrated: list[int] = field(default_factory=list)
    # /move answer times as histogram bucket counts (api.ops.latency_bucket) and their sum.
    latency_counts: list[int] = field(default_factory=lambda: [0] * (len(BOT_LATENCY_BUCKETS) + 1))
    latency_s: float = 0.0
    # Per seat: the /move calls made (a seat past the threshold is no longer called) and its
    # faults by reason (`harness.faults.fault_reason`).
    calls: list[int] = field(default_factory=list)
    reasons: list[dict[str, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (stored in the write-ahead record)."""
        return {
            "faults": self.faults,
            "fault_codes": self.fault_codes,
            "bank_ms": self.bank_ms,
            "previous": self.previous,
            "decisions": self.decisions,
            "bot_s": self.bot_s,
            "unrated": self.unrated,
            "latency_counts": self.latency_counts,
            "latency_s": self.latency_s,
            "calls": self.calls,
            "reasons": self.reasons,
        }

    @classmethod
    def fresh(cls, seats: int, bank_ms: int) -> _Accounting:
        """Accounting at the start of a match: no faults, full banks."""
        acct = cls([0] * seats, [{} for _ in range(seats)], [bank_ms] * seats, [None] * seats)
        acct.calls, acct.reasons = [0] * seats, [{} for _ in range(seats)]
        return acct

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> _Accounting:
        """Accounting read back from a write-ahead record."""
        acct = cls(
            list(data["faults"]),
            [dict(c) for c in data["fault_codes"]],
            list(data["bank_ms"]),
            list(data["previous"]),
            int(data["decisions"]),
            float(data["bot_s"]),
            list(data["unrated"]),
        )
        counts = data.get("latency_counts")  # absent from records written before the histogram
        if counts is not None and len(counts) == len(acct.latency_counts):
            acct.latency_counts = [int(n) for n in counts]
            acct.latency_s = float(data.get("latency_s", 0.0))
        seats = len(acct.faults)
        # Absent from records written before the decision records.
        acct.calls = [int(n) for n in data.get("calls") or [0] * seats]
        acct.reasons = [dict(r) for r in data.get("reasons") or [{} for _ in range(seats)]]
        return acct


def fallback_move(legal: list[dict[str, Any]], match_seed: int, version: int) -> dict[str, Any]:
    """The move played for a faulting bot: seeded by the match seed and the game version."""
    return random.Random(derive_seed(match_seed, "fallback", version)).choice(legal)


def _lease_ttl_ms(spec: dict[str, Any]) -> int:
    return TimePolicy.of_spec(spec).longest_move_ms + LEASE_MARGIN_MS


def run_match(ctx: HarnessContext, tid: str, index: int, wait_s: float | None = None) -> MatchOutcome:
    """Play (or resume) match `index` of tournament `tid` to the end and record its result once."""
    store = ctx.store
    tournament = store.tournament(tid)
    if tournament is None:
        raise LookupError(f"no tournament {tid}")
    spec = tournament["spec"]
    if store.has_result(tid, index):
        return MatchOutcome("already_recorded", completed=tournament["completed"])
    if tournament["status"] == "cancelled":
        return MatchOutcome("cancelled")
    ttl_ms = _lease_ttl_ms(spec)
    token = store.acquire_lease(tid, index, ttl_ms)
    # A retried job may find the lease of a runner that died: wait for it to expire.
    give_up = time.monotonic() + (wait_s if wait_s is not None else ttl_ms / 1000 + 5)
    while token is None:
        if store.has_result(tid, index):
            return MatchOutcome("already_recorded")
        if time.monotonic() > give_up:
            return MatchOutcome("busy")
        time.sleep(0.2)
        token = store.acquire_lease(tid, index, ttl_ms)
    try:
        return _play(ctx, tid, index, spec, token, ttl_ms)
    finally:
        store.release_lease(tid, index, token)


def _play(
    ctx: HarnessContext, tid: str, index: int, spec: dict[str, Any], token: str, ttl_ms: int
) -> MatchOutcome:
    """Run the match in its named steps (as RQ's `perform_job` runs a job): open, resume, start,
    one decision after another, finish."""
    match = ctx.store.match_spec(tid, index)
    if match is None:
        raise LookupError(f"tournament {tid} has no match {index}")
    if ctx.store.has_result(tid, index):
        return MatchOutcome("already_recorded")
    ctx.store.set_status(tid, "running", only_from=("scheduled",))
    return drive(MatchRun(ctx, tid, index, spec, match, token, ttl_ms))


def drive(run: MatchRun) -> MatchOutcome:
    """A run's steps in order (a tournament's match, or a challenge: `harness.challenges`)."""
    try:
        run.open_game()
        run.resume()
        run.connect_bots()
        if not run.resumed:
            run.start()
        while not run.over():
            if run.cancelled():
                return MatchOutcome("cancelled")
            run.play_decision()
        return run.finish()
    finally:
        run.close()


@dataclass
class _Clock:
    """Wall and CPU time of one run of a match (a resumed match counts only its own run)."""

    started: float = field(default_factory=time.monotonic)
    # The match's own thread's CPU: a worker runs many matches at once, one thread each.
    cpu_started: float = field(default_factory=time.thread_time)
    call_cpu_s: float = 0.0  # CPU this thread spends inside bot calls (HTTP client, signing, JSON)
    next_cancel_check: float = 0.0
    next_renew: float = 0.0


class MatchRun:
    """One run of one match, step by step; the game in Redis and the WAL make every step resumable."""

    def __init__(
        self,
        ctx: HarnessContext,
        tid: str,
        index: int,
        spec: dict[str, Any],
        match: dict[str, Any],
        token: str,
        ttl_ms: int,
    ) -> None:
        self.ctx, self.tid, self.index, self.spec, self.match = ctx, tid, index, spec, match
        self.token, self.ttl_ms = token, ttl_ms
        self.engine: Game = get_game(spec["game"])
        self.seats: list[str] = match["seats"]
        self.match_id = f"{tid}:{index}"
        # The one time policy (core.timing): the call bounds, the bank, what a timeout is.
        self.timing = TimePolicy.of_spec(spec)
        self.deadline_ms = self.timing.deadline_ms
        self.threshold = int(spec.get("fault_threshold", 3))
        self.runtime = ctx.store.match_runtime(tid, index)
        self.resumed = self.runtime.get("game_id") is not None
        wal = self.runtime.get("wal")
        seats = len(self.seats)
        self.acct = (
            _Accounting.from_dict(wal["acct"]) if wal else _Accounting.fresh(seats, self.timing.time_bank_ms)
        )
        self.clients: dict[str, BotClient] = {}
        self.versions: dict[str, str] = {}  # each bot's registry version when the match ran
        self.clock = _Clock(next_renew=time.monotonic() + ttl_ms / 3000)
        self.bot_s_before = self.acct.bot_s
        self.decisions_before = 0
        # Decision records (`encode_decision` lines) not stored yet: they go with the next WAL or
        # the result.
        self.pending: list[str] = []
        self.game: StoredGame

    # -- steps -----------------------------------------------------------------------------
    def open_game(self) -> None:
        """Create the match's game (sealed: its deal is played at other tables too) or reload it.

        The id the game will have is recorded (``planned``) before the game is created, and the
        game's id (``game_id``, what readers and resumed runs go by) after: a run that dies in
        between leaves no game that nobody knows of (it would stay sealed in Redis for ever); the
        next run creates the planned game if it is missing, or takes it as it is.
        """
        game_id = self.runtime.get("game_id")
        if game_id is None:
            store = self.ctx.store
            planned = store.claim_game_id(self.tid, self.index, new_game_id(), field="planned")
            try:
                self.ctx.service.load(planned, with_actions=False)
            except GameNotFound:
                self.ctx.service.create_game(
                    self.spec["game"],
                    len(self.seats),
                    self.spec.get("options") or None,
                    seed=int(self.match["deal_seed"]),
                    sealed=True,
                    game_id=planned,
                )
            game_id = store.claim_game_id(self.tid, self.index, planned)
        self.game = self.ctx.service.load(game_id)

    def resume(self) -> None:
        """Apply a write-ahead move that a dead run decided but did not apply; restore `previous`."""
        wal = self.runtime.get("wal")
        if wal and int(wal["version"]) == self.game.version and not self.over():
            self.commit(int(wal["seat"]), wal["move"])
        if wal:
            # Actions after the WAL's own move were accepted answers: a fault would have written one.
            for action in self.game.state["actions"][int(wal["actions"]) + 1 :]:
                self.acct.previous[int(action["seat"])] = {"status": MoveStatus.ACCEPTED.value, "fault": None}
        # The records a dead run had buffered: accepted answers (or, past the threshold, fallbacks).
        actions = self.game.state["actions"]
        for k in range(int(self.runtime.get("decisions", 0)), len(actions)):
            seat = int(actions[k]["seat"])
            self.pending.append(encode_decision(seat, None, NOT_ASKED if seat in self.acct.unrated else "ok"))
        self.acct.decisions = len(self.game.state["actions"])
        self.decisions_before = self.acct.decisions

    def is_bot(self, seat: int) -> bool:
        """Whether a bot plays `seat` (every seat of a tournament; a challenge has people too)."""
        return True

    def connect_bots(self) -> None:
        """One keep-alive client per bot (a deleted bot's seats get fallbacks); record their versions."""
        health = self.ctx.health
        for bot_id in {b for s, b in enumerate(self.seats) if self.is_bot(s)}:
            record = self.ctx.bot(bot_id)
            url = record.url if record else "http://invalid.invalid/"
            on_reach = (lambda b=bot_id: health.reached(b)) if health is not None and record else None
            self.clients[bot_id] = BotClient(
                url, record.secret if record else None, self.ctx.policy, on_reach
            )
            self.versions[bot_id] = record.version if record else ""
        # Also readable while the match plays (getTournamentMatch); the result records them too.
        self.ctx.store.set_bot_versions(self.tid, self.index, [self.versions.get(b, "") for b in self.seats])

    def start(self) -> None:
        """POST /start to every seat's bot, then renew the lease (slow answers must not outlive it)."""
        spec = self.spec
        self.acct.bot_s += self.notify_all(
            "/start",
            lambda seat: {
                "match_id": self.match_id,
                "game": spec["game"],
                "seat": seat,
                "seats": len(self.seats),
                "options": spec.get("options") or {},
                "deadline_ms": self.deadline_ms,
                "time_bank_ms": self.timing.time_bank_ms,
                "opponents": [b for s, b in enumerate(self.seats) if s != seat],
            },
        )
        if not self.ctx.store.renew_lease(self.tid, self.index, self.token, self.ttl_ms):
            raise LeaseLost(f"lost the lease of match {self.match_id}")
        self.clock.next_renew = time.monotonic() + self.ttl_ms / 3000

    def over(self) -> bool:
        """True once the game has ended."""
        return self.game.finished or self.engine.is_over(self.game.state)

    def cancelled(self) -> bool:
        """Whether the tournament was cancelled (checked about once a second, not per move)."""
        now = time.monotonic()
        if now < self.clock.next_cancel_check:
            return False
        self.clock.next_cancel_check = now + 1.0
        return self.ctx.store.tournament_status(self.tid) == "cancelled"

    def play_decision(self, seat: int | None = None) -> None:
        """One decision: ask the seat's bot (or fall back), account for it, write ahead, commit."""
        state = self.game.state
        if seat is None:
            seat = self.engine.to_move(state)[0]
        legal = self.engine.legal_moves(state, seat)
        asked = self.ask(seat, legal)
        move = asked.answer.move if asked else None
        if move is None:
            move = fallback_move(legal, int(self.match["match_seed"]), self.game.version)
        self.account(seat, asked)
        fault = asked.answer.fault if asked else None
        self.write_ahead(seat, move, fault, asked is not None and asked.over_ms > 0)
        self.commit(seat, move)

    def finish(self) -> MatchOutcome:
        """POST /end (no final view: the deal is still in play elsewhere), record the result once."""
        result = self.engine.result(self.game.state)
        self.acct.bot_s += self.notify_all(
            "/end",
            lambda seat: {
                "match_id": self.match_id,
                "game": self.spec["game"],
                "seat": seat,
                "result": result,
                "view": None,
                "faults": self.acct.faults[seat],
            },
        )
        timing = {
            "wall_s": time.monotonic() - self.clock.started,
            # This match's CPU (engine, Redis client, HTTP client): load-independent, unlike wall time.
            "cpu_s": time.thread_time() - self.clock.cpu_started,
            "call_cpu_s": self.clock.call_cpu_s,
            "bot_s": self.acct.bot_s - self.bot_s_before,
            "decisions": self.acct.decisions - self.decisions_before,
            "resumed": self.resumed,
        }
        record = _result_record(self.spec, self.match, self.game.game_id, result, self.acct, timing)
        record["versions"] = [self.versions.get(bot, "") for bot in self.seats]
        store = self.ctx.store
        recorded, completed = self.store_result(record)
        self.pending = []
        if recorded:
            record_match(store.client, store.prefix, self.spec["game"], record)  # platform-wide /metrics
        # The write-ahead record served until the result was in; the match's hash keeps its game id.
        store.client.hdel(store.key_for("match", self.tid, self.index), "wal")
        return MatchOutcome("recorded" if recorded else "already_recorded", record, completed)

    def store_result(self, record: dict[str, Any]) -> tuple[bool, int]:
        """Record the result once, with the decision records not stored yet; (recorded now?, completed)."""
        return self.ctx.store.record_result(self.tid, self.index, record, self.pending)

    def close(self) -> None:
        """Close the bots' connections."""
        for client in self.clients.values():
            client.close()

    # -- the parts of a decision -----------------------------------------------------------
    def ask(self, seat: int, legal: list[dict[str, Any]]) -> _Asked | None:
        """The seat's bot's answer (move or fault, timing, and how far past the deadline: the time
        taken from its bank), or None for a bot over the fault threshold: it is no longer asked in
        this match (its moves are fallbacks).
        """
        if seat in self.acct.unrated:
            return None
        acct = self.acct
        message = move_request(
            self.match_id,
            self.spec["game"],
            seat,
            self.engine.view(self.game.state, seat),
            legal,
            self.deadline_ms,
            acct.bank_ms[seat],
            acct.previous[seat],
        )
        cpu_before = time.thread_time()
        client = self.clients[self.seats[seat]]
        answer = client.move(message, legal, self.timing.move_timeout_s(acct.bank_ms[seat]))
        self.clock.call_cpu_s += time.thread_time() - cpu_before
        if not answer.reached:
            self.check_own_network(self.seats[seat])
        acct.bot_s += answer.elapsed_s
        acct.latency_counts[latency_bucket(answer.elapsed_s)] += 1
        acct.latency_s += answer.elapsed_s
        over_ms = self.timing.over_ms(answer.elapsed_s)
        acct.bank_ms[seat] = self.timing.charge(acct.bank_ms[seat], answer.elapsed_s)
        return _Asked(answer, over_ms)

    def check_own_network(self, bot_id: str) -> None:
        """A call that never got to the bot: if that is likely this worker's own network
        (`harness.health`), abandon the match uncharged (`WorkerUnreachable`, retried elsewhere)."""
        health = self.ctx.health
        if health is None or self.ctx.bot(bot_id) is None:
            return
        key = self.ctx.store.key_for("match", self.tid, self.index)
        abandoned = int(cast(bytes | None, self.ctx.store.client.hget(key, "abandoned")) or 0)
        if abandoned >= MAX_ABANDONS or not health.doubt(bot_id):
            return
        self.ctx.store.client.hincrby(key, "abandoned", 1)
        raise WorkerUnreachable(
            f"worker {health.worker} could not reach bot {bot_id}, which other workers reach"
        )

    def account(self, seat: int, asked: _Asked | None) -> None:
        """Count a fault (and mark the seat unrated past the threshold); set what the bot is told
        next; keep the decision's record (a bot not asked: a fallback, not a fault)."""
        acct = self.acct
        if asked is None:
            acct.decisions += 1
            self.pending.append(encode_decision(seat, None, NOT_ASKED))
            return
        acct.calls[seat] += 1
        answer = asked.answer
        fault = answer.fault
        latency_ms = round(answer.elapsed_s * 1000)
        if fault is not None:
            acct.faults[seat] += 1
            acct.fault_codes[seat][fault] = acct.fault_codes[seat].get(fault, 0) + 1
            add_reason(acct.reasons[seat], fault_reason(fault, answer.status, answer.detail))
            if acct.faults[seat] > self.threshold and seat not in acct.unrated:
                acct.unrated.append(seat)
            keep = answer.detail is not None and acct.faults[seat] <= DETAIL_FAULTS
            kept = answer.detail[:DETAIL_CHARS] if keep and answer.detail else None
            self.pending.append(encode_decision(seat, latency_ms, fault, answer.status, kept))
        else:
            self.pending.append(encode_decision(seat, latency_ms, "ok"))
        acct.previous[seat] = {
            "status": (MoveStatus.REPLACED if fault else MoveStatus.ACCEPTED).value,
            "fault": fault,
        }
        acct.decisions += 1

    def write_ahead(self, seat: int, move: dict[str, Any], fault: str | None, bank_changed: bool) -> None:
        """Store the WAL (and renew the lease) before a move that changes the accounting, or when due."""
        now = time.monotonic()
        if fault is None and not bank_changed and now < self.clock.next_renew:
            return
        self.clock.next_renew = now + self.ttl_ms / 3000
        wal_record = {
            "version": self.game.version,
            "actions": len(self.game.state["actions"]),
            "seat": seat,
            "move": move,
            "fault": fault,
            "acct": self.acct.to_dict(),
        }
        written = self.ctx.store.write_wal_and_renew(
            self.tid, self.index, wal_record, self.token, self.ttl_ms, self.pending
        )
        if not written:
            raise LeaseLost(f"lost the lease of match {self.match_id}")
        self.pending = []

    def commit(self, seat: int, move: dict[str, Any]) -> None:
        """Apply `move` through the game service (the API's own write path) at the version we hold.

        A refused version means a runner that held the lease before us applied this version's move
        already: reload the game and go on from there.
        """
        try:
            self.game, _events = self.ctx.service.apply_move(
                self.game.game_id, seat, move, self.game.version, current=self.game
            )
        except PreconditionFailed:
            self.game = self.ctx.service.load(self.game.game_id)

    def notify_all(self, path: str, message: Callable[[int], dict[str, Any]]) -> float:
        """POST /start or /end to every seat's bot (answers ignored); the seconds spent in the calls."""
        timeout_s = self.timing.notify_timeout_s()
        return sum(
            self.clients[bot_id].notify(path, message(seat), timeout_s)
            for seat, bot_id in enumerate(self.seats)
            if self.is_bot(seat)
        )


@dataclass
class _Asked:
    """A bot's answer to one /move and how many ms past the deadline it came (taken from the bank)."""

    answer: MoveAnswer
    over_ms: int


class LeaseLost(RuntimeError):
    """Another runner took over the match (ours stalled past the lease); this run must stop."""


def _result_record(
    spec: dict[str, Any],
    match: dict[str, Any],
    game_id: str,
    result: dict[str, Any],
    acct: _Accounting,
    timing: dict[str, Any],
) -> dict[str, Any]:
    scores = list(result["scores"])
    record: dict[str, Any] = {
        "index": match["index"],
        "deal": match["deal"],
        "table": match["table"],
        "rotation": match["rotation"],
        "seats": match["seats"],
        "game_id": game_id,
        "scores": scores,
        "winners": list(result["winners"]),
        "faults": acct.faults,
        "fault_codes": acct.fault_codes,
        # Per seat: /move calls made and faults by reason (the standings' flag, harness.faults).
        "calls": acct.calls,
        "reasons": acct.reasons,
        "unrated": sorted(acct.unrated),
        "decisions": acct.decisions,
        # The whole match's /move times (a resume may miss those after the last write-ahead record).
        "bot_latency": {"counts": acct.latency_counts, "sum_s": acct.latency_s},
        # Timing of this run only (a resumed match counts the part played after the resume).
        "timing": timing,
    }
    if is_cooperative(spec["game"]):
        # The team's score as the game scores it (points, or tasks in story mode); equal for every seat.
        record["team_score"] = max(scores) if scores else 0
        record["reached"] = bool(result["winners"])
    return record
