"""Name -> game lookup; the only place that knows which games exist."""

from __future__ import annotations

from typing import cast

from games.base import Game, UnknownGame

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


def _load_builtin() -> None:
    # Imported lazily so that a half-written game never breaks the registry module itself.
    import importlib

    for module_name in ("games.tricky_teams", "games.trick_n_trouble"):
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        register(cast(Game, module.GAME))


_load_builtin()
