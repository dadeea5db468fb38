"""A worker's own network health: never blame a bot for a failure that is the worker's (issue 25).

A bot call that never reached the bot -- refused by the worker's own address policy, a name that
does not resolve, a connection refused or timed out while connecting (`OutboundError.reached`
False) -- is either the bot's fault (it is down) or the worker's (its network is). A worker tells
them apart with what the other workers see, recorded in Redis:

- **reach records**: each worker records, per bot, when a call of its reached the bot (any answer,
  an HTTP error included) -- ``reach:<bot>``, a sorted set of worker name -> unix time, and
  ``reach:any`` for any bot -- at most once per `REACH_WRITE_S` per bot and worker, entries older
  than the window dropped on write (so each set holds one entry per live worker at most).
- **doubt**: an unreached call at worker W to bot B is *doubtful* when another worker reached B
  within the window after W last did, or when W reached no bot at all within the window while
  another worker reached some. A doubtful call is not charged to the bot: the runner abandons the
  match as an infrastructure error (`WorkerUnreachable`) and RQ requeues it for another worker
  (the retry given back: `restore_retry`), which resumes it from the game in Redis. A call that
  is not doubtful is the bot's fault as before (a bot that is down for everyone).
- **trip**: once W's doubtful calls within the window name `TRIP_BOTS` distinct bots, W trips:
  it takes no job (`HarnessWorker` waits), lists itself unhealthy (``health:workers``, read by
  `/health`'s workers check and the ``trickarena_workers_unhealthy`` metric), and every
  `PROBE_INTERVAL_S` calls ``GET /`` on those bots; the first that answers makes it healthy again.

Limits: the window and the bot count are $TRICKARENA_HEALTH_WINDOW_S and $TRICKARENA_TRIP_BOTS
(docs/operations.md). A lone worker (no other worker reached anything within the window) never
doubts: it cannot tell its own network from dead bots, and charges faults as before.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import cast

import redis

from core.outbound import AddressPolicy, BotSession, OutboundError

log = logging.getLogger("trickarena.harness")

HEALTH_WINDOW_ENV = "TRICKARENA_HEALTH_WINDOW_S"
TRIP_BOTS_ENV = "TRICKARENA_TRIP_BOTS"
DEFAULT_WINDOW_S = 120
DEFAULT_TRIP_BOTS = 3
REACH_WRITE_S = 5.0
PROBE_INTERVAL_S = 5.0
PROBE_TIMEOUT_S = 3.0

# A bot's URL and signing secret, or None for a bot no longer registered.
BotLookup = Callable[[str], "tuple[str, str | None] | None"]


class WorkerUnreachable(RuntimeError):
    """This worker could not reach a bot that other workers reach: an infrastructure error, not
    the bot's fault; the match is abandoned uncharged and retried by another worker."""


def _bounded_int(name: str, default: int, low: int, high: int) -> int:
    """An integer setting from the environment within [low, high] (ValueError otherwise)."""
    value = int(os.environ.get(name, "").strip() or default)
    if not low <= value <= high:
        raise ValueError(f"{name} must be from {low} to {high}, not {value}")
    return value


def unhealthy_workers(client: redis.Redis, prefix: str) -> dict[str, dict[str, object]]:
    """The workers that tripped (name -> why), as they listed themselves."""
    raw = cast(dict[bytes, bytes], client.hgetall(f"{prefix}health:workers"))
    return {k.decode(): json.loads(v) for k, v in raw.items()}


