"""Tricky Teams (KOSMOS, 2026): a trick-taking game where alliances form anew in every trick.

`GAME` is what the registry registers, and the public API: the `games.base.Game` methods with the
search API `clone` and `apply_unchecked` (docs/engines.md).  The rules live in small modules:
`cards` (the deck, cards as numbers), `options`, `state` (the typed state, its constructor and
clone), `deal`, `rules` (legal plays, what laying a card does), `scoring` (strengths, winners,
loot, leads), `moves` (parsing and listing), `engine` (the state machine), `view` (per-seat
information) and `determinize` (states for search bots); wire shapes are in `wire`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.base import Event, Game, Move, State, View
from games.tricky_teams import engine, options, state
from games.tricky_teams import view as views
from games.tricky_teams.cards import CARD_PATTERN, TEAM_NAMES
from games.tricky_teams.scoring import score_plays


def _on_json_states(function: Callable[..., Any]) -> Any:
    """An engine function as games.base.Game types it: its typed `State` is the plain JSON dict."""
    return staticmethod(function)


class TrickyTeams:
    """The Tricky Teams game object: stateless, every method works on a plain JSON state dict."""

    name = state.NAME
    title = "Tricky Teams"
    seat_counts: tuple[int, ...] = options.SEAT_COUNTS
    cooperative = False
    showcase_seats = 4
    quick_options: dict[str, Any] = {"raids": 1}
    card_pattern = CARD_PATTERN
    schema = state.SCHEMA
    teams: dict[str, str] = dict(TEAM_NAMES)

    # The methods of games.base.Game, in its order.
    default_options = staticmethod(options.default_options)
    options_schema = staticmethod(options.options_schema)
    new_game = staticmethod(engine.new_game)
    legal_moves: Callable[[State, int], list[Move]] = _on_json_states(engine.legal_moves)
    apply: Callable[[State, int, Move], list[Event]] = _on_json_states(engine.apply)
    view: Callable[[State, int | None], View] = _on_json_states(views.view)
    to_move: Callable[[State], list[int]] = _on_json_states(engine.to_move)
    is_over: Callable[[State], bool] = _on_json_states(engine.is_over)
    result: Callable[[State], dict[str, Any]] = _on_json_states(engine.result)
    replay: Callable[[dict[str, Any], list[dict[str, Any]]], State] = _on_json_states(engine.replay)
    setup_events: Callable[[State], list[Event]] = _on_json_states(engine.setup_events)
    event_view: Callable[[State, Event, int | None], Event] = _on_json_states(views.event_view)
    # The search API: a copy for search, and `apply` for a listed move without its checks.
    clone: Callable[[State], State] = _on_json_states(state.clone)
    apply_unchecked: Callable[[State, int, Move], list[Event]] = _on_json_states(engine.apply_unchecked)
    # Playouts (this game's own, beyond games.base.Game): the moves without wishes, `apply_unchecked`
    # without events, and the coins each seat has won so far.
    playout_moves: Callable[[State, int], list[Move]] = _on_json_states(engine.playout_moves)
    push: Callable[[State, int, Move], None] = _on_json_states(engine.push)
    coins_won: Callable[[State], list[int]] = _on_json_states(engine.coins_won)


GAME = TrickyTeams()
_PROTOCOL: Game = GAME  # the game object is a games.base.Game

__all__ = ["GAME", "TrickyTeams", "score_plays"]
