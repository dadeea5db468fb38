"""`trickarena bot check` / `harness.botcheck`: real bots over loopback HTTP, each wrong in one way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from bots.bundled import make_bot
from bots.sdk import SECRET_ENV, SECRET_FILE_ENV, BotServer
from core.errors import ServiceError
from games.registry import GAMES
from harness.botcheck import (
    ANY_ADDRESS,
    ERROR,
    OK,
    WARNING,
    CheckReport,
    Finding,
    check_bot,
    check_registered,
    decision_samples,
)
from harness.runner import HarnessContext

from .bot_servers import FaultyBotServer, refused_url, submit
from .conftest import ROOT

SECRET = "check-secret"
EVERY_PHASE = {
    "tricky-teams": {"choose-leader", "play", "take-loot"},
    "trick-n-trouble": {"pass-decision", "pass-card", "switch-task", "choose-task-level", "play"},
}
# A decision type is finer than a phase where some moves carry an optional field: a Hypnotist's wish.
EVERY_DECISION = {**EVERY_PHASE, "tricky-teams": EVERY_PHASE["tricky-teams"] | {"play+wish"}}


@pytest.fixture(scope="module")
def heuristic() -> Iterator[str]:
    """The bundled heuristic bot with its secret: a bot that does everything right."""
    with BotServer(make_bot("heuristic"), SECRET) as server:
        yield server.url


def _moves(report: CheckReport) -> list[Finding]:
    """The findings of the /move calls (not the forged one)."""
    return [f for f in report.findings if f.step.startswith("POST /move (") and "signature" not in f.step]


def _faulty(behaviour: str, secret: str | None = SECRET, delay_s: float = 0.3) -> FaultyBotServer:
    return FaultyBotServer(behaviour, secret, delay_s).start()


def test_samples_reach_every_decision_type_of_every_game() -> None:
    """Rule: the check asks for a move at every decision type (the view's phase, and a play with a
    Hypnotist's wish apart from a plain one) of both games."""
    for game, phases in EVERY_PHASE.items():
        samples = decision_samples(game)
        assert {s.phase for s in samples} == phases
        assert {s.decision for s in samples} == EVERY_DECISION[game]
        for sample in samples:
            engine = GAMES[game]
            assert sample.view["phase"] == sample.phase and sample.legal_moves
            assert sample.seats in engine.seat_counts


def test_a_correct_bot_passes_with_a_move_per_decision_type(heuristic: str) -> None:
    """Rule: a bot that answers as the runner wants passes: no error, no warning, exit 0."""
    report = check_bot(heuristic, SECRET, policy=ANY_ADDRESS)
    assert report.ok, report.lines()
    assert all(f.severity == OK for f in report.findings)
    moves = [f.step for f in _moves(report)]
    for game, phases in EVERY_PHASE.items():
        assert {p for p in phases if any(f"({game}, {p}," in step for step in moves)} == phases
    assert any("refused with 401" in f.message for f in report.findings)  # a forged request
    assert all(len(line) <= 80 for line in report.lines(80))
    assert report.to_dict()["info"]["name"] == "heuristic"


def test_a_wrong_secret_is_named_in_plain_words(heuristic: str) -> None:
    """Rule: a bot refusing our signature: '401 bad_signature: is the secret right?', per game."""
    report = check_bot(heuristic, "not-the-secret", policy=ANY_ADDRESS)
    assert not report.ok
    errors = [f for f in report.findings if f.severity == ERROR]
    assert [f.step for f in errors] == ["POST /start (tricky-teams)", "POST /start (trick-n-trouble)"]
    for finding in errors:
        assert finding.message.startswith("answered 401 bad_signature: is the secret right?")
        assert finding.status == 401 and finding.fault == "http_status"


def test_without_a_secret_only_get_is_checked(heuristic: str) -> None:
    """Rule: with no secret the check says so instead of sending unsigned requests."""
    report = check_bot(heuristic, None, policy=ANY_ADDRESS)
    assert [f.severity for f in report.findings] == [OK, ERROR]
    assert "no secret" in report.findings[-1].message


def test_nothing_listening_is_a_connection_error() -> None:
    """Rule: an unreachable URL: 'could not connect ...: is the bot running?'."""
    url = refused_url()
    report = check_bot(url, SECRET, policy=ANY_ADDRESS)
    assert [f.fault for f in report.findings] == ["connection_error"]
    assert f"is the bot running and listening at {url}?" in report.findings[0].message


@pytest.mark.parametrize(
    ("behaviour", "fault", "words"),
    [
        ("illegal", "illegal_move", 'answered {"move": {"type": "resign"}}, which is not one of the legal'),
        ("garbage", "malformed_body", "the answer is not JSON"),
        ("http500", "http_status", "answered 500"),
    ],
)
def test_a_bad_answer_is_the_runners_fault_in_plain_words(behaviour: str, fault: str, words: str) -> None:
    """Rule: each /move answer is judged as the runner judges it (same fault code), and explained."""
    server = _faulty(behaviour)
    try:
        report = check_bot(server.url, SECRET, policy=ANY_ADDRESS)
    finally:
        server.stop()
    moves = _moves(report)
    assert moves and all(f.severity == ERROR and f.fault == fault for f in moves)
    assert words in moves[0].message
    assert not report.ok


def test_slow_answers_warn_and_a_hang_is_a_timeout() -> None:
    """Rule: over the deadline but within the bank (over a whole game) is a warning; past both, a
    timeout error."""
    slow = _faulty("slow", delay_s=0.15)
    try:
        # ~60 decisions a seat in a Tricky Teams game, ~50 ms over each: well within 10 s of bank.
        report = check_bot(slow.url, SECRET, policy=ANY_ADDRESS, deadline_ms=100, time_bank_ms=10000)
    finally:
        slow.stop()
    moves = _moves(report)
    assert report.ok and moves and all(f.severity == WARNING for f in moves)
    assert "over the 100 ms deadline" in moves[0].message
    hang = _faulty("hang")
    try:
        report = check_bot(hang.url, SECRET, policy=ANY_ADDRESS, deadline_ms=100, time_bank_ms=100)
    finally:
        hang.stop()
    moves = _moves(report)
    assert moves and all(f.fault == "timeout" for f in moves)
    assert "no complete answer within 200 ms" in moves[0].message


def test_a_bot_that_checks_no_signature_is_warned() -> None:
    """Rule: a bot that accepts a request signed with another secret gets a warning."""
    server = _faulty("none", secret=None)
    try:
        report = check_bot(server.url, SECRET, policy=ANY_ADDRESS)
    finally:
        server.stop()
    forged = [f for f in report.findings if f.step == "POST /move (wrong signature)"]
    assert [f.severity for f in forged] == [WARNING]
    assert report.ok


def test_check_registered_uses_the_stored_secret_and_needs_the_owner_key(ctx: HarnessContext) -> None:
    """Rule: the API's check of a registered bot signs with its stored secret, for its owner only."""
    with BotServer(make_bot("random"), None) as unsigned:
        bot_id, owner_key, secret = submit(ctx.bots, "checked", unsigned.url)
    with BotServer(make_bot("random"), secret) as server:
        ctx.bots.update(bot_id, owner_key, url=server.url)
        report = check_registered(ctx, bot_id, owner_key)
        assert report.ok, report.lines()
        with pytest.raises(ServiceError) as refused:
            check_registered(ctx, bot_id, "another key")
        assert refused.value.status == 403


def test_the_command_prints_the_report_and_exits_non_zero_on_problems(heuristic: str) -> None:
    """Rule: `trickarena bot check URL` reads the secret from the environment; exit 1 on problems."""
    env = {k: v for k, v in os.environ.items() if k not in (SECRET_ENV, SECRET_FILE_ENV)}

    def run(secret: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "harness.cli", "bot", "check", heuristic, *args],
            cwd=ROOT,
            env={**env, SECRET_ENV: secret},
            capture_output=True,
            text=True,
            timeout=120,
        )

    good = run(SECRET)
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.splitlines()[-1].startswith("all good")
    assert all(len(line) <= 80 for line in good.stdout.splitlines())
    bad = run("wrong", "--json")
    assert bad.returncode == 1
    assert json.loads(bad.stdout)["errors"] == 2
