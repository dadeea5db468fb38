"""The one Redis repository of games: state, version, seat-token digests and the event stream.

Layout (all keys under the configured prefix, see `key_for`; the game id in braces is the keys'
hash tag, so on a Redis Cluster a game's keys share one slot):
- ``game:{<id>}`` — a hash: ``v`` version, ``g`` game name, ``n`` seat count, ``seed``, ``sealed``
  (present while only seats may read the game), ``m<seat>``/``d<seat>`` (each seat's last move:
  the version it made; when and what it was), ``t<seat>``
  the SHA-256 digest of each claimed seat's token, and either ``s`` (the live state as JSON)
  or, once the game is over, ``z`` (zlib of the final state and every event: a finished game
  is read-only, so it is stored compactly in one field);
- ``game:{<id>}:events`` — a Redis stream of the live game's raw (unredacted) events, entry ids
  ``<version>-<n>`` so "events since version V" is one XRANGE; every write of a game also
  publishes its new version on the pub/sub channel of the same name (`events_channel`), which
  the API's event hub (core.event_hub) listens to;
- ``game:{<id>}:actions`` — the live game's action list (``state["actions"]``), kept out of ``s``
  because engines only ever append to it and it is most of a late state: a move reads and
  writes a small state and pushes its new actions.

Every write goes through a Lua script that compares the version and writes state, version and
events in one atomic step, so concurrent writers cannot both win.
"""

from __future__ import annotations

import functools
import itertools
import os
import secrets
import zlib
from dataclasses import dataclass, field
from typing import Any, cast

import orjson
import redis

from core.redis_factory import API_RETRY, RetryPolicy, check_writable, storage_client
from games.base import Event, State

# Atomic compare-and-set of a move: version check, new state, version + 1, actions and events
# appended.  KEYS: game hash, event stream, action list.  Two ARGV (`_commit_args`: redis-py packs
# each argument on its own, in Python, so one blob costs less than sixteen): ARGV[1] the scalar
# arguments below and then the byte length of each part, each followed by ','; ARGV[2] the parts
# (payload, actions, events) back to back.  The script unpacks them into `A`, laid out as follows.
# A: expected version, mode ('live' | 'final'), payload (state JSON without actions, or the final
# zlib blob), ttl seconds for a finished game (0 = none), the total number of actions after the
# move, the number of trailing actions sent, the seat that moved ('' = none), the move's digest to
# refuse as a duplicate ('' = no check), the duplicate window in ms, the move's digest to remember,
# the call's id, those actions, then one JSON string per event.  The script pushes only the actions
# the list lacks, so a caller holding the full action list may send its tail.  The hash remembers
# per seat the version its own last move made (``m<seat>``) and when and what that move was
# (``d<seat>``: "<ms>:<digest>", Redis's clock): a move equal to the seat's last one, sent while
# that move is still the game's latest and within the window, is refused (-5) as a duplicate.  The
# same call sent again (``c<seat>`` holds the id of the call that made the seat's last move: a reply
# lost in a failover and the call retried by the Redis client) against the version it already moved
# on from answers {2, current}: it is applied, once; another call's identical move is a stale write
# as before.  Every write publishes the new version on the channel named like the event stream
# (`events_channel`): the API's event hub (core.event_hub) reads what is new when it hears of it.
_COMMIT_LUA = """
local h = {}
for f in string.gmatch(ARGV[1], '([^,]*),') do h[#h + 1] = f end
local A, at = {h[1], h[2], '', h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10]}, 1
for i = 11, #h do
  local n = tonumber(h[i])
  local part = string.sub(ARGV[2], at, at + n - 1)
  at = at + n
  if i == 11 then A[3] = part else A[#A + 1] = part end
end
local current = redis.call('HGET', KEYS[1], 'v')
if not current then return {-1, 0} end
if current ~= A[1] then
  if A[7] ~= '' and tonumber(current) == tonumber(A[1]) + 1
      and redis.call('HGET', KEYS[1], 'm' .. A[7]) == current then
    if redis.call('HGET', KEYS[1], 'c' .. A[7]) == A[11] then return {2, tonumber(current)} end
  end
  return {0, tonumber(current)}
end
local new = tonumber(current) + 1
local ntail = tonumber(A[6])
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
if A[8] ~= '' and redis.call('HGET', KEYS[1], 'm' .. A[7]) == current then
  local last = redis.call('HGET', KEYS[1], 'd' .. A[7])
  if last then
    local sep = string.find(last, ':', 1, true)
    local at = tonumber(string.sub(last, 1, sep - 1))
    if string.sub(last, sep + 1) == A[8] and now_ms - at < tonumber(A[9]) then
      return {-5, tonumber(current)}
    end
  end
end
if A[2] == 'final' then
  redis.call('HSET', KEYS[1], 'v', new, 'z', A[3])
  redis.call('HDEL', KEYS[1], 's', 'na')
  redis.call('DEL', KEYS[2], KEYS[3])
  local ttl = tonumber(A[4])
  if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
else
  local stored = redis.call('HGET', KEYS[1], 'na')
  stored = stored and tonumber(stored) or redis.call('LLEN', KEYS[3])
  local need = tonumber(A[5]) - stored
  if need < 0 or need > ntail then return {-4, need} end
  redis.call('HSET', KEYS[1], 'v', new, 's', A[3], 'na', A[5])
  for i = 12 + ntail - need, 11 + ntail do redis.call('RPUSH', KEYS[3], A[i]) end
  for i = 12 + ntail, #A do
    redis.call('XADD', KEYS[2], new .. '-' .. (i - 12 - ntail), 'e', A[i])
  end
end
if A[7] ~= '' then
  redis.call('HSET', KEYS[1], 'm' .. A[7], new, 'd' .. A[7], now_ms .. ':' .. A[10],
    'c' .. A[7], A[11])
end
redis.call('PUBLISH', KEYS[2], new)
return {1, new}
"""


