"""Trick 'n Trouble: a cooperative trick-taking game for 3 seats (see docs/rules/trick-n-trouble.md).

`GAME` is what the registry registers; the rules live in small modules: `cards` (the two decks,
per-card tables), `options`, `state` (the typed state, its constructor and clone), `deal`,
`rules` (who may do what, what each decision does), `scoring` (trick winner, fulfilled tasks,
result), `moves` (parsing and listing moves), `engine` (the state machine) and `view` (per-seat
information).  Wire shapes are in `wire`; `determinize` helps search bots.
"""

from __future__ import annotations

from typing import Any

from games.base import Game
from games.trick_n_trouble import engine, options, state
from games.trick_n_trouble import view as views
from games.trick_n_trouble.cards import CARD_PATTERN


class TrickNTrouble:
    """The Trick 'n Trouble game object: stateless, every method works on a plain JSON state dict."""

    name = engine.NAME
    title = "Trick 'n Trouble"
    seat_counts: tuple[int, ...] = (options.SEATS,)
    cooperative = True
    showcase_seats = options.SEATS
    quick_options: dict[str, Any] = {}
    card_pattern = CARD_PATTERN
    schema = state.SCHEMA

    # The methods of games.base.Game, in its order.
    default_options = staticmethod(options.default_options)
    options_schema = staticmethod(options.options_schema)
    new_game = staticmethod(engine.new_game)
    legal_moves = staticmethod(engine.legal_moves)
    apply = staticmethod(engine.apply)
    view = staticmethod(views.view)
    to_move = staticmethod(engine.to_move)
    is_over = staticmethod(engine.is_over)
    result = staticmethod(engine.result)
    replay = staticmethod(engine.replay)
    setup_events = staticmethod(engine.setup_events)
    event_view = staticmethod(views.event_view)
    # The search API: a copy for search, and `apply` for a listed move without its checks.
    clone = staticmethod(state.clone)
    apply_unchecked = staticmethod(engine.apply_unchecked)


GAME = TrickNTrouble()
_PROTOCOL: Game = GAME  # the game object is a games.base.Game

__all__ = ["GAME", "TrickNTrouble"]
