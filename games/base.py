"""The engine contract every game implements, and the typed errors it raises.

A game is a module-like object (see `Game`) whose state is a plain JSON-compatible
dict.  Keeping the state a dict (not a class) means serialization is the identity,
the API can store it as-is, and `json.loads(json.dumps(state)) == state` holds.

Conventions shared by all games:
- seats are ints `0 .. seats-1`, play proceeds in increasing seat order (clockwise);
- a move is a JSON object with a kebab-case ``"type"`` and its fields, listed by
  ``legal_moves`` exactly as ``apply`` accepts it; an engine may list its moves as ``FrozenDict``
  values (dicts that refuse changes), shared between calls, and may return shared ``FrozenDict``
  events and action-list entries the same way: ``copy()`` one to change it; the list itself is
  always the caller's own;
- ``apply`` mutates the state in place and returns the events it produced; callers wanting to
  keep the old state ``clone`` it first (search) or deep-copy it (it is plain JSON data);
  ``apply_unchecked`` is ``apply`` without parsing and checks, for moves ``legal_moves`` listed;
  ``apply`` itself takes a value ``legal_moves`` has just listed for the same state object at the
  same action count as checked (``LastListing``), and parses and checks every other move;
  events are read-only: they may share parts with the state (a trick's summary, a raid's coins),
  so a caller that wants to change one deep-copies it;
- an event is a JSON object with ``"type"``; anything a seat may not see goes under
  ``"private": {"seats": [...], ...}`` and is stripped by ``redact_event``;
- ``view(state, seat)`` / ``view(state, None)`` is the only way hidden information
  leaves the engine; after the game ends everything is revealed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypeAlias, TypeGuard, TypeVar

T = TypeVar("T")
State: TypeAlias = dict[str, Any]
Move: TypeAlias = dict[str, Any]
Event: TypeAlias = dict[str, Any]
View: TypeAlias = dict[str, Any]


_IMMUTABLE_VALUES = frozenset({str, int, float, bool, type(None)})


class FrozenDict(dict[str, Any]):
    """A dict that refuses changes: moves as immutable values, equal to and serialised like plain dicts.

    Engines hand out the same instance for the same move from `legal_moves` (one per card, say)
    instead of a fresh dict per listed move; refusing changes is what makes sharing them safe.
    `copy()` gives a plain, changeable dict.
    """

    __slots__ = ()

    def __init__(self, items: dict[str, Any]) -> None:
        """Freeze `items`, whose values must be immutable too: scalars or FrozenDicts."""
        for key, value in items.items():
            if type(value) not in _IMMUTABLE_VALUES and type(value) is not FrozenDict:
                raise TypeError(
                    f"{key!r}: a FrozenDict holds scalars and FrozenDicts, not {type(value).__name__}"
                )
        super().__init__(items)

    def _refuse(self, *args: object, **kwargs: object) -> Any:
        raise TypeError(
            "a FrozenDict (a shared move, event or action entry) is immutable; change a copy() of it"
        )

    __setitem__ = __delitem__ = __ior__ = _refuse
    update = pop = popitem = clear = setdefault = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copy as the constructor call, never item by item (which would be refused)."""
        return (type(self), (dict(self),))

    def __copy__(self) -> FrozenDict:
        """An immutable value is its own copy."""
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        """An immutable value of immutable parts is its own deep copy."""
        return self


