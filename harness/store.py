"""Redis storage of tournaments, matches, results, leases, leagues and the harness's bot directory.

Layout (every key under the configured prefix, built by `HarnessStore.key_for`). Redis Cluster
(issue 25): every script and transaction touches one hash slot. A tournament's keys carry its
hash tag, ``t:{<tid>}…`` (`tournament_tag`; a league round ``<lid>r<n>``'s: ``t:{<lid>}r<n>…``, in
its league's slot), a league's ``l:{<lid>}…``, a bot's own indexes ``b:{<bot>}…``, so tournaments,
leagues and bots spread over the masters. The listings across entities (``t:index``, the owner
indexes, ``l:index``, ``g:<game id>:match``, the bots' indexes of a result) are written in a second
step, after the entity's own script or transaction, idempotent: run again after a crash between
the two steps, it writes nothing twice. Below, ``<tid>`` in a key stands for its tagged form.

- ``t:index`` — sorted set of tournament ids by creation time; ``t:owner:<digest>`` — the same,
  of the tournaments an owner key (SHA-256 digest) owns: a tournament under its own key, a league
  round under its league's (moved when the key is rotated); both written after the tournament's
  transaction (`list_tournament`: ZADD of its creation time, the owner read again after it);
- ``t:<tid>`` — hash: ``spec`` (JSON), ``status``, ``total``, ``completed``, ``created_at``,
  ``started_at``, ``finished_at``, ``owner``;
- ``t:<tid>:matches`` — hash: match index -> the match's `MatchSpec` JSON (fixed at creation);
- ``t:<tid>:m:<i>`` — hash: ``game_id``, ``wal`` (the runner's write-ahead record, see runner) and
  ``versions`` (each seat's bot version);
- ``g:<game id>:match`` — string: ``[tid, index]`` (JSON), the match a tournament game belongs
  to, written as the runner creates the game (`claim_game_id`, before the match's own write), so
  that any game id finds its tournament, match and seats' bots (getGamePlayers);
- ``t:<tid>:m:<i>:d`` — string: the match's decision records, one line per decision
  (`encode_decision`), at most `MAX_DECISION_BYTES`;
- ``t:<tid>:results`` — hash: match index -> result JSON, written once (`record_result`);
- ``t:<tid>:lease:<i>`` — the running match's lease (owner token, expires);
- ``t:<tid>:standings`` — the final standings JSON of tournaments from before the live standings
  (new ones keep theirs in the scope below); ``t:<tid>:prior`` — hash bot -> the [mu, sigma] a
  league round started from;
- ``t:<tid>:unindexed`` — hash: match index -> score, the results folded into the standings whose
  entries in their bots' own indexes are still due (`queue_bot_index`, `index_bots`);
- ``l:index``, ``l:owner:<digest>`` (leagues by creation time, all and per owner-key digest;
  written after the league's record), ``l:<lid>`` (hash: spec, owner, status, created_at,
  next_round, next_at), ``l:<lid>:members`` (hash bot -> joined_at), ``l:<lid>:ratings`` (hash bot
  -> rating JSON; leagues from before the league's live standings only), ``l:<lid>:round:<n>``
  (the round's tournament id, SETNX so a round is created once), ``l:<lid>:rounds`` (list);
- live standings of a *scope* (``t:<tid>`` or ``l:<lid>``; `scope_key`, in the tournament's or
  the league's slot): ``<scope>:live`` (hash: the cursor -- ``n`` for a tournament, ``pos``/``idx``
  for a league -- ``matches``, ``events``, ``closed``), and one hash per section of
  `harness.standings.SECTIONS` (``:rows``, ``:pairs``, ``:comps``, ``:deals``, ``:clusters``,
  ``:history``; JSON per field), ``<scope>:index`` (sorted set of equal scores: one member per
  row, `harness.standings.rank_member`, so its order is the standings' order), ``<scope>:compz``
  (sorted set: compositions by mean team score), ``<scope>:stats`` (hash: ``as_of`` and the
  intervals per bot and composition, written by the statistics job), ``<scope>:stats_pending``
  (debounce flag);
- per bot (issue 18), in the bot's slot (``b:{<bot>}…``), written after the fold's transaction
  that marked the result due (`index_bots`), once per bot and result: the result's member in the
  bot's per-tournament index is the marker, so a repeat writes and counts nothing:
  ``b:<bot>:matches`` (sorted set: ``<tid>:<index>`` by when it was folded, in microseconds,
  unique per batch position), ``b:<bot>:matches:t:<tid>`` and ``b:<bot>:matches:l:<lid>`` (the
  same, per tournament and per league), ``b:<bot>:leagues`` (sorted set: league ids by last
  result) and ``b:<bot>:versions`` (hash: ``<game>\t<version>\t<counter>`` -> count: ``m``
  matches, ``g`` seat-games, ``w`` wins, ``s`` score sum, ``f`` faults, ``f:<code>`` faults by
  code, ``um`` unrated matches; practice tournaments and error results left out);
Bots live in the bots engineer's registry (`core.bot_registry.BotRegistry`, built by its `key_for`).
The feeder's keys (`harness.queueing`) and a challenge's (`harness.challenges`) follow the same rule.
"""

