"""Architecture rule: games declare themselves; nothing outside games/ lists game names or facts."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from games.registry import GAMES
from harness.runner import is_cooperative

ROOT = Path(__file__).resolve().parent.parent
# A bot author's example or starter (copied out of the repository) names the games it plays, as any
# user's bot does.
ALLOWED = {ROOT / "bots" / "examples", ROOT / "bots" / "starters"}


def _string_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


@pytest.mark.parametrize("package", ["api", "core", "harness", "bots"])
def test_no_game_name_is_written_outside_games(package: str) -> None:
    """Rule (issue 14): a game's name comes from its own declaration (`GAME.name`, the registry)."""
    names = set(GAMES)
    found = [
        f"{path.relative_to(ROOT)}:{line}: {value!r}"
        for path in sorted((ROOT / package).rglob("*.py"))
        if not any(parent in ALLOWED for parent in path.parents)
        for line, value in _string_literals(path)
        if value in names
    ]
    assert found == []


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_declares_its_facts(name: str) -> None:
    """Rule: seat counts, cooperation, a showcase table and quick options come from the game."""
    game = GAMES[name]
    assert game.name == name and game.title
    assert game.showcase_seats in game.seat_counts
    assert isinstance(game.cooperative, bool) and is_cooperative(name) is game.cooperative
    state = game.new_game(game.showcase_seats, game.quick_options or None, seed=1)
    assert not game.is_over(state)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_card_dealt_matches_the_declared_card_pattern(name: str) -> None:
    """Rule: the wire pattern of card ids comes from the game, and every card it deals matches it."""
    game = GAMES[name]
    for seats in game.seat_counts:
        state = game.new_game(seats, None, seed=seats)
        for seat in range(seats):
            hand = game.view(state, seat).get("hand") or []
            assert hand and all(re.fullmatch(game.card_pattern, card) for card in hand), hand
    assert not re.fullmatch(game.card_pattern, "purple-11")