class GameError(Exception):
    """Base class of every engine error; `code` is machine-readable, the message human."""

    code = "game_error"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}

    def to_dict(self) -> dict[str, Any]:
        """Render the error as a JSON-compatible dict."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = self.details
        return out


class MalformedMove(GameError):
    """The move is not a well-formed move of this game at all (wrong shape, unknown card)."""

    code = "malformed_move"


class IllegalMove(GameError):
    """The move is well-formed but not allowed now by the rules."""

    code = "illegal_move"


class NotYourTurn(IllegalMove):
    """The seat has no decision to make right now."""

    code = "not_your_turn"


class GameOver(IllegalMove):
    """The game has ended; no more moves are accepted."""

    code = "game_over"


class InvalidOptions(GameError):
    """Options or seat count are not valid for this game."""

    code = "invalid_options"


class InvalidDeal(GameError):
    """An explicit deal is not valid for this game and options."""

    code = "invalid_deal"


class UnknownGame(GameError):
    """No game of that name is registered."""

    code = "unknown_game"


class Game(Protocol):
    """What every game module exposes; the registry holds one per game name."""

    name: str
    title: str
    seat_counts: tuple[int, ...]
    # True when the seats play as one team against the game (cross-play standings, team score).
    cooperative: bool
    # The seat count of a showcase table, and the options of a short game (`make run --short`).
    showcase_seats: int
    quick_options: dict[str, Any]
    # A JSON Schema pattern every card id of this game matches (the wire form of a card).
    card_pattern: str
    # The version of the state's stored shape (the state's "schema"): a stored state of another
    # schema is not readable by this engine and is rebuilt with `replay` from its header and actions.
    schema: int

    def default_options(self, seats: int) -> dict[str, Any]:
        """Options with their defaults for the given seat count."""
        ...

    def options_schema(self) -> dict[str, Any]:
        """A JSON-Schema object describing the options (for listGameTypes / docs)."""
        ...

    def new_game(
        self,
        seats: int,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        deal: dict[str, Any] | None = None,
    ) -> State:
        """Create the initial state; raises InvalidOptions / InvalidDeal."""
        ...

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every move `seat` may make now, exactly as `apply` accepts it; [] if none."""
        ...

    def apply(self, state: State, seat: int, move: Move) -> list[Event]:
        """Apply `move` for `seat` in place; return the events; raise on malformed/illegal."""
        ...

    def view(self, state: State, seat: int | None) -> View:
        """What `seat` (None: a spectator) may know now."""
        ...

    def to_move(self, state: State) -> list[int]:
        """Seats that have a decision to make now (empty when the game is over)."""
        ...

    def is_over(self, state: State) -> bool:
        """True once the game has ended."""
        ...

    def result(self, state: State) -> dict[str, Any]:
        """Final result: per-seat `scores`, `winners` (seats), and game-specific detail."""
        ...

    def replay(self, header: dict[str, Any], actions: list[dict[str, Any]]) -> State:
        """Rebuild a state from its creation header and its action list."""
        ...

    def setup_events(self, state: State) -> list[Event]:
        """The events of a new game's setup (its first deal), so that a log can start at creation."""
        ...

    def event_view(self, state: State, event: Event, seat: int | None) -> Event:
        """An event of this game as `seat` may read it now (the view rules applied to the log)."""
        ...

    # The search API (python-chess's `push` beside the checked `push_uci`).

    def clone(self, state: State) -> State:
        """An independent copy of `state` for search: moves applied to one leave the other alone."""
        ...

    def apply_unchecked(self, state: State, seat: int, move: Move) -> list[Event]:
        """`apply` for a move that `legal_moves` listed for `seat` (that very value): no parsing and no
        checks; the same state afterwards and the same events."""
        ...


class LastListing:
    """The moves an engine's `legal_moves` listed last: the state object, its action count and the seat.

    A move `apply` gets that is one of those very values, for that state object at that action
    count (a move appends one action, so the count is the state's version) and that seat, was
    checked by the listing: `apply` takes it as `apply_unchecked` does.  Every other move (a move
    of the API's JSON body, a state read afresh) is parsed and checked.  The entry is one tuple,
    replaced whole, so threads sharing an engine at worst miss it.
    """

    __slots__ = ("_entry",)

    def __init__(self) -> None:
        self._entry: tuple[object, int, int, tuple[object, ...]] = (None, -1, -1, ())

    def remember(self, state: Mapping[str, Any], seat: int, moves: list[T]) -> list[T]:
        """Remember `moves` as listed for `seat` in `state` now; returns them."""
        self._entry = (state, len(state["actions"]), seat, tuple(moves))
        return moves

    def listed(self, state: Mapping[str, Any], seat: int, move: object) -> bool:
        """True if `move` is one of the very values listed last for `seat` in `state` as it is now."""
        listed_state, version, listed_seat, moves = self._entry
        if listed_state is not state or listed_seat != seat or version != len(state["actions"]):
            return False
        try:
            return moves[moves.index(move)] is move  # the value itself, not an equal one
        except ValueError:
            return False


def is_int(value: object) -> TypeGuard[int]:
    """An integer, not a bool (bool is an int subclass, but True is no seat, count or seed)."""
    return isinstance(value, int) and not isinstance(value, bool)


def redact_event(event: Event, seat: int | None, game_over: bool = False) -> Event:
    """Strip the private part of an event unless `seat` may see it (or the game is over)."""
    private = event.get("private")
    if private is None or game_over:
        return event
    if seat is not None and seat in private.get("seats", ()):
        return event
    return {k: v for k, v in event.items() if k != "private"}
