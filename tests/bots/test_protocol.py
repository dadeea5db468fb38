"""Signing rules of the bot protocol and the message schemas."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from bots.protocol import (
    FAULT_CODES,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    MoveRequestSchema,
    SignatureError,
    sign,
    verify,
)

SECRET = "s3cret-for-tests"


@settings(max_examples=60, deadline=None)
@given(body=st.binary(max_size=2048), secret=st.text(min_size=1, max_size=40))
def test_rule_signed_body_verifies(body: bytes, secret: str) -> None:
    """Property: whatever the body and secret, sign() output passes verify() right away."""
    verify(secret, body, sign(secret, body))


@settings(max_examples=60, deadline=None)
@given(body=st.binary(min_size=1, max_size=512), flip=st.integers(min_value=0, max_value=511))
def test_rule_any_changed_byte_breaks_the_signature(body: bytes, flip: int) -> None:
    """Property: changing any byte of the body makes the signature invalid."""
    headers = sign(SECRET, body)
    index = flip % len(body)
    tampered = body[:index] + bytes([body[index] ^ 0x01]) + body[index + 1 :]
    with pytest.raises(SignatureError) as err:
        verify(SECRET, tampered, headers)
    assert err.value.code == "bad_signature"


NOW = 1_800_000_000


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ({}, "missing_signature"),
        ({TIMESTAMP_HEADER: str(NOW)}, "missing_signature"),
        ({SIGNATURE_HEADER: "sha256=00"}, "missing_signature"),
        ({TIMESTAMP_HEADER: "yesterday", SIGNATURE_HEADER: "sha256=00"}, "bad_timestamp"),
        ({TIMESTAMP_HEADER: str(NOW - 301), SIGNATURE_HEADER: "x"}, "stale_signature"),
        ({TIMESTAMP_HEADER: str(NOW + 301), SIGNATURE_HEADER: "x"}, "stale_signature"),
        ({TIMESTAMP_HEADER: str(NOW), SIGNATURE_HEADER: "sha256=" + "0" * 64}, "bad_signature"),
        ({**sign("other-secret", b"{}", NOW)}, "bad_signature"),
        ({**sign(SECRET, b"{}", NOW - 10), TIMESTAMP_HEADER: str(NOW)}, "bad_signature"),
        (
            {TIMESTAMP_HEADER: str(NOW), SIGNATURE_HEADER: sign(SECRET, b"{}", NOW)[SIGNATURE_HEADER][7:]},
            "bad_signature",
        ),
    ],
    ids=[
        "none",
        "no-signature",
        "no-timestamp",
        "bad-timestamp",
        "too-old",
        "too-new",
        "zeros",
        "wrong-secret",
        "timestamp-swapped",
        "no-scheme",
    ],
)
def test_rule_forged_unsigned_or_stale_requests_are_refused(headers: dict[str, str], code: str) -> None:
    """Rule: missing, malformed, stale (> 300 s) or wrong signatures are each refused with their code."""
    with pytest.raises(SignatureError) as err:
        verify(SECRET, b"{}", headers, now=NOW)
    assert err.value.code == code


def test_rule_header_names_are_case_insensitive() -> None:
    """Rule: HTTP header names are case-insensitive, so lower-cased headers verify too."""
    headers = {k.lower(): v for k, v in sign(SECRET, b"abc", NOW).items()}
    verify(SECRET, b"abc", headers, now=NOW)


def test_rule_fault_codes_are_one_documented_enum() -> None:
    """Rule: the fault codes the harness reports are exactly the documented ones."""
    assert set(FAULT_CODES) == {
        "timeout",
        "connection_error",
        "http_status",
        "response_too_large",
        "malformed_body",
        "illegal_move",
        "forbidden_address",
    }


def test_rule_move_request_schema_requires_legal_moves_and_checks_previous() -> None:
    """Rule: a move request needs at least one legal move; `previous.fault` is a known fault code."""
    base = {
        "match_id": "m",
        "game": "tricky-teams",
        "seat": 0,
        "view": {},
        "deadline_ms": 100,
        "time_bank_ms": 0,
    }
    MoveRequestSchema().load(
        {**base, "legal_moves": [{"type": "play"}], "previous": {"status": "replaced", "fault": "timeout"}}
    )
    with pytest.raises(ValidationError):
        MoveRequestSchema().load({**base, "legal_moves": []})
    with pytest.raises(ValidationError):
        MoveRequestSchema().load({**base, "legal_moves": [{}], "previous": {"status": "ok", "fault": "nope"}})
