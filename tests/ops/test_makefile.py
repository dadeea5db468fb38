"""`make test` installs every tool a test needs, on a machine where none was installed by hand.

Rule pinned (issue 24 §1): each Makefile target whose recipe installs something (`apt-get install`,
`npm ci`) is a prerequisite of `test`, so a fresh machine never fails a test for want of a tool
that only the CI machine happened to have. Read from make's own database (`make -qp`), with the
variables expanded by make, not by a parser of ours.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INSTALLERS = ("apt-get install", "npm ci", "npm install", "pip install")


def make_database() -> dict[str, tuple[list[str], str]]:
    """Every explicit target of the Makefile: its prerequisites and its recipe text."""
    assert shutil.which("make"), "make is required"
    out = subprocess.run(
        ["make", "-qp", "-f", "Makefile", "__no_such_target__"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    rules: dict[str, tuple[list[str], str]] = {}
    blocks = out.split("\n\n")
    for block in blocks:
        lines = block.splitlines()
        heads = [i for i, line in enumerate(lines) if re.match(r"^[^#\t\s][^=]*?:(?!=)", line)]
        if not heads or lines[0].startswith("#") and not heads:
            continue
        head = lines[heads[0]]
        if "from 'Makefile'" not in block and "(from `Makefile'" not in block:
            continue
        target, _, prereqs = head.partition(":")
        recipe = "\n".join(line for line in lines if line.startswith("\t"))
        rules[target.strip()] = ([p for p in prereqs.replace("|", " ").split()], recipe)
    return rules


def test_every_installer_target_is_a_prerequisite_of_test() -> None:
    """Rule: a target that installs a tool is reached from `make test` (issue 24 §1: nginx was not)."""
    rules = make_database()
    assert "test" in rules, sorted(rules)
    installers = {
        target
        for target, (_, recipe) in rules.items()
        if any(word in recipe for word in INSTALLERS) and target not in {"test", "bench", "lock"}
    }
    # The tools the suite uses are all among them (a rename would otherwise empty this test).
    assert {"/usr/sbin/nginx", "/usr/bin/chromium", "/usr/bin/node"} <= installers, installers

    reached: set[str] = set()
    todo = ["test"]
    while todo:
        target = todo.pop()
        for prereq in rules.get(target, ([], ""))[0]:
            if prereq not in reached:
                reached.add(prereq)
                todo.append(prereq)
    missing = sorted(installers - reached - {".venv/.installed"})
    assert not missing, f"installer targets `make test` does not reach: {missing}"


def test_the_tests_call_only_tools_that_make_test_installs() -> None:
    """Rule: every system binary a test starts (nginx, chromium, node, npm) has an installer target."""
    rules = make_database()
    used = set()
    for path in (ROOT / "tests").rglob("*.py"):
        text = path.read_text()
        for tool in ("nginx", "chromium", "node", "npm"):
            if re.search(rf"""["'](/usr/s?bin/)?{tool}["']""", text):
                used.add(tool)
    assert used, "no test starts a system tool: this check has nothing to read"
    installed_tools = {Path(t).name for t in rules if t.startswith("/usr/")} | {"npm"}
    assert used <= installed_tools, f"tools used by tests with no installer target: {used - installed_tools}"
