"""Play one game between bots with the engine as the referee (in-process policies or HTTP bots).

This is the small local driver used by `trickarena play`, the bot tests and the strength
benchmark (no Redis, no workers); the tournament
harness has its own match runner (and its own bot client, `harness.outbound`, with the address
policy that user-submitted URLs need) with the same message shapes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
import requests

from bots.policy import Memory, Message, Move, Policy, move_key
from bots.protocol import FaultCode, MoveStatus, declared_length, sign
from bots.sdk import Bot
from games.base import Event, State
from games.registry import get_game

Player = Callable[[Message], Move]

MAX_RESPONSE_BYTES = 256 * 1024
DEFAULT_TIMEOUT_S = 5.0


PEEK_BYTES = 512  # how much of a refused answer a BotCallError keeps, to say why
MAX_NOTES = 5  # the failed calls a GameRecord describes per seat (the first ones)


class BotCallError(Exception):
    """A call to an HTTP bot failed; `code` is the FaultCode the harness would record for it.

    For an answer other than 200, `status` is its HTTP status and `body` its first bytes.
    """

    def __init__(self, code: str, message: str, status: int | None = None, body: bytes = b"") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.body = body

    def describe(self) -> str:
        """One line: the fault code and what the bot said (`http_status: 401 bad_signature: ...`)."""
        if self.status is None:
            return f"{self.code}: {self.message}"
        try:
            said = orjson.loads(self.body)
        except orjson.JSONDecodeError:
            said = None
        if isinstance(said, dict) and isinstance(said.get("code"), str):
            return f"{self.code}: {self.status} {said['code']}: {said.get('message', '')}"
        return f"{self.code}: {self.status} {self.body[:80]!r}"


class BotClient:
    """Signed JSON calls to one bot URL over a kept-alive `requests` session, bounded in time and size.

    For bots the caller starts itself (tests, benchmarks): URLs are used as given, without the
    platform's address policy. Redirects are not followed, proxies and `.netrc` not consulted; a
    call gets `timeout_s` to connect and for each read, and fails once its whole answer has taken
    longer than that. Every failure is a BotCallError with a FaultCode.
    """

    def __init__(self, url: str, secret: str | None = None, max_bytes: int = MAX_RESPONSE_BYTES) -> None:
        self.url = url.rstrip("/")
        self.secret = secret
        self.max_bytes = max_bytes
        self._session = requests.Session()
        self._session.trust_env = False
        self._session.headers.update({"Accept": "application/json", "Accept-Encoding": "identity"})

    def close(self) -> None:
        """Close the kept-alive connection."""
        self._session.close()

    def __enter__(self) -> BotClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get_json(self, path: str = "/", timeout_s: float = DEFAULT_TIMEOUT_S) -> Any:
        """GET `path` (unsigned, as the platform does) and return its JSON body."""
        return self.request("GET", path, None, timeout_s)

    def post_json(self, path: str, payload: Any, timeout_s: float = DEFAULT_TIMEOUT_S) -> Any:
        """POST `payload` as signed JSON to `path` and return the JSON answer."""
        return self.request("POST", path, payload, timeout_s)

    def request(self, method: str, path: str, payload: Any, timeout_s: float) -> Any:
        """One call: the decoded JSON of a 200 answer, else BotCallError."""
        body = None if payload is None else orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if self.secret is not None:
            headers.update(sign(self.secret, body or b""))
        url = self.url + "/" + path.lstrip("/")
        started = time.monotonic()
        deadline = started + timeout_s
        try:
            with self._session.request(
                method, url, data=body, headers=headers, timeout=timeout_s, stream=True, allow_redirects=False
            ) as resp:
                declared = declared_length(resp.raw.headers.getlist("Content-Length"))
                if declared is not None and declared > self.max_bytes:
                    raise BotCallError(
                        FaultCode.RESPONSE_TOO_LARGE, f"body of {declared} bytes is over the bound"
                    )
                data = bytearray()
                for chunk in resp.iter_content(16384):
                    data += chunk
                    if len(data) > self.max_bytes:
                        raise BotCallError(FaultCode.RESPONSE_TOO_LARGE, f"body over {self.max_bytes} bytes")
                    if time.monotonic() > deadline:
                        break
                status = resp.status_code
        except requests.Timeout as exc:
            raise BotCallError(FaultCode.TIMEOUT, f"no answer within {timeout_s:.3f}s: {exc}") from None
        except requests.RequestException as exc:
            raise BotCallError(FaultCode.CONNECTION_ERROR, f"connection failed: {exc}") from None
        elapsed = time.monotonic() - started
        if elapsed > timeout_s:
            raise BotCallError(FaultCode.TIMEOUT, f"answer took {elapsed:.3f}s, over {timeout_s:.3f}s")
        if status != 200:
            raise BotCallError(
                FaultCode.HTTP_STATUS, f"bot answered HTTP {status}", status, bytes(data[:PEEK_BYTES])
            )
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise BotCallError(FaultCode.MALFORMED_BODY, f"body is not JSON: {exc}") from None


@dataclass
class GameRecord:
    """How a game went: the final state, the engine's result and every fault per seat.

    `events` holds the engine's events by the game version that produced them, as the API numbers
    versions: `events[0]` the setup events (version 1), `events[i]` those of the i-th decision
    (version i + 1). `latencies` are each seat's answer times in seconds, `notes` what went wrong
    with its `/start` and `/end` calls (answers the harness ignores, but a bot author wants to know).
    `calls` has one entry per decision, in order, shaped as getTournamentMatch's `decisions`: the
    seat, the game version the move made, its latency in ms, its outcome (`ok` or the fault code),
    whether the fallback move was played, and for a refused answer its HTTP status and first bytes.
    """

    state: State
    result: dict[str, Any]
    decisions: int
    faults: dict[int, list[str]] = field(default_factory=dict)
    latencies: dict[int, list[float]] = field(default_factory=dict)
    events: list[list[Event]] = field(default_factory=list)
    notes: dict[int, list[str]] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)


# A seat of a match: a bot over HTTP, or a bot object in this process (`bots.sdk.Bot`).
Seat = BotClient | Bot


class MoveClock(Protocol):
    """How long each seat may take: the platform's time policy for one match (`trickarena play`
    passes `core.timing.MatchClock`, the match runner's own rules: deadline plus time bank)."""

    @property
    def deadline_ms(self) -> int:
        """The per-move deadline."""
        ...

    def bank_ms(self, seat: int) -> int:
        """What is left of the seat's time bank."""
        ...

    def timeout_s(self, seat: int) -> float:
        """The bound of the seat's next /move call."""
        ...

    def notify_timeout_s(self) -> float:
        """The bound of a /start or /end call."""
        ...

    def spend(self, seat: int, elapsed_s: float) -> None:
        """Account for an answer of `elapsed_s` (time past the deadline comes off the bank)."""
        ...


