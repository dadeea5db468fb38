"""Quotas: caps on the live bots, leagues and tournaments per owner key, per client address and overall.

Creation floods (thousands of createBot, hundreds of leagues each scheduling jobs) are bounded
here, not only by the request rate. For each kind (`bot`, `league`, `tournament`) three caps,
each from its own setting (docs/operations.md, Quotas):

- per owner key (`TRICKARENA_MAX_<KIND>S_PER_OWNER`): creations sent with
  `Authorization: Bearer <owner key>`, counted by the key's digest (never the key);
- per client address (`TRICKARENA_MAX_<KIND>S_PER_ADDRESS`): every creation, by the address
  rate limits use (after ProxyFix when configured);
- overall (`TRICKARENA_MAX_<KIND>S`): the global ceiling.

`0` turns a cap off. Live means: a bot until deleted, a league until deleted, a tournament until
it finishes or is cancelled; each frees its slot then (`release`).

A creation first `reserve`s a slot in every cap that applies, in one Lua script (check and take
at once: concurrent creations never overshoot a cap), before anything else is written. A full
cap is `QuotaExceeded` (409 `quota_exceeded`, `details.cap` naming the setting and
`details.max` its value) and nothing is taken. Once the thing exists, `bind` turns the
reservation into its id's slot; a failed creation `cancel`s it. A reservation neither bound nor
cancelled (its process died in between) expires after `PENDING_S` seconds.
"""

from __future__ import annotations

import hashlib
import logging
import os
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import redis

from core import errors

log = logging.getLogger("trickarena.quotas")

T = TypeVar("T")

KINDS: tuple[str, ...] = ("bot", "league", "tournament")
SCOPES: tuple[str, ...] = ("owner", "address", "total")

# Defaults of every cap: (per owner key, per client address, overall).
DEFAULTS: dict[str, tuple[int, int, int]] = {
    "bot": (50, 200, 20_000),
    "league": (10, 20, 1_000),
    "tournament": (20, 50, 2_000),
}

# Seconds a reservation waits for its `bind` or `cancel` (a creation calls its bot's GET / first).
PENDING_S = 120


def setting(kind: str, scope: str) -> str:
    """The configuration key of one cap: `TRICKARENA_MAX_BOTS_PER_OWNER`, ..., `TRICKARENA_MAX_BOTS`."""
    suffix = {"owner": "_PER_OWNER", "address": "_PER_ADDRESS", "total": ""}[scope]
    return f"TRICKARENA_MAX_{kind.upper()}S{suffix}"


SETTINGS: tuple[str, ...] = tuple(setting(kind, scope) for kind in KINDS for scope in SCOPES)


def default(name: str) -> int:
    """The default value of the cap setting `name`."""
    for kind in KINDS:
        for index, scope in enumerate(SCOPES):
            if setting(kind, scope) == name:
                return DEFAULTS[kind][index]
    raise KeyError(name)


def caps_from(config: Mapping[str, Any]) -> dict[str, int]:
    """Every cap setting's value in `config` (the default where absent); ValueError when one is
    not a whole number >= 0."""
    caps = {}
    for name in SETTINGS:
        raw = config.get(name)
        value = default(name) if raw is None or raw == "" else raw
        try:
            caps[name] = int(value)
        except (TypeError, ValueError):
            raise ValueError(f"{name}={value!r} is not a whole number (0: no cap)") from None
        if caps[name] < 0:
            raise ValueError(f"{name}={value!r} is negative (0: no cap)")
    return caps


def caps_from_env(environ: Mapping[str, str] = os.environ) -> dict[str, int]:
    """The caps of the environment (as `caps_from`)."""
    return caps_from({name: environ[name] for name in SETTINGS if environ.get(name)})


class QuotaExceeded(errors.Conflict):
    """A cap on live bots, leagues or tournaments is reached; nothing was created."""

    code = "quota_exceeded"


# KEYS: the capped sorted sets; ARGV: member, pending seconds, a limit per set.
# Every set's expired reservations go first, then every cap is checked, then the member is added
# to every set: one script, so no two creations can both take a cap's last slot.
_RESERVE_LUA = """
local now = redis.call('TIME')
local now_s = tonumber(now[1]) + tonumber(now[2]) / 1000000
local sets = #KEYS
for i = 1, sets do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now_s)
  local limit = tonumber(ARGV[i + 2])
  if limit > 0 and redis.call('ZCARD', KEYS[i]) >= limit then return i end
end
for i = 1, sets do redis.call('ZADD', KEYS[i], now_s + tonumber(ARGV[2]), ARGV[1]) end
return 0
"""

# KEYS: the sets, then the id's hold hash; ARGV: the reservation, the id. The reservation's
# entries become the id's, with no expiry; the hold hash remembers the sets for `release`.
_BIND_LUA = """
local sets = #KEYS - 1
for i = 1, sets do
  redis.call('ZREM', KEYS[i], ARGV[1])
  redis.call('ZADD', KEYS[i], 'inf', ARGV[2])
  redis.call('HSET', KEYS[#KEYS], KEYS[i], '1')
end
return 0
"""