from __future__ import annotations

import json
import re
import secrets
import time
import zlib
from collections.abc import Mapping, Sequence
from typing import Any, cast

import redis

from core import quotas
from core.redis_factory import storage_client
from harness.standings import SECTIONS, seat_versions

# Append the runner's pending decision lines to the match's string, at most `cap` bytes: a batch
# that does not fit fills the string up to the cap (NUL bytes), so no later batch is stored after
# a gap. (Shared by the two scripts below: the records travel with a write the runner makes anyway.)
_PUSH_DECISIONS = """
local function push_decisions(key, cap, lines)
  if #lines == 0 then return end
  local used = redis.call('STRLEN', key)
  if used + #lines <= cap then
    redis.call('APPEND', key, lines)
  elseif used < cap then
    redis.call('SETRANGE', key, cap - 1, '\\0')
  end
end
"""

# Record a result exactly once and count it in the same atomic step, with the last decisions.
# KEYS: results hash, tournament hash, decisions list. ARGV: match index, result JSON, cap, records.
# Returns {1, completed} when recorded now, {0, completed} when it was already there.
_RECORD_LUA = (
    _PUSH_DECISIONS
    + """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  push_decisions(KEYS[3], tonumber(ARGV[3]), ARGV[4])
  return {1, redis.call('HINCRBY', KEYS[2], 'completed', 1)}
end
return {0, tonumber(redis.call('HGET', KEYS[2], 'completed') or '0')}
"""
)

# Renew a lease only if we still own it. KEYS: lease. ARGV: token, ttl ms.
_RENEW_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

# Write the runner's WAL only while we hold the lease, renewing it, with the decisions so far.
# KEYS: lease, match hash, decisions list. ARGV: token, ttl ms, WAL JSON, cap, records.
_WAL_LUA = (
    _PUSH_DECISIONS
    + """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], 'wal', ARGV[3])
push_decisions(KEYS[3], tonumber(ARGV[4]), ARGV[5])
return 1
"""
)

# Change a tournament's status, optionally only from given statuses, stamping the time once.
# KEYS: tournament hash. ARGV: status, stamp field ('' = none), now, then the allowed statuses.
_STATUS_LUA = """
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return 0 end
if #ARGV > 3 then
  local ok = false
  for i = 4, #ARGV do if ARGV[i] == current then ok = true end end
  if not ok then return 0 end
end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
if ARGV[2] ~= '' then redis.call('HSETNX', KEYS[1], ARGV[2], ARGV[3]) end
return 1
"""

# Release a lease only if we still own it. KEYS: lease. ARGV: token.
_RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


# Replace an owner key's digest (compare-and-set: the old key stops working at once, and of two
# rotations with the same old key one wins); what the old digest lists moves in a second step
# (`HarnessStore.rotate_owner`: the owner indexes are in other hash slots).
# KEYS: the record's hash. ARGV: old digest, new digest, issued time, a status that refuses
# rotation ('' none). Returns -1 missing, -2 not the owner, -3 refused status, 1 done.
# Append a league round to its league's list unless it is there (a repeated firing repairs a
# creation that died before its append, and never lists a round twice). KEYS: the list. ARGV: tid.
_ADD_ROUND_LUA = """
if redis.call('LPOS', KEYS[1], ARGV[1]) then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[1])
return 1
"""

_ROTATE_OWNER_LUA = """
local owner = redis.call('HGET', KEYS[1], 'owner')
if not owner then return -1 end
if owner ~= ARGV[1] then return -2 end
if ARGV[4] ~= '' and redis.call('HGET', KEYS[1], 'status') == ARGV[4] then return -3 end
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'owner_key_issued', ARGV[3])
return 1
"""

