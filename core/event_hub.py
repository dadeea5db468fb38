"""Event streams that cost the server almost nothing: one Redis reader per process fans each game's
new events out to every stream of that game, and caps on the streams per process and per address.

How a stream waits. Every write of a game (the move and seat-claim scripts of core.repository)
publishes its new version on the pub/sub channel named like the game's event stream
(`GameRepository.events_channel`). An `EventHub` holds, per API process, one pub/sub connection
pattern-subscribed to those channels and one dispatcher thread (a greenlet under gunicorn's gevent
worker, whose monkey-patching makes `threading` cooperative) reading its notifications. For a game
with open streams in this process it reads only what is new -- the events after the version it
read last and the game's hash without its action list, one MULTI round trip, once per process
however many streams watch the game -- and hands that `Batch` to each stream's `Listener`. A
stream holds no Redis connection while it waits: it waits on its listener (a condition variable).
A batch renders each reader's view once (`Batch.rendered`): the streams of one seat share it.

Nothing is lost between the two. A stream attaches before it reads its own backlog (the events it
was asked for), so every batch read afterwards reaches it, and it skips what it has sent already
(ids only grow). A batch starting after a version the stream has not read (`Batch.after`), or a
listener that overflowed (a stream not reading, `MAX_PENDING` batches behind), makes the stream
read the gap itself. When the subscription is lost (Redis restarts) the dispatcher reconnects and
reads every watched game again.

Caps (docs/operations.md, Limits): `EventHub.max_streams` streams per process (`StreamsFull`,
503), and `StreamSlots`: at most `limit` open streams per client address, counted in Redis so
that they hold across processes and machines (`TooManyStreams`, 429). Both carry `Retry-After`.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import redis

from core import errors
from core.redis_factory import REDIS_TIMEOUT_S
from core.repository import StoredGame
from core.service import GameService
from games.base import Event

log = logging.getLogger("trickarena.events")

# Batches a listener keeps for a stream that does not read them; beyond, the stream re-reads.
MAX_PENDING = 64
# Seconds the dispatcher stays subscribed with no stream open before it closes its connection.
IDLE_S = 10.0
# Seconds a notification read waits; the dispatcher checks for idleness this often.
POLL_S = 1.0


@dataclass
class Batch:
    """What one read of a game found: its events after version `after` and the game as it was then
    (None: the game is gone). Shared by every stream of the game in this process."""

    after: int
    stored: StoredGame | None
    events: list[tuple[str, Event]]
    _rendered: dict[Any, Any] = field(default_factory=dict, repr=False)

    def rendered(self, key: Any, render: Callable[[Batch], Any]) -> Any:
        """`render(self)`, computed once per `key` (a reader's seat): every stream of that reader
        shares it. (Two threads may both compute it; either result is the same.)"""
        if key not in self._rendered:
            self._rendered[key] = render(self)
        return self._rendered[key]


class Listener:
    """One stream's mailbox: the batches of its game not yet taken; the stream's progress."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        # The version up to which the stream has read every event (None: not read yet).
        self.through: int | None = None
        self._ready = threading.Condition()
        self._batches: deque[Batch] = deque()
        self._overflowed = False

    def push(self, batch: Batch) -> None:
        """Hand a batch to the stream (the dispatcher calls this)."""
        with self._ready:
            if len(self._batches) >= MAX_PENDING:
                self._batches.clear()
                self._overflowed = True
            else:
                self._batches.append(batch)
            self._ready.notify()

    def take(self, timeout: float) -> tuple[list[Batch], bool]:
        """The pending batches, waiting up to `timeout` seconds for one; and whether some were
        dropped (the stream must read the gap itself)."""
        with self._ready:
            if not self._batches and not self._overflowed:
                self._ready.wait(timeout)
            batches = list(self._batches)
            self._batches.clear()
            lost, self._overflowed = self._overflowed, False
        return batches, lost


@dataclass
class _Watch:
    """A game with open streams in this process: the version read up to, its listeners."""

    version: int | None = None
    listeners: set[Listener] = field(default_factory=set)


class EventHub:
    """Per API process: one pub/sub connection and one dispatcher thread for every event stream.

    Started by the first `attach`, stopped by itself `IDLE_S` after the last `detach`.
    """

    def __init__(self, service: GameService, max_streams: int) -> None:
        self.service = service
        self.repository = service.repository
        self.max_streams = max_streams
        # The channel of every game (glob characters of the prefix escaped).
        channel = self.repository.events_channel("*")
        self._head, _, self._tail = channel.partition("*")
        self.pattern = _glob_escape(self._head) + "*" + _glob_escape(self._tail)
        self._lock = threading.Lock()
        self._watches: dict[str, _Watch] = {}
        self._open = 0
        self._thread: threading.Thread | None = None
        self._subscribed = threading.Event()
        self._stop = threading.Event()
        self.reads = 0  # batches read from Redis (for tests and benchmarks)

    @property
    def open_streams(self) -> int:
        """Streams attached now."""
        return self._open

    def attach(self, game_id: str) -> Listener:
        """A listener for a new stream of `game_id`; `StreamsFull` when the process has
        `max_streams` already; a Redis error when the subscription cannot be made in time."""
        with self._lock:
            if self._open >= self.max_streams:
                raise errors.StreamsFull(
                    f"this server process streams {self.max_streams} games' events already; retry",
                    retry_after=1,
                    details={"limit": self.max_streams},
                )
            self._open += 1
            listener = Listener(game_id)
            self._watches.setdefault(game_id, _Watch()).listeners.add(listener)
            if self._thread is None or not self._thread.is_alive():
                self._subscribed.clear()
                self._thread = threading.Thread(target=self._run, name="event-hub", daemon=True)
                self._thread.start()
        # Events written before the subscription is active would reach nobody: wait for it.
        if not self._subscribed.wait(REDIS_TIMEOUT_S):
            self.detach(listener)
            raise redis.ConnectionError("the event hub could not subscribe in time")
        return listener

    def detach(self, listener: Listener) -> None:
        """The stream of `listener` has ended (idempotent)."""
        with self._lock:
            watch = self._watches.get(listener.game_id)
            if watch is None or listener not in watch.listeners:
                return
            watch.listeners.discard(listener)
            self._open -= 1
            if not watch.listeners:
                del self._watches[listener.game_id]

    def read(self, game_id: str, since: int) -> Batch:
        """A batch read now for one stream (its backlog, or a gap): events after version `since`."""
        try:
            stored, events = self.service.repository_load_with_events(game_id, since, with_actions=False)
        except errors.GameNotFound:
            return Batch(since, None, [])
        return Batch(since, stored, events)

    def close(self) -> None:
        """Stop the dispatcher (tests; a process that exits needs nothing)."""
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout=POLL_S + REDIS_TIMEOUT_S + 1)

    # -- the dispatcher ---------------------------------------------------------------
    def _run(self) -> None:
        backoff = 0.1
        idle_since: float | None = None
        while not self._stop.is_set():
            pubsub = self.repository.client.pubsub()
            try:
                pubsub.psubscribe(self.pattern)
                while not self._stop.is_set():
                    message = pubsub.get_message(timeout=POLL_S)
                    if message is not None and message["type"] == "psubscribe":
                        self._subscribed.set()
                        backoff = 0.1
                        self._catch_up()  # whatever was written while we were not subscribed
                        continue
                    notified: dict[str, int] = {}
                    while message is not None:
                        self._note(message, notified)
                        message = pubsub.get_message(timeout=0)
                    self._dispatch(notified)
                    with self._lock:
                        if self._watches:
                            idle_since = None
                        elif idle_since is None:
                            idle_since = time.monotonic()
                        elif time.monotonic() - idle_since > IDLE_S:
                            self._thread = None
                            self._subscribed.clear()
                            return
            except (redis.RedisError, OSError) as exc:
                self._subscribed.clear()
                log.warning("event hub: lost its subscription (%r); reconnecting in %.1f s", exc, backoff)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 2.0)
            except Exception:  # a bug: logged; the streams keep their hub
                self._subscribed.clear()
                log.exception("event hub: unexpected error; reconnecting in %.1f s", backoff)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 2.0)
            finally:
                pubsub.close()
            with self._lock:
                if not self._watches:  # nobody waits: no reconnecting (the next stream starts anew)
                    self._thread = None
                    return

    def _note(self, message: dict[str, Any], notified: dict[str, int]) -> None:
        if message["type"] != "pmessage":
            return
        channel = message["channel"]
        channel = channel.decode() if isinstance(channel, bytes) else str(channel)
        game_id = channel[len(self._head) : len(channel) - len(self._tail)]
        try:
            version = int(message["data"])
        except (TypeError, ValueError):
            return
        notified[game_id] = max(version, notified.get(game_id, 0))

    def _dispatch(self, notified: dict[str, int]) -> None:
        for game_id, version in notified.items():
            with self._lock:
                watch = self._watches.get(game_id)
                if watch is None or (watch.version is not None and version <= watch.version):
                    continue
                since = self._since(watch)
            self._fetch(game_id, watch, version - 1 if since is None else min(since, version - 1))

    def _catch_up(self) -> None:
        with self._lock:
            pending = [(game_id, watch, self._since(watch)) for game_id, watch in self._watches.items()]
        for game_id, watch, since in pending:
            if since is not None:
                self._fetch(game_id, watch, since)

    @staticmethod
    def _since(watch: _Watch) -> int | None:
        """The version to read a watch's game after: what it read last, or (before its first read)
        what its streams have read (None: no stream has read yet; each reads its own backlog)."""
        if watch.version is not None:
            return watch.version
        known = [listener.through for listener in watch.listeners if listener.through is not None]
        return min(known) if known else None

    def _fetch(self, game_id: str, watch: _Watch, since: int) -> None:
        batch = self.read(game_id, since)
        self.reads += 1
        with self._lock:
            watch.version = batch.stored.version if batch.stored is not None else since
            listeners = list(watch.listeners)
        for listener in listeners:
            listener.push(batch)


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


