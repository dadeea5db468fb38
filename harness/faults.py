"""Why a bot's calls fail, in plain words: fault reasons, the advice for each, and the flag a bot
gets in a tournament's standings when most of its calls fault (issue 18).

A *reason* is a fault code (`bots.protocol.FaultCode`), refined for an HTTP error by the status and
the error code the bot put in its JSON body (``http_status:401:bad_signature``), so the advice can
say "every request answered 401 bad_signature: is the secret right?". Reasons are counted per seat
in a match result (``reasons``) and per bot in the standings rows; this module is the one place that
turns them into words (the standings, the match detail and the bot pages use it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from bots.protocol import FaultCode

# A bot counts as flagged in a tournament when more than this share of its calls faulted.
FLAG_SHARE = 0.5
# Distinct reasons kept per seat of a result and per standings row (the rest count under their code).
MAX_REASONS = 8
_BODY_CODE = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")

_WHAT: dict[str, tuple[str, str]] = {
    FaultCode.TIMEOUT: ("timed out", "is the bot slow, blocked, or answering after its deadline_ms?"),
    FaultCode.CONNECTION_ERROR: ("could not connect", "is the bot running and reachable at its URL?"),
    FaultCode.HTTP_STATUS: ("answered an HTTP error", "the bot's answer body is in the match's decisions"),
    FaultCode.RESPONSE_TOO_LARGE: ("answered a body over the size limit", 'answer only {"move": ...}'),
    FaultCode.MALFORMED_BODY: (
        'answered something that is not {"move": {...}} JSON',
        'answer Content-Type application/json with the move under "move"',
    ),
    FaultCode.ILLEGAL_MOVE: ("answered a move that is not legal", "answer one of legal_moves, unchanged"),
    FaultCode.FORBIDDEN_ADDRESS: (
        "went to an address the platform refuses",
        "does the bot's host name resolve to a public address?",
    ),
}
_SIGNATURE_CODES = ("bad_signature", "missing_signature", "stale_signature", "bad_timestamp", "no_secret")


def body_code(body: str | None) -> str | None:
    """The error code a bot's JSON error body names (``code`` or ``error``), if it looks like one."""
    if not body:
        return None
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    if not isinstance(parsed, dict):
        return None
    for key in ("code", "error"):
        value = parsed.get(key)
        if isinstance(value, str) and _BODY_CODE.match(value):
            return value
    return None


def fault_reason(code: str, status: int | None = None, body: str | None = None) -> str:
    """The reason of one fault: its code, refined for an HTTP error by status and body code."""
    if code != FaultCode.HTTP_STATUS or status is None:
        return code
    named = body_code(body)
    return f"{code}:{status}:{named}" if named else f"{code}:{status}"


def reason_code(reason: str) -> str:
    """The fault code a reason refines."""
    return reason.split(":", 1)[0]


def add_reason(counts: dict[str, int], reason: str, n: int = 1) -> None:
    """Count `n` faults of `reason`; past `MAX_REASONS` distinct reasons, under its bare code."""
    if reason not in counts and len(counts) >= MAX_REASONS:
        reason = reason_code(reason)
    counts[reason] = counts.get(reason, 0) + n


def describe(reason: str) -> tuple[str, str]:
    """(what the requests did, the advice) for a reason, in plain words."""
    parts = reason.split(":")
    code = parts[0]
    if code == FaultCode.HTTP_STATUS and len(parts) > 1:
        status = parts[1]
        named = parts[2] if len(parts) > 2 else ""
        what = f"answered {status} {named}".rstrip()
        if named in _SIGNATURE_CODES or status == "401":
            return what, "is the secret right?"
        if status.startswith("5"):
            return what, "the bot failed on the request: its answer body is in the match's decisions"
        return what, "the bot refused the request: its answer body is in the match's decisions"
    return _WHAT.get(code, (f"faulted ({code})", "see the match's decisions"))


def explain_counts(counts: Mapping[str, int]) -> list[str]:
    """Faults counted by reason (or by bare code), most frequent first, each in plain words with its
    advice: ``["96 timed out: is the bot slow, blocked, or answering after its deadline_ms?"]``."""
    lines = []
    for reason, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if n <= 0:
            continue
        what, advice = describe(reason)
        lines.append(f"{n} {what}: {advice}")
    return lines


def fault_flag(calls: int, faults: int, reasons: Mapping[str, int]) -> dict[str, Any] | None:
    """The flag of a bot whose calls mostly faulted (over `FLAG_SHARE`), or None.

    ``{"reason": plain words, "fault": its dominant reason, "share": faults / calls}``.
    """
    if calls <= 0 or faults <= FLAG_SHARE * calls:
        return None
    dominant, count = max(reasons.items(), key=lambda item: (item[1], item[0])) if reasons else ("", 0)
    what, advice = describe(dominant) if dominant else ("faulted", "see the match's decisions")
    quantity = "every request" if count >= calls else f"{count} of {calls} requests"
    return {"reason": f"{quantity} {what}: {advice}", "fault": dominant, "share": faults / calls}
