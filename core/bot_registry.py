"""The bot registry: submitted bots (name, URL, games) in Redis, checked over safe outbound HTTP.

Plain Python (no Flask): the bots blueprint and the tournament harness both use it.

Redis layout, under the same configurable prefix as the games (`GameRepository.prefix`):
- ``bot:<id>`` — a hash: ``id``, ``name``, ``url``, ``games`` (JSON list), ``author`` and
  ``version`` (from the bot's own `GET /`), ``owner`` (SHA-256 of the owner key), ``secret``
  (the signing secret, kept in clear because the harness must sign with it; never returned
  after creation), ``status`` (``active`` | ``deleted``), ``created``, ``updated``, ``deleted``,
  ``owner_key_issued`` and ``secret_issued`` (when the current owner key and secret were issued;
  absent on bots stored before rotation existed: then ``created``);
- ``botname:<casefolded name>`` — the id holding that name (names are unique, case-insensitive;
  a deleted bot keeps its name so past results stay unambiguous);
- ``bots`` — a sorted set of every bot id by creation time (deleted ones included);
- ``boturl:<canonical url>`` — a set of the active bots at that URL (`core.outbound.canonical_url`:
  the resolved address, port and normalised path, so `localhost`, `127.1` and `0x7f000001` are one
  URL): a URL an active bot uses is refused to anyone else (409 ``url_taken``) unless the request's
  owner key owns one of those bots; a bot leaves the set when it is deleted or moves. The bot's
  hash keeps the form it claimed (``url_claim``), so a release frees exactly what was claimed
  (bots stored before it hold the older `normalise_url` form, released the same way);
- ``botcheck:<id>`` — held while `POST /bots/{id}/check` runs, and a few seconds after it
  (`begin_check` / `end_check`): one check of a bot at a time.
Creation and renaming are single Lua scripts, so two submissions of one name (or one URL) cannot
both win;
rotating a key is one compare-and-set on the owner digest, so the old key stops working at once
and two rotations with the same old key cannot both win.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import redis
from marshmallow import ValidationError

from bots.protocol import BotInfoSchema, FaultCode
from core import errors
from core.outbound import (
    DEFAULT_PORTS,
    AddressPolicy,
    BotSession,
    OutboundError,
    Resolver,
    canonical_url,
    system_resolver,
)
from games.registry import GAMES

PROBE_TIMEOUT_S = 5.0
# A bot that refuses connections at submission may still be starting: GET / is tried again, with
# back-off, for this long before the submission is refused.
PROBE_RETRY_S = 5.0
PROBE_FIRST_WAIT_S = 0.1
PUBLIC_FIELDS = (
    "id",
    "name",
    "url",
    "games",
    "author",
    "version",
    "status",
    "open",
    "created",
    "updated",
    "deleted",
)

# Whether a URL's claim set (KEYS[url]) bars bot ARGV[id] owned by digest ARGV[owner]: some other
# active bot holds the URL and none of those is owned by that digest. Members that are gone or
# deleted are dropped on the way. (It reads the members' hashes by name, `<prefix>{bots}:bot:<id>`:
# every registry key shares the `{bots}` hash tag, so on a cluster they are in the script's slot.)
_URL_TAKEN_LUA = """
local function url_taken(set, me, digest, bot_prefix)
  local held, mine = false, false
  for _, other in ipairs(redis.call('SMEMBERS', set)) do
    if other ~= me then
      local f = redis.call('HMGET', bot_prefix .. other, 'owner', 'status')
      if not f[1] or f[2] == 'deleted' then
        redis.call('SREM', set, other)
      else
        held = true
        if f[1] == digest then mine = true end
      end
    end
  end
  return held and not mine
end
"""

# KEYS: bot hash, name key, index, URL claim set. ARGV: id, created score, the request's owner
# digest ('' none), the bot key prefix, then field/value pairs. Returns 0 name taken, -4 URL taken, 1 done.
_CREATE_LUA = (
    _URL_TAKEN_LUA
    + """