# Reserve a stream slot for an address. KEYS: the address's sorted set (member: a stream id, score:
# when that stream ends at the latest, ms, Redis's clock). ARGV: stream id, its lifetime in ms,
# the cap. Expired entries (a process that died without releasing) are dropped first. Returns
# {1, 0} when reserved, else {0, ms until the first entry of the address expires}.
_ACQUIRE_LUA = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(first[2]) - now_ms}
end
local lifetime = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now_ms + lifetime, ARGV[1])
if redis.call('PTTL', KEYS[1]) < lifetime then redis.call('PEXPIRE', KEYS[1], lifetime) end
return {1, 0}
"""

# Seconds after its own end a stream's slot expires should its process die without releasing it.
SLOT_SLACK_S = 5


class StreamSlots:
    """At most `limit` open event streams per client address, counted in Redis (0: no limit)."""

    def __init__(self, client: redis.Redis, prefix: str, limit: int) -> None:
        self.client = client
        self.prefix = prefix
        self.limit = limit
        self._acquire = client.register_script(_ACQUIRE_LUA)

    def key(self, address: str) -> str:
        """The sorted set of an address's open streams."""
        return f"{self.prefix}streams:addr:{address}"

    def acquire(self, address: str, lifetime_s: float) -> Callable[[], None]:
        """Reserve a slot for a stream of `address` living up to `lifetime_s`; returns its release.
        `TooManyStreams` (with the seconds until a slot frees at the latest) when none is free."""
        if self.limit <= 0:
            return lambda: None
        member = uuid.uuid4().hex
        key = self.key(address)
        lifetime_ms = int((lifetime_s + SLOT_SLACK_S) * 1000)
        reserved, wait_ms = cast(list[int], self._acquire(keys=[key], args=[member, lifetime_ms, self.limit]))
        if not reserved:
            retry_after = max(1, min(int(lifetime_s) + SLOT_SLACK_S, -(-int(wait_ms) // 1000)))
            raise errors.TooManyStreams(
                f"this address has {self.limit} event streams open, as many as it may; close one, "
                f"or retry after {retry_after} s",
                retry_after=retry_after,
                details={"limit": self.limit},
            )
        return lambda: self._release(key, member)

    def _release(self, key: str, member: str) -> None:
        try:
            self.client.zrem(key, member)
        except redis.RedisError as exc:  # the slot expires by itself (its score)
            log.warning("stream slot not released (%r); it expires by itself", exc)
