"""`trickarena` as a bot author runs it on a fresh machine (issue 24 §6, §10): `play` tells each game
trick by trick with the bot's faults and answer times, `replay view` shows a replay in the web viewer
with no platform, and the command line explains itself. Every test runs the real entry point
(`python -m harness.cli`) as a subprocess against real HTTP bots on loopback; output is piped, as
in a log or CI, where nothing may be cut off."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from bots.bundled import make_bot
from bots.sdk import SECRET_ENV, SECRET_FILE_ENV, BotServer, FunctionBot
from harness.cli import build_parser
from tests.ops.test_web import browser  # noqa: F401  (the fixture: headless Chromium, never a skip)

from .bot_servers import FaultyBotServer
from .conftest import ROOT

SECRET = "local-play-secret"
WIDTH = 80


def trickarena(*args: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """`python -m harness.cli ARGS` with the bot's secret in the environment, stdout piped."""
    env = {k: v for k, v in os.environ.items() if k not in (SECRET_ENV, SECRET_FILE_ENV, "COLUMNS")}
    env.update({SECRET_ENV: SECRET, "PYTHONPATH": str(ROOT)})
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_fits(text: str) -> None:
    """Every line within 80 columns and nothing cut off (no ellipsis)."""
    long = [line for line in text.splitlines() if len(line) > WIDTH]
    assert not long, long
    assert "…" not in text and "..." not in text, text


@pytest.fixture(scope="module")
def bot() -> Iterator[str]:
    """The bundled heuristic bot, signed with SECRET, over HTTP on loopback: the author's bot."""
    with BotServer(make_bot("heuristic"), SECRET) as server:
        yield server.url


