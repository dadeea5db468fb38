"""Task cards: the shipped deck, validation of replacement decks, conditions and texts.

The rulebook collects "each task that you can fulfil (or over-fulfil) with the trick", so a
condition may only ask for minimums: a clause is "the selected colour sum(s) reach `min`", and a
trick with more in any colour fulfils every task a smaller one fulfils (`task_met` is monotone).
A clause with an upper bound (`max`, once used for "exactly" and "none of" tasks) is refused.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib.resources import files
from typing import Any, TypeGuard

from games.base import InvalidOptions

SETUP_FACE_UP: dict[int, int] = {1: 3, 2: 1, 3: 1}
SELECTORS = ("every", "any", "two")
TASK_KEYS = {"id", "level", "points", "text", "condition"}
CLAUSE_KEYS = {"colour", "min"}
TASK_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
# Only bare colour placeholders: a format spec like {0:>99999999} would let a deck blow up views.
PLACEHOLDER_OR_ESCAPE = re.compile(r"\{[012]\}|\{\{|\}\}")
MAX_TEXT = 200
MAX_TASKS = 100
MAX_CLAUSES = 6

Task = dict[str, Any]


@lru_cache(maxsize=1)
def _builtin_text() -> str:
    return files(__package__).joinpath("tasks.json").read_text()


def builtin_deck() -> list[Task]:
    """A fresh copy of the shipped 27-task deck (9 per level)."""
    deck: list[Task] = json.loads(_builtin_text())
    return deck


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_clause(where: str, clause: object) -> None:
    if not isinstance(clause, dict):
        raise InvalidOptions(f"{where}: a clause must be an object")
    if "max" in clause:
        raise InvalidOptions(
            f"{where}: 'max' is not allowed: over-fulfilling always counts (rulebook: \"collect each "
            f"task that you can fulfil (or over-fulfil) with the trick\"), so a clause can only set 'min'"
        )
    extra = set(clause) - CLAUSE_KEYS
    if extra:
        raise InvalidOptions(f"{where}: unknown clause keys {sorted(extra)}")
    colour = clause.get("colour")
    if not (colour in SELECTORS or (_is_int(colour) and 0 <= colour <= 2)):
        raise InvalidOptions(f"{where}: colour must be 0, 1, 2, 'every', 'any' or 'two', not {colour!r}")
    if "min" not in clause:
        raise InvalidOptions(f"{where}: a clause needs 'min'")
    if not (_is_int(clause["min"]) and clause["min"] >= 0):
        raise InvalidOptions(f"{where}: 'min' must be a non-negative integer")


def _check_task(index: int, task: object, colours: tuple[str, ...]) -> Task:
    where = f"tasks[{index}]"
    if not isinstance(task, dict):
        raise InvalidOptions(f"{where}: a task must be an object")
    if set(task) != TASK_KEYS:
        raise InvalidOptions(f"{where}: a task has exactly the keys {sorted(TASK_KEYS)}, got {sorted(task)}")
    if not isinstance(task["id"], str) or not TASK_ID.match(task["id"]):
        raise InvalidOptions(f"{where}: id must be 1-40 lowercase letters, digits or '-'")
    where = f"task {task['id']!r}"
    if not (_is_int(task["level"]) and 1 <= task["level"] <= 3):
        raise InvalidOptions(f"{where}: level must be 1, 2 or 3")
    if not (_is_int(task["points"]) and task["points"] >= 0):
        raise InvalidOptions(f"{where}: points must be a non-negative integer")
    if not isinstance(task["text"], str) or not 0 < len(task["text"]) <= MAX_TEXT:
        raise InvalidOptions(f"{where}: text must be a string of 1 to {MAX_TEXT} characters")
    bare = PLACEHOLDER_OR_ESCAPE.sub("", task["text"])
    if "{" in bare or "}" in bare:
        raise InvalidOptions(f"{where}: text may only use the placeholders {{0}}, {{1}}, {{2}}")
    condition = task["condition"]
    if not isinstance(condition, list) or not 0 < len(condition) <= MAX_CLAUSES:
        raise InvalidOptions(f"{where}: condition must be a list of 1 to {MAX_CLAUSES} clauses")
    for number, clause in enumerate(condition):
        _check_clause(f"{where} clause {number}", clause)
    return task


def validate_deck(tasks: object, colours: tuple[str, ...]) -> list[Task]:
    """Check a replacement deck; raise InvalidOptions saying what is wrong."""
    if not isinstance(tasks, list) or len(tasks) > MAX_TASKS:
        raise InvalidOptions(f"tasks must be a list of at most {MAX_TASKS} task objects")
    checked = [_check_task(index, task, colours) for index, task in enumerate(tasks)]
    ids = [task["id"] for task in checked]
    duplicates = sorted({task_id for task_id in ids if ids.count(task_id) > 1})
    if duplicates:
        raise InvalidOptions(f"tasks: duplicate ids {duplicates}")
    for level, needed in SETUP_FACE_UP.items():
        have = sum(1 for task in checked if task["level"] == level)
        if have < needed:
            raise InvalidOptions(f"tasks: setup flips {needed} task(s) of level {level}, the deck has {have}")
    return checked


def deck_index(tasks: list[Task]) -> dict[str, Task]:
    """Tasks by id."""
    return {task["id"]: task for task in tasks}


def render_text(task: Task, colours: tuple[str, ...]) -> str:
    """The task's plain-language text with the edition's colour names filled in."""
    text: str = task["text"].format(*colours)
    return text


def _selected(colour: int | str, sums: list[int], low: int) -> bool:
    inside = [total >= low for total in sums]
    if colour == "every":
        return all(inside)
    if colour == "any":
        return any(inside)
    if colour == "two":
        return sum(inside) >= 2
    return inside[int(colour)]


def clause_met(clause: dict[str, Any], sums: list[int]) -> bool:
    """Whether the per-colour sums satisfy one clause (monotone: more never hurts)."""
    return _selected(clause["colour"], sums, clause["min"])


def task_met(task: Task, sums: list[int]) -> bool:
    """Ruling 6 (over-fulfilling counts): whether a trick with these per-colour sums fulfils the
    task -- every clause holds; if sums fulfil a task, so does every componentwise larger vector."""
    return all(clause_met(clause, sums) for clause in task["condition"])
