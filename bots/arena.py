"""Play one game between bots with the engine as the referee (in-process policies or HTTP bots).

This is the small local driver used by the bot tests and the strength benchmark; the tournament
harness has its own match runner (and its own bot client, `harness.outbound`, with the address
policy that user-submitted URLs need) with the same message shapes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
import requests

from bots.policy import Memory, Message, Move, Policy, move_key
from bots.protocol import FaultCode, MoveStatus, sign
from games.base import State
from games.registry import get_game

Player = Callable[[Message], Move]

MAX_RESPONSE_BYTES = 256 * 1024
DEFAULT_TIMEOUT_S = 5.0


class BotCallError(Exception):
    """A call to an HTTP bot failed; `code` is the FaultCode the harness would record for it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


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
                declared = resp.headers.get("Content-Length", "")
                if declared.isdigit() and int(declared) > self.max_bytes:
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
            raise BotCallError(FaultCode.HTTP_STATUS, f"bot answered HTTP {status}")
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise BotCallError(FaultCode.MALFORMED_BODY, f"body is not JSON: {exc}") from None


@dataclass
class GameRecord:
    """How a game went: the final state, the engine's result and every fault per seat."""

    state: State
    result: dict[str, Any]
    decisions: int
    faults: dict[int, list[str]] = field(default_factory=dict)


def policy_player(policy: Policy) -> Player:
    """An in-process player: `policy` with its own per-match memory."""
    memory: Memory = {}
    return lambda message: policy(message, memory)


def http_player(client: BotClient, timeout_s: float = DEFAULT_TIMEOUT_S) -> Player:
    """A player that asks a bot over the signed HTTP protocol (a failed call raises BotCallError)."""

    def play(message: Message) -> Move:
        answer = client.post_json("/move", message, timeout_s)
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
) -> GameRecord:
    """Play to the end; a faulty answer is replaced by the first legal move and reported next time."""
    game = get_game(game_name)
    state = game.new_game(len(players), options, seed=seed, deal=deal)
    match_id = match_id or f"{game_name}:{seed}"
    previous: dict[int, dict[str, Any]] = {}
    faults: dict[int, list[str]] = {seat: [] for seat in range(len(players))}
    decisions = 0
    while not game.is_over(state):
        seat = game.to_move(state)[0]
        legal = game.legal_moves(state, seat)
        message: Message = {
            "match_id": match_id,
            "game": game_name,
            "seat": seat,
            "view": game.view(state, seat),
            "legal_moves": legal,
            "deadline_ms": deadline_ms,
            "time_bank_ms": 0,
            "previous": previous.get(seat),
        }
        fault: str | None = None
        try:
            move = players[seat](message)
            if move_key(move) not in {move_key(m) for m in legal}:
                fault = FaultCode.ILLEGAL_MOVE
        except BotCallError as exc:
            fault = exc.code
        if fault is not None:
            faults[seat].append(str(fault))
            move = legal[0]
        previous[seat] = {
            "status": MoveStatus.REPLACED if fault else MoveStatus.ACCEPTED,
            "fault": None if fault is None else str(fault),
        }
        game.apply(state, seat, move)
        decisions += 1
    return GameRecord(state, game.result(state), decisions, faults)


def play_http_match(
    game_name: str,
    clients: Sequence[BotClient],
    seed: int,
    options: dict[str, Any] | None = None,
    match_id: str | None = None,
    deadline_ms: int = 1000,
) -> GameRecord:
    """One match over the bot protocol: `/start` to each seat, `/move` per decision, `/end` with result."""
    match_id = match_id or f"{game_name}:{seed}"
    timeout_s = deadline_ms / 1000.0 + 1.0
    base = {"match_id": match_id, "game": game_name}
    for seat, client in enumerate(clients):
        client.post_json(
            "/start",
            {
                **base,
                "seat": seat,
                "seats": len(clients),
                "options": options or {},
                "deadline_ms": deadline_ms,
                "time_bank_ms": 0,
            },
            timeout_s,
        )
    players = [http_player(client, timeout_s) for client in clients]
    record = play_game(game_name, players, seed, options, match_id=match_id, deadline_ms=deadline_ms)
    for seat, client in enumerate(clients):
        client.post_json(
            "/end",
            {**base, "seat": seat, "result": record.result, "faults": len(record.faults[seat])},
            timeout_s,
        )
    return record
