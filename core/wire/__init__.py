"""Per-game wire shapes of moves, views and events (marshmallow), and the move shape check.

The schema modules mirror `games/<game>/wire.py`; the game service checks a rejected move
against them (field errors instead of a bare refusal) and the API builds `openapi.yaml` from them.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

from marshmallow import Schema, ValidationError

from core.wire import trick_n_trouble, tricky_teams
from games.trick_n_trouble import GAME as TRICK_N_TROUBLE
from games.tricky_teams import GAME as TRICKY_TEAMS

# Game name -> (component name prefix, schema module mirroring games/<game>/wire.py).
GAME_WIRE: dict[str, tuple[str, ModuleType]] = {
    TRICKY_TEAMS.name: ("TrickyTeams", tricky_teams),
    TRICK_N_TROUBLE.name: ("TrickNTrouble", trick_n_trouble),
}


def validate_move(game: str, move: Any) -> dict[str, Any]:
    """Check a move's shape against `game`'s wire schema; raises ValidationError with field errors."""
    if not isinstance(move, dict):
        raise ValidationError({"_schema": ["a move is a JSON object with a 'type'"]})
    moves = GAME_WIRE[game][1].MOVES if game in GAME_WIRE else None
    if moves is None:
        return move  # a game without a wire mirror (tests' toy games): the engine checks shape
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in moves:
        raise ValidationError({"type": [f"must be one of {sorted(moves)}"]})
    _move_schema(game, kind).load(move)
    return move


_SCHEMA_CACHE: dict[tuple[str, str], Schema] = {}


def has_only_known_fields(game: str, move: Any) -> bool:
    """True when every key of `move` is a field of its move type (cheap; after the engine accepted it)."""
    if game not in GAME_WIRE or not isinstance(move, dict):
        return True
    kind = move.get("type")
    moves = GAME_WIRE[game][1].MOVES
    if not isinstance(kind, str) or kind not in moves:
        return False
    return _field_names(game, kind).issuperset(move)


@functools.cache
def _field_names(game: str, kind: str) -> frozenset[str]:
    # The fields of a move type, as a set made once (postMove asks on every move).
    return frozenset(_move_schema(game, kind).fields)


def _move_schema(game: str, kind: str) -> Schema:
    # Building a marshmallow Schema costs more than validating with it: keep one per move type.
    schema = _SCHEMA_CACHE.get((game, kind))
    if schema is None:
        schema = _SCHEMA_CACHE[(game, kind)] = GAME_WIRE[game][1].MOVES[kind]()
    return schema
