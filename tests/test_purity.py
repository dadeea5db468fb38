"""Architecture rule: games/ is pure — no web, storage, queue or network imports, no I/O."""

from __future__ import annotations

import ast
from pathlib import Path

GAMES_DIR = Path(__file__).resolve().parent.parent / "games"
FORBIDDEN_MODULES = {
    "flask",
    "redis",
    "requests",
    "rq",
    "marshmallow",
    "socket",
    "urllib",
    "http",
    "subprocess",
    "os",
    "io",
    "pathlib",
    "shutil",
    "asyncio",
    "threading",
    "multiprocessing",
    "sqlite3",
    "tempfile",
    "logging",
    "time",
}
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval", "__import__"}


def _python_files() -> list[Path]:
    return sorted(p for p in GAMES_DIR.rglob("*.py"))


def test_games_package_has_modules() -> None:
    """The rules package exists and has source files to check."""
    assert len(_python_files()) >= 3


def test_games_import_nothing_impure() -> None:
    """No module under games/ imports flask, redis, requests, rq or an I/O module."""
    offenders = []
    for path in _python_files():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in FORBIDDEN_MODULES:
                    offenders.append(f"{path.relative_to(GAMES_DIR)}: imports {name}")
    assert offenders == []


def test_games_do_no_io_calls() -> None:
    """No module under games/ calls open/print/input/exec/eval (data files come via importlib.resources)."""
    offenders = []
    for path in _python_files():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id in FORBIDDEN_CALLS:
                    offenders.append(f"{path.relative_to(GAMES_DIR)}:{node.lineno} calls {node.func.id}")
    assert offenders == []
