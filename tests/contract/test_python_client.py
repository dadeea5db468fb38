"""A Python client generated from openapi.yaml with openapi-python-client plays whole games.

Rule pinned: the committed spec gives a generated, typed client one class per game for its games,
views, moves and replays (`TrickyTeamsGame`, `TrickNTroublePlayMove`, ...), enough to play every
game to the end by legal moves only through the game's own move operation, against a real server on
loopback (no hand-written HTTP); every answer validates against the spec (Ajv, src/validate.ts).
"""

from __future__ import annotations

import importlib
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.api.conftest import LiveServer
from tests.contract.conftest import ROOT, run

PACKAGE = "trick_arena_client"
MAX_MOVES = 2000
SEATS = {"tricky-teams": 4, "trick-n-trouble": 3}
PREFIX = {"tricky-teams": "TrickyTeams", "trick-n-trouble": "TrickNTrouble"}
OPERATIONS = {
    "create_game": ("POST", "/games"),
    "get_game": ("GET", "/games/{game_id}"),
    "list_legal_moves": ("GET", "/games/{game_id}/legal-moves"),
    "post_tricky_teams_move": ("POST", "/games/{game_id}/tricky-teams/moves"),
    "post_trick_n_trouble_move": ("POST", "/games/{game_id}/trick-n-trouble/moves"),
    "get_game_events": ("GET", "/games/{game_id}/events"),
    "get_replay": ("GET", "/games/{game_id}/replay"),
}


@pytest.fixture(scope="module")
def client_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ModuleType]]:
    """Generate the client into a temp dir and import the modules the games need."""
    out = tmp_path_factory.mktemp("client")
    generator = Path(sys.executable).parent / "openapi-python-client"
    done = subprocess.run(
        [str(generator), "generate", "--path", str(ROOT / "openapi.yaml"), "--meta", "none"]
        + ["--output-path", str(out / PACKAGE)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    sys.path.insert(0, str(out))
    try:
        names = ["client", "models", *(f"api.games.{name}" for name in OPERATIONS)]
        yield {name: importlib.import_module(f"{PACKAGE}.{name}") for name in names}
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


class Recorder:
    """Calls an operation's `sync_detailed` and keeps every answer for the spec validator."""

    def __init__(self, modules: dict[str, ModuleType]) -> None:
        self.modules = modules
        self.answers: list[dict[str, Any]] = []

    def __call__(self, operation: str, *args: Any, **kwargs: Any) -> Any:
        response = self.modules[f"api.games.{operation}"].sync_detailed(*args, **kwargs)
        method, path = OPERATIONS[operation]
        content_type = response.headers.get("content-type", "").split(";")[0]
        body = json.loads(response.content) if response.content else None
        self.answers.append(
            {
                "method": method,
                "path": path,
                "status": int(response.status_code),
                "contentType": content_type,
                "body": body,
            }
        )
        return response.parsed


@pytest.mark.parametrize("game", sorted(SEATS))
def test_generated_client_plays_a_whole_game_with_per_game_classes(
    game: str,
    live: LiveServer,
    client_package: dict[str, ModuleType],
    typescript_client: Path,
    spec_json: Path,
    tmp_path: Path,
) -> None:
    """Rule: createGame with the game's body class, then per turn listLegalMoves (the game's class of
    legal moves, each a move class of the game) and the game's move operation, until finished."""
    m = client_package
    models = m["models"]
    prefix = PREFIX[game]
    call = Recorder(m)
    anonymous = m["client"].Client(base_url=live.url)
    body = getattr(models, f"{prefix}NewGame").from_dict({"game": game, "seats": SEATS[game], "seed": 42})
    created = call("create_game", client=anonymous, body=body)
    assert isinstance(created, models.CreatedGame), created
    seats = {
        t.seat: m["client"].AuthenticatedClient(base_url=live.url, token=t.token) for t in created.tokens
    }
    move_classes = tuple(
        getattr(models, name) for name in dir(models) if name.startswith(prefix) and name.endswith("Move")
    )
    post = f"post_{game.replace('-', '_')}_move"
    rng = random.Random(7)
    moves = 0
    while True:
        spectator = call("get_game", created.game_id, client=anonymous)
        assert isinstance(spectator, getattr(models, f"{prefix}Game")), spectator
        assert isinstance(spectator.view, getattr(models, f"{prefix}View"))
        if spectator.status.value == "finished":
            break
        seat = spectator.view.to_move[0]
        legal = call("list_legal_moves", created.game_id, client=seats[seat])
        assert isinstance(legal, getattr(models, f"{prefix}LegalMoves")), legal
        move = rng.choice(legal.legal_moves)
        assert isinstance(move, move_classes), move
        # If-Match: this move is for the version decided on (a repeat of the seat's own last move,
        # such as drawing a second level-3 task, is then not taken for a duplicate).
        after = call(post, created.game_id, client=seats[seat], body=move, if_match=f'"{spectator.version}"')
        assert isinstance(after, getattr(models, f"{prefix}Game")), f"{move!r} was refused: {after!r}"
        moves += 1
        assert moves < MAX_MOVES
    events = call("get_game_events", created.game_id, client=anonymous)
    assert isinstance(events, getattr(models, f"{prefix}EventList")), events
    replay = call("get_replay", created.game_id, client=anonymous)
    assert isinstance(replay, getattr(models, f"{prefix}Replay")), replay
    assert len(replay.actions) == moves
    assert isinstance(replay.result, getattr(models, f"{prefix}Result"))
    assert len(replay.result.scores) == SEATS[game]
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(call.answers))
    validated = run(["node", str(typescript_client / "validate.js"), str(spec_json), str(answers)])
    assert validated.returncode == 0, validated.stdout[-3000:] + validated.stderr[-3000:]
    assert json.loads(validated.stdout)["validated"] == len(call.answers) > 2 * moves
