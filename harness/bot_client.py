"""The harness side of the bot protocol: one reusable, pinned, signed session per bot.

Every failure is turned into a fault code (`bots.protocol.FaultCode`) instead of an exception,
so the match runner can play a fallback move and carry on. The outbound rules (http/https only,
pinned DNS, address policy, no redirects, bounded size and time) live in `core.outbound`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from bots.protocol import FaultCode
from core.outbound import ERROR_BODY_BYTES, AddressPolicy, BotSession, OutboundError


def move_request(
    match_id: str,
    game: str,
    seat: int,
    view: dict[str, Any],
    legal_moves: list[dict[str, Any]],
    deadline_ms: int,
    time_bank_ms: int,
    previous: dict[str, Any] | None,
) -> dict[str, Any]:
    """The body of `POST /move` (a `BotMoveRequest`): the one place that builds it, for the match
    runner, `trickarena bot check` and the annotated views of docs/bot-protocol.md."""
    return {
        "match_id": match_id,
        "game": game,
        "seat": seat,
        "view": view,
        "legal_moves": legal_moves,
        "deadline_ms": deadline_ms,
        "time_bank_ms": time_bank_ms,
        "previous": previous,
    }


@dataclass
class HelloFault:
    """Why a bot did not answer `GET /`: a fault code and what happened, in words."""

    code: str
    message: str


@dataclass
class MoveAnswer:
    """What came of asking a bot for a move: the move, or the fault that replaces it."""

    move: dict[str, Any] | None
    fault: str | None
    elapsed_s: float
    # For a fault: the bot's HTTP status (None when no answer came) and what it said -- the first
    # `ERROR_BODY_BYTES` of its body -- or the transport error's text.
    status: int | None = None
    detail: str | None = None
    # False when the call never got to the bot (`OutboundError.reached`): maybe our network's fault.
    reached: bool = True


def _exact(move: Any) -> bytes:
    """A move's canonical JSON bytes (keys sorted): equal for moves equal in JSON, so 1, 1.0 and
    true differ, where `==` takes them for one another."""
    return orjson.dumps(move, option=orjson.OPT_SORT_KEYS)


def _snippet(body: bytes) -> str:
    """The first `ERROR_BODY_BYTES` of a bot's answer as text (undecodable bytes replaced)."""
    return body[:ERROR_BODY_BYTES].decode("utf-8", "replace")


class BotClient:
    """Calls one bot; keeps its connection pool for the whole match."""

    def __init__(
        self,
        url: str,
        secret: str | None,
        policy: AddressPolicy | None = None,
        on_reach: Callable[[], None] | None = None,
    ) -> None:
        self.url = url
        # Called after every call that got to the bot, whatever it answered (harness.health).
        self._on_reach = on_reach
        self._session: BotSession | None = None
        self._setup_fault: str | None = None
        self._setup_detail: str | None = None
        try:
            self._session = BotSession(url, secret=secret, policy=policy)
        except OutboundError as exc:
            # A bot whose URL can no longer be used faults on every call, with this code.
            self._setup_fault = str(exc.code) if exc.code in set(FaultCode) else FaultCode.CONNECTION_ERROR
            self._setup_detail = exc.message

    def close(self) -> None:
        """Release the pooled connections."""
        if self._session is not None:
            self._session.close()

    def hello(self, timeout_s: float) -> HelloFault | None:
        """Signed `GET /` within `timeout_s`: None when the bot answered 200 with a JSON object."""
        if self._session is None:
            return HelloFault(self._setup_fault or FaultCode.CONNECTION_ERROR, "the bot's URL cannot be used")
        try:
            body = self._session.request("GET", "/", None, timeout_s).json()
        except OutboundError as exc:
            return HelloFault(str(exc.code), exc.message)
        if not isinstance(body, dict):
            return HelloFault(FaultCode.MALFORMED_BODY.value, "GET / did not answer a JSON object")
        return None

    def notify(self, path: str, message: dict[str, Any], timeout_s: float) -> float:
        """POST /start or /end within `timeout_s` (`core.timing.TimePolicy.notify_timeout_s`); the
        answer (and any failure) is ignored; returns the seconds spent."""
        if self._session is None:
            return 0.0
        start = time.monotonic()
        reached = True
        try:
            self._session.request("POST", path, message, timeout_s)
        except OutboundError as exc:
            reached = exc.reached
        if reached and self._on_reach is not None:
            self._on_reach()
        return time.monotonic() - start

    def move(
        self, message: dict[str, Any], legal_moves: list[dict[str, Any]], timeout_s: float
    ) -> MoveAnswer:
        """POST /move and check the answer is one of `legal_moves`; faults are returned, not raised."""
        start = time.monotonic()
        if self._session is None:
            return MoveAnswer(None, self._setup_fault, 0.0, detail=self._setup_detail, reached=False)
        try:
            response = self._session.request("POST", "/move", message, timeout_s)
            body = response.json()
        except OutboundError as exc:
            detail = _snippet(exc.body) if exc.status is not None else exc.message
            if exc.reached and self._on_reach is not None:
                self._on_reach()
            return MoveAnswer(None, str(exc.code), time.monotonic() - start, exc.status, detail, exc.reached)
        elapsed = time.monotonic() - start
        if self._on_reach is not None:
            self._on_reach()
        if not isinstance(body, dict) or not isinstance(body.get("move"), dict):
            return MoveAnswer(
                None, FaultCode.MALFORMED_BODY.value, elapsed, response.status, _snippet(response.body)
            )
        move = body["move"]
        for legal in legal_moves:
            # `==` first (cheap); the canonical JSON then keeps the match exact (1 is not 1.0 or
            # true). Only values `==` to the engine's own reach `_exact`, so it always encodes.
            if legal == move and _exact(legal) == _exact(move):
                return MoveAnswer(legal, None, elapsed)
        return MoveAnswer(
            None, FaultCode.ILLEGAL_MOVE.value, elapsed, response.status, _snippet(response.body)
        )
