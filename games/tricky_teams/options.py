"""Options of Tricky Teams: defaults, JSON Schema and validation (raises InvalidOptions)."""

from __future__ import annotations

from typing import Any

from games.base import InvalidOptions, is_int
from games.tricky_teams.cards import DEFAULT_COINS, TEAM_NAMES

SEAT_COUNTS: tuple[int, ...] = (3, 4, 5, 6)
DEFAULT_RAIDS = 4
MAX_RAIDS = 20
MAX_COINS_PER_CARD = 100


def default_options(seats: int) -> dict[str, Any]:
    """The default options (the same for every seat count)."""
    check_seats(seats)
    return {"raids": DEFAULT_RAIDS, "coins": dict(DEFAULT_COINS)}


def options_schema() -> dict[str, Any]:
    """JSON Schema of the options; the coin table may be given partially (missing ranks keep defaults)."""
    rank_props = {
        rank: {"type": "integer", "minimum": 0, "maximum": MAX_COINS_PER_CARD, "default": value}
        for rank, value in DEFAULT_COINS.items()
    }
    teams = ", ".join(f"{team} = {name}" for team, name in TEAM_NAMES.items())
    return {
        "type": "object",
        "additionalProperties": False,
        "description": f"Tricky Teams options. Teams: {teams}.",
        "properties": {
            "raids": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_RAIDS,
                "default": DEFAULT_RAIDS,
                "description": "Number of raids (deals) in the game.",
            },
            "coins": {
                "type": "object",
                "additionalProperties": False,
                "properties": rank_props,
                "default": dict(DEFAULT_COINS),
                "description": "Silver coins per card rank ('0' is a white flag, '5' a Countess).",
            },
        },
    }


def check_seats(seats: object) -> int:
    """Reject a seat count other than 3, 4, 5 or 6."""
    if not is_int(seats) or seats not in SEAT_COUNTS:
        raise InvalidOptions(f"Tricky Teams is played by 3, 4, 5 or 6 players, not {seats!r}")
    return seats


def normalize_options(seats: int, options: dict[str, Any] | None) -> dict[str, Any]:
    """Validated options with every default filled in (stored in the header as-is)."""
    out = default_options(seats)
    if options is None:
        return out
    if not isinstance(options, dict):
        raise InvalidOptions("options must be a JSON object")
    unknown = sorted(set(options) - {"raids", "coins"})
    if unknown:
        raise InvalidOptions(f"unknown option(s) {unknown}; known: ['coins', 'raids']")
    if "raids" in options:
        raids = options["raids"]
        if not is_int(raids) or not 1 <= raids <= MAX_RAIDS:
            raise InvalidOptions(f"raids must be an integer from 1 to {MAX_RAIDS}, not {raids!r}")
        out["raids"] = raids
    if "coins" in options:
        out["coins"].update(_coin_table(options["coins"]))
    return out


def _coin_table(coins: object) -> dict[str, int]:
    if not isinstance(coins, dict):
        raise InvalidOptions("coins must be an object mapping a rank ('0'..'10') to coins")
    table: dict[str, int] = {}
    for rank, value in coins.items():
        if rank not in DEFAULT_COINS:
            raise InvalidOptions(f"coins: unknown rank {rank!r}; ranks are '0'..'10'")
        if not is_int(value) or not 0 <= value <= MAX_COINS_PER_CARD:
            raise InvalidOptions(f"coins[{rank!r}] must be an integer from 0 to {MAX_COINS_PER_CARD}")
        table[rank] = value
    return table
