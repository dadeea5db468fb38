"""Bots use only the games' public surface (docs/engines.md), never an engine's internals.

The public surface: `games`, `games.base`, `games.registry`, and of each game package
`games.<game>` itself (its `GAME` and what its `__all__` names) and its modules `cards` (the
deck: ids, ranks, per-card facts), `determinize` (states consistent with a view) and `wire` (the
wire shapes). Everything else under `games/` (engine, rules, scoring, moves, state, view, deal,
options) may change shape at any time: a bot that imports it fails this test.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAME_PACKAGES = sorted(p.parent.name for p in (ROOT / "games").glob("*/__init__.py"))
PUBLIC_MODULES = frozenset(
    {"games", "games.base", "games.registry"}
    | {f"games.{game}" for game in GAME_PACKAGES}
    | {f"games.{game}.{module}" for game in GAME_PACKAGES for module in ("cards", "determinize", "wire")}
)


def _is_module(name: str) -> bool:
    """True if `name` (dotted) is a module or package of this repository."""
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def games_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) for every module of `games` the source imports: `import x.y`, `from x import y`
    where y is a submodule, and `importlib.import_module("x.y")` / `__import__("x.y")` with a literal."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            names = [node.module]
            names += [
                f"{node.module}.{alias.name}"
                for alias in node.names
                if _is_module(f"{node.module}.{alias.name}")
            ]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                names = [node.args[0].value]
        if names:
            assert isinstance(node, ast.stmt | ast.expr)  # an import statement or call: it has a line
            found += [(node.lineno, name) for name in names if name == "games" or name.startswith("games.")]
    return found


def violations(source: str) -> list[tuple[int, str]]:
    """The imports of `source` outside the public surface."""
    return [(line, name) for line, name in games_imports(source) if name not in PUBLIC_MODULES]


def test_bots_import_only_the_public_surface_of_the_games() -> None:
    """Rule: no module under bots/ imports a games module outside the public surface."""
    files = sorted((ROOT / "bots").rglob("*.py"))
    assert files
    found = {
        str(path.relative_to(ROOT)): bad
        for path in files
        if (bad := violations(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_bots_do_use_the_public_surface() -> None:
    """The check reads real imports: the search bots import their game's package and determinize."""
    for bot, game in (("tricky_teams_search", "tricky_teams"), ("trick_n_trouble_search", "trick_n_trouble")):
        modules = {
            name for _, name in games_imports((ROOT / "bots" / f"{bot}.py").read_text(encoding="utf-8"))
        }
        assert {f"games.{game}", f"games.{game}.determinize"} <= modules


def test_reaching_into_an_engine_is_caught_in_every_spelling() -> None:
    """Every way of importing an engine internal is reported; the public surface is not."""
    internal = [
        "from games.tricky_teams import engine",
        "from games.tricky_teams import GAME, rules as r",
        "import games.tricky_teams.scoring",
        "from games.trick_n_trouble.engine import apply",
        "from games.tricky_teams.state import clone",
        "def f():\n    from games.tricky_teams.moves import parse_move",
        "import importlib\nimportlib.import_module('games.tricky_teams.engine')",
    ]
    for source in internal:
        assert violations(source), source
    public = [
        "from games.tricky_teams import GAME, score_plays",
        "from games.trick_n_trouble import GAME",
        "from games.tricky_teams.cards import RANK, TEAM",
        "from games.trick_n_trouble.determinize import state_from_view",
        "from games.tricky_teams.wire import TrickPlay",
        "from games.base import State\nfrom games.registry import get_game\nimport games",
        "from bots.policy import Move",
    ]
    for source in public:
        assert violations(source) == [], source
