"""The games service: plain Python over the repository and the engines (no Flask).

The HTTP blueprints and the tournament match runner both call this class; it owns the rules
of the API itself (tokens, versions, open seats, redaction) while the engines own the rules
of the games.  Every method either succeeds or raises a `ServiceError` having written nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field, replace
from typing import Any

import orjson
from marshmallow import ValidationError

from core import errors
from core.repository import (
    DuplicateMove,
    GameRepository,
    NoSuchGame,
    SeatUnavailable,
    StaleWrite,
    StoredGame,
)
from core.wire import GAME_WIRE, has_only_known_fields, validate_move
from games.base import Event, Game, GameError, GameOver, IllegalMove, MalformedMove, NotYourTurn
from games.registry import GAMES, get_game

# Without If-Match a move is "apply to the latest state": a lost race is retried this often
# (the state is re-read and the move re-validated), then reported as a version conflict.
MAX_MOVE_ATTEMPTS = 5
# A move sent without If-Match that equals the seat's own last move, while that move is still the
# game's latest and younger than this, is taken for a duplicate of it (409 duplicate_move).
DUPLICATE_WINDOW_MS = 2000


def token_digest(token: str) -> bytes:
    """The stored form of a seat token: its SHA-256 (tokens are 192 random bits, no salt needed)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def new_token() -> str:
    """A fresh seat token with 192 random bits."""
    return secrets.token_urlsafe(24)


def new_game_id() -> str:
    """A fresh game id: 64 random bits as 16 hex digits."""
    return secrets.token_hex(8)


@dataclass
class CreatedGame:
    """What `create_game` hands back: the id, version, seed and one token per non-open seat."""

    game_id: str
    game: str
    seats: int
    version: int
    seed: int | None  # only the seed the caller chose; a random one stays secret until the end
    tokens: dict[int, str]
    open_seats: list[int] = field(default_factory=list)


@dataclass
class EventRecord:
    """One stored event as a reader may see it: its stream id, the version it produced, the event."""

    id: str
    version: int
    event: Event

    def to_dict(self) -> dict[str, Any]:
        """JSON form of the record."""
        return {"id": self.id, "version": self.version, "event": self.event}


