"""Trick 'n Trouble: a cooperative trick-taking game for 3 seats (see docs/rules/trick-n-trouble.md)."""

from __future__ import annotations

from typing import Any

from games.base import Event, Move, State, View
from games.trick_n_trouble import engine
from games.trick_n_trouble.cards import CARD_PATTERN


class TrickNTrouble:
    """The engine object the registry holds; every method delegates to `engine`."""

    name = engine.NAME
    title = "Trick 'n Trouble"
    seat_counts: tuple[int, ...] = (engine.SEATS,)
    cooperative = True
    showcase_seats = engine.SEATS
    quick_options: dict[str, Any] = {}
    card_pattern = CARD_PATTERN

    def default_options(self, seats: int = engine.SEATS) -> dict[str, Any]:
        """Options with their defaults."""
        return engine.default_options(seats)

    def options_schema(self) -> dict[str, Any]:
        """JSON Schema of the options."""
        return engine.options_schema()

    def new_game(
        self,
        seats: int,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        deal: dict[str, Any] | None = None,
    ) -> State:
        """Set up a game (seed None means 0)."""
        return engine.new_game(seats, options, seed, deal)

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every move `seat` may make now."""
        return engine.legal_moves(state, seat)

    def apply(self, state: State, seat: int, move: Move) -> list[Event]:
        """Apply a move in place and return its events."""
        return engine.apply(state, seat, move)

    def view(self, state: State, seat: int | None) -> View:
        """What `seat` (None: spectator) may know."""
        return engine.view(state, seat)

    def to_move(self, state: State) -> list[int]:
        """Seats with a decision now."""
        return engine.to_move(state)

    def is_over(self, state: State) -> bool:
        """True once the game has ended."""
        return engine.is_over(state)

    def result(self, state: State) -> dict[str, Any]:
        """Scores, winners, points, tasks fulfilled and the rulebook's band."""
        return engine.result(state)

    def replay(self, header: dict[str, Any], actions: list[dict[str, Any]]) -> State:
        """Rebuild a state from its header and actions."""
        return engine.replay(header, actions)

    def setup_events(self, state: State) -> list[Event]:
        """The setup as events: the face-up tasks and lead, one private dealt hand per seat."""
        return engine.setup_events(state)

    def event_view(self, state: State, event: Event, seat: int | None) -> Event:
        """A logged event as `seat` may read it now (expert mode: past tricks stay face down)."""
        return engine.event_view(state, event, seat)


GAME = TrickNTrouble()
