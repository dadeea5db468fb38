"""The bot protocol: message schemas, fault codes and request signing (see docs/bot-protocol.md).

Defined once here and imported by the SDK (bot side), the harness's bot client and the API's
bot submission (platform side), so both ends agree on every field and code.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterable
from enum import StrEnum
from typing import Any, Protocol

from marshmallow import Schema, fields, validate

PROTOCOL_VERSION = "1"

SIGNATURE_HEADER = "X-TrickArena-Signature"
TIMESTAMP_HEADER = "X-TrickArena-Timestamp"
SIGNATURE_SCHEME = "sha256"
# A signed request older (or newer) than this is refused, so a captured request can't be replayed later.
DEFAULT_TOLERANCE_S = 300


class FaultCode(StrEnum):
    """Why a bot's answer was not used; recorded per move and told to the bot on its next request."""

    TIMEOUT = "timeout"  # no complete answer within the per-move deadline (plus time bank)
    CONNECTION_ERROR = "connection_error"  # refused, reset, DNS or TLS failure
    HTTP_STATUS = "http_status"  # any status other than 200 (redirects included: never followed)
    RESPONSE_TOO_LARGE = "response_too_large"  # body over the size bound
    MALFORMED_BODY = "malformed_body"  # not JSON, or not {"move": {...}}
    ILLEGAL_MOVE = "illegal_move"  # well-formed, but not one of the legal moves sent
    FORBIDDEN_ADDRESS = "forbidden_address"  # the bot's host now resolves to a refused address


FAULT_CODES: tuple[str, ...] = tuple(code.value for code in FaultCode)


class MoveStatus(StrEnum):
    """What happened to the bot's previous move."""

    ACCEPTED = "accepted"
    REPLACED = "replaced"  # a fault occurred; the harness played a fallback move instead


