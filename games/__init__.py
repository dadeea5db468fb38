"""Pure, deterministic rules engines for Trick Arena's games (no I/O, no web or queue imports)."""

from games.base import (
    GameError,
    IllegalMove,
    InvalidDeal,
    InvalidOptions,
    MalformedMove,
    NotYourTurn,
    UnknownGame,
)
from games.registry import GAMES, get_game

__all__ = [
    "GAMES",
    "GameError",
    "IllegalMove",
    "InvalidDeal",
    "InvalidOptions",
    "MalformedMove",
    "NotYourTurn",
    "UnknownGame",
    "get_game",
]
