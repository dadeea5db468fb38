"""Name -> game lookup; the only place that knows which games exist."""

from __future__ import annotations

from games.base import Game, UnknownGame
from games.trick_n_trouble import GAME as TRICK_N_TROUBLE
from games.tricky_teams import GAME as TRICKY_TEAMS

GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Add a game to the registry under its `name`."""
    GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    """Return the registered game called `name` or raise UnknownGame."""
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r}; known: {sorted(GAMES)}") from None


register(TRICKY_TEAMS)
register(TRICK_N_TROUBLE)