class WorkerHealth:
    """One worker process's view of its own network (thread-safe: shared by its job threads)."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str,
        worker: str,
        window_s: int | None = None,
        trip_bots: int | None = None,
    ) -> None:
        self.client, self.prefix, self.worker = client, prefix, worker
        self.window_s = (
            window_s if window_s is not None else _bounded_int(HEALTH_WINDOW_ENV, DEFAULT_WINDOW_S, 5, 3600)
        )
        self.trip_bots = (
            trip_bots if trip_bots is not None else _bounded_int(TRIP_BOTS_ENV, DEFAULT_TRIP_BOTS, 1, 100)
        )
        self._lock = threading.Lock()
        self._reached: dict[str, float] = {}  # bot -> unix time this worker last reached it
        self._written: dict[str, float] = {}  # reach key -> unix time last written to Redis
        self._last_reach = 0.0  # any bot
        self._suspects: dict[str, float] = {}  # bot -> unix time of its last doubtful call
        self.tripped_at: float | None = None

    @property
    def tripped(self) -> bool:
        """Whether this worker takes no job (it could not reach bots that others reach)."""
        return self.tripped_at is not None

    def _key(self, bot: str) -> str:
        return f"{self.prefix}reach:{bot}"

    # -- recording ------------------------------------------------------------------------------
    def reached(self, bot: str) -> None:
        """A call of this worker reached `bot` (an answer came, whatever it said)."""
        now = time.time()
        with self._lock:
            self._reached[bot] = now
            self._last_reach = now
            due = [
                k
                for k in (self._key(bot), self._key("*any"))
                if now - self._written.get(k, 0.0) >= REACH_WRITE_S
            ]
            for key in due:
                self._written[key] = now
        if not due:
            return
        try:
            with self.client.pipeline(transaction=False) as pipe:
                for key in due:
                    pipe.zadd(key, {self.worker: now})
                    pipe.zremrangebyscore(key, "-inf", now - self.window_s)
                    pipe.expire(key, self.window_s)
                pipe.execute()
        except redis.RedisError as exc:  # best effort: a missing record only means less doubt
            log.warning("reach record of bot %s failed: %s", bot, exc)

    def _others(self, key: str, since: float) -> float:
        """The latest time another worker recorded in `key` after `since` (0.0: none)."""
        rows = cast(
            list[tuple[bytes, float]],
            self.client.zrangebyscore(key, max(since, time.time() - self.window_s), "+inf", withscores=True),
        )
        return max((score for name, score in rows if name.decode() != self.worker), default=0.0)

    def doubt(self, bot: str) -> bool:
        """A call of this worker did not reach `bot`: True when that is likely the worker's own
        fault (others reach the bot, or this worker reaches nothing while others reach bots);
        then the call must not be charged to the bot. May trip the worker."""
        now = time.time()
        with self._lock:
            own_bot, own_any = self._reached.get(bot, 0.0), self._last_reach
        doubtful = self._others(self._key(bot), own_bot) > own_bot
        if not doubtful and now - own_any > self.window_s:
            doubtful = self._others(self._key("*any"), 0.0) > 0.0
        if doubtful:
            with self._lock:
                self._suspects[bot] = now
                self._suspects = {b: t for b, t in self._suspects.items() if now - t <= self.window_s}
                trip = self.tripped_at is None and len(self._suspects) >= self.trip_bots
                suspects = sorted(self._suspects)
            if trip:
                self.trip(suspects)
        return doubtful

    # -- tripping and recovering ----------------------------------------------------------------
    def trip(self, bots: list[str]) -> None:
        """Take no more jobs and list this worker as unhealthy, naming the bots it could not reach."""
        self.tripped_at = time.time()
        why = {
            "status": "unhealthy",
            "reason": f"could not reach {len(bots)} bots that other workers reach",
            "bots": bots[:20],
            "since": self.tripped_at,
        }
        log.error("worker %s is unhealthy: %s", self.worker, why["reason"])
        self.client.hset(f"{self.prefix}health:workers", self.worker, json.dumps(why))

    def recover(self) -> None:
        """Healthy again: take jobs, no longer listed as unhealthy."""
        with self._lock:
            self.tripped_at = None
            self._suspects.clear()
        log.warning("worker %s is healthy again", self.worker)
        self.forget()

    def forget(self) -> None:
        """Remove this worker's unhealthy listing (at recovery and when it stops)."""
        self.client.hdel(f"{self.prefix}health:workers", self.worker)

    def probe(self, lookup: BotLookup, policy: AddressPolicy | None) -> bool:
        """``GET /`` each bot this worker suspects; recover (True) as soon as one answers."""
        with self._lock:
            bots = sorted(self._suspects)
        for bot in bots:
            target = lookup(bot)
            if target is None:
                continue
            try:
                with BotSession(target[0], secret=target[1], policy=policy) as session:
                    session.request("GET", "/", None, PROBE_TIMEOUT_S)
                reached = True
            except OutboundError as exc:
                reached = exc.reached
            if reached:
                self.recover()
                return True
        return False