def move_digest(move: Any) -> str:
    """A short digest of a move's canonical JSON (key order ignored), to recognise a repeat."""
    try:
        text = orjson.dumps(move, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        text = repr(move).encode()
    return hashlib.sha256(text).hexdigest()[:16]


class GameService:
    """Create, join, view and play games stored in one `GameRepository`."""

    def __init__(self, repository: GameRepository, duplicate_window_ms: int = DUPLICATE_WINDOW_MS) -> None:
        self.repository = repository
        self.duplicate_window_ms = duplicate_window_ms

    # -- game types -----------------------------------------------------------------
    def game_types(self) -> list[dict[str, Any]]:
        """Every registered game: name, title, seat counts and options (schema and defaults)."""
        out = []
        for name in sorted(GAMES):
            game = GAMES[name]
            out.append(
                {
                    "name": name,
                    "title": game.title,
                    "seat_counts": list(game.seat_counts),
                    "options_schema": game.options_schema(),
                    "default_options": {str(n): game.default_options(n) for n in game.seat_counts},
                }
            )
        return out

    # -- lifecycle --------------------------------------------------------------------
    def create_game(
        self,
        game: str,
        seats: int,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        deal: dict[str, Any] | None = None,
        open_seats: list[int] | tuple[int, ...] = (),
        *,
        sealed: bool = False,
        game_id: str | None = None,
    ) -> CreatedGame:
        """Create a game; seats in `open_seats` get no token until someone joins them.

        `game_id` (default a fresh `new_game_id`): a caller that records the id before the game
        exists (the match runner, so that no run can leave a game nobody knows of) passes it.

        Without a `seed` the deal comes from a secret random one, which `CreatedGame.seed` (and so
        the caller) does not get: it is readable only in the replay, after the end.  A `sealed`
        game can be read by its seats only, until `unseal` (a tournament's games, whose deals are
        played at other tables too).
        """
        engine = self._engine(game)
        if seats not in engine.seat_counts:
            raise errors.Unprocessable(
                f"{game} is played by {list(engine.seat_counts)} seats, not {seats}",
                code="invalid_seats",
                details={"seat_counts": list(engine.seat_counts)},
            )
        bad = sorted({s for s in open_seats if not 0 <= s < seats})
        if len(set(open_seats)) != len(open_seats):
            raise errors.Unprocessable("open seats must not repeat", code="invalid_seats")
        if bad:
            raise errors.Unprocessable(
                f"open seats {bad} are not seats of a {seats}-seat game", code="invalid_seats"
            )
        chosen = seed
        if seed is None:
            seed = secrets.randbits(53)  # fits a JSON number exactly in every client
        try:
            state = engine.new_game(seats, options, seed=seed, deal=deal)
        except GameError as exc:
            raise errors.Unprocessable(exc.message, code=exc.code, details=exc.details) from None
        tokens = {s: new_token() for s in range(seats) if s not in set(open_seats)}
        game_id = game_id or new_game_id()
        version = self.repository.create(
            game_id,
            game,
            seats,
            seed,
            state,
            {s: token_digest(t) for s, t in tokens.items()},
            events=engine.setup_events(state),
            sealed=sealed,
        )
        return CreatedGame(game_id, game, seats, version, chosen, tokens, sorted(set(open_seats)))

    def unseal(self, game_ids: list[str]) -> None:
        """Let everyone read these games (the tournament that sealed them has ended)."""
        self.repository.unseal(game_ids)

    def join_game(self, game_id: str, seat: int | None = None) -> tuple[int, str, int]:
        """Claim `seat` (or the lowest open seat); returns (seat, token, new version)."""
        stored = self._load(game_id, with_actions=False)
        if seat is not None and not 0 <= seat < stored.seats:
            # Not an open seat of this game: a state answer (409), as for a taken seat; the request is
            # well-formed (openapi.yaml cannot know the game's seat count from its id).
            raise errors.Conflict(
                f"seat {seat} is not open: the game has seats 0 to {stored.seats - 1}",
                code="seat_taken",
                details={"open_seats": stored.open_seats},
            )
        token = new_token()
        try:
            claimed, version = self.repository.claim_seat(game_id, seat, token_digest(token), stored.seats)
        except NoSuchGame:
            raise errors.GameNotFound(f"no game {game_id}") from None
        except SeatUnavailable:
            what = f"seat {seat} is taken" if seat is not None else "no seat is open"
            raise errors.Conflict(what, code="seat_taken") from None
        return claimed, token, version

    # -- auth -------------------------------------------------------------------------
    def authenticate(self, stored: StoredGame, token: str | None) -> int:
        """The seat whose token this is; MissingToken / InvalidToken otherwise."""
        if not token:
            raise errors.MissingToken("this operation needs 'Authorization: Bearer <seat token>'")
        presented = token_digest(token)
        found = -1
        # Compare against every seat so timing does not reveal which seat (if any) matched.
        for seat, digest in stored.token_digests.items():
            if hmac.compare_digest(presented, digest):
                found = seat
        if found < 0:
            raise errors.InvalidToken("the token is not a seat token of this game")
        return found

    def seat_for(self, game_id: str, token: str | None) -> int:
        """Resolve a token to its seat in `game_id` (for callers outside HTTP)."""
        return self.authenticate(self._load(game_id, with_actions=False), token)

    # -- reads ------------------------------------------------------------------------
    def load(self, game_id: str, *, with_actions: bool = True) -> StoredGame:
        """The stored game, or GameNotFound; views need no actions (`with_actions=False` reads less)."""
        return self._load(game_id, with_actions=with_actions)

    def view(self, game_id: str, seat: int | None = None, *, token: str | None = None) -> dict[str, Any]:
        """The game as `seat` (or the token's seat; None: a spectator) may see it, with its legal moves."""
        stored = self._load(game_id, with_actions=False)
        if token is not None:
            seat = self.authenticate(stored, token)
        return self.render(stored, seat)

    @staticmethod
    def check_readable(stored: StoredGame, seat: int | None) -> None:
        """GameSealed unless `seat` is a seat of the game or the game is not sealed."""
        if stored.sealed and seat is None:
            raise errors.GameSealed(
                "this tournament game can be watched once its tournament has ended: its deal is "
                "played at other tables too",
                details={"game_id": stored.game_id},
            )

    def render(self, stored: StoredGame, seat: int | None) -> dict[str, Any]:
        """The API's game document for one reader: envelope plus the engine's view."""
        self.check_readable(stored, seat)
        engine = self._engine(stored.game)
        view = engine.view(stored.state, seat)
        open_seats = stored.open_seats
        status = _status(stored, engine, open_seats)
        if status == "waiting":
            # Nobody moves before every seat is taken.
            view = {**view, "legal_moves": []}
        return {
            "game_id": stored.game_id,
            "game": stored.game,
            "version": stored.version,
            "status": status,
            "seats": stored.seats,
            "seat": seat,
            "open_seats": open_seats,
            "view": view,
        }

    def render_status(self, stored: StoredGame) -> str:
        """ "finished", "waiting" (open seats left) or "active"."""
        return _status(stored, self._engine(stored.game), stored.open_seats)

    def legal_moves(
        self, game_id: str, seat: int | None = None, *, token: str | None = None
    ) -> tuple[int, list[Any]]:
        """(version, every move `seat` may post now, exactly as `apply_move` accepts it)."""
        stored = self._load(game_id, with_actions=False)
        if token is not None:
            seat = self.authenticate(stored, token)
        if seat is None:
            raise errors.MissingToken("legal moves belong to a seat: send its token")
        return stored.version, self.legal_for(stored, seat)

    def legal_for(self, stored: StoredGame, seat: int) -> list[Any]:
        """Legal moves of `seat` in an already loaded game ([] while waiting or after the end)."""
        if stored.open_seats or stored.finished:
            return []
        return self._engine(stored.game).legal_moves(stored.state, seat)

    def events(
        self, game_id: str, seat: int | None = None, since: int = 0, *, token: str | None = None
    ) -> tuple[StoredGame, list[EventRecord]]:
        """Events after version `since`, redacted for `seat` (or the token's seat; None: spectator)."""
        stored, raw = self.repository_load_with_events(game_id, since)
        if token is not None:
            seat = self.authenticate(stored, token)
        return stored, self.redact(stored, raw, seat)

    def repository_load_with_events(
        self, game_id: str, since: int, *, with_actions: bool = True
    ) -> tuple[StoredGame, list[tuple[str, Event]]]:
        """Game and raw events after `since` in one atomic read; GameNotFound if absent.
        (`with_actions=False`: without the stored action list, which redacting events never needs.)"""
        try:
            stored, events = self.repository.load_with_events(game_id, since, with_actions=with_actions)
            return self._in_current_schema(stored), events
        except NoSuchGame:
            raise errors.GameNotFound(f"no game {game_id}") from None

    def redact(self, stored: StoredGame, raw: list[tuple[str, Event]], seat: int | None) -> list[EventRecord]:
        """Apply the engine's view rules to raw events for one reader."""
        self.check_readable(stored, seat)
        engine = self._engine(stored.game)
        if stored.finished:
            return [EventRecord(eid, int(eid.split("-", 1)[0]), ev) for eid, ev in raw]
        # The engine owns what a reader may see of its log, as it owns the view.
        return [
            EventRecord(eid, int(eid.split("-", 1)[0]), engine.event_view(stored.state, ev, seat))
            for eid, ev in raw
        ]

    def replay(self, game_id: str) -> dict[str, Any]:
        """After the end: header, actions, final state, result and every event unredacted."""
        stored, raw = self.repository_load_with_events(game_id, 0)
        self.check_readable(stored, None)
        engine = self._engine(stored.game)
        if not (stored.finished or engine.is_over(stored.state)):
            raise errors.Conflict("the replay is available once the game is over", code="game_not_over")
        return {
            "game_id": stored.game_id,
            "game": stored.game,
            "version": stored.version,
            "seats": stored.seats,
            "seed": stored.seed,
            "header": stored.state.get("header", {}),
            "actions": stored.state.get("actions", []),
            "result": engine.result(stored.state),
            "events": [EventRecord(eid, int(eid.split("-", 1)[0]), ev).to_dict() for eid, ev in raw],
        }

    # -- writes -----------------------------------------------------------------------
    def apply_move(
        self,
        game_id: str,
        seat: int | None,
        move: Any,
        expected_version: int | None = None,
        *,
        token: str | None = None,
        current: StoredGame | None = None,
    ) -> tuple[StoredGame, list[Event]]:
        """Apply one move for `seat` (or the token's seat) atomically; returns the new game and its events.

        With `expected_version` the move applies only to that version (PreconditionFailed
        otherwise); without it a lost race is retried against the fresh state a few times.
        The one write path of moves: the API's postMove and the match runner both come here.
        `current` is the game as the caller already holds it (the runner keeps its copy from
        move to move instead of reading it again); it is handed over, and its state is mutated.
        """
        new, events, _seat = self._apply(game_id, seat, move, expected_version, token=token, current=current)
        return new, events

    def move_as(
        self, game_id: str, token: str | None, move: Any, expected_version: int | None = None
    ) -> tuple[StoredGame, int]:
        """`apply_move` for the seat whose token this is: (the new game, that seat). The token is
        checked once, against the game the move is applied to (postMove answers that seat's view)."""
        new, _events, seat = self._apply(game_id, None, move, expected_version, token=token)
        return new, seat

    def _apply(
        self,
        game_id: str,
        seat: int | None,
        move: Any,
        expected_version: int | None,
        *,
        token: str | None,
        current: StoredGame | None = None,
    ) -> tuple[StoredGame, list[Event], int]:
        """`apply_move`, also returning the seat that moved."""
        first_version = -1  # the version the move was sent against: the one first read
        for _attempt in range(MAX_MOVE_ATTEMPTS):
            if current is not None and current.game_id == game_id:
                stored, current = current, None
            else:
                stored = self._load(game_id, with_actions=False)
            if first_version < 0:
                first_version = stored.version
            if token is not None:
                seat = self.authenticate(stored, token)
            if seat is None:
                raise errors.MissingToken("a move needs a seat (or its token)")
            if not 0 <= seat < stored.seats:
                raise errors.Unprocessable(f"seat {seat} does not exist in this game", code="invalid_seat")
            if stored.version != first_version and stored.last_moves.get(seat, 0) > first_version:
                # A retry after a lost race: the seat itself moved meanwhile (the same move sent
                # twice, say), so the decision in front of it now is one it reached through its own
                # earlier move, not the one this move was sent for.
                raise errors.Conflict(
                    f"seat {seat} moved meanwhile (the game is at version {stored.version}); "
                    "reload and decide again",
                    code="seat_moved_meanwhile",
                    details={"version": stored.version},
                )
            if expected_version is not None and stored.version != expected_version:
                # The body first (If-Match is read only for a move that is valid): a malformed move
                # is 422 whatever If-Match says, as openapi.yaml's body schema tells.
                self._check_shape(stored, seat, move)
                raise errors.PreconditionFailed(
                    f"If-Match names version {expected_version}, the game is at {stored.version}",
                    details={"version": stored.version},
                )
            engine = self._engine(stored.game)
            if stored.finished or engine.is_over(stored.state):
                raise errors.Conflict("the game is over", code="game_over")
            if stored.open_seats:
                raise errors.Conflict(
                    "the game waits for players to join",
                    code="waiting_for_players",
                    details={"open_seats": stored.open_seats},
                )
            state = stored.state  # freshly parsed: ours to mutate
            # A full action list (the runner's copy, or a full read) is stored up to here: only
            # what the move appends is sent with the commit.
            stored_actions = len(state["actions"]) if stored.actions_base is None else None
            try:
                try:
                    events = engine.apply(state, seat, move)
                except Exception:
                    # Well-formed moves (nearly all) skip the schema check; a rejected or crashing
                    # move is first checked against the wire schema so that a malformed one gets
                    # field errors (and an engine that trips over junk input is not a 500).
                    self._check_shape(stored, seat, move)
                    raise
                if not has_only_known_fields(stored.game, move):
                    self._check_shape(stored, seat, move)  # raises: nothing is written
            except (NotYourTurn, GameOver) as exc:
                raise errors.Conflict(exc.message, code=exc.code, details=exc.details) from None
            except IllegalMove as exc:
                # apply may have touched the state before rejecting: list moves of a fresh copy.
                details = {**exc.details, "legal_moves": self.legal_for(self._load(game_id), seat)}
                raise errors.Unprocessable(exc.message, code=exc.code, details=details) from None
            except MalformedMove as exc:
                # The move fits the game's wire schema (`_check_shape` passed), so what the engine
                # refuses (a seat beyond the table, a task id not of this game) is a rule's answer:
                # not a legal move now, with the legal ones.
                details = {**exc.details, "legal_moves": self.legal_for(self._load(game_id), seat)}
                raise errors.Unprocessable(exc.message, code="illegal_move", details=details) from None
            final = engine.is_over(state)
            try:
                version = self.repository.commit(
                    game_id,
                    stored.version,
                    state,
                    events,
                    final,
                    actions_base=stored.actions_base,
                    stored_actions=stored_actions,
                    seat=seat,
                    move_digest=move_digest(move),
                    refuse_duplicate_ms=self.duplicate_window_ms if expected_version is None else 0,
                )
            except NoSuchGame:
                raise errors.GameNotFound(f"no game {game_id}") from None
            except DuplicateMove as exc:
                raise errors.Conflict(
                    f"seat {seat} sent this very move {self.duplicate_window_ms} ms ago or less and it "
                    f'made version {exc.current}; send If-Match: "{exc.current}" to play it again',
                    code="duplicate_move",
                    details={"version": exc.current},
                ) from None
            except StaleWrite as exc:
                if expected_version is not None:
                    raise errors.PreconditionFailed(
                        f"the game moved on to version {exc.current} meanwhile",
                        details={"version": exc.current},
                    ) from None
                continue
            new = StoredGame(
                game_id=game_id,
                game=stored.game,
                seats=stored.seats,
                version=version,
                seed=stored.seed,
                state=state,
                token_digests=stored.token_digests,
                finished=final,
                # Like the state it was read as: only the actions after `actions_base` are here.
                actions_base=stored.actions_base,
                last_moves={**stored.last_moves, seat: version},
                sealed=stored.sealed,
            )
            return new, events, seat
        raise errors.VersionConflict("the game changed concurrently; reload and retry")

    # -- helpers ----------------------------------------------------------------------
    def _check_shape(self, stored: StoredGame, seat: int, move: Any) -> None:
        """Raise 422 `malformed_move` for a move that is no game's move (openapi.yaml's postMove body
        refuses it too); a move of another game (postMove's body is the union of every game's moves)
        is a rule's answer for this one: 422 `illegal_move` with the legal moves."""
        try:
            validate_move(stored.game, move)
        except ValidationError as exc:
            if any(_fits(other, move) for other in GAME_WIRE if other != stored.game):
                raise errors.Unprocessable(
                    f"a move of another game, not of {stored.game}",
                    code="illegal_move",
                    details={"legal_moves": self.legal_for(self._load(stored.game_id), seat)},
                ) from None
            raise errors.Unprocessable(
                "the move is not a well-formed move of this game",
                code="malformed_move",
                details={"fields": exc.messages},
            ) from None

    def _load(self, game_id: str, *, with_actions: bool = True) -> StoredGame:
        try:
            if with_actions:
                return self._in_current_schema(self.repository.load(game_id))
            return self._in_current_schema(self.repository.load_for_move(game_id))
        except NoSuchGame:
            raise errors.GameNotFound(f"no game {game_id}") from None

    def _in_current_schema(self, stored: StoredGame) -> StoredGame:
        """`stored` with a state its engine reads: a state an older engine stored (another `schema`)
        is rebuilt by replaying its header and actions, as every state can be (docs/engines.md).

        Nothing is written here; the game's next move stores the state in the engine's shape.
        """
        engine = self._engine(stored.game)
        if stored.state.get("schema") == engine.schema:
            return stored
        if stored.actions_base is not None:  # read without its stored actions, which the replay needs
            stored = self.repository.load(stored.game_id)
        state = engine.replay(stored.state["header"], stored.state["actions"])
        return replace(stored, state=state, actions_base=None)

    @staticmethod
    def _engine(name: str) -> Game:
        try:
            return get_game(name)
        except GameError as exc:
            raise errors.Unprocessable(exc.message, code=exc.code) from None


def _status(stored: StoredGame, engine: Game, open_seats: list[int]) -> str:
    """ "finished", "waiting" (open seats left) or "active", with the game's engine and open seats at hand."""
    if stored.finished or engine.is_over(stored.state):
        return "finished"
    return "waiting" if open_seats else "active"


def _fits(game: str, move: Any) -> bool:
    """Whether `move` is a well-formed move of `game` (its wire schema)."""
    try:
        validate_move(game, move)
    except ValidationError:
        return False
    return True
