"""A Python client generated from openapi.yaml with openapi-python-client plays whole games.

Rule pinned: the committed spec gives a generated, typed client one class per game for its games,
views, moves and replays (`TrickyTeamsGame`, `TrickNTroublePlayMove`, ...), enough to play every
game to the end by legal moves only through the game's own move operation, against a real server on
loopback (no hand-written HTTP); every answer validates against the spec (Ajv, src/validate.ts).
The generator reports no warning and drops no schema (the recursive JSON values of listGameTypes'
options schemas included).
"""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML is not a dependency)

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


@dataclass(frozen=True)
class Generated:
    """The client openapi-python-client wrote: its folder (holding the package) and what it printed."""

    folder: Path
    output: str


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    """Generate the client into a temp dir, with the generator's own post-processing (ruff, from this
    virtualenv) on PATH so that it runs rather than being reported as skipped."""
    out = tmp_path_factory.mktemp("client")
    bindir = Path(sys.executable).parent
    done = subprocess.run(
        [str(bindir / "openapi-python-client"), "generate", "--path", str(ROOT / "openapi.yaml")]
        + ["--meta", "none", "--output-path", str(out / PACKAGE)],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "PATH": os.pathsep.join([str(bindir), os.environ.get("PATH", "")])},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return Generated(out, done.stdout + done.stderr)


@pytest.fixture(scope="module")
def client_package(generated: Generated) -> Iterator[dict[str, ModuleType]]:
    """The generated package's modules the games need, imported."""
    sys.path.insert(0, str(generated.folder))
    try:
        names = [
            "client",
            "models",
            "api.games.list_game_types",
            *(f"api.games.{name}" for name in OPERATIONS),
        ]
        yield {name: importlib.import_module(f"{PACKAGE}.{name}") for name in names}
    finally:
        sys.path.remove(str(generated.folder))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def test_the_generator_reports_nothing(generated: Generated) -> None:
    """Rule: openapi-python-client generates the client from openapi.yaml without a single warning (no
    "Unable to parse", no schema removed, no step skipped): its output is its "Generating" line."""
    lines = [line for line in generated.output.splitlines() if line.strip()]
    assert lines == [f"Generating {generated.folder / PACKAGE}"], generated.output[-4000:]


def test_every_object_and_enum_schema_is_a_class(client_package: dict[str, ModuleType]) -> None:
    """Rule: each component schema of openapi.yaml that is an object or an enum is a class of the
    generated models under its own name (JsonSchema, JsonObject, TrickyTeamsGameType,
    TrickNTroubleGameType among them), an object that is also a oneOf/anyOf (createLeague's one of
    `interval_s` and `cron`) one class per alternative (`CreateLeagueType0`, ...): none is dropped."""
    schemas = yaml.safe_load((ROOT / "openapi.yaml").read_text())["components"]["schemas"]
    expected: list[str] = []
    for name, schema in schemas.items():
        if schema.get("type") == "object" or "enum" in schema:
            alternatives = schema.get("oneOf") or schema.get("anyOf") or []
            expected += [f"{name}Type{i}" for i in range(len(alternatives))] or [name]
    assert {"JsonSchema", "JsonObject", "TrickyTeamsGameType", "TrickNTroubleGameType"} <= set(expected)
    models = client_package["models"]
    assert [name for name in expected if not isinstance(getattr(models, name, None), type)] == []


def test_the_game_types_read_back_whole(live: LiveServer, client_package: dict[str, ModuleType]) -> None:
    """Rule: listGameTypes read with the generated client is typed through and through (each game its
    GameType class, its options schema a JsonSchema whose JSON values, defaults and enums, keep their
    shape), and written back it is the server's answer exactly: nothing is lost to an untyped part."""
    models = client_package["models"]
    anonymous = client_package["client"].Client(base_url=live.url)
    response = client_package["api.games.list_game_types"].sync_detailed(client=anonymous)
    listed = response.parsed
    assert isinstance(listed, models.GameTypeList), listed
    assert {type(game).__name__ for game in listed.games} == {f"{p}GameType" for p in PREFIX.values()}
    for game in listed.games:
        assert isinstance(game.options_schema, models.JsonSchema)
        assert isinstance(game.options_schema.properties, models.JsonSchemaProperties)
    assert listed.to_dict() == json.loads(response.content)


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
