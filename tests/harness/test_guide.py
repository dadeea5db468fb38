"""docs/guide.md, the user guide: every `trickarena` command it shows is one the CLI takes as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from harness.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide.md"
# The guide's placeholders, filled with values of the right shape.
PLACEHOLDERS = {"LEAGUE_ID": "0123456789abcdef", "BOT_ID": "0123456789abcdef"}


def guide_commands() -> list[list[str]]:
    """The `trickarena ...` command lines of the guide's shell blocks (continuations joined,
    comments dropped, `$(trickarena ...)` taken from inside its substitution), as argv lists."""
    blocks = re.findall(r"```sh\n(.*?)```", GUIDE.read_text(), flags=re.S)
    commands = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            code = line.split("  #", 1)[0]
            for found in re.findall(r"(?:^|\$\()\s*(trickarena [^)]*)", code):
                for name, value in PLACEHOLDERS.items():
                    found = found.replace(name, value)
                commands.append(shlex.split(found))
    return commands


def test_the_guide_shows_every_step() -> None:
    """Rule (issue 24 §12): the guide walks a user through a bot's whole life: secret, check, play,
    register, open it, a tournament, a league (join, show)."""
    shown = {" ".join(argv[1:3]) for argv in guide_commands()}
    for step in ("bot secret", "bot check", "bot add", "bot check-registered", "bot update",
                 "tournament create", "league create", "league join", "league show"):  # fmt: skip
        assert step in shown, step
    assert any(argv[1] == "play" for argv in guide_commands())


@pytest.mark.parametrize("argv", guide_commands(), ids=" ".join)
def test_every_trickarena_command_of_the_guide_parses(argv: list[str]) -> None:
    """Rule (issue 24 §12): each `trickarena` command of docs/guide.md is accepted by the CLI's own
    parser as written (its options, choices and arguments; placeholders filled in)."""
    assert argv[0] == "trickarena"
    build_parser().parse_args(argv[1:])
