"""One time policy (`core.timing`) for `trickarena bot check`, `trickarena play` and the match runner:
real HTTP bots on loopback that sleep before every move, the CLI through its entry point, a real
match through `harness.runner.run_match`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bots.sdk import SECRET_ENV, SECRET_FILE_ENV
from core.timing import TimePolicy
from harness.runner import HarnessContext, run_match
from harness.tournaments import create_tournament

from .bot_servers import FaultyBotServer, random_bots, submit_faulty
from .conftest import ROOT

SECRET = "time-policy-secret"
GAME = "trick-n-trouble"


def trickarena(*args: str, secret: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The `trickarena` console script (pyproject's entry point) with the bot's secret in the env."""
    env = {k: v for k, v in os.environ.items() if k not in (SECRET_ENV, SECRET_FILE_ENV)}
    env.update({SECRET_ENV: secret, "PYTHONPATH": str(ROOT)})
    script = Path(sys.executable).parent / "trickarena"
    assert script.exists(), f"the entry point {script} is not installed (make .venv/.installed)"
    return subprocess.run(
        [str(script), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


@contextmanager
def sleepy_bot(delay_s: float, secret: str = SECRET) -> Iterator[FaultyBotServer]:
    """A bot that answers every /move with a legal move after `delay_s` seconds."""
    server = FaultyBotServer("slow", secret, delay_s=delay_s).start()
    try:
        yield server
    finally:
        server.stop()


def test_the_policy_drains_a_bank_over_a_match_and_then_times_out() -> None:
    """Rule: a /move is bounded by the deadline plus what is left of the bank; time past the
    deadline comes off the bank; once it is empty, every slow answer is a timeout."""
    policy = TimePolicy(deadline_ms=1000, time_bank_ms=5000)
    assert policy.move_timeout_s(5000) == 6.0 and policy.charge(5000, 5.0) == 1000
    assert policy.first_timeout([0.5] * 100) is None
    # A bot taking 5 s a move: the first answer spends 4 s of the bank, the second times out.
    assert policy.first_timeout([5.0] * 16) == (1, 1000)
    # 1.1 s a move: 100 ms from the bank each time, so the 51st answer is the first timeout.
    assert policy.first_timeout([1.1] * 60) == (50, 0)
    assert policy.notify_timeout_s() == 1.0 and TimePolicy(3000, 0).notify_timeout_s() == 2.0
    assert policy.is_slow(0.6) and not policy.is_slow(0.4)


def test_a_bot_taking_5_s_a_move_fails_bot_check_quickly(tmp_path: Path) -> None:
    """Rule: `trickarena bot check` fails (exit 1) a bot that would time out in a match -- 5 s a move
    spends the bank on the first answer and times out from the second -- names the timeout in
    plain words, and stops asking a decision type once it timed out (seconds, not minutes)."""
    with sleepy_bot(5.0) as bot:
        started = time.monotonic()
        run = trickarena("bot", "check", bot.url, secret=SECRET, cwd=tmp_path, timeout=150)
        took = time.monotonic() - started
    out = " ".join(run.stdout.split())  # the report's lines are wrapped at 80 columns
    assert run.returncode == 1, out + run.stderr
    assert "timed out: no complete answer within" in out
    assert "a timeout fault in a match" in out and "Is the bot slow" in out
    assert "the bot is not ready" in out
    assert "not asked (" in out  # the samples skipped after a decision type timed out are named
    # Per game: one 5 s answer (the bank), one timeout at 2 s, then one 1 s timeout per other type.
    assert took < 60, f"bot check took {took:.0f} s"


def _three_verdicts(ctx: HarnessContext, delay_s: float, tmp_path: Path, tag: str) -> tuple[int, int, int]:
    """(bot check's exit code, `play`'s timeouts, a harness match's timeouts) for a bot that sleeps
    `delay_s` a move, all three with a 300 ms deadline and a 300 ms bank."""
    limits = ("--deadline-ms", "300", "--time-bank-ms", "300")
    server = FaultyBotServer("slow", None, delay_s=delay_s).start()
    try:
        bot_id = submit_faulty(ctx.bots, server, f"sleepy-{tag}-{ctx.store.prefix[8:16]}")
        secret = str(server.secret)
        check = trickarena("bot", "check", server.url, *limits, secret=secret, cwd=tmp_path, timeout=150)
        played = trickarena(
            "play", GAME, "--bot", server.url, "--vs", "random", "--out", str(tmp_path / tag), "--json",
            *limits, secret=secret, cwd=tmp_path, timeout=150,
        )  # fmt: skip
        play_timeouts = sum(g["faults"].count("timeout") for g in json.loads(played.stdout)["games"])
        with random_bots(ctx.bots, 1, prefix=f"rnd-{tag}") as others:
            info = create_tournament(
                ctx, GAME, 3, [bot_id, others[0][0]], deals=1, seed=3, deadline_ms=300, time_bank_ms=300,
                enqueue=False,
            )  # fmt: skip
            outcome = run_match(ctx, info["tournament_id"], 0)
    finally:
        server.stop()
    assert outcome.result is not None
    seats = [s for s, bot in enumerate(outcome.result["seats"]) if bot == bot_id]
    match_timeouts = sum(outcome.result["fault_codes"][s].get("timeout", 0) for s in seats)
    return check.returncode, play_timeouts, match_timeouts


def test_bot_check_play_and_a_match_agree_on_a_bot_just_over_the_deadline(
    ctx: HarnessContext, tmp_path: Path
) -> None:
    """Rule: bot check, `play` and the match runner judge time with one policy: a bot 100 ms over a
    300 ms deadline spends a 300 ms bank in three answers and then times out in all three (check
    exit 1); a bot at 50 ms faults in none (check exit 0)."""
    check, play, match = _three_verdicts(ctx, 0.4, tmp_path, "over")
    assert (check, play > 0, match > 0) == (1, True, True), (check, play, match)
    check, play, match = _three_verdicts(ctx, 0.05, tmp_path, "fast")
    assert (check, play, match) == (0, 0, 0)
