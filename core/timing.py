"""The time policy of bot answers: the one place that says how long a bot may take, for the match
runner (`harness.runner`), `trickarena bot check` (`harness.botcheck`) and `trickarena play`
(`harness.localplay`, through `bots.arena`'s clock), so that the three judge a bot's time alike.

The rules:

- A `/move` call is bounded by the **deadline** plus what is left of the seat's **time bank**
  (`TimePolicy.move_timeout_s`). The bank is per seat and per match (one game).
- An answer slower than the deadline takes the excess, in whole milliseconds, from the bank
  (`TimePolicy.charge`); an answer past deadline + bank is a **timeout** fault and leaves the bank
  empty, so from then on every answer slower than the deadline is a timeout too.
- An accepted answer slower than `slow_share` of the deadline is **slow**: no fault, but a warning
  of `bot check` (a loaded machine may push it past the deadline).
- `/start` and `/end` answers are ignored; the platform waits for them `min(notify, deadline)`.
- `TimePolicy.first_timeout` plays a sequence of answer times through one seat's bank: the
  answer that would be the first timeout, as a match would count it (bot check's projection of a
  whole game).

The numbers come from the configuration (the environment), read once at import; a tournament or
league names its own deadline and bank (`TimePolicy.of_spec`), and these are their defaults:

| setting | default | meaning |
| --- | --- | --- |
| `TRICKARENA_DEADLINE_MS` | 1000 | the per-move deadline |
| `TRICKARENA_TIME_BANK_MS` | 5000 | a seat's extra time for one match |
| `TRICKARENA_NOTIFY_TIMEOUT_MS` | 2000 | the wait for `/start` and `/end` (at most the deadline) |
| `TRICKARENA_SLOW_SHARE` | 0.5 | an answer over this share of the deadline is slow (a warning) |

Bots learn the policy from each request (`deadline_ms`, `time_bank_ms`); the bundled search bots
think a quarter of the deadline (`bots.policy.ThinkClock`, docs/bots.md, Time).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


def env_int(name: str, default: int) -> int:
    """The integer setting `name` of the environment; unset or empty: `default`."""
    return int(os.environ.get(name, "") or default)


def env_float(name: str, default: float) -> float:
    """The number setting `name` of the environment; unset or empty: `default`."""
    return float(os.environ.get(name, "") or default)


DEADLINE_MS = env_int("TRICKARENA_DEADLINE_MS", 1000)
TIME_BANK_MS = env_int("TRICKARENA_TIME_BANK_MS", 5000)
NOTIFY_TIMEOUT_MS = env_int("TRICKARENA_NOTIFY_TIMEOUT_MS", 2000)
SLOW_SHARE = env_float("TRICKARENA_SLOW_SHARE", 0.5)


@dataclass(frozen=True)
class TimePolicy:
    """How long a bot may take: one match's deadline and bank, and the shared thresholds."""

    deadline_ms: int = DEADLINE_MS
    time_bank_ms: int = TIME_BANK_MS
    notify_timeout_ms: int = NOTIFY_TIMEOUT_MS
    slow_share: float = SLOW_SHARE

    @classmethod
    def of_spec(cls, spec: Mapping[str, Any]) -> TimePolicy:
        """The policy of a tournament (or league round) spec: its `deadline_ms` and `time_bank_ms`."""
        return cls(int(spec["deadline_ms"]), int(spec["time_bank_ms"]))

    @property
    def longest_move_ms(self) -> int:
        """The longest a single /move call can last: the deadline plus a full bank."""
        return self.deadline_ms + self.time_bank_ms

    def move_timeout_s(self, bank_ms: int) -> float:
        """The bound of a /move call of a seat with `bank_ms` left in its bank."""
        return (self.deadline_ms + max(0, bank_ms)) / 1000

    def notify_timeout_s(self) -> float:
        """The bound of a /start or /end call (answers ignored): the notify wait, at most the deadline."""
        return min(self.notify_timeout_ms, self.deadline_ms) / 1000

    def over_ms(self, elapsed_s: float) -> int:
        """Whole milliseconds an answer of `elapsed_s` came after the deadline (0 if in time)."""
        return max(0, int(elapsed_s * 1000) - self.deadline_ms)

    def charge(self, bank_ms: int, elapsed_s: float) -> int:
        """The bank left after an answer of `elapsed_s` (its time past the deadline taken off)."""
        return max(0, bank_ms - self.over_ms(elapsed_s))

    def times_out(self, bank_ms: int, elapsed_s: float) -> bool:
        """Whether an answer of `elapsed_s` is a timeout for a seat with `bank_ms` left."""
        return elapsed_s > self.move_timeout_s(bank_ms)

    def is_slow(self, elapsed_s: float) -> bool:
        """Whether an accepted answer is slow enough to warn about (over `slow_share` of the deadline)."""
        return elapsed_s * 1000 > self.slow_share * self.deadline_ms

    def first_timeout(self, answers_s: Iterable[float]) -> tuple[int, int] | None:
        """Answers of these times, in order, by one seat in one match: (the index of the first that
        would time out, the bank left before it), or None if every one comes in time."""
        bank = self.time_bank_ms
        for i, elapsed in enumerate(answers_s):
            if self.times_out(bank, elapsed):
                return i, bank
            bank = self.charge(bank, elapsed)
        return None

    def clock(self, seats: int) -> MatchClock:
        """Fresh banks for the seats of one match."""
        return MatchClock(self, [self.time_bank_ms] * seats)


@dataclass
class MatchClock:
    """The seats' banks during one match (what `bots.arena.play_game` asks before and after each
    /move: `bots.arena.MoveClock`)."""

    policy: TimePolicy
    banks: list[int]

    @property
    def deadline_ms(self) -> int:
        """The per-move deadline."""
        return self.policy.deadline_ms

    def bank_ms(self, seat: int) -> int:
        """What is left of the seat's bank."""
        return self.banks[seat]

    def timeout_s(self, seat: int) -> float:
        """The bound of the seat's next /move call."""
        return self.policy.move_timeout_s(self.banks[seat])

    def notify_timeout_s(self) -> float:
        """The bound of a /start or /end call."""
        return self.policy.notify_timeout_s()

    def spend(self, seat: int, elapsed_s: float) -> None:
        """Take an answer's time past the deadline from the seat's bank."""
        self.banks[seat] = self.policy.charge(self.banks[seat], elapsed_s)


DEFAULT = TimePolicy()
