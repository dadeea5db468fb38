"""Bundled bot rules: reproducible random choices, bounded per-seat match memory, every game served."""

from __future__ import annotations

from typing import Any

import pytest

from bots.bundled import BUNDLED, MAX_MATCHES_REMEMBERED, make_bot
from games.registry import get_game


def _message(game: str, seed: int, match_id: str = "m") -> dict[str, Any]:
    engine = get_game(game)
    seats = 4 if game == "tricky-teams" else 3
    state = engine.new_game(seats, {"raids": 1} if game == "tricky-teams" else {}, seed=seed)
    seat = engine.to_move(state)[0]
    return {
        "match_id": match_id,
        "game": game,
        "seat": seat,
        "view": engine.view(state, seat),
        "legal_moves": engine.legal_moves(state, seat),
        "deadline_ms": 50,
        "time_bank_ms": 0,
    }


@pytest.mark.parametrize("name", sorted(BUNDLED))
@pytest.mark.parametrize("game", ["tricky-teams", "trick-n-trouble"])
def test_rule_every_bundled_bot_plays_both_games_legally(name: str, game: str) -> None:
    """Rule: each bundled bot lists both games and answers a legal move for each."""
    bot = make_bot(name)
    assert set(bot.info()["games"]) == {"tricky-teams", "trick-n-trouble"}
    message = _message(game, 3)
    assert bot.move(message) in message["legal_moves"]


def test_rule_random_bot_is_reproducible_from_match_and_seat() -> None:
    """Rule: the random bot's choice depends only on match id, seat and view: same request, same move."""
    choices = {}
    for match in ("a", "b", "c", "d", "e", "f"):
        message = _message("tricky-teams", 7, match)
        first = make_bot("random").move(message)
        assert all(make_bot("random").move(message) == first for _ in range(3))
        choices[match] = first["card"]
    assert len(set(choices.values())) > 1  # different matches do not all play alike


def test_rule_match_memory_is_per_seat_and_bounded() -> None:
    """Rule: memory is kept per (match, seat), created even when /start was missed, at most 256 of them."""
    bot = make_bot("search")
    one, other = bot.memory_for("m", 0), bot.memory_for("m", 1)
    assert one is not other and bot.memory_for("m", 0) is one
    for i in range(MAX_MATCHES_REMEMBERED + 10):
        bot.memory_for(f"x{i}", 0)
    assert len(bot._memory) == MAX_MATCHES_REMEMBERED
    assert bot.memory_for("m", 0) is not one  # the oldest were forgotten
    bot.start({"match_id": "s", "seat": 2})
    bot.memory_for("s", 2)["k"] = 1
    bot.end({"match_id": "s", "seat": 2})
    assert bot.memory_for("s", 2) == {}
