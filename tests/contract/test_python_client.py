"""A Python client generated from openapi.yaml with openapi-python-client plays whole games.

Rule pinned: the committed spec is complete enough for a generated, typed client to play every
game to the end by legal moves only, against a real server on loopback (no hand-written HTTP).
"""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.ops.conftest import GAME_SEATS, Served

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "trick_arena_client"
MAX_MOVES = 2000


@pytest.fixture(scope="module")
def client_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ModuleType]]:
    """Generate the client into a temp dir and import the modules the game needs."""
    out = tmp_path_factory.mktemp("client")
    generator = Path(sys.executable).parent / "openapi-python-client"
    done = subprocess.run(
        [
            str(generator),
            "generate",
            "--path",
            str(ROOT / "openapi.yaml"),
            "--meta",
            "none",
            "--output-path",
            str(out / PACKAGE),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    sys.path.insert(0, str(out))
    try:
        modules = {
            name: importlib.import_module(f"{PACKAGE}.{name}")
            for name in (
                "client",
                "models",
                "api.games.create_game",
                "api.games.get_game",
                "api.games.list_legal_moves",
                "api.games.post_move",
                "api.games.get_replay",
            )
        }
        yield modules
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def create_body_model(create_game: ModuleType, game: str) -> Any:
    """The generated createGame body model of `game` (the spec types the body per game: a union)."""
    camel = "".join(part.capitalize() for part in game.split("-"))  # tricky-teams -> TrickyTeams
    options = typing.get_args(typing.get_type_hints(create_game.sync)["body"])
    found = [model for model in options if camel in model.__name__]
    assert len(found) == 1, f"one createGame body model for {game}, found {found}"
    return found[0]


@pytest.mark.parametrize("game", sorted(GAME_SEATS))
def test_generated_client_plays_a_whole_game_by_legal_moves(
    game: str, served: Served, client_package: dict[str, ModuleType]
) -> None:
    """Rule: createGame, then per turn listLegalMoves and postMove of one of them, until finished."""
    m = client_package
    anonymous = m["client"].Client(base_url=served.base)
    model = create_body_model(m["api.games.create_game"], game)
    body = model.from_dict({"game": game, "seats": GAME_SEATS[game], "seed": 42})
    created = m["api.games.create_game"].sync(client=anonymous, body=body)
    assert isinstance(created, m["models"].CreatedGame), created
    authenticated = m["client"].AuthenticatedClient
    seats = {t.seat: authenticated(base_url=served.base, token=t.token) for t in created.tokens}
    rng = random.Random(7)
    moves = 0
    while True:
        spectator = m["api.games.get_game"].sync(created.game_id, client=anonymous)
        assert isinstance(spectator, m["models"].Game), spectator
        if spectator.status.value == "finished":
            break
        to_move: list[int] = list(spectator.view.to_move)
        assert to_move, "an unfinished game always has a seat to move"
        seat = to_move[0]
        legal: Any = m["api.games.list_legal_moves"].sync(created.game_id, client=seats[seat])
        assert isinstance(legal, m["models"].LegalMoves), legal
        move = rng.choice(legal.legal_moves)
        # If-Match: this move is for the version decided on (a repeat of the seat's own last move,
        # such as drawing a second level-3 task, is then not taken for a duplicate).
        version = f'"{spectator.version}"'
        after = m["api.games.post_move"].sync(
            created.game_id, client=seats[seat], body=move, if_match=version
        )
        assert isinstance(after, m["models"].Game), f"{move!r} was refused: {after!r}"
        moves += 1
        assert moves < MAX_MOVES
    replay = m["api.games.get_replay"].sync(created.game_id, client=anonymous)
    assert isinstance(replay, m["models"].Replay), replay
    assert len(replay.actions) == moves
    assert len(replay.result.to_dict()["scores"]) == GAME_SEATS[game]