# zlib's level for a finished game's blob.  Level 6 would spend about half the instructions of 9
# on the move that ends a game (1% of a game's postMove instructions on average, bench/api_bench.py
# instr), but its blob (~6.5 KB against ~6.1 KB) lands in Redis's next allocation size: 8,704 B
# per finished game instead of 7,680 B, and a finished match (tests/harness/test_match_memory.py,
# under 12 KB) within 260 B of its budget.  A finished game is kept for good: bytes win.
FINAL_ZLIB_LEVEL = 9

# A caller with the full action list sends this many trailing actions (one move appends one);
# should the list lag further behind, the commit is repeated with every action.
ACTION_TAIL = 16

# Claim an open seat (a specific one, or the lowest open one), record it as an event and publish
# the new version (as a move does).  ARGV: seat ('' = any), token digest, seat count, event JSON
# template with a '%d' for the seat.
_CLAIM_LUA = """
local current = redis.call('HGET', KEYS[1], 'v')
if not current then return {-1, 0} end
if redis.call('HEXISTS', KEYS[1], 'z') == 1 then return {-3, 0} end
local seat = -1
if ARGV[1] ~= '' then
  if redis.call('HSETNX', KEYS[1], 't' .. ARGV[1], ARGV[2]) == 1 then seat = tonumber(ARGV[1]) end
else
  for s = 0, tonumber(ARGV[3]) - 1 do
    if redis.call('HSETNX', KEYS[1], 't' .. s, ARGV[2]) == 1 then seat = s break end
  end
end
if seat < 0 then return {-2, 0} end
local new = tonumber(current) + 1
redis.call('HSET', KEYS[1], 'v', new)
redis.call('XADD', KEYS[2], new .. '-0', 'e', string.format(ARGV[4], seat))
redis.call('PUBLISH', KEYS[2], new)
return {seat, new}
"""


def json_bytes(data: object) -> bytes:
    """Compact JSON bytes (orjson); a dict key that is not a string is written as one (`2` as `"2"`).

    orjson's OPT_NON_STR_KEYS costs about eight times as much as its plain path even when every key
    is a string, as in every state, view and event the games make: that option is taken only when
    the plain path refuses a key (the same bytes either way for string keys).
    """
    try:
        return orjson.dumps(data)
    except orjson.JSONEncodeError:
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)


def _dumps(data: object) -> bytes:
    """Compact JSON bytes; orjson because a move writes the whole state (10 KB late in a game)."""
    return json_bytes(data)