def test_play_tells_a_game_of_alliances_trick_by_trick(bot: str, tmp_path: Path) -> None:
    """Rule: `play tricky-teams` prints every trick (who played what, the teams' strengths, the
    winners, the loot), each raid's coins and the result, then the bot's faults and its answer
    times (median, p95, max), then the one-row-per-deal summary; 80 columns, nothing cut."""
    run = trickarena(
        "play", "tricky-teams", "--bot", bot, "--vs", "heuristic,random", "--options", '{"raids": 1}',
        cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "Raid 1 (led by " in out
    tricks = [line for line in out.splitlines() if line.startswith("  trick ")]
    assert len(tricks) >= 10, out  # 3 seats, one raid: every card of every hand is played
    assert "you(0): " in tricks[0] or "you(0): " in out.split("  trick  2:")[0]
    assert "strengths " in out and " win (" in out and "loot: " in out
    assert "coins this raid: you(0) " in out and "Result: you(0) " in out
    assert "Your bot's faults: none in " in out
    assert "Your bot's answer times over " in out and " p95 " in out and " max " in out
    assert "0 fault(s)." in out and "trickarena replay view FILE" in out
    assert_fits(out)


def test_play_tells_a_cooperative_game_with_its_task_progress(bot: str, tmp_path: Path) -> None:
    """Rule: `play trick-n-trouble` prints every trick in play order, who won it and the tasks it
    fulfilled with the running count, then the team's result."""
    run = trickarena("play", "trick-n-trouble", "--bot", bot, "--vs", "heuristic,random", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "tasks face up: " in out
    tricks = [line for line in out.splitlines() if line.startswith("  trick ")]
    assert len(tricks) >= 5, out
    assert "            won by " in out and "colour sums [" in out and "so far " in out
    assert "task(s)" in out and "Result: you(0) " in out
    assert_fits(out)


def test_play_names_each_fault_in_plain_words(tmp_path: Path) -> None:
    """Rule: a bot's faults are told by reason in plain words (harness.faults), with the moves they
    hit and the answer times; exit status 1."""
    server = FaultyBotServer("http500", secret=SECRET).start()
    try:
        run = trickarena(
            "play", "tricky-teams", "--bot", server.url, "--options", '{"raids": 1}', cwd=tmp_path
        )  # fmt: skip
    finally:
        server.stop()
    assert run.returncode == 1, run.stdout + run.stderr
    out = run.stdout
    assert "Your bot's faults: " in out and "each replaced by the first legal move" in out
    assert "answered 500 boom: the bot failed on the request" in out
    assert "deal 1, move " in out and ": http_status 500 after " in out
    assert "Your bot's answer times over " in out
    assert_fits(out)


def test_quiet_keeps_one_row_per_deal(bot: str, tmp_path: Path) -> None:
    """Rule: `play --quiet` prints one row per deal and the summary, no trick by trick."""
    run = trickarena(
        "play", "tricky-teams", "--bot", bot, "--deals", "2", "--quiet", "--options", '{"raids": 1}',
        cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "trick " not in run.stdout and "Raid 1" not in run.stdout
    assert " of 2 won; " in run.stdout and "0 fault(s)." in run.stdout
    assert_fits(run.stdout)


def _viewer_url(proc: subprocess.Popen[str]) -> str:
    """The URL `replay view` prints first."""
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "http://127.0.0.1:" in line, line
    return line[line.index("http://") :].strip()


@pytest.mark.parametrize(("game", "deals", "seats"), [("tricky-teams", 2, 3), ("trick-n-trouble", 1, 3)])
def test_replay_view_shows_the_game_and_marks_your_seat(
    bot: str,
    tmp_path: Path,
    browser: Any,  # noqa: F811 - the fixture imported above
    game: str,
    deals: int,
    seats: int,
) -> None:
    """Rule: `replay view FILE --no-browser` serves the web viewer on loopback with no platform
    running; the page shows the game with the seats' names, each move's latency, and the author's
    seat marked (the seat `play` gave the bot: seat 1 in the second deal)."""
    options = ["--options", '{"raids": 1}'] if game == "tricky-teams" else []
    played = trickarena(
        "play", game, "--bot", bot, "--vs", "heuristic,random", "--deals", str(deals), "--json", *options,
        cwd=tmp_path,
    )  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    last = json.loads(played.stdout)["games"][-1]
    you = last["seat"]
    env = {k: v for k, v in os.environ.items() if k != "BROWSER"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "replay", "view", last["replay"], "--no-browser"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = _viewer_url(proc)
        assert url.startswith("http://127.0.0.1:") and f"you={you}" in url
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.set_default_timeout(20000)
        page.goto(url)
        page.wait_for_selector("#table .seat[data-seat]")
        page.wait_for_selector(f".seat.yours[data-seat='{you}']")
        assert game in page.inner_text("#title")
        assert page.locator("#table .seat[data-seat]").count() == seats
        assert page.locator(".seat.yours").count() == 1
        assert f"you({you})" in page.inner_text(f".seat.yours[data-seat='{you}']")
        assert f"seat {you}" in page.inner_text("#you-note")
        page.click("#last")
        page.wait_for_selector("#log .latency")  # each move's answer time
        page.click("#first")
        page.click("#next-trick")
        assert int(page.input_value("#slider")) > 0
        page.close()
        assert not errors, errors
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _actions(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
    """Every argument of `parser` and of its commands, with the command it belongs to."""
    for action in parser._actions:
        yield path, action
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                yield from _actions(command, f"{path} {name}")


def test_every_argument_and_command_has_help() -> None:
    """Rule: `--help` explains every argument of every command (and every command in its list)."""
    parser = build_parser()
    missing = [
        f"{path}: {a.option_strings or a.dest}" for path, a in _actions(parser, "trickarena") if not a.help
    ]
    for path, action in _actions(parser, "trickarena"):
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            missing += [f"{path} {name}" for name in action.choices if not helps.get(name)]
    assert not missing, missing


def test_version_and_errors_without_internal_names(tmp_path: Path) -> None:
    """Rule: `--version` prints the version; a command group given no command lists its commands
    ("choose a command: ...") rather than an internal name ("required: tcommand"); a missing
    argument is named as the help names it."""
    version = trickarena("--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("trickarena 0."), version
    for group, commands in (
        ([], "worker, tournament, bot, play"),
        (["tournament"], "run, show, create, follow, list, cancel"),
        (["bot"], "add, list, show"),
        (["league"], "create, list, show"),
        (["replay"], "upload, view"),
    ):
        run = trickarena(*group, cwd=tmp_path)
        assert run.returncode == 2
        assert f"error: choose a command: {commands}" in run.stderr, run.stderr
        assert "required" not in run.stderr and "command:" not in run.stderr.replace("a command:", "")
    missing = trickarena("tournament", "show", cwd=tmp_path)
    assert missing.returncode == 2 and "required: TOURNAMENT_ID" in missing.stderr, missing.stderr
    usage = trickarena("run", "--help", cwd=tmp_path)
    assert usage.returncode == 0 and usage.stdout.startswith("usage: trickarena run "), usage.stdout
    assert "--short" in usage.stdout and "harness.platform" not in usage.stdout


def test_bot_check_wraps_long_lines_and_cuts_none(tmp_path: Path) -> None:
    """Rule: with no terminal (piped), a long report line is wrapped within 80 columns, not cut."""
    author = "Ada Lovelace-Byron, Analytical Engine Society, Marylebone Card Club"
    named = FunctionBot(lambda view, legal: legal[0], "a-bot-with-a-long-name", ["tricky-teams"], author)
    with BotServer(named, SECRET) as server:
        run = trickarena("bot", "check", server.url, cwd=tmp_path)
    out = run.stdout
    assert "Society, Marylebone Card Club" in " ".join(line.strip() for line in out.splitlines()), out
    assert_fits(out)


def test_the_viewer_server_answers_nothing_outside_its_files(bot: str, tmp_path: Path) -> None:
    """Rule: `replay view` serves on loopback only, its own files and the replay's documents, and
    refuses a path outside them (404)."""
    played = trickarena(
        "play", "tricky-teams", "--bot", bot, "--json", "--options", '{"raids": 1}', cwd=tmp_path
    )
    replay = json.loads(played.stdout)["games"][0]["replay"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "replay", "view", replay, "--no-browser"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = _viewer_url(proc)
        base = url.split("/web/", 1)[0]
        assert requests.get(url, timeout=10).status_code == 200
        assert requests.get(f"{base}/web/static/viewer.js", timeout=10).status_code == 200
        for path in ("/web/static/..%2f..%2fcli.py", "/web/static/../../cli.py", "/games/other", "/metrics"):
            assert requests.get(base + path, timeout=10).status_code == 404, path
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    bad = tmp_path / "bad.json"
    bad.write_text('{"game": "tricky-teams"}')
    refused = trickarena("replay", "view", str(bad), "--no-browser", cwd=tmp_path)
    assert refused.returncode != 0 and "bad_replay" in refused.stderr
