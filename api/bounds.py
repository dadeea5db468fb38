"""Bounded input: every request body is checked before any view parses it (one `before_request`).

Four limits, the same for every route (postMove included), each a 422 that changes nothing:

- JSON nested deeper than `MAX_JSON_DEPTH` (32) levels: `json_too_deep`. (Python's JSON parsers
  recurse; a body of 1,000 brackets used to be a RecursionError, a 500, on every JSON endpoint.)
- A number beyond 64 bits: an integer outside [-2**63, 2**63 - 1], or a number that is not finite
  (`NaN`, `Infinity`, `1e400`): `number_out_of_range`. (Redis and orjson store 64-bit integers; a
  larger one was a 500 when the game was stored.)
- A game option that is an integer where the game's options schema sets no `maximum` (or
  `minimum`) may not exceed `MAX_OPTION_INT` (2**53 - 1, the largest integer every JSON client
  reads exactly) in size: `invalid_options`. This applies to any body that names a known `game`
  and gives `options` (createGame, createTournament, createLeague), whatever the game.
- A string (a key or a value) that is not text: a `\\uD800`-style escape that leaves a lone UTF-16
  surrogate, which no UTF-8 store can hold: `invalid_text`. (A bot URL with one reached Redis's
  encoder and was a 500.) A valid surrogate pair is one character and is accepted.

Cheap on the hot path: a body is parsed here only when it could break a limit (more than 32
brackets, a run of 19 digits, `NaN`/`Infinity`, a three-digit exponent, a `\\uD8xx`-`\\uDFxx`
escape, or an `"options"` key);
otherwise the check is two byte counts and one regular-expression scan. The views still parse the
body themselves, as before; a body that is not JSON at all is left to them (`invalid_json`).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from flask import Flask, request

from core.errors import ServiceError
from games.registry import GAMES

MAX_JSON_DEPTH = 32
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_OPTION_INT = 2**53 - 1
# Could hold a number beyond the limits: 19 digits in a row, a non-finite literal, a 3-digit exponent.
_SUSPECT_NUMBER = re.compile(rb"[0-9]{19}|NaN|Infinity|[eE][+-]?[0-9]{3}")
# Could hold a lone surrogate: a JSON escape of a UTF-16 surrogate (raw surrogate bytes are not UTF-8,
# so they never parse at all).
_SUSPECT_SURROGATE = re.compile(rb"\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}")


class JsonTooDeep(ServiceError):
    """The body nests arrays and objects deeper than the server accepts."""

    status = 422
    code = "json_too_deep"


class NumberOutOfRange(ServiceError):
    """The body holds an integer beyond 64 bits or a number that is not finite."""

    status = 422
    code = "number_out_of_range"


class OptionOutOfRange(ServiceError):
    """A game option is an integer beyond the platform's bound for options without a maximum."""

    status = 422
    code = "invalid_options"


class NotText(ServiceError):
    """The body holds a string with a lone UTF-16 surrogate: not text any store can encode."""

    status = 422
    code = "invalid_text"


class _Refused(Exception):
    """Raised from inside the JSON parser's hooks (a number too large, a non-finite constant)."""


def _bounded_int(text: str) -> int:
    # Checked on the text first: int() of a huge digit string is slow (and refused past 4,300 digits).
    if len(text.lstrip("-")) > 19:
        raise _Refused(text)
    value = int(text)
    if not INT64_MIN <= value <= INT64_MAX:
        raise _Refused(text)
    return value


def _refuse_constant(text: str) -> float:
    raise _Refused(text)


def _out_of_range(text: str) -> NumberOutOfRange:
    shown = text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"
    return NumberOutOfRange(
        f"the number {shown} is out of range: integers must fit in 64 bits "
        f"({INT64_MIN}..{INT64_MAX}) and numbers must be finite",
        details={"min": INT64_MIN, "max": INT64_MAX},
    )


def parse_bounded(body: bytes) -> Any:
    """The body's JSON value if it keeps every limit; raises JsonTooDeep, NumberOutOfRange or
    NotText; ValueError when it is not JSON at all."""
    try:
        value = json.loads(body, parse_int=_bounded_int, parse_constant=_refuse_constant)
    except RecursionError:
        raise _too_deep() from None
    except _Refused as exc:
        raise _out_of_range(str(exc)) from None
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise _too_deep()
            if isinstance(item, dict):
                for key in item:
                    _check_text(key)
            children = item.values() if isinstance(item, dict) else item
            stack.extend(
                (child, depth + 1) for child in children if isinstance(child, dict | list | float | str)
            )
        elif isinstance(item, float) and not math.isfinite(item):
            raise _out_of_range(repr(item))
        elif isinstance(item, str):
            _check_text(item)
    return value


def _check_text(text: str) -> None:
    """Refuse a string holding a lone surrogate (it has no UTF-8 form)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise NotText(
            f"a string holds a lone UTF-16 surrogate ({text[exc.start]!r} at character {exc.start}): "
            "not text; send valid UTF-8",
            details={"position": exc.start},
        ) from None


def _too_deep() -> JsonTooDeep:
    return JsonTooDeep(
        f"the JSON body nests arrays and objects more than {MAX_JSON_DEPTH} levels deep",
        details={"max_depth": MAX_JSON_DEPTH},
    )


def check_options(game: str, options: dict[str, Any]) -> None:
    """Refuse an integer option beyond `MAX_OPTION_INT` where the game's schema sets no bound."""
    _check_value(GAMES[game].options_schema(), options, "options")


def _check_value(schema: Any, value: Any, where: str) -> None:
    if not isinstance(schema, dict):
        return
    for key in ("oneOf", "anyOf", "allOf"):
        for alternative in schema.get(key) or ():
            _check_value(alternative, value, where)
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        too_high = value > MAX_OPTION_INT and "maximum" not in schema
        too_low = value < -MAX_OPTION_INT and "minimum" not in schema
        if _allows_integers(schema) and (too_high or too_low):
            raise OptionOutOfRange(
                f"{where}: {value} is beyond {MAX_OPTION_INT} in size, the largest option value this "
                "server accepts where the game sets no bound",
                details={"option": where, "max": MAX_OPTION_INT},
            )
    elif isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for name, item in value.items():
            _check_value(properties.get(name, extra), item, f"{where}.{name}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_value(schema.get("items"), item, f"{where}[{index}]")


def _allows_integers(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind in ("integer", "number") or (
        isinstance(kind, list) and bool({"integer", "number"} & set(kind))
    )


def check_body() -> None:
    """The `before_request` hook: refuse a body that breaks a limit, before any view reads it."""
    if request.content_length == 0:
        return
    body = request.get_data(cache=True)  # the view gets the same bytes (413 above MAX_CONTENT_LENGTH)
    if not body:
        return
    has_options = b'"options"' in body
    if not (
        has_options
        or body.count(b"[") + body.count(b"{") > MAX_JSON_DEPTH
        or _SUSPECT_NUMBER.search(body)
        or _SUSPECT_SURROGATE.search(body)
    ):
        return
    try:
        value = parse_bounded(body)
    except ValueError:
        return  # not JSON: the view answers invalid_json
    if has_options and isinstance(value, dict):
        game, options = value.get("game"), value.get("options")
        if isinstance(game, str) and game in GAMES and isinstance(options, dict):
            check_options(game, options)


def init_app(app: Flask) -> None:
    """Check every request's body (registered by the app factory, for every route)."""
    app.before_request(check_body)