class SignatureError(Exception):
    """A request's signature is missing, wrong or stale; `code` says which."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --------------------------------------------------------------------------- signing


class Headers(Protocol):
    """Request headers as `verify` reads them: a dict, or http.server's / Flask's header objects."""

    def get(self, name: str, /) -> str | None:
        """The value of header `name` (case-insensitively for the header objects), or None."""

    def items(self) -> Iterable[tuple[str, str]]:
        """Every (name, value) pair."""


def signature_payload(timestamp: str, body: bytes) -> bytes:
    """The exact bytes that are signed: ``<timestamp>.<body>``."""
    return timestamp.encode("ascii") + b"." + body


class Signer:
    """Signs request bodies with one secret. The HMAC's key is prepared once (a caller keeps one
    signer per bot, for a whole match) and copied for each body, instead of set up per request."""

    def __init__(self, secret: str) -> None:
        self._keyed = hmac.new(secret.encode("utf-8"), digestmod=hashlib.sha256)

    def headers(self, body: bytes, timestamp: int | None = None) -> dict[str, str]:
        """Headers that sign `body` at `timestamp` (default: now, unix seconds)."""
        ts = str(int(time.time()) if timestamp is None else int(timestamp))
        mac = self._keyed.copy()
        mac.update(signature_payload(ts, body))
        return {TIMESTAMP_HEADER: ts, SIGNATURE_HEADER: f"{SIGNATURE_SCHEME}={mac.hexdigest()}"}


def sign(secret: str, body: bytes, timestamp: int | None = None) -> dict[str, str]:
    """Headers that sign `body` with `secret` at `timestamp` (default: now, unix seconds)."""
    return Signer(secret).headers(body, timestamp)


def _header(headers: Headers, name: str) -> str | None:
    # Plain dicts are case-sensitive while HTTP headers are not; accept either spelling.
    value = headers.get(name)
    if value is None:
        lowered = name.lower()
        for key, candidate in headers.items():
            if key.lower() == lowered:
                return candidate
    return value


def verify(
    secret: str,
    body: bytes,
    headers: Headers,
    now: float | None = None,
    tolerance_s: int = DEFAULT_TOLERANCE_S,
) -> None:
    """Raise SignatureError unless `headers` carry a fresh, valid signature of `body` under `secret`."""
    ts = _header(headers, TIMESTAMP_HEADER)
    sig = _header(headers, SIGNATURE_HEADER)
    if not ts or not sig:
        raise SignatureError("missing_signature", f"{SIGNATURE_HEADER} and {TIMESTAMP_HEADER} are required")
    if not ts.isdigit() or len(ts) > 12:
        raise SignatureError("bad_timestamp", f"{TIMESTAMP_HEADER} must be unix seconds")
    current = time.time() if now is None else now
    if abs(current - int(ts)) > tolerance_s:
        raise SignatureError("stale_signature", f"timestamp is more than {tolerance_s}s away from now")
    scheme, _, digest = sig.partition("=")
    expected = hmac.new(secret.encode("utf-8"), signature_payload(ts, body), hashlib.sha256).hexdigest()
    # compare_digest: a byte-by-byte early exit would leak the right signature through timing.
    if scheme != SIGNATURE_SCHEME or not hmac.compare_digest(digest.encode(), expected.encode()):
        raise SignatureError("bad_signature", "signature does not match the body")


# --------------------------------------------------------------------------- answer framing


def declared_length(values: Iterable[str]) -> int | None:
    """The largest body length an answer's `Content-Length` header(s) announce, or None if none does.

    Read as leniently as any HTTP client frames a body, so that no spelling of a large length gets
    past a size check on the header: every header and every comma-separated item counts (a
    repeated header arrives as `5242880, 5242880`), surrounding spaces and a leading `+` are
    allowed. An item that is no number announces nothing (the body is then counted as it arrives).
    """
    largest: int | None = None
    for value in values:
        for item in value.split(","):
            digits = item.strip().removeprefix("+")
            if digits.isascii() and digits.isdigit():
                largest = max(int(digits), largest or 0)
    return largest


# --------------------------------------------------------------------------- schemas


class BotInfoSchema(Schema):
    """`GET /` answer: who the bot is and which games it plays."""

    name = fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "The bot's name (1-64 characters)."},
    )
    author = fields.String(
        required=True,
        validate=validate.Length(max=128),
        metadata={"description": "Who wrote the bot (at most 128 characters)."},
    )
    version = fields.String(
        required=True,
        validate=validate.Length(max=64),
        metadata={"description": "The bot's version string (at most 64 characters)."},
    )
    games = fields.List(
        fields.String(validate=validate.Length(min=1, max=64)),
        required=True,
        validate=validate.Length(min=1, max=16),
        metadata={
            "description": "Games the bot plays (1-16 game names); it must list every game it is submitted "
            "for."
        },
    )
    protocol = fields.String(
        load_default=PROTOCOL_VERSION,
        dump_default=PROTOCOL_VERSION,
        metadata={"description": "Bot protocol version the bot speaks; the current version when absent."},
    )


class MoveOutcomeSchema(Schema):
    """What happened to the bot's previous move in this match."""

    status = fields.String(
        required=True,
        validate=validate.OneOf([s.value for s in MoveStatus]),
        metadata={
            "description": "`accepted`, or `replaced` when a fault occurred and the harness played a "
            "fallback move."
        },
    )
    fault = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(FAULT_CODES),
        metadata={"description": "The fault code when the move was replaced; null when it was accepted."},
    )


class MatchFieldsSchema(Schema):
    """Fields common to every match message."""

    match_id = fields.String(
        required=True,
        validate=validate.Length(min=1, max=128),
        metadata={"description": "Identifier of the match, the same in every message of that match."},
    )
    game = fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "Name of the game being played (e.g. `tricky-teams`)."},
    )
    seat = fields.Integer(
        required=True,
        validate=validate.Range(min=0, max=15),
        metadata={"description": "The bot's seat at the table, counted from 0."},
    )


