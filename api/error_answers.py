"""How every exception raised while serving a request becomes a JSON error answer.

The app's one error handler (`error_response`, registered for every exception by `create_app`)
serves every route, postMove included: service errors as they say, Redis outages 503, HTTP errors
(routing, size, validation) as their status with the standard body, anything else a logged 500.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Response, jsonify
from werkzeug.exceptions import HTTPException

from core.errors import Busy, ServiceError
from core.redis_factory import is_unavailable

log = logging.getLogger("trickarena.api")

# Every `code` an error answer can carry, with what it means: openapi.yaml's `ErrorCode` enum is
# built from this list, and a test fails when the code raises a code that is not in it.
ERROR_CODES: dict[str, str] = {
    # 400, 401, 403, 404, 405: the request itself
    "bad_request": "The request is malformed (HTTP 400).",
    "http_error": "Any other HTTP-level refusal (the status says which).",
    "missing_token": "401: the operation needs `Authorization: Bearer <token>` and none was sent.",
    "invalid_authorization": "401: the Authorization header is not `Bearer <token>`.",
    "invalid_token": "403: the token is not a seat token of this game.",
    "not_owner": "403: not the owner key of this bot, tournament or league.",
    "entrant_not_authorized": (
        "403: an entrant is neither the caller's (by owner key) nor open to challenges."
    ),
    "not_found": "404: no such path, or a malformed id in it.",
    "game_not_found": "404: no such game (or it expired).",
    "wrong_game": (
        "404: the game exists but is not of the game named in the path (`details.game` is its game)."
    ),
    "bot_not_found": "404: no such bot.",
    "tournament_not_found": "404: no such tournament.",
    "league_not_found": "404: no such league.",
    "match_not_found": "404: the tournament has no match of that index (`details.matches` is how many).",
    "seat_not_found": "404: the game has no seat of that number (`details.seats` is how many).",
    "not_a_match_game": "404: the game is no tournament match's: no bot sits in it (use its seat token).",
    "method_not_allowed": "405: the path does not take this method (`Allow` lists those it takes).",
    # 409: the state of what the request is about
    "conflict": "409: the request clashes with the current state.",
    "not_your_turn": "409: the seat is not to move.",
    "game_over": "409: the game is over.",
    "version_conflict": "409: other writes kept winning the race; reload and retry.",
    "seat_moved_meanwhile": (
        "409: the seat itself moved since this request read the game (`details.version`)."
    ),
    "duplicate_move": (
        "409: the same move as the seat's own last one, just now, without If-Match (`details.version`)."
    ),
    "game_sealed": "409: a tournament game, unreadable without a seat token until the tournament ends.",
    "waiting_for_players": "409: seats are still open (`details.open_seats`); nobody moves yet.",
    "seat_taken": "409: the seat asked for is not open (taken, or beyond this game's table).",
    "game_not_over": "409: the replay exists once the game is over.",
    "duplicate_name": "409: a bot of that name exists.",
    "url_taken": (
        "409: another owner's active bot uses that URL (`details.url`, normalised); send the owner key "
        "of a bot there to share it."
    ),
    "bot_deleted": "409 (410 from getBot): the bot was deleted.",
    "gone": "410: it was deleted.",
    "tournament_exists": "409: a tournament with that id exists.",
    "tournament_over": "409: the tournament has ended already.",
    "league_deleted": "409 (410 from getLeague and getLeagueStandings): the league was deleted.",
    "league_full": "409: the league has as many members as it takes (`details.max`).",
    "not_a_member": "409: the bot is not a member of the league.",
    "quota_exceeded": (
        "409: as many live bots, leagues or tournaments as a cap allows, per owner key, per client "
        "address or in all (`details.cap`: its setting, `details.max`); nothing was created."
    ),
    "league_round": (
        "409: a league round has no owner key of its own: its league's key (`details.league_id`) "
        "owns it, rotate that one."
    ),
    # 412, 413
    "stale_version": "412: If-Match names a version that is no longer current (`details.version`).",
    "body_too_large": "413: the request body is larger than the server accepts.",
    # 422: the request's content
    "unprocessable": "422: the request's content is refused.",
    "invalid_json": "422: the body is not valid JSON.",
    "bad_replay": "422: a replay file uploaded to the web viewer that is not one, or does not replay.",
    "json_too_deep": "422: the JSON nests deeper than the server reads (`details.max_depth`).",
    "number_out_of_range": (
        "422: an integer beyond 64 bits or a number that is not finite (`details.min`, `details.max`)."
    ),
    "invalid_text": (
        "422: a string holds a lone UTF-16 surrogate (a `\\uD800` escape alone): not text "
        "(`details.position`: where in the string)."
    ),
    "validation_error": "422: invalid fields (`details` holds the field errors by location).",
    "game_error": "422: the game refused the request.",
    "malformed_move": (
        "422: not a move of the operation's request schema (`details.fields`); checked before If-Match."
    ),
    "illegal_move": "422: a well-formed move the rules do not allow now (`details.legal_moves`).",
    "invalid_options": "422: options the game does not accept (`details.option` names one).",
    "invalid_deal": "422: a deal the game does not accept.",
    "entrants_unreachable": (
        "422: createTournament: entrants did not answer `GET /` (`details.unreachable`: each bot, its "
        "fault code and what happened)."
    ),
    "invalid_seats": "422: a seat count or open seats the game does not take (`details.seat_counts`).",
    "invalid_seat": "422: no such seat in this game (a move's seat; joinGame answers 409 `seat_taken`).",
    "unknown_game": "422: the server plays no game of that name.",
    "bot_check_failed": "422: the bot's GET / did not answer as the protocol asks.",
    "bot_unreachable": (
        "422: no bot answered GET / at the URL with a valid bot info in time (nothing of what the"
        " other end said is echoed; `trickarena bot check URL` tells its author why)."
    ),
    "invalid_url": "422: not an http(s) URL a bot can be reached at (the message says why).",
    "forbidden_address": "422: the URL's host resolves to an address the outbound policy refuses.",
    "game_not_played": "422: the bot does not list a game it claims (`details.claimed`, `details.plays`).",
    "bot_game_mismatch": "422: a bot does not play the tournament's game (`details.bot_id`).",
    "invalid_tournament": "422: the tournament asked for cannot be run.",
    "practice_league": "422: a league round never has a chosen seed.",
    "duplicate_entrants": "422: entrants must be distinct bots.",
    "schedule_too_large": "422: the schedule would have more matches than allowed.",
    "invalid_schedule": "422: a league schedule that is not exactly one valid interval or cron expression.",
    "invalid_status": "422: a status that cannot be set.",
    "too_few_members": "422: too few members to play a round.",
    # challenges (issue 28)
    "challenge_not_found": "404: no such challenge.",
    "challenges_off": "403: the bot's owner turned challenges off (the bot is not open); its owner key "
    "in `owner_keys` still enters it.",
    # 429, 5xx
    "rate_limited": "429: over the requests allowed (`Retry-After`; `details.limit`, `details.per`).",
    "too_many_streams": "429: the client address has as many event streams open as it may "
    "(`Retry-After`; `details.limit`).",
    "too_many_challenges": "429: the client address plays as many challenges at once as it may "
    "(`Retry-After`; `details.limit`).",
    "bot_busy": "429: the bot plays as many challenges at once as it may (`Retry-After`; `details.limit`).",
    "storage_unavailable": "503: the game store is unreachable (`Retry-After: 1`).",
    "streams_full": "503: this API process serves as many event streams as it may (`Retry-After`; "
    "`details.limit`).",
    "internal_error": "500: a bug, logged.",
}


def _code_name(error: HTTPException) -> str:
    name = (error.name or "error").lower().replace(" ", "_").replace("'", "")
    return name if name in ERROR_CODES else "http_error"


def http_error_response(error: HTTPException) -> Response:
    """The JSON error response for a werkzeug/webargs HTTP exception, keeping its headers (e.g. Allow)."""
    ready = getattr(error, "response", None)
    if isinstance(ready, Response):
        return ready  # built with the error body already (a rate limit's 429: api.limits.rate_limited)
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    body: dict[str, Any] = {"code": _code_name(error), "message": error.description or error.name}
    messages = data.get("messages")
    if messages is not None:
        # webargs: invalid JSON arrives as a 400, field errors as a 422; both are 422 here.
        status = 422
        flat = (
            {loc: errs for loc, errs in messages.items()} if isinstance(messages, dict) else {"_": messages}
        )
        json_errors = flat.get("json")
        if isinstance(json_errors, list) and any("Invalid JSON" in str(m) for m in json_errors):
            body = {"code": "invalid_json", "message": "the request body is not valid JSON"}
        else:
            body = {"code": "validation_error", "message": "the request has invalid fields", "details": flat}
    elif status == 413:
        body = {"code": "body_too_large", "message": "the request body is larger than the server accepts"}
    response = jsonify(body)
    response.status_code = status
    if status != 422:
        for name, value in error.get_headers():
            if name.lower() != "content-type":
                response.headers[name] = value
    for name, value in (data.get("headers") or {}).items():
        response.headers[name] = value
    return response


ErrorParts = tuple[int, dict[str, Any], dict[str, str]]


def service_error_parts(error: ServiceError) -> ErrorParts:
    """Status, JSON body and extra headers of a service error's response."""
    headers = {"WWW-Authenticate": 'Bearer realm="trick-arena"'} if error.status == 401 else {}
    if isinstance(error, Busy):
        headers["Retry-After"] = str(error.retry_after)
    return error.status, error.to_dict(), headers