@dataclass
class FixedClock:
    """A clock without a time bank, for tests and benchmarks: every /move call gets the deadline
    plus `grace_s`."""

    deadline_ms: int = 1000
    grace_s: float = 1.0

    def bank_ms(self, seat: int) -> int:
        """No bank."""
        return 0

    def timeout_s(self, seat: int) -> float:
        """The deadline plus the grace."""
        return self.deadline_ms / 1000.0 + self.grace_s

    def notify_timeout_s(self) -> float:
        """As a move."""
        return self.timeout_s(0)

    def spend(self, seat: int, elapsed_s: float) -> None:
        """Nothing to spend."""


def policy_player(policy: Policy) -> Player:
    """An in-process player: `policy` with its own per-match memory."""
    memory: Memory = {}
    return lambda message: policy(message, memory)


def http_player(client: BotClient, timeout_s: float | Callable[[], float] = DEFAULT_TIMEOUT_S) -> Player:
    """A player that asks a bot over the signed HTTP protocol (a failed call raises BotCallError);
    `timeout_s` bounds each call (a function: asked before each call, e.g. deadline plus bank)."""

    def play(message: Message) -> Move:
        bound = timeout_s() if callable(timeout_s) else timeout_s
        answer = client.post_json("/move", message, bound)
        if not isinstance(answer, dict) or not isinstance(answer.get("move"), dict):
            raise BotCallError(FaultCode.MALFORMED_BODY, 'answer is not {"move": {...}}')
        move: Move = answer["move"]
        return move

    return play


def play_game(
    game_name: str,
    players: Sequence[Player],
    seed: int,
    options: dict[str, Any] | None = None,
    deal: dict[str, Any] | None = None,
    match_id: str | None = None,
    deadline_ms: int = 1000,
    clock: MoveClock | None = None,
) -> GameRecord:
    """Play to the end; a faulty answer is replaced by the first legal move and reported next time.

    `clock` tells each request's deadline and bank and takes each answer's time (default: a
    `FixedClock` of `deadline_ms`)."""
    clock = clock or FixedClock(deadline_ms)
    game = get_game(game_name)
    state = game.new_game(len(players), options, seed=seed, deal=deal)
    match_id = match_id or f"{game_name}:{seed}"
    previous: dict[int, dict[str, Any]] = {}
    seats = range(len(players))
    record = GameRecord(
        state,
        {},
        0,
        faults={seat: [] for seat in seats},
        latencies={seat: [] for seat in seats},
        events=[game.setup_events(state)],
        notes={seat: [] for seat in seats},
    )
    while not game.is_over(state):
        seat = game.to_move(state)[0]
        legal = game.legal_moves(state, seat)
        message: Message = {
            "match_id": match_id,
            "game": game_name,
            "seat": seat,
            "view": game.view(state, seat),
            "legal_moves": legal,
            "deadline_ms": clock.deadline_ms,
            "time_bank_ms": clock.bank_ms(seat),
            "previous": previous.get(seat),
        }
        fault: str | None = None
        status: int | None = None
        detail: str | None = None
        started = time.monotonic()
        try:
            move = players[seat](message)
            if move_key(move) not in {move_key(m) for m in legal}:
                fault = FaultCode.ILLEGAL_MOVE
        except BotCallError as exc:
            fault = exc.code
            status, detail = exc.status, exc.body.decode("utf-8", "replace") if exc.status else exc.message
            if len(record.notes[seat]) < MAX_NOTES:
                record.notes[seat].append(f"/move: {exc.describe()}")
        elapsed = time.monotonic() - started
        record.latencies[seat].append(elapsed)
        clock.spend(seat, elapsed)
        record.calls.append(
            {
                "seat": seat,
                "version": len(record.events) + 1,
                "latency_ms": round(elapsed * 1000),
                "outcome": "ok" if fault is None else str(fault),
                "fallback": fault is not None,
                "status": status,
                "detail": detail,
            }
        )
        if fault is not None:
            record.faults[seat].append(str(fault))
            move = legal[0]
        previous[seat] = {
            "status": MoveStatus.REPLACED if fault else MoveStatus.ACCEPTED,
            "fault": None if fault is None else str(fault),
        }
        record.events.append(game.apply(state, seat, move))
        record.decisions += 1
    record.result = game.result(state)
    return record