class StartRequestSchema(MatchFieldsSchema):
    """`POST /start`: a match begins; the answer is ignored."""

    seats = fields.Integer(
        required=True,
        validate=validate.Range(min=1, max=16),
        metadata={"description": "Number of seats at the table."},
    )
    options = fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": "The game options of the match (empty when none)."},
    )
    deadline_ms = fields.Integer(
        required=True,
        validate=validate.Range(min=1),
        metadata={"description": "Time for each answer to `POST /move`, in milliseconds."},
    )
    time_bank_ms = fields.Integer(
        required=True,
        validate=validate.Range(min=0),
        metadata={
            "description": "Extra time for the match, in milliseconds, used up by answers slower than the "
            "deadline."
        },
    )
    opponents = fields.List(
        fields.String(),
        load_default=list,
        metadata={"description": "Bot ids of the other seats (empty when none are given)."},
    )


class MoveRequestSchema(MatchFieldsSchema):
    """`POST /move`: the bot's seat must decide; answer with a MoveResponse."""

    view = fields.Dict(
        keys=fields.String(),
        required=True,
        metadata={
            "description": "The seat's view of the game, exactly as getGame returns it (the game's wire "
            "shape)."
        },
    )
    legal_moves = fields.List(
        fields.Dict(keys=fields.String()),
        required=True,
        validate=validate.Length(min=1),
        metadata={
            "description": "The moves the seat may make (at least one); the answer must be one of them "
            "verbatim."
        },
    )
    deadline_ms = fields.Integer(
        required=True,
        validate=validate.Range(min=1),
        metadata={"description": "Time for this answer, in milliseconds."},
    )
    time_bank_ms = fields.Integer(
        required=True,
        validate=validate.Range(min=0),
        metadata={
            "description": "What is left of the match's extra time, in milliseconds, used up by answers "
            "slower than the deadline."
        },
    )
    previous = fields.Nested(
        MoveOutcomeSchema,
        load_default=None,
        allow_none=True,
        metadata={
            "description": "What happened to the bot's previous move in this match; null for the first move."
        },
    )


class MoveResponseSchema(Schema):
    """Answer to `POST /move`: one of the legal moves, verbatim."""

    move = fields.Dict(
        keys=fields.String(),
        required=True,
        metadata={"description": "One of the request's `legal_moves`, verbatim (same fields, same values)."},
    )


class EndRequestSchema(MatchFieldsSchema):
    """`POST /end`: the match is over; carries the result (and the final view); the answer is ignored."""

    result = fields.Dict(
        keys=fields.String(),
        required=True,
        metadata={"description": "The match result, e.g. `scores` per seat and `winners` (seats)."},
    )
    view = fields.Dict(
        keys=fields.String(),
        load_default=None,
        allow_none=True,
        metadata={"description": "The final view of the seat; always null in tournament and league matches."},
    )
    faults = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0),
        metadata={"description": "Number of faults the bot made in this match."},
    )


class BotErrorSchema(Schema):
    """Error body a bot built with the SDK returns (e.g. 401 for a bad signature)."""

    code = fields.String(
        required=True, metadata={"description": "Machine-readable error code (e.g. for a bad signature)."}
    )
    message = fields.String(
        required=True, metadata={"description": "Human-readable explanation of the error."}
    )


PROTOCOL_SCHEMAS: dict[str, type[Schema]] = {
    "BotInfo": BotInfoSchema,
    "BotMoveOutcome": MoveOutcomeSchema,
    "BotStartRequest": StartRequestSchema,
    "BotMoveRequest": MoveRequestSchema,
    "BotMoveResponse": MoveResponseSchema,
    "BotEndRequest": EndRequestSchema,
    "BotError": BotErrorSchema,
}


def register_protocol_schemas(spec: Any) -> None:
    """Add the protocol messages to an apispec `APISpec`'s components (for openapi.yaml)."""
    existing = spec.components.schemas if hasattr(spec.components, "schemas") else {}
    for name, schema in PROTOCOL_SCHEMAS.items():
        if name not in existing:
            spec.components.schema(name, schema=schema)