# KEYS[1]: the id's hold hash; ARGV[1]: the id. Frees every slot the id holds (nothing if none).
_RELEASE_LUA = """
local sets = redis.call('HKEYS', KEYS[1])
for _, set in ipairs(sets) do redis.call('ZREM', set, ARGV[1]) end
redis.call('DEL', KEYS[1])
return #sets
"""


@dataclass(frozen=True)
class Reservation:
    """Slots taken for one creation, in the sets `keys`, under the member `member`."""

    kind: str
    member: str
    keys: tuple[str, ...]


class Quotas:
    """The caps of one deployment, counted in Redis under `prefix` (shared by every API process)."""

    def __init__(self, client: redis.Redis, prefix: str, caps: Mapping[str, int] | None = None) -> None:
        self.client = client
        self.prefix = prefix
        self.caps = dict(caps if caps is not None else caps_from_env())
        self._reserve = client.register_script(_RESERVE_LUA)
        self._bind = client.register_script(_BIND_LUA)
        self._release = client.register_script(_RELEASE_LUA)

    def key(self, kind: str, scope: str, who: str = "") -> str:
        """The sorted set of one cap's live members (`who`: the owner digest or the address)."""
        return quota_key(self.prefix, kind, scope, who) if who else quota_key(self.prefix, kind, scope)

    def hold_key(self, kind: str, ident: str) -> str:
        """The hash naming the sets an id holds a slot in."""
        return quota_key(self.prefix, kind, "held", ident)

    def reserve(self, kind: str, address: str, owner_keys: Sequence[str | None] = ()) -> Reservation:
        """Take a slot in every cap of `kind` that applies (each owner key's, the address's, the
        overall one), or raise QuotaExceeded taking none."""
        digests = {
            hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32] for key in owner_keys if key
        }
        scopes = [("owner", digest) for digest in sorted(digests)] + [("address", address), ("total", "")]
        keys = tuple(self.key(kind, scope, who) for scope, who in scopes)
        limits = [self.caps[setting(kind, scope)] for scope, _ in scopes]
        member = "pending:" + uuid.uuid4().hex
        full = int(cast(int, self._reserve(keys=list(keys), args=[member, PENDING_S, *limits])))
        if full:
            scope = scopes[full - 1][0]
            name, limit = setting(kind, scope), limits[full - 1]
            per = {"owner": " per owner key", "address": " per client address", "total": " in all"}[scope]
            raise QuotaExceeded(
                f"as many live {kind}s as allowed{per} ({limit}, {name}); delete one to make room",
                details={"cap": name, "max": limit, "kind": kind, "per": scope},
            )
        return Reservation(kind, member, keys)

    def bind(self, reservation: Reservation, ident: str) -> None:
        """The creation succeeded: the reserved slots become `ident`'s until `release`."""
        self._bind(
            keys=[*reservation.keys, self.hold_key(reservation.kind, ident)], args=[reservation.member, ident]
        )

    def cancel(self, reservation: Reservation) -> None:
        """The creation failed: give the reserved slots back (they would expire anyway)."""
        try:
            with self.client.pipeline(transaction=False) as pipe:
                for key in reservation.keys:
                    pipe.zrem(key, reservation.member)
                pipe.execute()
        except redis.RedisError as exc:
            log.warning("quota reservation not cancelled (%r); it expires by itself", exc)

    def create(
        self,
        kind: str,
        address: str,
        owner_keys: Sequence[str | None],
        make: Callable[[], T],
        ident: Callable[[T], str],
    ) -> T:
        """`make()` under a reserved slot: bound to `ident(made)` once made, cancelled if it raises."""
        reservation = self.reserve(kind, address, owner_keys)
        try:
            made = make()
        except BaseException:
            self.cancel(reservation)
            raise
        self.bind(reservation, ident(made))
        return made

    def release(self, kind: str, ident: str) -> None:
        """`ident` was deleted (or finished): free every slot it holds (nothing if it holds none)."""
        release(self.client, self.prefix, kind, ident)


def release(client: redis.Redis, prefix: str, kind: str, ident: str) -> None:
    """Free the slots `ident` holds (for callers without the caps: the harness, when a tournament
    finishes or is cancelled). Idempotent."""
    client.eval(_RELEASE_LUA, 1, quota_key(prefix, kind, "held", ident), ident)


def quota_key(prefix: str, *parts: str) -> str:
    """A key of the caps: ``<prefix>{quota}:<parts…>``. Every one carries the hash tag ``{quota}``,
    so on a Redis Cluster the sets one creation checks and takes at once (its owner's, its
    address's, the overall one) are in one slot and one script."""
    return f"{prefix}{{quota}}:" + ":".join(parts)