def storage_unavailable_parts(error: Exception) -> ErrorParts:
    """The 503 answered while Redis is unreachable (the client should retry)."""
    log.warning("redis unavailable: %r", error)
    body = {"code": "storage_unavailable", "message": "the game store is unreachable; retry"}
    return 503, body, {"Retry-After": "1"}


def unexpected_error_parts(error: Exception) -> ErrorParts:
    """The 500 of a bug: logged with its traceback, answered without details."""
    log.exception("unhandled error", exc_info=error)
    return 500, {"code": "internal_error", "message": "an unexpected error occurred; it has been logged"}, {}


def error_parts(error: Exception) -> ErrorParts:
    """Status, JSON body and extra headers answering an exception raised while serving a request.

    The one place that maps exceptions (other than HTTP errors) to answers: service errors as
    they say, Redis outages 503, anything else a logged 500.
    """
    if isinstance(error, ServiceError):
        return service_error_parts(error)
    if is_unavailable(error):  # unreachable, hung, failing over, refusing writes: never a 500
        return storage_unavailable_parts(error)
    return unexpected_error_parts(error)


def _json_response(parts: ErrorParts) -> Response:
    status, body, headers = parts
    response = jsonify(body)
    response.status_code = status
    for name, value in headers.items():
        response.headers[name] = value
    return response


def error_response(error: Exception) -> Response:
    """The app's error handler: the JSON answer of any exception raised while serving a request."""
    if isinstance(error, HTTPException):
        return http_error_response(error)
    return _json_response(error_parts(error))
