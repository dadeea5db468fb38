"""The service layer without HTTP, as the tournament match runner uses it."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from core import errors
from core.repository import GameRepository
from core.service import GameService


@pytest.fixture()
def service(redis_url: str, key_prefix: str) -> GameService:
    """A GameService on the test Redis under the test's prefix."""
    return GameService(GameRepository.from_url(redis_url, prefix=key_prefix))


def test_service_plays_a_whole_game_by_seat(service: GameService) -> None:
    """Rule: create_game / legal_moves / apply_move / view work with plain seats (no tokens, no Flask)."""
    created = service.create_game("trick-n-trouble", 3, seed=21)
    rng = random.Random(21)
    version = created.version
    while True:
        spectator = service.view(created.game_id)
        if spectator["status"] == "finished":
            break
        seat = rng.choice(spectator["view"]["to_move"])
        listed_version, moves = service.legal_moves(created.game_id, seat)
        assert listed_version == version
        stored, events = service.apply_move(
            created.game_id, seat, rng.choice(moves), expected_version=version
        )
        assert stored.version == version + 1 and isinstance(events, list)
        version = stored.version
    assert service.replay(created.game_id)["result"] == spectator["view"]["result"]


@pytest.mark.parametrize(
    ("call", "error", "code"),
    [
        (lambda s, g: s.apply_move(g, None, {"type": "keep-tasks"}), errors.MissingToken, "missing_token"),
        (lambda s, g: s.apply_move(g, 7, {"type": "keep-tasks"}), errors.Unprocessable, "invalid_seat"),
        (
            lambda s, g: s.apply_move(g, 0, {"type": "keep-tasks"}, expected_version=9),
            errors.PreconditionFailed,
            "stale_version",
        ),
        (lambda s, g: s.view("ffffffffffffffff"), errors.GameNotFound, "game_not_found"),
        (lambda s, g: s.seat_for(g, "not-a-token"), errors.InvalidToken, "invalid_token"),
        (lambda s, g: s.create_game("trick-n-trouble", 4), errors.Unprocessable, "invalid_seats"),
        (lambda s, g: s.join_game(g), errors.Conflict, "seat_taken"),
    ],
)
def test_service_errors_carry_code_and_status(
    service: GameService,
    call: Callable[[GameService, str], object],
    error: type[errors.ServiceError],
    code: str,
) -> None:
    """Rule: the service raises typed errors with machine-readable codes (the HTTP layer only maps them)."""
    game_id = service.create_game("trick-n-trouble", 3, seed=1).game_id
    with pytest.raises(error) as raised:
        call(service, game_id)
    assert raised.value.code == code and 400 <= raised.value.status < 500
