"""Errors of the service layer: a machine-readable code, a human message and an HTTP status hint.

The service is plain Python (the match runner calls it without Flask), but every error it
raises already knows which HTTP status it maps to, so the blueprints stay thin.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base of every error the service raises; nothing was written when one is raised."""

    status = 400
    code = "bad_request"

    def __init__(
        self, message: str, *, code: str | None = None, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details or {}

    def to_dict(self) -> dict[str, Any]:
        """The error as the JSON body every error response carries."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = self.details
        return out


class GameNotFound(ServiceError):
    """No game with that id (or it expired)."""

    status = 404
    code = "game_not_found"


class MissingToken(ServiceError):
    """The operation needs a seat token and none was given."""

    status = 401
    code = "missing_token"


class InvalidToken(ServiceError):
    """The token given is not a seat token of this game."""

    status = 403
    code = "invalid_token"


class Conflict(ServiceError):
    """The request clashes with the game's current state (turn, version, phase)."""

    status = 409
    code = "conflict"


class GameSealed(Conflict):
    """A tournament game whose deal may still be in play elsewhere: readable once the tournament ends."""

    code = "game_sealed"


class VersionConflict(Conflict):
    """Another write won the compare-and-set; the caller's view of the game is outdated."""

    code = "version_conflict"


class Gone(ServiceError):
    """The thing was deleted: its record is kept (for history), but it is no longer there to read."""

    status = 410
    code = "gone"


class PreconditionFailed(ServiceError):
    """`If-Match` named a version that is no longer current."""

    status = 412
    code = "stale_version"


class Unprocessable(ServiceError):
    """Well-formed JSON that the game rejects (bad options, deal, malformed or illegal move)."""

    status = 422
    code = "unprocessable"


class Busy(ServiceError):
    """Over a capacity limit (a subclass says which): retry after `retry_after` seconds (`Retry-After`)."""

    status = 503

    def __init__(
        self,
        message: str,
        *,
        retry_after: int,
        code: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message, code=code, details={**(details or {}), "retry_after": retry_after})
        self.retry_after = retry_after


class TooManyStreams(Busy):
    """The client address has as many event streams open as it may (429)."""

    status = 429
    code = "too_many_streams"


class StreamsFull(Busy):
    """This API process serves as many event streams as it may (503): another process may have room."""

    code = "streams_full"
