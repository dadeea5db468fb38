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
"""

from __future__ import annotations

import logging
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bots.protocol import MoveStatus
from core.bot_registry import BotNotFound, BotRecord, BotRegistry
from core.outbound import AddressPolicy
from core.repository import GameRepository, StaleWrite
from core.service import GameService
from core.telemetry import BOT_LATENCY_BUCKETS, latency_bucket, record_match
from games.base import Game
from games.registry import get_game
from harness.bot_client import NOTIFY_TIMEOUT_S, BotClient
from harness.scheduling import derive_seed
from harness.store import HarnessStore

log = logging.getLogger("trickarena.harness")

COOPERATIVE_GAMES = frozenset({"trick-n-trouble"})
LEASE_MARGIN_MS = 5000


def is_cooperative(game: str) -> bool:
    """True for games whose seats play as one team (cross-play standings)."""
    return game in COOPERATIVE_GAMES


@dataclass
class HarnessContext:
    """Everything a job needs, built once per worker process from the environment."""

    store: HarnessStore
    service: GameService
    bots: BotRegistry
    policy: AddressPolicy | None = None
    queue_name: str = "trickarena"
    redis_url: str = ""

    @classmethod
    def from_env(cls) -> HarnessContext:
        """REDIS_URL, TRICKARENA_KEY_PREFIX, TRICKARENA_QUEUE (the same variables as the API)."""
        url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
        prefix = os.environ.get("TRICKARENA_KEY_PREFIX", "ta:")
        return cls.build(url, prefix, os.environ.get("TRICKARENA_QUEUE", "trickarena"))

    @classmethod
    def build(cls, url: str, prefix: str, queue_name: str = "trickarena") -> HarnessContext:
        """A context on `url` with key prefix `prefix`."""
        repository = GameRepository.from_url(url, prefix=prefix)
        store = HarnessStore(repository.client, prefix)
        policy = AddressPolicy.from_env()
        bots = BotRegistry(repository.client, prefix, policy=policy)
        return cls(store, GameService(repository), bots, policy, queue_name, url)

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
        }

    @classmethod
    def fresh(cls, seats: int, bank_ms: int) -> _Accounting:
        """Accounting at the start of a match: no faults, full banks."""
        return cls([0] * seats, [{} for _ in range(seats)], [bank_ms] * seats, [None] * seats)

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
        return acct


def fallback_move(legal: list[dict[str, Any]], match_seed: int, version: int) -> dict[str, Any]:
    """The move played for a faulting bot: seeded by the match seed and the game version."""
    return random.Random(derive_seed(match_seed, "fallback", version)).choice(legal)


def _lease_ttl_ms(spec: dict[str, Any]) -> int:
    return int(spec["deadline_ms"]) + int(spec["time_bank_ms"]) + LEASE_MARGIN_MS


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
    store, service = ctx.store, ctx.service
    match = store.match_spec(tid, index)
    if match is None:
        raise LookupError(f"tournament {tid} has no match {index}")
    if store.has_result(tid, index):
        return MatchOutcome("already_recorded")
    store.set_status(tid, "running", only_from=("scheduled",))
    engine: Game = get_game(spec["game"])
    seats: list[str] = match["seats"]
    n = len(seats)
    runtime = store.match_runtime(tid, index)
    game_id = runtime.get("game_id")
    resumed = game_id is not None  # an earlier run created the game (and may have played on)
    if game_id is None:
        # Sealed: the same deal is played at other tables, so nobody may watch it before the end.
        created = service.create_game(
            spec["game"], n, spec.get("options") or None, seed=int(match["deal_seed"]), sealed=True
        )
        game_id = store.claim_game_id(tid, index, created.game_id)
    stored = service.load(game_id)
    state, version, finished = stored.state, stored.version, stored.finished
    wal = runtime.get("wal")
    acct = _Accounting.from_dict(wal["acct"]) if wal else _Accounting.fresh(n, int(spec["time_bank_ms"]))
    if wal and int(wal["version"]) == version and not finished:
        # Crashed between writing the WAL and applying its move: apply it now, as decided.
        state, version, finished = _commit(
            ctx, engine, game_id, state, version, int(wal["seat"]), wal["move"]
        )
    if wal:
        # Actions after the WAL's own move were accepted answers: a fault would have written one.
        for action in state["actions"][int(wal["actions"]) + 1 :]:
            acct.previous[int(action["seat"])] = {"status": MoveStatus.ACCEPTED.value, "fault": None}
    acct.decisions = len(state["actions"])

    bots = {bot_id: ctx.bot(bot_id) for bot_id in set(seats)}
    clients: dict[str, BotClient] = {}
    for bot_id, record in bots.items():
        url = record.url if record else "http://invalid.invalid/"
        clients[bot_id] = BotClient(url, record.secret if record else None, ctx.policy)
    match_id = f"{tid}:{index}"
    started = time.monotonic()
    cpu_started = time.process_time()
    call_cpu_s = 0.0  # CPU this process spends inside bot calls (HTTP client, signing, JSON)
    bot_s_before = acct.bot_s
    decisions_before = acct.decisions
    threshold = int(spec.get("fault_threshold", 3))
    deadline_ms = int(spec["deadline_ms"])
    next_cancel_check = 0.0
    next_renew = time.monotonic() + ttl_ms / 3000
    try:
        if not resumed:
            acct.bot_s += _notify_all(
                clients,
                seats,
                "/start",
                lambda seat: {
                    "match_id": match_id,
                    "game": spec["game"],
                    "seat": seat,
                    "seats": n,
                    "options": spec.get("options") or {},
                    "deadline_ms": deadline_ms,
                    "time_bank_ms": int(spec["time_bank_ms"]),
                    "opponents": [b for s, b in enumerate(seats) if s != seat],
                },
                deadline_ms,
            )
            # Slow /start answers (up to a deadline each) must not outlive the lease.
            if not store.renew_lease(tid, index, token, ttl_ms):
                raise LeaseLost(f"lost the lease of match {match_id}")
            next_renew = time.monotonic() + ttl_ms / 3000
        while not (finished or engine.is_over(state)):
            now = time.monotonic()
            if now >= next_cancel_check:
                # Checked about once a second, not per move: cancelling need not be instant.
                next_cancel_check = now + 1.0
                if store.tournament_status(tid) == "cancelled":
                    return MatchOutcome("cancelled")
            seat = engine.to_move(state)[0]
            legal = engine.legal_moves(state, seat)
            bot_id = seats[seat]
            fault: str | None = None
            move: dict[str, Any] | None = None
            bank_changed = False
            if seat not in acct.unrated:  # over the threshold: no longer asked in this match
                message = {
                    "match_id": match_id,
                    "game": spec["game"],
                    "seat": seat,
                    "view": engine.view(state, seat),
                    "legal_moves": legal,
                    "deadline_ms": deadline_ms,
                    "time_bank_ms": acct.bank_ms[seat],
                    "previous": acct.previous[seat],
                }
                cpu_before = time.process_time()
                answer = clients[bot_id].move(message, legal, (deadline_ms + acct.bank_ms[seat]) / 1000)
                call_cpu_s += time.process_time() - cpu_before
                acct.bot_s += answer.elapsed_s
                acct.latency_counts[latency_bucket(answer.elapsed_s)] += 1
                acct.latency_s += answer.elapsed_s
                over_ms = int(answer.elapsed_s * 1000) - deadline_ms
                if over_ms > 0:
                    acct.bank_ms[seat] = max(0, acct.bank_ms[seat] - over_ms)
                    bank_changed = True
                move, fault = answer.move, answer.fault
            if move is None:
                move = fallback_move(legal, int(match["match_seed"]), version)
            if fault is not None:
                acct.faults[seat] += 1
                acct.fault_codes[seat][fault] = acct.fault_codes[seat].get(fault, 0) + 1
                if acct.faults[seat] > threshold and seat not in acct.unrated:
                    acct.unrated.append(seat)
            acct.previous[seat] = {
                "status": (MoveStatus.REPLACED if fault else MoveStatus.ACCEPTED).value,
                "fault": fault,
            }
            acct.decisions += 1
            now = time.monotonic()
            if fault is not None or bank_changed or now >= next_renew:
                next_renew = now + ttl_ms / 3000
                wal_record = {
                    "version": version,
                    "actions": len(state["actions"]),
                    "seat": seat,
                    "move": move,
                    "fault": fault,
                    "acct": acct.to_dict(),
                }
                if not store.write_wal_and_renew(tid, index, wal_record, token, ttl_ms):
                    raise LeaseLost(f"lost the lease of match {match_id}")
            state, version, finished = _commit(ctx, engine, game_id, state, version, seat, move)
        result = engine.result(state)
        acct.bot_s += _notify_all(
            clients,
            seats,
            "/end",
            lambda seat: {
                "match_id": match_id,
                "game": spec["game"],
                "seat": seat,
                "result": result,
                # No final view: it reveals every hand, and this deal is played at other tables
                # (and by this bot in other seats) until the tournament ends.
                "view": None,
                "faults": acct.faults[seat],
            },
            deadline_ms,
        )
        timing = {
            "wall_s": time.monotonic() - started,
            # This process's CPU (engine, Redis client, HTTP client): load-independent, unlike wall time.
            "cpu_s": time.process_time() - cpu_started,
            "call_cpu_s": call_cpu_s,
            "bot_s": acct.bot_s - bot_s_before,
            "decisions": acct.decisions - decisions_before,
            "resumed": resumed,
        }
        result_record = _result_record(spec, match, game_id, result, acct, timing)
        recorded, completed = store.record_result(tid, index, result_record)
        if recorded:
            record_match(store.client, store.prefix, spec["game"], result_record)  # platform-wide /metrics
        return MatchOutcome("recorded" if recorded else "already_recorded", result_record, completed)
    finally:
        for client in clients.values():
            client.close()


def _notify_all(
    clients: dict[str, BotClient],
    seats: list[str],
    path: str,
    message: Callable[[int], dict[str, Any]],
    deadline_ms: int,
) -> float:
    """POST /start or /end to every seat's bot (answers ignored); the seconds spent in the calls."""
    timeout_s = min(NOTIFY_TIMEOUT_S, deadline_ms / 1000)
    return sum(clients[bot_id].notify(path, message(seat), timeout_s) for seat, bot_id in enumerate(seats))


class LeaseLost(RuntimeError):
    """Another runner took over the match (ours stalled past the lease); this run must stop."""


def _commit(
    ctx: HarnessContext,
    engine: Game,
    game_id: str,
    state: dict[str, Any],
    version: int,
    seat: int,
    move: dict[str, Any],
) -> tuple[dict[str, Any], int, bool]:
    """Apply `move` to our copy and compare-and-set it into the repository; (state, version, over)."""
    events = engine.apply(state, seat, move)
    final = engine.is_over(state)
    try:
        version = ctx.service.repository.commit(game_id, version, state, events, final)
    except StaleWrite:
        # Someone (a runner that held the lease before us) already applied this version's move.
        stored = ctx.service.load(game_id)
        return stored.state, stored.version, stored.finished or engine.is_over(stored.state)
    return state, version, final


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