if url_taken(KEYS[4], ARGV[1], ARGV[3], ARGV[4]) then return -4 end
if redis.call('SETNX', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
return 1
"""
)

# KEYS: bot hash, old name key, new name key, old URL claim set, new URL claim set. ARGV: id,
# expected owner digest, the bot key prefix, then field/value pairs.
# Returns -1 missing, -2 wrong owner, -3 deleted, -4 URL taken, 0 name taken, 1 done.
_UPDATE_LUA = (
    _URL_TAKEN_LUA
    + """
local owner = redis.call('HGET', KEYS[1], 'owner')
if not owner then return -1 end
if owner ~= ARGV[2] then return -2 end
if redis.call('HGET', KEYS[1], 'status') == 'deleted' then return -3 end
if KEYS[4] ~= KEYS[5] and url_taken(KEYS[5], ARGV[1], ARGV[2], ARGV[3]) then return -4 end
if KEYS[2] ~= KEYS[3] then
  if redis.call('SETNX', KEYS[3], ARGV[1]) == 0 then return 0 end
  redis.call('DEL', KEYS[2])
end
if KEYS[4] ~= KEYS[5] then
  redis.call('SREM', KEYS[4], ARGV[1])
  redis.call('SADD', KEYS[5], ARGV[1])
end
if #ARGV > 3 then redis.call('HSET', KEYS[1], unpack(ARGV, 4)) end
return 1
"""
)


# KEYS: bot hash. ARGV: expected owner digest, then field/value pairs.
# Returns -1 missing, -2 wrong owner (also: rotated meanwhile), -3 deleted, 1 done.
_ROTATE_LUA = """
local owner = redis.call('HGET', KEYS[1], 'owner')
if not owner then return -1 end
if owner ~= ARGV[1] then return -2 end
if redis.call('HGET', KEYS[1], 'status') == 'deleted' then return -3 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1
"""

ROTATABLE = ("owner_key", "secret")
STATUSES = ("active", "deleted", "any")
MAX_PAGE = 100
# At most this many stored bots are read to answer one listing page (filters may skip most of
# them): the answer then carries a cursor to go on from, so no request reads every bot.
SCAN_BUDGET = 500


class BotNotFound(errors.ServiceError):
    """No bot with that id."""

    status = 404
    code = "bot_not_found"


class DuplicateName(errors.ServiceError):
    """Another bot (possibly a deleted one) already has that name."""

    status = 409
    code = "duplicate_name"


class UrlTaken(errors.ServiceError):
    """Another owner's active bot already uses that URL."""

    status = 409
    code = "url_taken"


class BotDeleted(errors.ServiceError):
    """The bot was deleted; it can be read but not changed."""

    status = 409
    code = "bot_deleted"


class BotCheckFailed(errors.ServiceError):
    """The submitted URL or the bot behind it failed the submission checks."""

    status = 422
    code = "bot_check_failed"


def owner_digest(key: str) -> str:
    """The stored form of an owner key (hex SHA-256; keys carry 192 random bits, no salt needed)."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def normalise_url(url: str) -> str:
    """The form two URLs of one bot share: scheme and host in lower case, no default port, no
    user info, no trailing slash, no fragment (the path and query as given). A URL that does not
    parse is returned as it is (the probe refuses it)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    if port is not None and port != DEFAULT_PORTS.get(scheme):
        host = f"{host}:{port}"
    return urlunsplit((scheme, host, parts.path.rstrip("/"), parts.query, ""))


def new_bot_id() -> str:
    """A fresh bot id: 64 random bits as 16 hex digits."""
    return secrets.token_hex(8)


@dataclass(frozen=True)
class BotRecord:
    """One stored bot, every field (the secret included: for the harness, never for responses)."""

    id: str
    name: str
    url: str
    games: list[str]
    author: str
    version: str
    status: str
    created: float
    updated: float
    deleted: float | None
    owner: str
    secret: str
    # Open to challenges: anyone may enter it into a tournament (else only with its owner key).
    open: bool = False
    owner_key_issued: float = 0.0  # when the current owner key was issued (creation or rotation)
    secret_issued: float = 0.0  # when the current signing secret was issued
    url_claim: str = ""  # the URL claim it holds (`BotRegistry.claim_of`); "" on bots stored before

    def public(self) -> dict[str, Any]:
        """The fields anyone may read."""
        return {name: getattr(self, name) for name in PUBLIC_FIELDS}

    def owner_view(self) -> dict[str, Any]:
        """The public fields plus what only the owner reads: when its key and secret were issued."""
        return {
            **self.public(),
            "owner_key_issued": self.owner_key_issued,
            "secret_issued": self.secret_issued,
        }


@dataclass(frozen=True)
class CreatedBot:
    """What `create` hands back once: the record and the two secrets (`secret_supplied`: the signing
    secret is the one the author gave, so it need not be shown back)."""

    bot: BotRecord
    owner_key: str
    secret: str
    secret_supplied: bool = False


@dataclass(frozen=True)
class RotatedKeys:
    """What `rotate` hands back once: the record and the new key and/or secret (None: not rotated)."""

    bot: BotRecord
    owner_key: str | None
    secret: str | None


@dataclass(frozen=True)
class BotPage:
    """One page of a listing: the bots, and where the next page starts (None: this was the last)."""

    bots: list[BotRecord]
    next_cursor: int | None


# Refusals about the URL itself keep their own code; everything the remote end did (refused,
# timed out, answered non-200, too much, not a bot info) is one generic answer that echoes
# nothing of it: otherwise createBot tells a stranger which ports answer what (a port scanner).
# Bot authors see the precise reason with `trickarena bot check` against their own bot.
URL_REFUSAL_CODES: dict[str, str] = {
    "invalid_url": "invalid_url",
    FaultCode.FORBIDDEN_ADDRESS: "forbidden_address",
}
NOT_A_BOT = "bot_unreachable"
NOT_A_BOT_MESSAGE = (
    "no Trick Arena bot answered GET / at this URL with a valid bot info within the time limit "
    "(see docs/bot-protocol.md)"
)


class BotRegistry:
    """Create, read, update and delete submitted bots; every write checks the bot first."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "ta:",
        policy: AddressPolicy | None = None,
        resolver: Resolver = system_resolver,
        probe_timeout_s: float = PROBE_TIMEOUT_S,
        clock: Callable[[], float] = time.time,
        probe_retry_s: float = PROBE_RETRY_S,
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.policy = policy
        self.resolver = resolver
        self.probe_timeout_s = probe_timeout_s
        self.probe_retry_s = probe_retry_s
        self.clock = clock
        self._create = client.register_script(_CREATE_LUA)
        self._update = client.register_script(_UPDATE_LUA)
        self._rotate = client.register_script(_ROTATE_LUA)

    # -- keys -------------------------------------------------------------------------
    def key_for(self, kind: str, ident: str = "") -> str:
        """The Redis key of a bot (`kind` "bot"), a name claim ("name"), the index ("index") or a
        URL claim ("url").

        Every registry key carries the hash tag ``{bots}``: on a Redis Cluster the registry is one
        slot, so a bot's creation checks its name and URL claims and writes the index in one
        script (10,000 bots are a few MB: one slot holds them).
        """
        if kind == "bot":
            return f"{self.prefix}{{bots}}:bot:{ident}"
        if kind == "name":
            return f"{self.prefix}{{bots}}:name:{ident.casefold()}"
        if kind == "index":
            return f"{self.prefix}{{bots}}:index"
        if kind == "url":  # `ident`: a claim (`claim_for`)
            return f"{self.prefix}{{bots}}:url:{ident}"
        raise ValueError(f"unknown key kind {kind!r}")

    def claim_for(self, url: str) -> str:
        """The claim a bot at `url` holds: its canonical URL (one for every spelling of an address)."""
        return canonical_url(url, self.resolver)

    @staticmethod
    def claim_of(bot: BotRecord) -> str:
        """The claim `bot` holds: the one it stored, else (stored before claims were canonical) the
        older normalised form of its URL."""
        return bot.url_claim or normalise_url(bot.url)

    # -- checks -----------------------------------------------------------------------
    def probe(self, url: str, games: list[str]) -> dict[str, Any]:
        """Call the bot's `GET /` safely; return its info or raise BotCheckFailed with a precise code."""
        unknown = sorted(set(games) - set(GAMES))
        if unknown:
            raise BotCheckFailed(f"unknown games {unknown}; known: {sorted(GAMES)}", code="unknown_game")
        body = self._get_info(url)
        try:
            info = cast(dict[str, Any], BotInfoSchema().load(body))
        except ValidationError:
            raise BotCheckFailed(NOT_A_BOT_MESSAGE, code=NOT_A_BOT) from None
        missing = sorted(set(games) - set(info["games"]))
        if missing:
            raise BotCheckFailed(
                f"the bot says it does not play {missing}",
                code="game_not_played",
                details={"claimed": games, "plays": info["games"]},
            )
        return info

    def _get_info(self, url: str) -> Any:
        """The decoded body of the bot's `GET /`; a refused connection is tried again with back-off for
        up to `probe_retry_s` (a bot still starting up), anything else fails at once."""
        give_up = time.monotonic() + self.probe_retry_s
        wait = PROBE_FIRST_WAIT_S
        while True:
            try:
                with BotSession(url, policy=self.policy, resolver=self.resolver) as session:
                    return session.get_json("/", timeout_s=self.probe_timeout_s)
            except OutboundError as exc:
                code = URL_REFUSAL_CODES.get(str(exc.code))
                if code is not None:
                    raise BotCheckFailed(exc.message, code=code) from None
                left = give_up - time.monotonic()
                if exc.code != FaultCode.CONNECTION_ERROR or left <= 0:
                    raise BotCheckFailed(NOT_A_BOT_MESSAGE, code=NOT_A_BOT) from None
            time.sleep(min(wait, left))
            wait *= 2

    # -- operations -------------------------------------------------------------------
    def create(
        self,
        name: str,
        url: str,
        games: list[str],
        open_to_challenges: bool = False,
        secret: str | None = None,
        owner_key: str | None = None,
    ) -> CreatedBot:
        """Check the bot, then store it; returns the owner key and signing secret (shown only now).

        `secret`: the signing secret the author chose (e.g. `trickarena bot secret`), so the bot can
        run with it before it is registered; None: a fresh one. `owner_key`: the request's, which
        lets the new bot share the URL of an active bot it owns (else the URL must be free)."""
        games = sorted(set(games))
        if self.client.exists(self.key_for("name", name)):
            raise DuplicateName(f"a bot named {name!r} already exists")
        requester = owner_digest(owner_key) if owner_key else ""
        claim = self.claim_for(url)
        self._check_url_free(claim, "", requester)
        info = self.probe(url, games)
        supplied = secret is not None
        bot_id, new_key = new_bot_id(), secrets.token_urlsafe(24)
        secret = secret if secret is not None else secrets.token_urlsafe(32)
        now = self.clock()
        fields: dict[str, Any] = {
            "id": bot_id,
            "name": name,
            "url": url.rstrip("/"),
            "games": json.dumps(games),
            "author": info["author"],
            "version": info["version"],
            "status": "active",
            "created": repr(now),
            "updated": repr(now),
            "owner": owner_digest(new_key),
            "secret": secret,
            "open": "1" if open_to_challenges else "0",
            "owner_key_issued": repr(now),
            "secret_issued": repr(now),
            "url_claim": claim,
        }
        flat = [item for pair in fields.items() for item in pair]
        keys = [
            self.key_for("bot", bot_id),
            self.key_for("name", name),
            self.key_for("index"),
            self.key_for("url", claim),
        ]
        status = self._create(keys=keys, args=[bot_id, now, requester, self.key_for("bot"), *flat])
        if status == -4:
            raise self._url_taken(claim)
        if not status:
            raise DuplicateName(f"a bot named {name!r} already exists")
        return CreatedBot(self.record(bot_id), new_key, secret, supplied)

    def _url_taken(self, claim: str) -> UrlTaken:
        return UrlTaken(
            "another bot already uses this URL: give each bot its own URL (a path or a port), or "
            "send the owner key of a bot at this URL to share it",
            details={"url": claim},
        )

    def _check_url_free(self, claim: str, bot_id: str, digest: str) -> None:
        """Refuse early (before any probe) a URL another owner's active bot uses; the Lua that
        stores the bot checks again, atomically."""
        holders = [m.decode() for m in cast(set[bytes], self.client.smembers(self.key_for("url", claim)))]
        others = [h for h in holders if h != bot_id]
        if not others:
            return
        pipe = self.client.pipeline(transaction=False)
        for other in others:
            pipe.hmget(self.key_for("bot", other), ["owner", "status"])
        active = [owner for owner, status in pipe.execute() if owner is not None and status != b"deleted"]
        if active and not any(hmac.compare_digest(owner.decode(), digest) for owner in active):
            raise self._url_taken(claim)

    def record(self, bot_id: str) -> BotRecord:
        """The full stored record (secret included: internal use only)."""
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.key_for("bot", bot_id)))
        if not raw:
            raise BotNotFound(f"no bot {bot_id!r}")
        return _parse(raw)

    def get(self, bot_id: str) -> dict[str, Any]:
        """Public fields of one bot (deleted bots stay readable, marked deleted)."""
        return self.record(bot_id).public()

    def list_bots(self, game: str | None = None, include_deleted: bool = False) -> list[dict[str, Any]]:
        """Public fields of every bot, oldest first; optionally only those playing `game` (every page
        of `page`: for callers in this process, never for an HTTP answer)."""
        out: list[dict[str, Any]] = []
        cursor: int | None = 0
        while cursor is not None:
            found = self.page(game=game, status="any" if include_deleted else "active", cursor=cursor)
            out += [bot.public() for bot in found.bots]
            cursor = found.next_cursor
        return out

    def page(
        self,
        *,
        game: str | None = None,
        status: str = "active",
        owner_key: str | None = None,
        cursor: int = 0,
        limit: int = MAX_PAGE,
    ) -> BotPage:
        """Up to `limit` (at most `MAX_PAGE`) bots in creation order from position `cursor` of the
        index, matching every filter given (`game` played, `status` active/deleted/any, owned by
        `owner_key`); reads at most `SCAN_BUDGET` stored bots, so a page may be short (even empty)
        and still have a next cursor."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}")
        limit = max(1, min(limit, MAX_PAGE))
        digest = owner_digest(owner_key) if owner_key is not None else None
        index = self.key_for("index")
        found: list[BotRecord] = []
        position, budget = max(0, cursor), SCAN_BUDGET
        while budget > 0:
            ids = cast(list[bytes], self.client.zrange(index, position, position + min(100, budget) - 1))
            if not ids:
                return BotPage(found, None)
            pipe = self.client.pipeline(transaction=False)
            for bot_id in ids:
                pipe.hgetall(self.key_for("bot", bot_id.decode()))
            for raw in pipe.execute():
                position += 1
                budget -= 1
                if not raw:
                    continue  # a bot whose record is gone (cleaned up by hand)
                bot = _parse(raw)
                if (
                    (status == "any" or bot.status == status)
                    and (game is None or game in bot.games)
                    and (digest is None or hmac.compare_digest(bot.owner, digest))
                ):
                    found.append(bot)
                    if len(found) == limit:
                        break
            if len(found) == limit:
                break
        more = int(self.client.zcard(index)) > position
        return BotPage(found, position if more else None)

    def rotate(self, bot_id: str, owner_key: str | None, owner: bool, secret: bool) -> RotatedKeys:
        """Issue a new owner key and/or signing secret (owner only); the old one stops working at once."""
        bot = self.authorize(bot_id, owner_key)
        if bot.status == "deleted":
            raise BotDeleted(f"bot {bot_id!r} was deleted")
        now = repr(self.clock())
        new_key = secrets.token_urlsafe(24) if owner else None
        new_secret = secrets.token_urlsafe(32) if secret else None
        fields: dict[str, Any] = {"updated": now}
        if new_key is not None:
            fields.update(owner=owner_digest(new_key), owner_key_issued=now)
        if new_secret is not None:
            fields.update(secret=new_secret, secret_issued=now)
        flat = [item for pair in fields.items() for item in pair]
        status = self._rotate(keys=[self.key_for("bot", bot_id)], args=[bot.owner, *flat])
        if status == -3:
            raise BotDeleted(f"bot {bot_id!r} was deleted")
        if status == -2:  # another rotation with the same key won meanwhile
            raise errors.InvalidToken("that is not this bot's owner key", code="not_owner")
        if status < 0:
            raise BotNotFound(f"no bot {bot_id!r}")
        return RotatedKeys(self.record(bot_id), new_key, new_secret)

    def begin_check(self, bot_id: str, hold_s: float) -> int | None:
        """Claim the bot's check slot for up to `hold_s` seconds: None when claimed, else the seconds
        until the running (or just finished) check lets go of it."""
        key = f"{self.prefix}botcheck:{bot_id}"
        if self.client.set(key, "1", nx=True, ex=max(1, int(hold_s + 0.999))):
            return None
        return max(1, int(self.client.ttl(key)))

    def end_check(self, bot_id: str, cooldown_s: float) -> None:
        """A check of the bot ended: its slot stays taken `cooldown_s` more seconds (0: freed now)."""
        key = f"{self.prefix}botcheck:{bot_id}"
        if cooldown_s > 0:
            self.client.expire(key, max(1, int(cooldown_s + 0.999)))
        else:
            self.client.delete(key)

    def may_enter(self, bot: BotRecord, owner_keys: list[str]) -> bool:
        """Whether a tournament with these owner keys may enter `bot`: it is open, or its key is there."""
        return bot.open or any(hmac.compare_digest(bot.owner, owner_digest(k)) for k in owner_keys)

    def authorize(self, bot_id: str, owner_key: str | None) -> BotRecord:
        """The bot if `owner_key` is its owner key; 401 without a key, 403 with another one."""
        bot = self.record(bot_id)
        if not owner_key:
            raise errors.MissingToken("this operation needs the bot's owner key as a Bearer token")
        if not hmac.compare_digest(bot.owner, owner_digest(owner_key)):
            raise errors.InvalidToken("that is not this bot's owner key", code="not_owner")
        return bot

    def update(
        self,
        bot_id: str,
        owner_key: str | None,
        name: str | None = None,
        url: str | None = None,
        games: list[str] | None = None,
        open_to_challenges: bool | None = None,
    ) -> dict[str, Any]:
        """Change name, URL, games and/or openness (owner only); a new URL or game list is checked again."""
        bot = self.authorize(bot_id, owner_key)
        if bot.status == "deleted":
            raise BotDeleted(f"bot {bot_id!r} was deleted")
        new_name = bot.name if name is None else name
        if new_name.casefold() != bot.name.casefold() and self.client.exists(self.key_for("name", new_name)):
            raise DuplicateName(f"a bot named {new_name!r} already exists")
        fields: dict[str, Any] = {"name": new_name, "updated": repr(self.clock())}
        if open_to_challenges is not None:
            fields["open"] = "1" if open_to_challenges else "0"
        old_claim = self.claim_of(bot)
        new_claim = old_claim if url is None else self.claim_for(url)
        if new_claim != old_claim:
            self._check_url_free(new_claim, bot_id, bot.owner)
        if url is not None or games is not None:
            new_games = sorted(set(games)) if games is not None else bot.games
            info = self.probe(url if url is not None else bot.url, new_games)
            fields.update(games=json.dumps(new_games), author=info["author"], version=info["version"])
            if url is not None:
                fields["url"] = url.rstrip("/")
                fields["url_claim"] = new_claim
        flat = [item for pair in fields.items() for item in pair]
        keys = [
            self.key_for("bot", bot_id),
            self.key_for("name", bot.name),
            self.key_for("name", new_name),
            self.key_for("url", old_claim),
            self.key_for("url", new_claim),
        ]
        status = self._update(keys=keys, args=[bot_id, bot.owner, self.key_for("bot"), *flat])
        if status == -4:
            raise self._url_taken(new_claim)
        if status == 0:
            raise DuplicateName(f"a bot named {new_name!r} already exists")
        if status == -3:
            raise BotDeleted(f"bot {bot_id!r} was deleted")
        if status < 0:
            raise BotNotFound(f"no bot {bot_id!r}")
        return self.get(bot_id)

    def delete(self, bot_id: str, owner_key: str | None) -> dict[str, Any]:
        """Mark the bot deleted (owner only); its record, name and past results stay. Idempotent."""
        bot = self.authorize(bot_id, owner_key)
        if bot.status != "deleted":
            now = repr(self.clock())
            with self.client.pipeline(transaction=True) as pipe:
                pipe.hset(
                    self.key_for("bot", bot_id), mapping={"status": "deleted", "deleted": now, "updated": now}
                )
                pipe.srem(self.key_for("url", self.claim_of(bot)), bot_id)  # its URL is free again
                pipe.execute()
        return self.get(bot_id)


def _parse(raw: dict[bytes, bytes]) -> BotRecord:
    """A stored bot hash as a record."""
    text = {k.decode(): v.decode() for k, v in raw.items()}
    created = float(text["created"])
    return BotRecord(
        id=text["id"],
        name=text["name"],
        url=text["url"],
        games=json.loads(text["games"]),
        author=text.get("author", ""),
        version=text.get("version", ""),
        status=text["status"],
        created=created,
        updated=float(text["updated"]),
        deleted=float(text["deleted"]) if "deleted" in text else None,
        owner=text["owner"],
        secret=text["secret"],
        open=text.get("open") == "1",
        owner_key_issued=float(text.get("owner_key_issued", created)),
        secret_issued=float(text.get("secret_issued", created)),
        url_claim=text.get("url_claim", ""),
    )