# Write folded results into one bot's own indexes, each once: the bot's per-tournament index is the
# marker (a result already there was indexed before: nothing is written again, counters included).
# KEYS (the bot's slot): per-tournament index, all-time index, per-league index, leagues, versions.
# ARGV: cap, league id ('' none), then per result: member, score, n, and n triples (op 'i'/'f',
# field, amount). Returns the members indexed now.
_INDEX_BOT_LUA = """
local cap, league = tonumber(ARGV[1]), ARGV[2]
local done, i = {}, 3
while i <= #ARGV do
  local member, score, first = ARGV[i], ARGV[i + 1], i + 3
  i = first + 3 * tonumber(ARGV[i + 2])
  if redis.call('ZADD', KEYS[1], 'NX', score, member) == 1 then
    done[#done + 1] = member
    redis.call('ZADD', KEYS[2], score, member)
    if league ~= '' then
      redis.call('ZADD', KEYS[3], score, member)
      redis.call('ZADD', KEYS[4], score, league)
    end
    for j = first, i - 1, 3 do
      if ARGV[j] == 'i' then
        redis.call('HINCRBY', KEYS[5], ARGV[j + 1], ARGV[j + 2])
      else
        redis.call('HINCRBYFLOAT', KEYS[5], ARGV[j + 1], ARGV[j + 2])
      end
    end
  end
end
if #done > 0 then
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -cap - 1)
  if league ~= '' then redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -cap - 1) end
end
return done
"""


# Matches listed per bot in its all-time and per-league indexes: the latest ones, older entries
# dropped as new ones come (a tournament's own index is bounded by its size). docs/operations.md.
BOT_INDEX_CAP = 1000

# Bytes of decision records kept per match (a game's are far fewer: ~1 KB for a full Tricky Teams
# game of well-behaved bots, at most 8 fault details of 512 bytes per seat); cut there.
MAX_DECISION_BYTES = 64 * 1024


def encode_decision(
    seat: int, latency_ms: int | None, outcome: str, status: int | None = None, detail: str | None = None
) -> str:
    """One decision as a line of the match's record string: ``<seat> <latency ms>`` for a bot's own
    accepted move (most of them: 5-8 bytes), else the JSON ``[seat, latency ms, outcome, status,
    detail]``. The record's position gives the game version (decision k made version k + 2)."""
    if outcome == "ok" and latency_ms is not None:
        return f"{seat} {latency_ms}\n"
    return json.dumps([seat, latency_ms, outcome, status, detail], separators=(",", ":")) + "\n"


# A finished match's decision records are stored zlib-compressed behind this marker (a record
# line starts with a digit or '['): ~1.5 KB of a full Tricky Teams match become ~0.5 KB.
PACKED_DECISIONS = b"z:"


def parse_decisions(raw: bytes | None) -> list[list[Any]]:
    """The records of a match's string (packed or not), each ``[seat, game version after it,
    latency ms, outcome, fallback (0/1), HTTP status, detail]``."""
    if raw and raw.startswith(PACKED_DECISIONS):
        raw = zlib.decompress(raw[len(PACKED_DECISIONS) :])
    out: list[list[Any]] = []
    for line in (raw or b"").split(b"\n"):
        if not line or b"\0" in line:
            continue  # the end, or the filler of a string cut at its cap
        version = len(out) + 2
        if line.startswith(b"["):
            seat, latency_ms, outcome, status, detail = json.loads(line)
            out.append([seat, version, latency_ms, outcome, int(outcome != "ok"), status, detail])
        else:
            seat_text, latency_text = line.split(b" ")
            out.append([int(seat_text), version, int(latency_text), "ok", 0, None, None])
    return out


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def loads_many(raw: Sequence[bytes | None]) -> list[Any]:
    """Many stored JSON values (None where absent) parsed in one `json.loads` call, several times
    cheaper than one call each for the small values of a standings page or a window of matches."""
    if not raw:
        return []
    return cast(list[Any], json.loads(b"[" + b",".join(b"null" if v is None else v for v in raw) + b"]"))


# A league round's tournament id: the league's id (16 hex digits), 'r', the round number.
_ROUND_ID = re.compile(r"([0-9a-f]{16})(r[0-9]+)")
# Key kinds whose first id is a tournament's (tagged by `tournament_tag`), a league's or a bot's.
_TOURNAMENT_KINDS = frozenset(
    {"tournament", "matches", "match", "decisions", "results", "lease", "standings", "unindexed"}
)
_TAGGED_KINDS = frozenset(
    {"league", "members", "guests", "ratings", "round", "rounds"}
    | {"bot_matches", "bot_scope_matches", "bot_leagues", "bot_versions"}
)


def tournament_tag(tid: str) -> str:
    """A tournament id with its Redis Cluster hash tag: ``{<tid>}``, but ``{<lid>}r<n>`` for league
    round `n` of league `lid` (a round's keys share its league's slot). Keys of one tournament thus
    share one slot, and tournaments (leagues) spread over the cluster's masters."""
    m = _ROUND_ID.fullmatch(tid)
    return f"{{{m[1]}}}{m[2]}" if m else f"{{{tid}}}"


