"""The signature test vector of docs/bot-protocol.md is the platform's own signing code's answer,
and the Node starter's self-test checks the very same values."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bots.protocol import SIGNATURE_HEADER, TIMESTAMP_HEADER, SignatureError, sign, verify

ROOT = Path(__file__).resolve().parents[2]


def doc_vector() -> dict[str, str]:
    """secret, timestamp, body and signature as the protocol doc states them."""
    text = (ROOT / "docs" / "bot-protocol.md").read_text()
    fields = dict(re.findall(r"^\s*(secret|timestamp|body|signature):\s+(\S+)\s*$", text, re.MULTILINE))
    assert set(fields) == {"secret", "timestamp", "body", "signature"}, fields
    return fields


def test_the_docs_vector_is_what_the_platform_signs() -> None:
    """Rule: bots.protocol.sign gives the doc's signature, and verify accepts it at that time."""
    vector = doc_vector()
    body = vector["body"].encode()
    headers = sign(vector["secret"], body, int(vector["timestamp"]))
    assert headers == {TIMESTAMP_HEADER: vector["timestamp"], SIGNATURE_HEADER: vector["signature"]}
    verify(vector["secret"], body, headers, now=int(vector["timestamp"]))
    with pytest.raises(SignatureError) as refused:
        verify(vector["secret"], body + b"\n", headers, now=int(vector["timestamp"]))
    assert refused.value.code == "bad_signature"


def test_the_node_starter_self_tests_the_same_vector() -> None:
    """Rule: bot.js's VECTOR holds the doc's values (its --self-test runs in test_starter_node)."""
    source = (ROOT / "bots" / "starters" / "node" / "bot.js").read_text()
    block = source[source.index("const VECTOR = {") :].split("};", 1)[0]
    found = {key: value for key, _quote, value in re.findall(r"(\w+): ([\"'])(.+)\2,$", block, re.MULTILINE)}
    assert found == doc_vector()
