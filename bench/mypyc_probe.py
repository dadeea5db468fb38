"""Compile the engines with mypyc in a scratch copy and run engine_bench on the compiled modules.

Usage: .venv/bin/python bench/mypyc_probe.py [engine_bench arguments, e.g. --seconds 3 --runs 5]

The measurement behind docs/performance.md's "mypyc measured, not adopted": the same rule sources,
copied with `bench/` to a temporary directory, every engine module compiled there except
`__init__.py` and `wire.py` (and `games/base.py`, which stays interpreted: compiled, `FrozenDict`
loses its refusals), then `bench/engine_bench.py` with that copy first on `sys.path`.  The
checkout is never touched; the copy is deleted afterwards.  Needs a C compiler and Python's
headers; mypyc comes with mypy (the test extra).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("tricky_teams", "trick_n_trouble")
INTERPRETED = {"__init__.py", "wire.py"}


def compiled_modules(copy: Path) -> list[str]:
    """The engine modules mypyc compiles, as paths relative to the copy."""
    return [
        str(path.relative_to(copy))
        for game in GAMES
        for path in sorted((copy / "games" / game).glob("*.py"))
        if path.name not in INTERPRETED
    ]


def main() -> None:
    """Copy, compile, bench; print the compile time and engine_bench's output."""
    with tempfile.TemporaryDirectory(prefix="mypyc-probe-") as scratch:
        copy = Path(scratch)
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(ROOT / "games", copy / "games", ignore=ignore)
        shutil.copytree(ROOT / "bench", copy / "bench", ignore=ignore)
        started = time.monotonic()
        build = subprocess.run(
            [sys.executable, "-m", "mypyc", *compiled_modules(copy)],
            cwd=copy,
            capture_output=True,
            text=True,
        )
        if build.returncode != 0:
            sys.exit(f"mypyc failed:\n{build.stdout[-3000:]}{build.stderr[-3000:]}")
        print(f"mypyc: {len(compiled_modules(copy))} modules compiled in {time.monotonic() - started:.0f} s")
        env = {**os.environ, "PYTHONPATH": str(copy)}
        subprocess.run(
            [sys.executable, str(copy / "bench" / "engine_bench.py"), *sys.argv[1:]],
            cwd=copy,
            env=env,
            check=True,
        )


if __name__ == "__main__":
    main()