class CallIds:
    """Ids for move commits, unique across processes and calls without a system call per id: a
    random prefix per process (drawn again in a forked child) and a counter (`secrets.token_hex`
    per commit asked the kernel for randomness every time, which also hands the GIL over)."""

    def __init__(self) -> None:
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._prefix = secrets.token_hex(6)
        self._counter = itertools.count()

    def next(self) -> str:
        """A fresh id (`next` on `itertools.count` is atomic under the GIL)."""
        return f"{self._prefix}{next(self._counter):x}"


CALL_IDS = CallIds()


def _commit_args(fields: list[Any], parts: list[bytes]) -> list[bytes]:
    """The commit script's two arguments: the scalar `fields` and the byte length of each part, each
    followed by ','; the parts back to back (none of the fields holds a comma)."""
    head = ",".join([*map(str, fields), *[str(len(p)) for p in parts]]) + ","
    return [head.encode(), b"".join(parts)]


def _dumps_without_actions(state: State) -> bytes:
    """The state as stored in the hash: everything but the action list (stored on its own)."""
    return _dumps({k: v for k, v in state.items() if k != "actions"})


class RepositoryError(Exception):
    """Raised by the repository for missing games and lost compare-and-set races."""


class NoSuchGame(RepositoryError):
    """The game does not exist (never created, or expired)."""


class StaleWrite(RepositoryError):
    """The compare-and-set lost: the stored version is not the expected one."""

    def __init__(self, current: int) -> None:
        super().__init__(f"stored version is {current}")
        self.current = current


class DuplicateMove(RepositoryError):
    """The seat's own last move, equal to this one, made the current version moments ago."""

    def __init__(self, current: int) -> None:
        super().__init__(f"duplicate of the move that made version {current}")
        self.current = current


class SeatUnavailable(RepositoryError):
    """The requested seat is taken (or no seat is open, or the game is over)."""


@dataclass(frozen=True)
class StoredGame:
    """One game as read from Redis in a single round trip."""

    game_id: str
    game: str
    seats: int
    version: int
    seed: int | None
    state: State
    token_digests: dict[int, bytes]
    finished: bool
    # Only filled for a finished game (its events live in the compact blob).
    final_events: list[tuple[str, Event]] | None = None
    # None: state["actions"] is complete.  Otherwise the state was read without its actions
    # (`load_for_move`): this many are stored and state["actions"] holds only later ones.
    actions_base: int | None = None
    # The version each seat's own last move made (a seat that never moved is absent).
    last_moves: dict[int, int] = field(default_factory=dict)
    # Sealed: nobody without a seat may read it (a tournament game whose deal is played elsewhere).
    sealed: bool = False

    @property
    def open_seats(self) -> list[int]:
        """Seats that nobody has claimed yet."""
        return [s for s in range(self.seats) if s not in self.token_digests]


@functools.cache
def _seat_fields(seats: int) -> tuple[tuple[int, bytes, bytes], ...]:
    """The hash's fields of each seat of a `seats`-seat game: (seat, ``t<seat>``, ``m<seat>``), made
    once per seat count."""
    return tuple((s, b"t%d" % s, b"m%d" % s) for s in range(seats))


