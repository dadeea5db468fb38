"""Parsing submitted moves into canonical form; anything not shaped like a move raises MalformedMove."""

from __future__ import annotations

from typing import Any

from games.base import MalformedMove, is_int
from games.tricky_teams.cards import ALL_IDS, TEAMS

MOVE_FIELDS: dict[str, frozenset[str]] = {
    "play": frozenset({"type", "card", "wish"}),
    "take-loot": frozenset({"type", "card"}),
    "choose-leader": frozenset({"type", "seat"}),
}


def parse_move(move: object, seats: int) -> dict[str, Any]:
    """Check the shape of `move` and return a fresh canonical copy (a null wish is dropped)."""
    if not isinstance(move, dict):
        raise MalformedMove("a move must be an object with a 'type'")
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in MOVE_FIELDS:
        raise MalformedMove(f"unknown move type {kind!r}; expected one of {sorted(MOVE_FIELDS)}")
    unknown = sorted(set(move) - MOVE_FIELDS[kind])
    if unknown:
        raise MalformedMove(f"unknown field(s) {unknown} in a {kind} move")
    if kind == "choose-leader":
        return {"type": kind, "seat": _seat(move, "seat", seats)}
    card = move.get("card")
    if not isinstance(card, str) or card not in ALL_IDS:
        raise MalformedMove(f"{kind} needs 'card', a card id like 'blue-4' or 'flag-0', not {card!r}")
    wish = move.get("wish")
    if kind == "take-loot" or wish is None:
        return {"type": kind, "card": card}
    if not isinstance(wish, dict) or set(wish) != {"seat", "team"}:
        raise MalformedMove("wish must be an object with exactly 'seat' and 'team'")
    team = wish["team"]
    if not isinstance(team, str) or team not in TEAMS:
        raise MalformedMove(f"wish.team must be one of {list(TEAMS)}, not {team!r}")
    return {"type": kind, "card": card, "wish": {"seat": _seat(wish, "seat", seats), "team": team}}


def _seat(obj: dict[str, Any], key: str, seats: int) -> int:
    value = obj.get(key)
    if not is_int(value) or not 0 <= value < seats:
        raise MalformedMove(f"'{key}' must be a seat from 0 to {seats - 1}, not {value!r}")
    return value
