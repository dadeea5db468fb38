"""Options of Trick 'n Trouble: defaults, JSON Schema and validation (raises InvalidOptions).

A replacement task deck is an option too. The rulebook collects "each task that you can fulfil (or
over-fulfil) with the trick", so a condition may only ask for minimums: a clause is "the selected
colour sum(s) reach `min`", and a clause with an upper bound (`max`, once used for "exactly" and
"none of" tasks) is refused.
"""

from __future__ import annotations

import re
from typing import Any, TypeGuard

from games.base import InvalidOptions
from games.trick_n_trouble.cards import DEFAULT_COLOURS, SETUP_FACE_UP, Task

SEATS = 3
STORY_THRESHOLD = 19
COLOUR_NAME = re.compile(r"^[a-z][a-z0-9]{0,15}$")
OPTION_KEYS = {"expert", "story", "threshold", "story_threshold", "colours", "tasks", "first_leader"}
SELECTORS = ("every", "any", "two")
TASK_KEYS = {"id", "level", "points", "text", "condition"}
CLAUSE_KEYS = {"colour", "min"}
TASK_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
# Only bare colour placeholders: a format spec like {0:>99999999} would let a deck blow up views.
PLACEHOLDER_OR_ESCAPE = re.compile(r"\{[012]\}|\{\{|\}\}")
# The same rule as a JSON Schema pattern: a text whose braces are all placeholders or escapes.
TEXT_PATTERN = r"^(?:[^{}]|\{[012]\}|\{\{|\}\})*$"
MAX_TEXT = 200
MAX_TASKS = 100
MAX_CLAUSES = 6


def is_int(value: object) -> TypeGuard[int]:
    """An integer that is not a bool (True is not a seat, a level or a number of points)."""
    return isinstance(value, int) and not isinstance(value, bool)


def default_options(seats: int = SEATS) -> dict[str, Any]:
    """The default options: normal mode, 40 points to win, blue/green/yellow, shipped deck."""
    return {
        "expert": False,
        "story": False,
        "threshold": 40,
        "story_threshold": STORY_THRESHOLD,
        "colours": list(DEFAULT_COLOURS),
        "tasks": None,
        "first_leader": 0,
    }


def options_schema() -> dict[str, Any]:
    """JSON Schema of the options object."""
    clause = {
        "type": "object",
        "description": "The selected colour sum(s) must reach `min`. There is no `max`: over-fulfilling "
        "always counts, so a condition can only ask for minimums.",
        "properties": {
            "colour": {
                "oneOf": [{"type": "integer", "minimum": 0, "maximum": 2}, {"enum": ["every", "any", "two"]}]
            },
            "min": {"type": "integer", "minimum": 0},
        },
        "required": ["colour", "min"],
        "additionalProperties": False,
    }
    task = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,39}$"},
            "level": {"type": "integer", "minimum": 1, "maximum": 3},
            "points": {"type": "integer", "minimum": 0},
            "text": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_TEXT,
                "pattern": TEXT_PATTERN,
                "description": "The task's text: braces only in the colour placeholders `{0}`, `{1}`, "
                "`{2}` or doubled (`{{`, `}}`).",
            },
            "condition": {"type": "array", "items": clause, "minItems": 1, "maxItems": MAX_CLAUSES},
        },
        "required": ["id", "level", "points", "text", "condition"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "expert": {
                "type": "boolean",
                "default": False,
                "description": "Skip phase 4; played tricks leave the game face down.",
            },
            "story": {
                "type": "boolean",
                "default": False,
                "description": "One task pile (the level piles stacked, level 1 on top); only the number "
                "of fulfilled tasks counts.",
            },
            "threshold": {
                "type": "integer",
                "minimum": 0,
                "default": 40,
                "description": "Points the team needs to win.",
            },
            "story_threshold": {
                "type": "integer",
                "minimum": 0,
                "default": STORY_THRESHOLD,
                "description": "Tasks the team needs to win in story mode.",
            },
            "colours": {
                "type": "array",
                "items": {"type": "string", "pattern": "^[a-z][a-z0-9]{0,15}$"},
                "minItems": 3,
                "maxItems": 3,
                "uniqueItems": True,
                "not": {"contains": {"const": "joker"}},
                "default": list(DEFAULT_COLOURS),
                "description": "The three suit colours' names, distinct, none of them `joker`.",
            },
            "tasks": {
                "oneOf": [
                    {"type": "null"},
                    {
                        "type": "array",
                        "items": task,
                        "maxItems": MAX_TASKS,
                        # The setup turns up this many tasks of each level face up.
                        "allOf": [
                            {
                                "contains": {
                                    "properties": {
                                        "level": {"const": level, "description": f"Level {level}."}
                                    }
                                },
                                "minContains": needed,
                            }
                            for level, needed in SETUP_FACE_UP.items()
                        ],
                    },
                ],
                "default": None,
                "description": "A replacement task deck (null: the shipped 27 tasks). It holds at least "
                + ", ".join(f"{n} task(s) of level {level}" for level, n in SETUP_FACE_UP.items())
                + " (the setup turns them face up), and no two tasks share an `id` (which JSON Schema "
                "cannot say: the server refuses it with `invalid_options`).",
            },
            "first_leader": {
                "type": "integer",
                "minimum": 0,
                "maximum": 2,
                "default": 0,
                "description": "The first lead player (most recent delivery notification).",
            },
        },
        "additionalProperties": False,
    }