def _stream_id(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def version_of(event_id: str) -> int:
    """The game version an event id ``<version>-<n>`` belongs to."""
    return int(event_id.split("-", 1)[0])


class GameRepository:
    """Reads and atomically writes games in Redis; knows nothing about rules or HTTP."""

    def __init__(self, client: redis.Redis, prefix: str = "ta:", finished_ttl: int | None = None) -> None:
        self.client = client
        self.prefix = prefix
        self.finished_ttl = finished_ttl
        self._commit = client.register_script(_COMMIT_LUA)
        self._claim = client.register_script(_CLAIM_LUA)

    @classmethod
    def from_url(
        cls,
        url: str,
        prefix: str = "ta:",
        finished_ttl: int | None = None,
        retry: RetryPolicy = API_RETRY,
    ) -> GameRepository:
        """A repository on its own connection pool to the Redis `url` names (`core.redis_factory`).

        Every command gives up after `REDIS_TIMEOUT_S` (a Redis that hangs makes requests fail
        fast, 503, instead of holding them).
        """
        return cls(storage_client(url, retry), prefix=prefix, finished_ttl=finished_ttl)

    def key_for(self, kind: str, game_id: str) -> str:
        """The Redis key of one game's hash (`kind` "game"), event stream ("events") or action list.

        The game id is the keys' hash tag (``game:{<id>}``): on a Redis Cluster a game's three keys
        share one slot, so its scripts and transactions run there, and games spread over every
        master.
        """
        if kind == "game":
            return f"{self.prefix}game:{{{game_id}}}"
        if kind in ("events", "actions"):
            return f"{self.prefix}game:{{{game_id}}}:{kind}"
        raise ValueError(f"unknown key kind {kind!r}")

    def _keys(self, game_id: str) -> list[str]:
        return [self.key_for(kind, game_id) for kind in ("game", "events", "actions")]

    def ping(self) -> bool:
        """True when Redis answers."""
        return bool(self.client.ping())

    def check_writable(self) -> None:
        """Raise unless Redis takes a write now (a short-lived key under the prefix): a replica, a
        demoted master or a master short of its replicas refuses it."""
        check_writable(self.client, f"{self.prefix}health:write")

    def create(
        self,
        game_id: str,
        game: str,
        seats: int,
        seed: int | None,
        state: State,
        token_digests: dict[int, bytes],
        events: list[Event] | None = None,
        sealed: bool = False,
    ) -> int:
        """Store a new game at version 1 with its setup events; ids are random, so never a clash.

        A `sealed` game keeps the field ``sealed`` until `unseal` removes it.
        """
        mapping: dict[str, Any] = {
            "v": 1,
            "g": game,
            "n": seats,
            "s": _dumps_without_actions(state),
            "na": len(state.get("actions", [])),
        }
        if seed is not None:
            mapping["seed"] = seed
        if sealed:
            mapping["sealed"] = 1
        for seat, digest in token_digests.items():
            mapping[f"t{seat}"] = digest
        # No guard against an existing id: 64 random bits make collisions negligible.
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(self.key_for("game", game_id), mapping=mapping)  # type: ignore[arg-type]
        if state.get("actions"):
            pipe.rpush(self.key_for("actions", game_id), *[_dumps(a) for a in state["actions"]])
        for n, event in enumerate(events or ()):
            pipe.xadd(self.key_for("events", game_id), {"e": _dumps(event)}, id=f"1-{n}")
        pipe.execute()
        return 1

    def load(self, game_id: str) -> StoredGame:
        """Read one game (state with all its actions, version, token digests) in one round trip."""
        pipe = self.client.pipeline(transaction=True)
        pipe.hgetall(self.key_for("game", game_id))
        pipe.lrange(self.key_for("actions", game_id), 0, -1)
        raw, actions = pipe.execute()
        if not raw or b"v" not in raw:
            raise NoSuchGame(game_id)
        return self._decode(game_id, raw, actions)

    def load_for_move(self, game_id: str) -> StoredGame:
        """Read one game for a move in one HGETALL: the state without its stored actions (`actions_base`)."""
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.key_for("game", game_id)))
        if not raw or b"v" not in raw:
            raise NoSuchGame(game_id)
        return self._decode(game_id, raw, None, actions_base=int(raw[b"na"]) if b"na" in raw else None)

    def _decode(
        self,
        game_id: str,
        raw: dict[bytes, bytes],
        actions: list[bytes] | None,
        actions_base: int | None = None,
    ) -> StoredGame:
        seats = int(raw[b"n"])
        # Each seat's fields read by name (the hash also holds the seats' `d`/`c` fields and the
        # state): a token digest per claimed seat, the version of each seat's last move.
        fields = _seat_fields(seats)
        digests = {s: raw[t] for s, t, _m in fields if t in raw}
        last_moves = {s: int(raw[m]) for s, _t, m in fields if m in raw}
        seed = int(raw[b"seed"]) if b"seed" in raw else None
        final_events = None
        if b"z" in raw:
            blob = orjson.loads(zlib.decompress(raw[b"z"]))
            state = blob["state"]
            final_events = [(eid, ev) for eid, ev in blob["events"]]
            actions_base = None  # the final blob holds the complete state
        else:
            state = orjson.loads(raw[b"s"])
            if "actions" in state:  # stored before actions had their own list: complete as is
                actions_base = None
            else:
                # One parse of the joined list instead of one per action.
                state["actions"] = orjson.loads(b"[" + b",".join(actions) + b"]") if actions else []
        return StoredGame(
            game_id=game_id,
            game=raw[b"g"].decode(),
            seats=seats,
            version=int(raw[b"v"]),
            seed=seed,
            state=state,
            token_digests=digests,
            finished=b"z" in raw,
            final_events=final_events,
            actions_base=actions_base,
            last_moves=last_moves,
            sealed=b"sealed" in raw,
        )

    def commit(
        self,
        game_id: str,
        expected_version: int,
        state: State,
        events: list[Event],
        final: bool,
        *,
        actions_base: int | None = None,
        stored_actions: int | None = None,
        seat: int | None = None,
        move_digest: str = "",
        refuse_duplicate_ms: int = 0,
        call_id: str | None = None,
    ) -> int:
        """Compare-and-set: write `state` and append `events` iff the version is still `expected_version`.

        `state` carries its full action list, or (with `actions_base`, from `load_for_move`) only
        the actions after the first `actions_base` stored ones.  A caller holding the full list
        who knows how many of them are stored (`stored_actions`: it read or wrote them itself) has
        only the new ones sent; otherwise the last `ACTION_TAIL` go.  A final write (the game just
        ended) stores state and the whole event log compressed in one field and drops the stream
        and the action list; returns the new version.  `seat` is the seat whose move this is: the
        hash remembers the version each seat's last move made (`StoredGame.last_moves`) and the
        `move_digest` of that move; with `refuse_duplicate_ms` > 0 a move whose digest equals the
        seat's last move, while that move made the current version and is younger than that many
        ms, raises `DuplicateMove` and writes nothing.
        """
        actions = state.get("actions", [])
        ttl = self.finished_ttl or 0
        mover = "" if seat is None else str(seat)
        check = move_digest if seat is not None and refuse_duplicate_ms > 0 else ""
        window = refuse_duplicate_ms
        # This call's own id (`call_id`, else a fresh one): a retry of this very call (the Redis
        # client's, after a lost reply) sends it again and is told its write is in; another
        # request's identical move is not.
        call = call_id or CALL_IDS.next()
        if final:
            # Every earlier event and action is needed for the blob; if the game moved on
            # meanwhile, the version check below fails and nothing is written.
            new_version = expected_version + 1
            pipe = self.client.pipeline(transaction=True)
            pipe.xrange(self.key_for("events", game_id))
            pipe.lrange(self.key_for("actions", game_id), 0, -1)
            entries, listed_actions = pipe.execute()
            # The stored events and actions are JSON already: splice their bytes into the blob
            # rather than parse and re-encode hundreds of small documents.
            log = [b'["' + _stream_id(eid).encode() + b'",' + fields[b"e"] + b"]" for eid, fields in entries]
            log += [b'["%d-%d",' % (new_version, i) + _dumps(ev) + b"]" for i, ev in enumerate(events)]
            if actions_base is None:
                action_bytes = [_dumps(a) for a in actions]
            else:
                action_bytes = list(listed_actions[:actions_base]) + [_dumps(a) for a in actions]
            state_bytes = _dumps_without_actions(state)  # b"{...}": re-open it to add the actions
            actions_json = b'"actions":[' + b",".join(action_bytes) + b"]"
            complete = state_bytes[:-1] + (b"," if len(state_bytes) > 2 else b"") + actions_json + b"}"
            document = b'{"state":' + complete + b',"events":[' + b",".join(log) + b"]}"
            blob = zlib.compress(document, FINAL_ZLIB_LEVEL)
            fields: list[Any] = [
                expected_version,
                "final",
                ttl,
                0,
                0,
                mover,
                check,
                window,
                move_digest,
                call,
            ]
            parts = [blob]
        else:
            total = len(actions) + (actions_base or 0)
            if actions_base is not None:
                tail = actions
            elif stored_actions is not None:
                tail = actions[stored_actions:]
            else:
                tail = actions[-ACTION_TAIL:]
            payload = _dumps_without_actions(state)
            event_bytes = [_dumps(ev) for ev in events]
            fields = [
                expected_version,
                "live",
                ttl,
                total,
                len(tail),
                mover,
                check,
                window,
                move_digest,
                call,
            ]
            parts = [payload, *[_dumps(a) for a in tail], *event_bytes]
        keys = self._keys(game_id)
        status, version = self._commit(keys=keys, args=_commit_args(fields, parts))
        if status == -4 and not final and actions_base is None and len(tail) < len(actions):
            # The stored list lags behind what was sent: send every action.
            fields[3:5] = [len(actions), len(actions)]
            parts = [payload, *[_dumps(a) for a in actions], *event_bytes]
            status, version = self._commit(keys=keys, args=_commit_args(fields, parts))
        if status == 2:
            return int(version)  # this very write, applied by an earlier attempt of the same call
        if status == -1:
            raise NoSuchGame(game_id)
        if status == 0:
            raise StaleWrite(int(version))
        if status == -5:
            raise DuplicateMove(int(version))
        if status == -4:
            raise RepositoryError(f"game {game_id}: the state's actions do not continue the stored ones")
        return int(version)

    def claim_seat(self, game_id: str, seat: int | None, digest: bytes, seats: int) -> tuple[int, int]:
        """Atomically give `digest` to `seat` (or the lowest open seat); returns (seat, new version)."""
        keys = [self.key_for("game", game_id), self.key_for("events", game_id)]
        template = '{"type":"seat-joined","seat":%d}'
        status, version = self._claim(keys=keys, args=["" if seat is None else seat, digest, seats, template])
        if status == -1:
            raise NoSuchGame(game_id)
        if status < 0:
            raise SeatUnavailable(game_id)
        return int(status), int(version)

    def unseal(self, game_ids: list[str]) -> None:
        """Lift the seal of these games (missing or expired ones are skipped)."""
        pipe = self.client.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hdel(self.key_for("game", game_id), "sealed")
        pipe.execute()

    def raw_events(self, game_id: str, since_version: int = 0) -> list[tuple[str, Event]]:
        """Unredacted events of a live game with a version above `since_version`, oldest first."""
        entries = cast(
            list[tuple[bytes, dict[bytes, bytes]]],
            self.client.xrange(self.key_for("events", game_id), min=f"{since_version + 1}-0"),
        )
        return [(_stream_id(eid), orjson.loads(fields[b"e"])) for eid, fields in entries]

    def events_channel(self, game_id: str) -> str:
        """The pub/sub channel on which every write of the game publishes its new version (named
        like its event stream key; channels and keys are separate namespaces)."""
        return self.key_for("events", game_id)

    def load_with_events(
        self, game_id: str, since_version: int = 0, *, with_actions: bool = True
    ) -> tuple[StoredGame, list[tuple[str, Event]]]:
        """The game and its events after `since_version`, read atomically (one MULTI round trip);
        `with_actions=False` leaves the stored action list out (`StoredGame.actions_base`), as
        `load_for_move` does: what an event reader needs, and the largest part of a late game."""
        pipe = self.client.pipeline(transaction=True)
        pipe.hgetall(self.key_for("game", game_id))
        pipe.xrange(self.key_for("events", game_id), min=f"{since_version + 1}-0")
        if with_actions:
            pipe.lrange(self.key_for("actions", game_id), 0, -1)
            raw, entries, actions = pipe.execute()
        else:
            raw, entries = pipe.execute()
            actions = None
        if not raw or b"v" not in raw:
            raise NoSuchGame(game_id)
        base = None if with_actions or b"na" not in raw else int(raw[b"na"])
        stored = self._decode(game_id, raw, actions, actions_base=base)
        if stored.final_events is not None:
            events = [(eid, ev) for eid, ev in stored.final_events if version_of(eid) > since_version]
        else:
            events = [(_stream_id(eid), orjson.loads(fields[b"e"])) for eid, fields in entries]
        return stored, events

    def memory_usage(self, game_id: str) -> int:
        """Bytes Redis uses for this game's keys (MEMORY USAGE, for the benchmark)."""
        total = 0
        for kind in ("game", "events", "actions"):
            used = self.client.memory_usage(self.key_for(kind, game_id), samples=0)
            total += int(used or 0)
        return total
