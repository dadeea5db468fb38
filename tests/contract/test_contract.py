"""openapi.yaml as typed clients use it: a TypeScript client plays each game, the linters are clean.

(a) A client generated with openapi-typescript plays a whole game of each game through openapi-fetch
against a live server, type-checked with `tsc --noEmit --strict` (src/play.ts: no casts, no `any`;
its `@ts-expect-error` lines fail the check when a wrong move or field type-checks); (b) the
generated declarations are checked too (no `skipLibCheck`) and compile on their own; (c) Redocly's
`recommended` and Spectral's `spectral:oas` rulesets report nothing but the documented exceptions
(.redocly.lint-ignore.yaml, .spectral.yaml); (d) every answer of the plays validates against the
spec (Ajv, src/validate.ts).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.api.conftest import LiveServer
from tests.contract.conftest import HERE, run

GAMES = ["tricky-teams", "trick-n-trouble"]


def _code(source: str) -> str:
    """TypeScript source without comments and string literals."""
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    source = re.sub(r"//[^\n]*", "", source)
    return re.sub(r"`(?:\\.|[^`\\])*`|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'", '""', source)


def test_the_typescript_program_has_no_casts_and_no_any() -> None:
    """Rule: the types do the work: no `as`, no `any`, no non-null assertion in the test program."""
    for path in sorted((HERE / "src").glob("*.ts")):
        code = _code(path.read_text())
        assert not re.search(r"\bas\s+(?!const\b)[\w{[(]", code), f"a cast in {path.name}"
        assert not re.search(r"\bany\b", code), f"`any` in {path.name}"
        assert not re.search(r"[\w)\]]!(?=[.;,)\[])", code), f"a non-null assertion in {path.name}"


def test_the_type_check_covers_the_generated_declarations() -> None:
    """Rule: tsconfig.json never turns on `skipLibCheck`: with it, tsc does not check the declaration
    file openapi-typescript writes (generated/schema.d.ts), and a type error there (TS2502 on a
    recursive schema) passes unseen; a client compiling without the flag would hit it."""
    options = json.loads((HERE / "tsconfig.json").read_text())["compilerOptions"]
    assert options.get("strict") is True
    assert "skipLibCheck" not in options and "skipDefaultLibCheck" not in options, options


def test_the_generated_declarations_compile_alone_under_strict(
    typescript_client: Path, node_packages: Path
) -> None:
    """Rule: openapi-typescript's output for openapi.yaml, on its own, compiles with `tsc --strict`
    (no tsconfig, library checks on): every schema, the recursive JSON ones included, is a type."""
    options = ["--noEmit", "--strict", "--target", "ES2022", "--module", "NodeNext", "--types", "node"]
    checked = run([str(node_packages / "tsc"), *options, "generated/schema.d.ts"])
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("game", GAMES)
def test_typescript_client_plays_a_whole_game(
    game: str, typescript_client: Path, spec_json: Path, live: LiveServer
) -> None:
    """Rule: createGame, joinGame, getGame narrowed by `game`, listLegalMoves, the game's own move
    operation and postMove with a listed move, events, the stream, replay, typed errors: every answer
    valid."""
    played = run(["node", str(typescript_client / "play.js"), live.url, str(spec_json), game], timeout=300)
    assert played.returncode == 0, played.stdout[-3000:] + played.stderr[-3000:]
    summary = played.stdout.strip()
    assert summary.startswith(f"{game}:") and "answers valid" in summary, summary
    assert int(summary.rsplit(";", 1)[1].split()[0]) > 50, summary


@pytest.mark.parametrize("game", GAMES)
def test_typescript_client_reads_a_tournaments_standings_typed(
    game: str, typescript_client: Path, spec_json: Path, live_with_workers: LiveServer
) -> None:
    """Rule: from TypeScript, with no cast: two bots served on the spec's `webhooks` types (the bot
    protocol) are submitted (createBot), play a tournament of the game on a real worker
    (createTournament with the game's options, getTournament), and its standings read typed (rows,
    head-to-head or cross-play and compositions, faults); every answer valid."""
    played = run(
        ["node", str(typescript_client / "tournament.js"), live_with_workers.url, str(spec_json), game],
        timeout=240,
    )
    assert played.returncode == 0, played.stdout[-3000:] + played.stderr[-3000:]
    summary = played.stdout.strip()
    assert summary.startswith(f"{game}:") and "answers valid" in summary and "moves served" in summary, (
        summary
    )
    print(summary)
    matrix = "cross-play" if game == "trick-n-trouble" else "head-to-head"
    assert matrix in summary and int(summary.split(": ", 1)[1].split()[0]) > 0, summary


def test_redocly_recommended_reports_nothing(node_packages: Path) -> None:
    """Rule: `redocly lint` with the recommended ruleset: 0 errors, 0 warnings (documented ignores only)."""
    linted = run([str(node_packages / "redocly"), "lint", "--config", "redocly.yaml", "../../openapi.yaml"])
    output = linted.stdout + linted.stderr
    assert linted.returncode == 0 and "Your API description is valid" in output, output[-4000:]
    assert not re.search(r"You have \d+ warning", output), output[-4000:]


def test_spectral_oas_reports_nothing(node_packages: Path) -> None:
    """Rule: `spectral lint` with spectral:oas: no error, warning, info or hint (documented overrides
    only)."""
    linted = run(
        [str(node_packages / "spectral"), "lint", "-r", ".spectral.yaml", "-D", "../../openapi.yaml"]
    )
    output = linted.stdout + linted.stderr
    assert linted.returncode == 0 and "No results" in output, output[-4000:]
