"""A game told trick by trick from its events, in plain lines (`trickarena play`, `make demo`).

The narrator reads the engine's events (every card revealed: a finished game's log) and says, per
trick, who played what, who won it and what it earned: in a game of alliances (a trick event with
`plays`, team `strengths`, `winners` and `loot`) the teams each card played for, the winning team
and its loot, then who took which loot card and who chose the next leader; in a cooperative game
(a trick event naming its winning `seat`, the colour `sums` and the tasks it `fulfilled`) the cards
in play order, the winner and the tasks' progress. It goes by the events' types and fields, never
by game names (games declare themselves). Lines are wrapped to a width with a hanging indent.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable, Mapping
from typing import Any

Name = Callable[[int], str]


def seat_number(seat: int) -> str:
    """The default seat name: "seat N"."""
    return f"seat {seat}"


def describe_trick(event: dict[str, Any], teams: Mapping[str, str], name: Name = seat_number) -> str:
    """A scored trick of a game of alliances: who played what, team strengths, the winners, the loot."""
    plays = ", ".join(
        f"{name(p['seat'])}: {p['card']}{' (face down)' if p['face_down'] else ''}" for p in event["plays"]
    )
    strengths = ", ".join(f"{teams.get(t, t)} {s}" for t, s in sorted(event["strengths"].items()))
    won = event["winning_team"]
    winner = teams.get(won, won) if isinstance(won, str) else won
    loot = ", ".join(event["loot"]) or "nothing"
    seats = ", ".join(name(s) for s in event["winners"])
    return (
        f"  trick {event['number']:>2}: {plays}\n"
        f"            strengths {strengths} -> {winner} win ({seats}), loot: {loot}"
    )


class Narrator:
    """Feed it events in order (`feed`); it keeps the lines (`lines`) and the tasks fulfilled so far."""

    def __init__(self, teams: Mapping[str, str] | None = None, name: Name = seat_number) -> None:
        self.teams = teams or {}
        self.name = name
        self.lines: list[str] = []
        self._played: list[tuple[int, str]] = []  # the trick in play (cards in play order)
        self._group: tuple[str, list[str]] = ("", [])  # like events in a row, told on one line
        self._tricks = 0
        self._tasks = 0
        self._points = 0

    def _gather(self, label: str, item: str) -> None:
        if self._group[0] != label:
            self._flush()
            self._group = (label, [])
        self._group[1].append(item)

    def _say(self, line: str) -> None:
        self._flush()
        self.lines.append(line)

    def _flush(self) -> None:
        label, items = self._group
        if items:
            self.lines.append(f"{label}{', '.join(items)}")
        self._group = ("", [])

    def feed(self, event: dict[str, Any]) -> None:
        """Narrate one event (the ones that tell nothing new are passed over)."""
        kind = event.get("type")
        if kind == "loot-taken":
            if event.get("how") == "choice":
                self._gather("            loot taken: ", f"{self.name(event['seat'])} {event['card']}")
            return
        if kind == "task-drawn":
            self._gather("  tasks drawn face up: ", f"{event['task']} (level {event['level']})")
            return
        if kind == "game-started" and event.get("face_up"):
            self._say(f"  tasks face up: {', '.join(event['face_up'])}")
        elif kind == "raid-started":
            self._say(f"Raid {event['raid']} (led by {self.name(event['leader'])})")
        elif kind == "card-played":
            self._played.append((event["seat"], str(event.get("card"))))
        elif kind == "trick-won" and "plays" in event:
            self._played = []
            self._say(describe_trick(event, self.teams, self.name))
        elif kind == "trick-won":
            self._cooperative_trick(event)
        elif kind == "leader-chosen":
            self._say(f"            {self.name(event['seat'])} chose {self.name(event['leader'])} to lead")
        elif kind == "raid-ended":
            coins = ", ".join(f"{self.name(s)} {c}" for s, c in enumerate(event["coins"]))
            totals = ", ".join(f"{self.name(s)} {c}" for s, c in enumerate(event["totals"]))
            self._say(f"  coins this raid: {coins}; totals: {totals}")

    def _cooperative_trick(self, event: dict[str, Any]) -> None:
        self._tricks += 1
        plays = ", ".join(f"{self.name(seat)}: {card}" for seat, card in self._played) or ", ".join(
            event.get("cards", [])
        )
        self._played = []
        fulfilled = event.get("fulfilled", [])
        self._tasks += len(fulfilled)
        self._points += int(event.get("points", 0))
        done = (
            f"fulfils {', '.join(fulfilled)} (+{event.get('points', 0)} points)"
            if fulfilled
            else "fulfils no task"
        )
        self._say(
            f"  trick {self._tricks:>2}: {plays}\n"
            f"            won by {self.name(event['seat'])}, colour sums {event.get('sums')}, {done}; "
            f"so far {self._tasks} task(s), {self._points} points"
        )

    def feed_all(self, events: Iterable[dict[str, Any]]) -> list[str]:
        """Narrate every event; the lines so far."""
        for event in events:
            self.feed(event)
        self._flush()
        return self.lines


def wrap(lines: Iterable[str], width: int) -> list[str]:
    """Lines of at most `width` columns (long words aside): a long line continues under its text,
    indented as far as its own indentation plus the label it starts with ("trick 12: ")."""
    out: list[str] = []
    for block in lines:
        for line in block.split("\n"):
            stripped = line.lstrip()
            indent = len(line) - len(stripped)
            label = stripped.split(": ", 1)[0]
            hang = indent + len(label) + 2 if ": " in stripped and len(label) <= 10 else indent + 2
            out += textwrap.wrap(
                line, width, subsequent_indent=" " * min(hang, width // 2), break_on_hyphens=False
            ) or [""]
    return out
