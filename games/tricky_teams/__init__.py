"""Tricky Teams (KOSMOS, 2026): a trick-taking game where alliances form anew in every trick.

`GAME` is what the registry registers; the rules live in small modules: `cards` (deck, tables),
`options`, `deal`, `rules` (legal plays), `scoring` (strengths, winners, loot, leads), `engine`
(the state machine) and `view` (per-seat information).  Wire shapes are in `wire`.
"""

from __future__ import annotations

from typing import Any

from games.base import Game, redact_event
from games.tricky_teams import engine, options
from games.tricky_teams.cards import CARD_PATTERN, TEAM_NAMES
from games.tricky_teams.view import view as _view


class TrickyTeams:
    """The Tricky Teams game object: stateless, every method works on a plain JSON state dict."""

    name = engine.NAME
    title = "Tricky Teams"
    seat_counts: tuple[int, ...] = options.SEAT_COUNTS
    cooperative = False
    showcase_seats = 4
    quick_options: dict[str, Any] = {"raids": 1}
    card_pattern = CARD_PATTERN
    teams: dict[str, str] = dict(TEAM_NAMES)

    default_options = staticmethod(options.default_options)
    options_schema = staticmethod(options.options_schema)
    new_game = staticmethod(engine.new_game)
    legal_moves = staticmethod(engine.legal_moves)
    apply = staticmethod(engine.apply)
    to_move = staticmethod(engine.to_move)
    is_over = staticmethod(engine.is_over)
    result = staticmethod(engine.result)
    replay = staticmethod(engine.replay)
    setup_events = staticmethod(engine.setup_events)

    @staticmethod
    def view(state: dict[str, Any], seat: int | None) -> dict[str, Any]:
        """What `seat` (None: a spectator) may know now."""
        return _view(state, seat)

    @staticmethod
    def event_view(state: dict[str, Any], event: dict[str, Any], seat: int | None) -> dict[str, Any]:
        """A logged event as `seat` may read it: private parts only for their seats until the end."""
        return redact_event(event, seat, engine.is_over(state))


GAME: Game = TrickyTeams()

__all__ = ["GAME", "TrickyTeams"]