def check_seats(seats: int) -> None:
    """Trick 'n Trouble is for exactly three seats."""
    if seats != SEATS:
        raise InvalidOptions(f"Trick 'n Trouble is played by exactly {SEATS} seats, not {seats}")


def _check_colours(colours: object) -> tuple[str, ...]:
    if not (isinstance(colours, list) and len(colours) == 3 and all(isinstance(c, str) for c in colours)):
        raise InvalidOptions("colours must be a list of three colour names")
    for name in colours:
        if not COLOUR_NAME.match(name):
            raise InvalidOptions(
                f"colour {name!r}: use 1-16 lowercase letters/digits, starting with a letter"
            )
    if len(set(colours)) != 3 or "joker" in colours:
        raise InvalidOptions("colours must be three distinct names other than 'joker'")
    return tuple(colours)


def normalize_options(options: dict[str, Any] | None) -> dict[str, Any]:
    """Defaults merged with `options`, every value checked; raises InvalidOptions."""
    if options is not None and not isinstance(options, dict):
        raise InvalidOptions("options must be an object")
    merged = default_options()
    if not options:  # the defaults are valid as they are
        return merged
    unknown = set(options) - OPTION_KEYS
    if unknown:
        raise InvalidOptions(f"unknown options {sorted(unknown)}; known: {sorted(OPTION_KEYS)}")
    merged.update(options)
    for flag in ("expert", "story"):
        if not isinstance(merged[flag], bool):
            raise InvalidOptions(f"{flag} must be true or false")
    for key in ("threshold", "story_threshold"):
        if not (is_int(merged[key]) and merged[key] >= 0):
            raise InvalidOptions(f"{key} must be a non-negative integer")
    if not (is_int(merged["first_leader"]) and 0 <= merged["first_leader"] < SEATS):
        raise InvalidOptions("first_leader must be a seat 0, 1 or 2")
    merged["colours"] = list(_check_colours(merged["colours"]))
    if merged["tasks"] is not None:
        merged["tasks"] = validate_deck(merged["tasks"])
    return merged


# --------------------------------------------------------------------------- a replacement deck


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
    if not (colour in SELECTORS or (is_int(colour) and 0 <= colour <= 2)):
        raise InvalidOptions(f"{where}: colour must be 0, 1, 2, 'every', 'any' or 'two', not {colour!r}")
    if "min" not in clause:
        raise InvalidOptions(f"{where}: a clause needs 'min'")
    if not (is_int(clause["min"]) and clause["min"] >= 0):
        raise InvalidOptions(f"{where}: 'min' must be a non-negative integer")


def _check_task(index: int, task: object) -> Task:
    where = f"tasks[{index}]"
    if not isinstance(task, dict):
        raise InvalidOptions(f"{where}: a task must be an object")
    if set(task) != TASK_KEYS:
        raise InvalidOptions(f"{where}: a task has exactly the keys {sorted(TASK_KEYS)}, got {sorted(task)}")
    if not isinstance(task["id"], str) or not TASK_ID.match(task["id"]):
        raise InvalidOptions(f"{where}: id must be 1-40 lowercase letters, digits or '-'")
    where = f"task {task['id']!r}"
    if not (is_int(task["level"]) and 1 <= task["level"] <= 3):
        raise InvalidOptions(f"{where}: level must be 1, 2 or 3")
    if not (is_int(task["points"]) and task["points"] >= 0):
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


def validate_deck(tasks: object) -> list[Task]:
    """Check a replacement deck; raise InvalidOptions saying what is wrong."""
    if not isinstance(tasks, list) or len(tasks) > MAX_TASKS:
        raise InvalidOptions(f"tasks must be a list of at most {MAX_TASKS} task objects")
    checked = [_check_task(index, task) for index, task in enumerate(tasks)]
    ids = [task["id"] for task in checked]
    duplicates = sorted({task_id for task_id in ids if ids.count(task_id) > 1})
    if duplicates:
        raise InvalidOptions(f"tasks: duplicate ids {duplicates}")
    for level, needed in SETUP_FACE_UP.items():
        have = sum(1 for task in checked if task["level"] == level)
        if have < needed:
            raise InvalidOptions(f"tasks: setup flips {needed} task(s) of level {level}, the deck has {have}")
    return checked
