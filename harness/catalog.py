"""Listings of tournaments and leagues: newest first, a page at a time, filtered, bounded.

Each page walks one creation-time index (`harness.store`): every tournament (``t:index``), one
league's rounds (``l:<lid>:rounds``), or what one owner key owns (``t:owner:<digest>``; leagues
``l:index`` and ``l:owner:<digest>``), from the newest entry down. It reads at most `SCAN_BUDGET`
stored records whatever the filters skip, so a page may be short (even empty) and still carry a
cursor: the number of older entries left to read, which stays valid while new ones are created.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from core.bot_registry import owner_digest
from harness import tournaments as t
from harness.runner import HarnessContext
from harness.store import HarnessStore, loads_many

PAGE_MAX = 100
PAGE_DEFAULT = 50
# Stored tournaments or leagues read to answer one page, whatever the filters skip.
SCAN_BUDGET = 500
# The first entrants of each listed tournament, named (the rest are counted: `entrants_total`).
ENTRANTS_SHOWN = 8
CHUNK = 100
TOURNAMENT_STATUSES = (*t.STATUSES, "any")
LEAGUE_STATUSES = (*t.LEAGUE_STATUSES, "any")


@dataclass(frozen=True)
class Page:
    """One page: its items, and the cursor of the next page (None: this was the last)."""

    items: list[dict[str, Any]]
    next_cursor: int | None


def _walk(
    size: int,
    ids_at: Callable[[int, int], list[str]],
    fetch: Callable[[list[str]], list[dict[str, Any] | None]],
    cursor: int | None,
    limit: int,
) -> Page:
    """Items newest first from below position `cursor` (None: the newest) of an index of `size`
    entries; `ids_at(lo, hi)` gives the ids at positions lo..hi (oldest first), `fetch` each one's
    item if it passes the filters (else None). Reads at most SCAN_BUDGET entries."""
    limit = max(1, min(limit, PAGE_MAX))
    top = size if cursor is None else max(0, min(cursor, size))
    found: list[dict[str, Any]] = []
    budget = SCAN_BUDGET
    while top > 0 and budget > 0 and len(found) < limit:
        low = max(0, top - min(CHUNK, budget))
        ids = list(reversed(ids_at(low, top - 1)))
        for item in fetch(ids):
            top -= 1
            budget -= 1
            if item is not None:
                found.append(item)
                if len(found) == limit:
                    break
        if not ids:
            top = 0
    return Page(found, top if top > 0 else None)


def _zset(store: HarnessStore, key: str) -> tuple[int, Callable[[int, int], list[str]]]:
    def ids_at(lo: int, hi: int) -> list[str]:
        return [i.decode() for i in cast(list[bytes], store.client.zrange(key, lo, hi))]

    return int(store.client.zcard(key)), ids_at


def _list(store: HarnessStore, key: str) -> tuple[int, Callable[[int, int], list[str]]]:
    def ids_at(lo: int, hi: int) -> list[str]:
        return [i.decode() for i in cast(list[bytes], store.client.lrange(key, lo, hi))]

    return int(store.client.llen(key)), ids_at


TOURNAMENT_FIELDS = ["spec", "status", "total", "completed", "created_at"]


def tournament_item(tid: str, raw: list[bytes | None]) -> dict[str, Any] | None:
    """A tournament as listings show it, from its stored `TOURNAMENT_FIELDS` (None: no record)."""
    spec_raw, status, total_raw, completed_raw, created = raw
    if spec_raw is None or status is None:
        return None
    spec = loads_many([spec_raw])[0]
    total, completed = int(total_raw or 0), int(completed_raw or 0)
    item: dict[str, Any] = {
        "tournament_id": tid,
        "name": t.tournament_name(tid, spec),
        "game": spec["game"],
        "seats": spec["seats"],
        "status": status.decode(),
        "entrants_total": len(spec["entrants"]),
        "entrants": [{"bot_id": b, "name": b} for b in spec["entrants"][:ENTRANTS_SHOWN]],
        "practice": bool(spec.get("practice")),
        "progress": {
            "total": total,
            "completed": completed,
            "fraction": completed / total if total else 1.0,
        },
        "created_at": _iso(created),
    }
    if "league" in spec:
        item["league"] = spec["league"]
    return item


def list_tournaments(
    ctx: HarnessContext,
    *,
    game: str | None = None,
    status: str = "any",
    league: str | None = None,
    owner_key: str | None = None,
    cursor: int | None = None,
    limit: int = PAGE_DEFAULT,
) -> Page:
    """Tournaments newest first that match every filter given: `game`, `status` (or `any`), rounds
    of `league`, owned by `owner_key` (a league's key owns its rounds)."""
    if status not in TOURNAMENT_STATUSES:
        raise ValueError(f"status must be one of {TOURNAMENT_STATUSES}")
    store = ctx.store
    if owner_key is not None:
        size, ids_at = _zset(store, store.key_for("tournament_owner_index", owner_digest(owner_key)))
    elif league is not None:
        size, ids_at = _list(store, store.key_for("rounds", league))
    else:
        size, ids_at = _zset(store, store.key_for("tournament_index"))

    def fetch(ids: list[str]) -> list[dict[str, Any] | None]:
        pipe = store.client.pipeline(transaction=False)
        for tid in ids:
            pipe.hmget(store.key_for("tournament", tid), TOURNAMENT_FIELDS)
        out: list[dict[str, Any] | None] = []
        for tid, raw in zip(ids, pipe.execute(), strict=True):
            item = tournament_item(tid, raw)
            keep = (
                item is not None
                and (game is None or item["game"] == game)
                and (status == "any" or item["status"] == status)
                and (league is None or item.get("league", {}).get("league_id") == league)
            )
            out.append(item if keep else None)
        return out

    page = _walk(size, ids_at, fetch, cursor, limit)
    _name_entrants(ctx, page.items)
    return page


def _name_entrants(ctx: HarnessContext, items: list[dict[str, Any]]) -> None:
    """Put each shown entrant's bot name in (one round trip; a bot gone keeps its id as name)."""
    shown = [e for item in items for e in item["entrants"]]
    pipe = ctx.bots.client.pipeline(transaction=False)
    for entrant in shown:
        pipe.hget(ctx.bots.key_for("bot", entrant["bot_id"]), "name")
    for entrant, name in zip(shown, pipe.execute() if shown else [], strict=True):
        if name is not None:
            entrant["name"] = name.decode()


def list_leagues(
    ctx: HarnessContext,
    *,
    game: str | None = None,
    status: str = "any",
    owner_key: str | None = None,
    cursor: int | None = None,
    limit: int = PAGE_DEFAULT,
) -> Page:
    """Leagues newest first that match every filter given: `game`, `status` (or `any`), owned by
    `owner_key`."""
    if status not in LEAGUE_STATUSES:
        raise ValueError(f"status must be one of {LEAGUE_STATUSES}")
    store = ctx.store
    if owner_key is not None:
        size, ids_at = _zset(store, store.key_for("league_owner_index", owner_digest(owner_key)))
    else:
        size, ids_at = _zset(store, store.key_for("league_index"))

    def fetch(ids: list[str]) -> list[dict[str, Any] | None]:
        pipe = store.client.pipeline(transaction=False)
        for lid in ids:
            pipe.hmget(store.key_for("league", lid), ["spec", "status", "created_at", "next_at"])
            pipe.hlen(store.key_for("members", lid))
            pipe.llen(store.key_for("rounds", lid))
        answers = pipe.execute()
        out: list[dict[str, Any] | None] = []
        for n, lid in enumerate(ids):
            (spec_raw, state, created, next_at), members, rounds = answers[3 * n : 3 * n + 3]
            if spec_raw is None or state is None:
                out.append(None)
                continue
            spec = loads_many([spec_raw])[0]
            item = {
                "league_id": lid,
                "name": t.league_name(lid, spec),
                "game": spec["game"],
                "seats": spec["seats"],
                "status": state.decode(),
                "members_total": int(members),
                "rounds_total": int(rounds),
                "schedule": spec["schedule"],
                "next_at": next_at.decode() if next_at else None,
                "created_at": _iso(created),
            }
            keep = (game is None or item["game"] == game) and (status == "any" or item["status"] == status)
            out.append(item if keep else None)
        return out

    return _walk(size, ids_at, fetch, cursor, limit)


def _iso(raw: bytes | None) -> str | None:
    return datetime.fromtimestamp(float(raw), UTC).isoformat() if raw else None
