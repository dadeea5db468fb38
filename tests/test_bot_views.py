"""docs/bot-views.md: the annotated `POST /move` body of every decision type, generated (drift fails)."""

from __future__ import annotations

import json
import re
from typing import Any

from bench.bot_views import DOC, WHEN, decision_key, first_decisions, generate, with_generated
from games.registry import GAMES
from harness.botcheck import decision_samples


def test_committed_bot_views_match_the_code() -> None:
    """Rule: docs/bot-views.md is what `python bench/bot_views.py --write` writes now."""
    doc = DOC.read_text()
    assert doc == with_generated(doc, generate())


def test_every_decision_type_the_check_samples_has_its_view() -> None:
    """Rule: every decision type `trickarena bot check` sends a bot is shown, each as the runner's
    own /move body of that seat (the engine's view for that seat and its legal moves)."""
    for name in GAMES:
        found = first_decisions(name)
        assert {f.key for f in found} == {f"{name}/{s.decision}" for s in decision_samples(name)}
        for f in found:
            message = f.message
            assert message["game"] == name and message["view"]["seat"] == message["seat"]
            assert message["legal_moves"] == message["view"]["legal_moves"] and message["legal_moves"]
    assert {f.key for name in GAMES for f in first_decisions(name)} == set(WHEN)


def test_an_optional_move_field_makes_its_own_decision_type() -> None:
    """Rule: a decision whose moves of one type differ by an optional field (a Hypnotist's `wish`)
    is its own type; moves of different types with different fields are not."""
    plain = [{"type": "play", "card": "a"}, {"type": "play", "card": "b"}]
    wish = plain + [{"type": "play", "card": "a", "wish": {"seat": 1}}]
    switch: list[dict[str, Any]] = [{"type": "keep-tasks"}, {"type": "switch-task", "task": "t", "level": 1}]
    view = {"phase": "p"}
    game = sorted(GAMES)[0]
    assert decision_key(game, view, plain) == f"{game}/p"
    assert decision_key(game, view, wish) == f"{game}/p+wish"
    assert decision_key(game, view, switch) == f"{game}/p"


def test_the_views_shown_hide_the_other_seats_cards() -> None:
    """Rule: a view shown is only what its seat may see: no card held by another seat (and not in
    the seat's own hand, passed on by it, nor shown to a spectator) appears anywhere in the /move
    body; the view is the engine's view for that seat."""
    checked = 0
    for name, game in GAMES.items():
        for found in first_decisions(name):
            seat = found.message["seat"]
            assert found.message["view"] == game.view(found.state, seat)
            spectator = json.dumps(game.view(found.state, None))
            visible = {m.group(0) for m in re.finditer(game.card_pattern.strip("^$"), spectator)}
            mine = game.view(found.state, seat)
            # Its hand, and a card it passed on (Trick 'n Trouble) it knows where it went.
            own = set(mine["hand"]) | {mine.get("passed")}
            others = {
                card
                for other in range(found.seats)
                if other != seat
                for card in game.view(found.state, other)["hand"]
            }
            hidden = others - own - visible
            assert hidden, found.key  # other seats hold cards nobody else may see
            body = json.dumps(found.message)
            checked += 1
            assert [card for card in hidden if f'"{card}"' in body] == [], found.key
    assert checked == len(WHEN)