def _notify(seat: Seat, path: str, message: Message, timeout_s: float) -> str | None:
    """`/start` or `/end` to one seat's bot; what went wrong, or None (the answer is ignored)."""
    try:
        if isinstance(seat, BotClient):
            seat.post_json(path, message, timeout_s)
        elif path == "/start":
            seat.start(message)
        else:
            seat.end(message)
    except BotCallError as exc:
        return f"{path}: {exc.describe()}"
    return None


def play_match(
    game_name: str,
    seats: Sequence[Seat],
    seed: int,
    options: dict[str, Any] | None = None,
    match_id: str | None = None,
    deadline_ms: int = 1000,
    clock: MoveClock | None = None,
) -> GameRecord:
    """One match: `/start` to each seat, `/move` per decision, `/end` with the result.

    Like the tournament runner, a failed `/start` or `/end` does not stop the match (it is noted in
    the record's `notes`); a failed move is a fault, replaced by the first legal move. `clock`: as
    `play_game`'s; it also bounds `/start` and `/end`.
    """
    match_id = match_id or f"{game_name}:{seed}"
    clock = clock or FixedClock(deadline_ms)
    timeout_s = clock.notify_timeout_s()
    base = {"match_id": match_id, "game": game_name}
    notes: dict[int, list[str]] = {seat: [] for seat in range(len(seats))}
    for index, seat in enumerate(seats):
        start = {
            **base,
            "seat": index,
            "seats": len(seats),
            "options": options or {},
            "deadline_ms": clock.deadline_ms,
            "time_bank_ms": clock.bank_ms(index),
            "opponents": [],
        }
        notes[index] += filter(None, [_notify(seat, "/start", start, timeout_s)])
    players = [_player(index, seat, clock) for index, seat in enumerate(seats)]
    record = play_game(game_name, players, seed, options, match_id=match_id, clock=clock)
    for index, seat in enumerate(seats):
        end = {**base, "seat": index, "result": record.result, "faults": len(record.faults[index])}
        notes[index] += filter(None, [_notify(seat, "/end", end, timeout_s)])
        record.notes[index] = notes[index][:1] + record.notes[index] + notes[index][1:]
    return record


def _player(index: int, seat: Seat, clock: MoveClock) -> Player:
    """Seat `index`'s player: over HTTP bounded by the clock, or the bot object's own `move`."""
    if isinstance(seat, BotClient):
        return http_player(seat, lambda: clock.timeout_s(index))
    return seat.move


def play_http_match(
    game_name: str,
    clients: Sequence[BotClient],
    seed: int,
    options: dict[str, Any] | None = None,
    match_id: str | None = None,
    deadline_ms: int = 1000,
) -> GameRecord:
    """One match over the bot protocol between HTTP bots (`play_match` with every seat a BotClient)."""
    return play_match(game_name, clients, seed, options, match_id, deadline_ms)


def replay_document(game_name: str, record: GameRecord, game_id: str) -> dict[str, Any]:
    """The game as the API's getReplay shows a finished game: header, actions, result, events.

    Event ids are `<version>-<n>` as the API numbers them (version 1: the setup events).
    """
    state = record.state
    events = [
        {"id": f"{version}-{n}", "version": version, "event": event}
        for version, batch in enumerate(record.events, start=1)
        for n, event in enumerate(batch)
    ]
    header = state.get("header", {})
    return {
        "game_id": game_id,
        "game": game_name,
        "version": len(record.events),
        "seats": int(header.get("seats", len(record.faults))),
        "seed": header.get("seed"),
        "header": header,
        "actions": state.get("actions", []),
        "result": record.result,
        "events": events,
    }