class HarnessStore:
    """Typed access to the harness's keys in one Redis."""

    def __init__(self, client: redis.Redis, prefix: str = "ta:") -> None:
        self.client = client
        self.prefix = prefix
        self._record = client.register_script(_RECORD_LUA)
        self._renew = client.register_script(_RENEW_LUA)
        self._release = client.register_script(_RELEASE_LUA)
        self._wal = client.register_script(_WAL_LUA)
        self._status = client.register_script(_STATUS_LUA)
        self._rotate_owner = client.register_script(_ROTATE_OWNER_LUA)
        self._add_round = client.register_script(_ADD_ROUND_LUA)
        self._index_bot = client.register_script(_INDEX_BOT_LUA)

    @classmethod
    def from_url(cls, url: str, prefix: str = "ta:") -> HarnessStore:
        """A store on its own connection pool (`core.redis_factory`)."""
        return cls(storage_client(url), prefix)

    def key_for(self, kind: str, *ids: object) -> str:
        """The key of one record: kind in tournament/matches/match/results/lease/standings/index/...

        Hash-tagged (Redis Cluster): a tournament's keys by `tournament_tag`, a league's by its id,
        a bot's by its id; the listings across entities (``t:index``, owner indexes, ``g:``) untagged."""
        p = self.prefix
        templates = {
            "tournament_index": "t:index",
            "tournament_owner_index": "t:owner:{0}",
            "league_owner_index": "l:owner:{0}",
            "tournament": "t:{0}",
            "matches": "t:{0}:matches",
            "match": "t:{0}:m:{1}",
            "decisions": "t:{0}:m:{1}:d",
            "results": "t:{0}:results",
            "lease": "t:{0}:lease:{1}",
            "standings": "t:{0}:standings",
            "unindexed": "t:{0}:unindexed",
            "league_index": "l:index",
            "league": "l:{0}",
            "members": "l:{0}:members",
            "guests": "l:{0}:guests",
            "ratings": "l:{0}:ratings",
            "round": "l:{0}:round:{1}",
            "rounds": "l:{0}:rounds",
            "bot_matches": "b:{0}:matches",
            "bot_scope_matches": "b:{0}:matches:{1}",
            "bot_leagues": "b:{0}:leagues",
            "bot_versions": "b:{0}:versions",
            "game_match": "g:{0}:match",
        }
        if kind not in templates:
            raise ValueError(f"unknown key kind {kind!r}")
        if ids and kind in _TOURNAMENT_KINDS:
            ids = (tournament_tag(str(ids[0])), *ids[1:])
        elif ids and kind in _TAGGED_KINDS:
            ids = ("{" + str(ids[0]) + "}", *ids[1:])
        return p + templates[kind].format(*ids)

    def scope_key(self, scope: str, section: str) -> str:
        """A key of a live-standings scope (``t:<tid>`` or ``l:<lid>``): ``live``, a section, ``stats``...
        (in the tournament's or the league's hash slot)."""
        kind, _, ident = scope.partition(":")
        if kind == "t":
            return f"{self.prefix}t:{tournament_tag(ident)}:{section}"
        if kind == "l":
            return f"{self.prefix}l:{{{ident}}}:{section}"
        return f"{self.prefix}{scope}:{section}"

    def load_sections(self, scope: str, need: Mapping[str, set[str]]) -> dict[str, dict[str, Any]]:
        """The named fields of each section (parsed JSON; absent fields left out), in one round trip."""
        pipe = self.client.pipeline(transaction=False)
        asked: list[tuple[str, list[str]]] = []
        for section, wanted in need.items():
            if wanted:
                ordered = sorted(wanted)
                asked.append((section, ordered))
                pipe.hmget(self.scope_key(scope, section), ordered)
        out: dict[str, dict[str, Any]] = {section: {} for section in need}
        for (section, keys), values in zip(asked, pipe.execute(), strict=True):
            out[section] = {k: v for k, v in zip(keys, loads_many(values), strict=True) if v is not None}
        return out

    def scope_hash(self, scope: str, section: str) -> dict[str, Any]:
        """A whole section (parsed JSON per field); for the bounded ones (rows, stats)."""
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.scope_key(scope, section)))
        return {k.decode(): json.loads(v) for k, v in raw.items()}

    def live(self, scope: str) -> dict[str, str]:
        """The scope's cursor and counters."""
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.scope_key(scope, "live")))
        return {k.decode(): v.decode() for k, v in raw.items()}

    # -- tournaments --------------------------------------------------------------------
    def create_tournament(
        self,
        tid: str,
        spec: Mapping[str, Any],
        matches: list[dict[str, Any]],
        owner: str = "",
        rows: Mapping[str, Any] | None = None,
        prior: Mapping[str, Any] | None = None,
        index: list[str] | None = None,
        league_id: str | None = None,
    ) -> bool:
        """Store a new tournament (owner-key digest, fixed match list, its entrants' starting
        standings rows and prior ratings) atomically, listed under its owner's digest (a league
        round's: the league owner's, `list_tournament`); False if `tid` exists.

        Two steps (Redis Cluster): the tournament's own keys in one transaction (its hash slot),
        then its listings (`list_tournament`, idempotent: a creation that died between the two is
        listed by the next call with the same `tid`)."""
        now = time.time()
        key = self.key_for("tournament", tid)
        with self.client.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(key)  # type: ignore[no-untyped-call]
                if pipe.exists(key):
                    pipe.reset()
                    self.list_tournament(tid, league_id)
                    return False
                pipe.multi()
                if matches:
                    pipe.hset(
                        self.key_for("matches", tid),
                        mapping={str(m["index"]): _dumps(m) for m in matches},
                    )
                pipe.hset(
                    key,
                    mapping={
                        "spec": _dumps(spec),
                        "status": "scheduled",
                        "total": len(matches),
                        "completed": 0,
                        "created_at": now,
                        "owner": owner,
                    },
                )
                self.seed_rows(pipe, f"t:{tid}", rows or {}, index or [])
                if prior:
                    mapping: dict[Any, Any] = {b: _dumps(v) for b, v in prior.items()}
                    pipe.hset(self.scope_key(f"t:{tid}", "prior"), mapping=mapping)
                pipe.execute()
            except redis.WatchError:
                return False  # created concurrently by someone else
        self.list_tournament(tid, league_id)
        return True

    def add_round(self, lid: str, tid: str) -> bool:
        """Append round `tid` to league `lid`'s rounds unless it is there already; True if appended."""
        return bool(self._add_round(keys=[self.key_for("rounds", lid)], args=[tid]))

    def list_tournament(self, tid: str, league_id: str | None = None) -> None:
        """List a stored tournament in ``t:index`` and under its owner's digest (a league round's:
        the league owner's), by its creation time: idempotent (ZADD of the same member and score).
        The owner is read again after the write: a rotation that came between (`rotate_owner`
        moves the listings of the old digest after its switch) is followed to the new digest."""
        raw = cast(bytes | None, self.client.hget(self.key_for("tournament", tid), "created_at"))
        if raw is None:
            return
        created = float(raw)
        self.client.zadd(self.key_for("tournament_index"), {tid: created})
        record = self.key_for("league", league_id) if league_id else self.key_for("tournament", tid)
        self.list_under_owner("tournament_owner_index", tid, record, created)

    def list_under_owner(self, index: str, ident: str, record: str, score: float) -> None:
        """List `ident` in the owner index (`index` kind) of the owner `record` names now; again
        under the new digest if a rotation switched it meanwhile (and out of the old one)."""
        listed: bytes | None = None
        while True:
            owner = cast(bytes | None, self.client.hget(record, "owner"))
            if listed is not None and owner != listed:
                self.client.zrem(self.key_for(index, listed.decode()), ident)
            if not owner or owner == listed:
                return
            self.client.zadd(self.key_for(index, owner.decode()), {ident: score})
            listed = owner

    def seed_rows(self, pipe: Any, scope: str, rows: Mapping[str, Any], index: Sequence[str]) -> None:
        """Queue on `pipe` the scope's starting standings: a row per entrant and its ranking index."""
        if rows:
            pipe.hset(self.scope_key(scope, "rows"), mapping={b: _dumps(v) for b, v in rows.items()})
        if index:
            pipe.zadd(self.scope_key(scope, "index"), dict.fromkeys(index, 0))

    def tournament(self, tid: str) -> dict[str, Any] | None:
        """The tournament record (spec parsed), or None."""
        return self.parse_tournament(
            tid, cast(dict[bytes, bytes], self.client.hgetall(self.key_for("tournament", tid)))
        )

    @staticmethod
    def parse_tournament(tid: str, raw: dict[bytes, bytes]) -> dict[str, Any] | None:
        """A tournament record from its raw hash (None if empty)."""
        if not raw:
            return None
        out: dict[str, Any] = {k.decode(): v.decode() for k, v in raw.items()}
        out["spec"] = json.loads(out["spec"])
        for key in ("total", "completed"):
            out[key] = int(out[key])
        for key in ("created_at", "started_at", "finished_at"):
            if key in out:
                out[key] = float(out[key])
        out["tournament_id"] = tid
        return out

    def set_status(self, tid: str, status: str, only_from: tuple[str, ...] = ()) -> bool:
        """Set the status (optionally only from given statuses, atomically); True if changed."""
        key = self.key_for("tournament", tid)
        stamps = {"running": "started_at", "finished": "finished_at", "cancelled": "finished_at"}
        stamp = stamps.get(status, "")
        changed = self._status(keys=[key], args=[status, stamp, repr(time.time()), *only_from])
        if changed and status in ("finished", "cancelled"):
            quotas.release(self.client, self.prefix, "tournament", tid)  # no longer live (core.quotas)
        return bool(changed)

    def rotate_owner(self, kind: str, ident: str, old: str, new: str, refuse_status: str = "") -> int:
        """Give a tournament's or a league's (`kind`) owner digest `old` way to `new`, moving the owner
        listings (a league's and its rounds') along; the Lua's status code.

        Two steps (Redis Cluster): the switch on the record (atomic, its own slot), then the move of
        the old digest's listings (idempotent: copied, then the old index deleted; a round listed
        concurrently follows the switch itself, `list_under_owner`)."""
        keys = [self.key_for(kind, ident)]
        code = int(self._rotate_owner(keys=keys, args=[old, new, repr(time.time()), refuse_status]))
        if code == 1:
            for index in ("tournament_owner_index", "league_owner_index"):
                source = self.key_for(index, old)
                listed = cast(list[tuple[bytes, float]], self.client.zrange(source, 0, -1, withscores=True))
                if listed:
                    self.client.zadd(self.key_for(index, new), dict(listed))
                    self.client.delete(source)
        return code

    def list_tournaments(self, limit: int = 100) -> list[str]:
        """Newest tournament ids first."""
        ids = cast(list[bytes], self.client.zrevrange(self.key_for("tournament_index"), 0, limit - 1))
        return [i.decode() for i in ids]

    def match_spec(self, tid: str, index: int) -> dict[str, Any] | None:
        """One match's fixed spec."""
        raw = self.client.hget(self.key_for("matches", tid), str(index))
        return json.loads(raw) if raw else None

    def match_specs(self, tid: str) -> list[dict[str, Any]]:
        """Every match spec, by index."""
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.key_for("matches", tid)))
        return sorted((json.loads(v) for v in raw.values()), key=lambda m: int(m["index"]))

    def match_runtime(self, tid: str, index: int) -> dict[str, Any]:
        """The match's runtime record: game id and write-ahead record, if any, and ``decisions``:
        how many decision records are stored (one round trip)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hgetall(self.key_for("match", tid, index))
        pipe.get(self.key_for("decisions", tid, index))
        raw, stored = cast(tuple[dict[bytes, bytes], bytes | None], pipe.execute())
        out: dict[str, Any] = {"decisions": len(parse_decisions(stored))}
        if b"game_id" in raw:
            out["game_id"] = raw[b"game_id"].decode()
        if b"wal" in raw:
            out["wal"] = json.loads(raw[b"wal"])
        return out

    def match_game_ids(self, tid: str, total: int) -> dict[int, str]:
        """Game id per started match (one pipelined round trip)."""
        pipe = self.client.pipeline(transaction=False)
        for i in range(total):
            pipe.hget(self.key_for("match", tid, i), "game_id")
        return {i: v.decode() for i, v in enumerate(pipe.execute()) if v is not None}

    def claim_game_id(self, tid: str, index: int, game_id: str, field: str = "game_id") -> str:
        """Record the match's game id unless one is already recorded; return the recorded one.

        `field` ``planned``: the id a runner will create the game under, recorded before it does
        (the runner then claims ``game_id``), so no run leaves a game nobody knows of. The game's
        pointer to its match (`game_match`) is written first: a run that dies between the two
        leaves a pointer to a game nobody plays, never a match game without one."""
        key = self.key_for("match", tid, index)
        self.client.set(self.key_for("game_match", game_id), _dumps([tid, index]))
        if self.client.hsetnx(key, field, game_id):
            return game_id
        return cast(bytes, self.client.hget(key, field)).decode()

    def game_match(self, game_id: str) -> tuple[str, int] | None:
        """The tournament and match index a match's game belongs to (None: not a match's game)."""
        raw = cast(bytes | None, self.client.get(self.key_for("game_match", game_id)))
        if raw is None:
            return None
        tid, index = json.loads(raw)
        return str(tid), int(index)

    def write_wal_and_renew(
        self,
        tid: str,
        index: int,
        wal: Mapping[str, Any],
        token: str,
        ttl_ms: int,
        decisions: Sequence[str] = (),
    ) -> bool:
        """Persist the runner's write-ahead record and renew its lease, iff it still holds the lease;
        append the decision records (encoded) not stored yet, in the same step."""
        keys = [
            self.key_for("lease", tid, index),
            self.key_for("match", tid, index),
            self.key_for("decisions", tid, index),
        ]
        args: list[str | int] = [token, ttl_ms, _dumps(wal), MAX_DECISION_BYTES, "".join(decisions)]
        return bool(self._wal(keys=keys, args=args))

    def set_bot_versions(self, tid: str, index: int, versions: Sequence[str]) -> None:
        """The version (from its `GET /`) of each seat's bot when the match (re)started."""
        self.client.hset(self.key_for("match", tid, index), "versions", _dumps(list(versions)))

    def match_decisions(self, tid: str, index: int) -> tuple[list[str] | None, list[list[Any]]]:
        """A match's bot versions per seat (None if not recorded) and its decision records, in
        order (`parse_decisions`; one round trip)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hget(self.key_for("match", tid, index), "versions")
        pipe.get(self.key_for("decisions", tid, index))
        versions, raw = pipe.execute()
        return (json.loads(versions) if versions else None), parse_decisions(raw)

    def tournament_status(self, tid: str) -> str | None:
        """Just the status field (cheap: checked while matches run)."""
        raw = cast(bytes | None, self.client.hget(self.key_for("tournament", tid), "status"))
        return raw.decode() if raw else None

    # -- results ------------------------------------------------------------------------
    def record_result(
        self, tid: str, index: int, result: Mapping[str, Any], decisions: Sequence[str] = ()
    ) -> tuple[bool, int]:
        """Store the match result exactly once, with the decision records (encoded) not stored yet;
        (recorded now?, completed count)."""
        keys = [
            self.key_for("results", tid),
            self.key_for("tournament", tid),
            self.key_for("decisions", tid, index),
        ]
        args: list[str | int] = [str(index), _dumps(result), MAX_DECISION_BYTES, "".join(decisions)]
        recorded, completed = self._record(keys=keys, args=args)
        if recorded:
            self.pack_decisions(tid, index)
        return bool(recorded), int(completed)

    def pack_decisions(self, tid: str, index: int) -> None:
        """Compress a finished match's decision records in place (nothing appends to them once
        its result is recorded; a concurrent change, none expected, leaves them as they are)."""
        key = self.key_for("decisions", tid, index)
        with self.client.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(key)  # type: ignore[no-untyped-call]
                raw = cast(bytes | None, pipe.get(key))
                if not raw or raw.startswith(PACKED_DECISIONS):
                    return
                pipe.multi()
                pipe.set(key, PACKED_DECISIONS + zlib.compress(raw, 9), keepttl=True)
                pipe.execute()
            except redis.WatchError:
                return

    def results_at(self, tid: str, indices: list[int]) -> list[dict[str, Any] | None]:
        """The results of the given matches (None where not recorded yet)."""
        if not indices:
            return []
        raw = cast(
            list[bytes | None], self.client.hmget(self.key_for("results", tid), [str(i) for i in indices])
        )
        return loads_many(raw)

    def match_window(
        self, tid: str, indices: list[int]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any] | None], dict[int, str]]:
        """For the given matches, in one round trip: their specs, results (None if not recorded) and
        game ids (of those started)."""
        if not indices:
            return [], [], {}
        pipe = self.client.pipeline(transaction=False)
        pipe.hmget(self.key_for("matches", tid), [str(i) for i in indices])
        pipe.hmget(self.key_for("results", tid), [str(i) for i in indices])
        for i in indices:
            pipe.hget(self.key_for("match", tid, i), "game_id")
        specs_raw, results_raw, *games = pipe.execute()
        specs = [v for v in loads_many(specs_raw) if v is not None]
        results = loads_many(results_raw)
        return specs, results, {i: g.decode() for i, g in zip(indices, games, strict=True) if g is not None}

    def queue_bot_index(self, pipe: Any, tid: str, results: Sequence[Mapping[str, Any]], now_us: int) -> None:
        """Queue on `pipe` (the fold's transaction) each result as due in its bots' own indexes:
        ``t:<tid>:unindexed`` (in the tournament's slot), match index -> the entries' score; the
        indexes themselves (other slots) are written by `index_bots` after the transaction."""
        if results:
            due = {str(int(res["index"])): now_us + position for position, res in enumerate(results)}
            pipe.hset(self.key_for("unindexed", tid), mapping=cast(dict[Any, Any], due))

    def index_bots(self, tid: str, spec: Mapping[str, Any]) -> int:
        """Write the tournament's results due (`queue_bot_index`) into their bots' own indexes, then
        forget them; the results indexed now. Idempotent: a result already in a bot's
        per-tournament index is skipped whole for that bot (`_INDEX_BOT_LUA`), so a repeat after a
        crash between the two steps counts nothing twice."""
        key = self.key_for("unindexed", tid)
        due = cast(dict[bytes, bytes], self.client.hgetall(key))
        if not due:
            return 0
        indices = sorted(int(i) for i in due)
        found = self.results_at(tid, indices)
        scored = [
            (r, int(due[str(i).encode()])) for i, r in zip(indices, found, strict=True) if r is not None
        ]
        done = self.index_results(tid, spec, scored)
        self.client.hdel(key, *due)
        return done

    def index_results(
        self, tid: str, spec: Mapping[str, Any], scored: Sequence[tuple[Mapping[str, Any], int]]
    ) -> int:
        """The results' (with their scores) entries in each of their bots' indexes: one script per
        bot (in the bot's slot), each result at most once per bot; the results written now."""
        league = str((spec.get("league") or {}).get("league_id") or "")
        cooperative = bool(spec.get("cooperative"))
        game = str(spec["game"])
        per_bot: dict[str, list[str | int | float]] = {}
        for res, score in scored:
            counted = not spec.get("practice") and not res.get("error")
            member = f"{tid}:{int(res['index'])}"
            seats = list(res["seats"])
            ops: dict[str, list[str | int | float]] = {bot: [] for bot in seats}
            if counted:
                versions = seat_versions(res)
                winners = set(res.get("winners", ()))
                faults = res.get("faults") or [0] * len(seats)
                codes = res.get("fault_codes") or [{} for _ in seats]
                unrated = {seats[s] for s in res.get("unrated", ())}
                for seat, bot in enumerate(seats):
                    out, field = ops[bot], f"{game}\t{versions[seat]}\t"
                    if seat == seats.index(bot):
                        out += ["i", field + "m", 1]
                        if bot in unrated:
                            out += ["i", field + "um", 1]
                    out += ["i", field + "g", 1]
                    value = res["team_score"] if cooperative else res["scores"][seat]
                    out += ["f", field + "s", repr(float(value))]
                    if seat in winners:
                        out += ["i", field + "w", 1]
                    if int(faults[seat]):
                        out += ["i", field + "f", int(faults[seat])]
                    for code, n in codes[seat].items():
                        out += ["i", field + "f:" + code, int(n)]
            for bot, bot_ops in ops.items():
                per_bot.setdefault(bot, []).extend([member, score, len(bot_ops) // 3, *bot_ops])
        written: set[bytes] = set()
        for bot, entries in per_bot.items():
            keys = [
                self.key_for("bot_scope_matches", bot, f"t:{tid}"),
                self.key_for("bot_matches", bot),
                self.key_for("bot_scope_matches", bot, f"l:{league}"),
                self.key_for("bot_leagues", bot),
                self.key_for("bot_versions", bot),
            ]
            written |= set(
                cast(list[bytes], self._index_bot(keys=keys, args=[BOT_INDEX_CAP, league, *entries]))
            )
        return len(written)

    def results(self, tid: str) -> list[dict[str, Any]]:
        """Every recorded result, by match index."""
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.key_for("results", tid)))
        return sorted((json.loads(v) for v in raw.values()), key=lambda r: int(r["index"]))

    def has_result(self, tid: str, index: int) -> bool:
        """True once the match's result is recorded."""
        return bool(self.client.hexists(self.key_for("results", tid), str(index)))

    def standings(self, tid: str) -> dict[str, Any] | None:
        """The whole final standings document of a tournament from before the live standings."""
        raw = self.client.get(self.key_for("standings", tid))
        return json.loads(raw) if raw else None

    def expire_tournament(
        self, tid: str, total: int, bots: Sequence[str], extra_keys: Sequence[str], until: int
    ) -> None:
        """Let every key of a tournament (and `extra_keys`: its games') expire at Unix time
        `until`, in pipelined chunks (a key absent is skipped by Redis)."""
        scope = f"t:{tid}"
        kinds = ("tournament", "matches", "results", "standings", "unindexed")
        keys = [self.key_for(kind, tid) for kind in kinds]
        keys += [self.scope_key(scope, s) for s in (*SECTIONS, "live", "index", "compz", "stats", "prior")]
        for i in range(total):
            keys += [self.key_for("match", tid, i), self.key_for("decisions", tid, i)]
        keys += [self.key_for("bot_scope_matches", bot, scope) for bot in bots]
        keys += extra_keys
        for start in range(0, len(keys), 1000):
            pipe = self.client.pipeline(transaction=False)
            for key in keys[start : start + 1000]:
                pipe.expireat(key, until)
            pipe.execute()

    # -- leases -------------------------------------------------------------------------
    def acquire_lease(self, tid: str, index: int, ttl_ms: int) -> str | None:
        """Take the match's lease (one runner per match at a time); the owner token, or None."""
        token = secrets.token_hex(8)
        if self.client.set(self.key_for("lease", tid, index), token, nx=True, px=ttl_ms):
            return token
        return None

    def renew_lease(self, tid: str, index: int, token: str, ttl_ms: int) -> bool:
        """Extend our lease; False if it was lost (expired and taken by another runner)."""
        return bool(self._renew(keys=[self.key_for("lease", tid, index)], args=[token, ttl_ms]))

    def release_lease(self, tid: str, index: int, token: str) -> None:
        """Give the lease back if we still hold it."""
        self._release(keys=[self.key_for("lease", tid, index)], args=[token])
