"""The `trickarena` commands over the HTTP API, as a user runs them: real processes, the real API
app served on loopback, real workers and real HTTP bots; errors are one friendly line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
from werkzeug.serving import make_server

from api.app import create_app
from bots.bundled import GAME_NAMES as GAMES
from bots.bundled import make_bot
from bots.sdk import SECRET_ENV, SECRET_FILE_ENV, BotServer, new_secret
from core.bot_registry import BotRegistry
from harness.client_cli import PAGE
from harness.runner import HarnessContext

from .bot_servers import FaultyBotServer, refused_url
from .conftest import ROOT, WorkerProcs


@pytest.fixture()
def api_base(ctx: HarnessContext) -> Iterator[str]:
    """The API app on a free loopback port, on the test's Redis prefix and queue."""
    app = create_app(
        {
            "REDIS_URL": ctx.redis_url,
            "TRICKARENA_KEY_PREFIX": ctx.store.prefix,
            "TRICKARENA_QUEUE": ctx.queue_name,
        }
    )
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=10)


class Cli:
    """`python -m harness.cli` with the API's URL in $TRICKARENA_API and a config dir of its own."""

    def __init__(self, api: str, home: Path) -> None:
        dropped = ("REDIS_URL", SECRET_ENV, SECRET_FILE_ENV, "TRICKARENA_OWNER_KEY")
        self.env = {k: v for k, v in os.environ.items() if k not in dropped}
        self.env.update(
            {"TRICKARENA_API": api, "TRICKARENA_CONFIG": str(home / "config.toml"), "PYTHONPATH": str(ROOT)}
        )
        self.home = home

    def __call__(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "harness.cli", *args],
            cwd=self.home,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def ok(self, *args: str, timeout: float = 120) -> str:
        """Run; assert exit 0; stdout."""
        run = self(*args, timeout=timeout)
        assert run.returncode == 0, f"{args}: {run.stdout}\n{run.stderr}"
        return run.stdout

    def json(self, *args: str) -> dict[str, object]:
        """Run with --json; the parsed answer."""
        return json.loads(self.ok(*args, "--json"))  # type: ignore[no-any-return]


@pytest.fixture()
def cli(api_base: str, tmp_path: Path) -> Cli:
    """The CLI pointed at the test's API."""
    return Cli(api_base, tmp_path)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _register(cli: Cli, name: str, *extra: str) -> tuple[str, BotServer]:
    """`bot add` a bundled random bot served unsigned, then serve it with the secret the API gave."""
    unsigned = BotServer(make_bot("random"), None).start()
    secret_file = cli.home / f"{name}.secret"
    try:
        out = cli.ok(
            "bot", "add", "--name", name, "--url", unsigned.url, "--game", "trick-n-trouble",
            "--secret-file", str(secret_file), *extra,
        )  # fmt: skip
    finally:
        unsigned.stop()
    bot_id = out.split(" as bot ", 1)[1].split()[0]
    signed = BotServer(make_bot("random"), secret_file.read_text().strip(), port=unsigned.port).start()
    return bot_id, signed


@pytest.mark.timeout(240)
def test_bots_and_a_tournament_through_the_api(cli: Cli, workers: WorkerProcs) -> None:
    """Rule: bot add/list/show/update/delete and tournament create --follow/show/cancel speak to the
    API; owner keys are kept in the keys file (0600) and used without being typed again."""
    suffix = uuid.uuid4().hex[:6]
    mine, mine_server = _register(cli, f"mine-{suffix}")
    other, other_server = _register(cli, f"other-{suffix}", "--open")
    try:
        keys = cli.home / "keys.toml"
        assert keys.stat().st_mode & 0o777 == 0o600
        assert mine in keys.read_text() and other in keys.read_text()
        listed = cli.ok("bot", "list", "--game", "trick-n-trouble")
        assert mine in listed and all(len(line) <= 80 for line in listed.splitlines())
        shown = cli.json("bot", "show", mine)
        assert shown["open"] is False
        assert cli.json("bot", "update", mine, "--open")["open"] is True
        workers.start()
        followed = cli.ok(
            "tournament", "create", "--game", "trick-n-trouble", "--seats", "3", "--entrant", mine,
            "--entrant", other, "--seed", "4", "--follow", "--timeout", "150", "--json", timeout=200,
        )  # fmt: skip
        final = json.loads(followed.strip().splitlines()[-1])  # --json: the machine line at the end
        assert final["status"] == "finished"
        tid = str(final["tournament_id"])
        listed = cli.ok("tournament", "list", "--game", "trick-n-trouble", "--status", "finished")
        assert tid in listed and all(len(line) <= 80 for line in listed.splitlines())
        assert [t["tournament_id"] for t in cli.json("tournament", "list", "--limit", "1")] == [tid]  # type: ignore[index]
        table = cli.ok("tournament", "show", tid)
        assert "trick-n-trouble — standings (final)" in table
        assert f"mine-{suffix}" in table
        doc = cli.json("tournament", "show", tid)
        assert {r["entrant"] for r in doc["standings"]["rows"]} == {mine, other}  # type: ignore[index]
        later = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
        scheduled = cli.json(
            "tournament", "create", "--game", "trick-n-trouble", "--seats", "3", "--entrant", mine,
            "--entrant", other, "--start-at", later, "--name", f"Later {suffix}",
        )  # fmt: skip
        assert scheduled["name"] == f"Later {suffix}"
        assert f"Later {suffix}" in cli.ok("tournament", "list", "--status", "scheduled")
        cancelled = cli.json("tournament", "cancel", str(scheduled["tournament_id"]))
        assert cancelled["status"] == "cancelled"
        assert "deleted bot" in cli.ok("bot", "delete", other)
    finally:
        mine_server.stop()
        other_server.stop()


@pytest.mark.timeout(300)
def test_the_cli_names_every_bots_fault_reasons_and_ends_a_follow_with_a_summary(
    cli: Cli, ctx: HarnessContext, workers: WorkerProcs, api_base: str
) -> None:
    """Rule: `tournament create --follow`, `tournament follow` and `tournament show` name each
    faulting bot's faults by reason in plain words (harness.faults), and a follow ends with a summary
    in words (winner, standings, faults with reasons, the web page), not a JSON line; `--json` keeps
    the machine line."""
    tag = uuid.uuid4().hex[:6]
    good = BotServer(make_bot("random"), None).start()
    wrong = BotServer(make_bot("random"), "not-the-secret").start()  # answers 401 bad_signature
    slow = FaultyBotServer("slow", None, delay_s=1.5).start()  # past a 1 s deadline, no bank
    try:
        names = {"good": f"good-{tag}", "wrong": f"wrongsecret-{tag}", "slow": f"sleepy-{tag}"}
        ids = {}
        for key, server in (("good", good), ("wrong", wrong), ("slow", slow)):
            created = ctx.bots.create(names[key], server.url, list(GAMES), open_to_challenges=True)
            ids[key] = created.bot.id
            if key == "good":
                good.stop()
                good = BotServer(make_bot("random"), created.secret, port=good.port).start()
            elif key == "slow":
                slow.secret = created.secret
        workers.start()
        entrants = [arg for key in ("good", "wrong", "slow") for arg in ("--entrant", ids[key])]
        run = cli(
            "tournament", "create", "--game", "trick-n-trouble", "--seats", "3", *entrants, "--seed", "4",
            "--deadline-ms", "1000", "--time-bank-ms", "0", "--follow", "--timeout", "200", timeout=240,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
        out = run.stdout
        assert not out.strip().splitlines()[-1].startswith("{")  # no raw JSON line at the end
        flat = " ".join(out.split())  # the summary's lines are wrapped at 80 columns
        summary = flat[flat.rindex("): finished, ") :]
        tid = flat[: flat.rindex("): finished, ")].rsplit("(", 1)[1]
        assert "Winner: " in summary and "Standings: 1. " in summary
        assert f"{names['slow']}: " in summary and "timed out: is the bot slow" in summary
        assert f"{names['wrong']}: " in summary
        assert "answered 401 bad_signature: is the secret right?" in summary
        assert f"{names['good']}: " not in summary.split("Faults:", 1)[1]
        assert f"Web page: {api_base}/web/tournaments/{tid}" in summary
        shown = " ".join(cli.ok("tournament", "show", tid).split())
        assert "Faults, by reason:" in shown
        assert f"{names['slow']}: " in shown and "timed out: is the bot slow" in shown
        assert "answered 401 bad_signature: is the secret right?" in shown
        followed = cli.ok("tournament", "follow", tid)
        assert "timed out: is the bot slow" in " ".join(followed.split())
        assert "Web page: " in followed and not followed.strip().splitlines()[-1].startswith("{")
        machine = json.loads(cli.ok("tournament", "follow", tid, "--json").strip().splitlines()[-1])
        assert machine == {"tournament_id": tid, "status": "finished"}
    finally:
        for server in (good, wrong, slow):
            server.stop()


def test_a_league_through_the_api(cli: Cli) -> None:
    """Rule: league create/join/show/pause/resume/leave/delete, with the kept owner keys."""
    bot_id, server = _register(cli, f"leaguer-{uuid.uuid4().hex[:6]}")
    try:
        created = cli.json(
            "league", "create", "--game", "trick-n-trouble", "--seats", "3", "--interval-s", "3600",
            "--name", "Nightly",
        )  # fmt: skip
        lid = str(created["league_id"])
        listed = cli.ok("league", "list", "--game", "trick-n-trouble")
        assert lid in listed and "Nightly" in listed and all(len(line) <= 80 for line in listed.splitlines())
        assert bot_id in cli.json("league", "join", lid, bot_id)["members"]  # type: ignore[operator]
        assert "'Nightly'" in cli.ok("league", "show", lid)
        assert cli.json("league", "pause", lid)["status"] == "paused"
        assert cli.json("league", "resume", lid)["status"] == "active"
        assert cli.json("league", "leave", lid, bot_id)["members"] == []
        assert cli.json("league", "delete", lid)["status"] == "deleted"
    finally:
        server.stop()


def test_errors_are_one_line_with_the_apis_code(cli: Cli, tmp_path: Path) -> None:
    """Rule: a refusal prints `error: <code>: <message>` and exits 2, never a traceback."""
    missing = cli("bot", "show", "0123456789abcdef")
    assert missing.returncode == 2
    assert missing.stderr.startswith("error: bot_not_found: ") and "Traceback" not in missing.stderr
    invalid = cli("bot", "add", "--name", "x", "--url", "ftp://example.org", "--game", "tricky-teams")
    assert (invalid.returncode, invalid.stderr.split(":")[1].strip()) == (2, "invalid_url")
    keyless = cli("bot", "delete", "0123456789abcdef")
    assert keyless.returncode == 2 and keyless.stderr.startswith("error: missing_owner_key: ")
    cli.env["TRICKARENA_API"] = refused_url()
    down = cli("bot", "list")
    assert down.returncode == 2 and down.stderr.startswith("error: api_unreachable: ")
    assert len(down.stderr.strip().splitlines()) == 1


def test_a_local_replay_opens_in_the_viewer_after_upload(cli: Cli, api_base: str) -> None:
    """Rule: `trickarena play` writes getReplay's shape; `replay upload` rebuilds the very game
    through the API, whose replay then equals the file (actions, result, events)."""

    play = ["play", "tricky-teams", "--vs", "random,heuristic", "--deals", "2", "--options", '{"raids": 1}']
    with BotServer(make_bot("heuristic"), "play-secret") as bot:
        cli.env[SECRET_ENV] = "play-secret"
        summary = json.loads(cli.ok(*play, "--bot", bot.url, "--json"))
    assert summary["faults"] == 0 and summary["seats"] == 3
    games = summary["games"]
    assert [g["seat"] for g in games] == [0, 1]  # the bot takes turns at the seats
    path = cli.home / games[1]["replay"]
    local = json.loads(path.read_text())
    url = cli.ok("replay", "upload", str(path)).strip()
    assert url.startswith(f"{api_base}/web/games/")
    served = requests.get(f"{api_base}/games/{url.rsplit('/', 1)[1]}/replay", timeout=10).json()
    for field in ("game", "seats", "seed", "header", "actions", "result", "version"):
        assert served[field] == local[field], field
    assert [e["event"] for e in served["events"]] == [e["event"] for e in local["events"]]
    assert [e["id"] for e in served["events"]] == [e["id"] for e in local["events"]]
    frames = requests.get(f"{api_base}/web/data/games/{served['game_id']}/frames?seat=all", timeout=10)
    assert frames.status_code == 200


def _readme_walkthrough() -> str:
    """The shell block of README.md's "Your bot, step by step"."""
    text = (ROOT / "README.md").read_text()
    after = text[text.index("<!-- walkthrough:") :]
    return after.split("```sh\n", 1)[1].split("```", 1)[0]


def _readme_client_session() -> str:
    """The Python block of README.md's client session."""
    text = (ROOT / "README.md").read_text()
    after = text[text.index("A client session") :]
    return after.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_client_session_runs_and_names_the_version_it_answers(
    api_base: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rule (issue 24 §12): README's client sample runs as written (against the test's API): it
    plays a move and prints the trick, and its postMove sends If-Match, the ETag of the legal moves
    it read, so the same request sent again after the game moved on is 412 stale_version."""
    code = _readme_client_session()
    assert '"If-Match": legal.headers["ETag"]' in code
    namespace: dict[str, Any] = {}
    exec(code.replace('"http://127.0.0.1:8000"', repr(api_base)), namespace)  # noqa: S102 (our README)
    printed = capsys.readouterr().out.strip()
    assert printed.startswith("[") and printed != "[]", printed
    legal, url, me = namespace["legal"], namespace["url"], namespace["me"]
    version = legal.json()["version"]
    assert legal.headers["ETag"] == f'"{version}"'
    assert requests.get(url, timeout=10).json()["version"] == version + 1
    again = requests.post(
        f"{url}/moves",
        json=namespace["moves"][0],
        headers={**me, "If-Match": legal.headers["ETag"]},
        timeout=10,
    )
    assert (again.status_code, again.json()["code"]) == (412, "stale_version")


def _open_bundled(api_base: str, name: str, bot: str = "", open_: bool = True) -> BotServer:
    """A bundled bot (`bot`, default `name`) registered under `name` by someone else (its owner key
    is not in the CLI's keys file), open to challenges as `make run` serves them unless `open_` is false."""
    bot = bot or name
    unsigned = BotServer(make_bot(bot), None).start()
    try:
        body: dict[str, Any] = {"name": name, "url": unsigned.url, "games": list(GAMES), "open": open_}
        created = requests.post(f"{api_base}/bots", json=body, timeout=30)
        assert created.status_code == 201, created.text
    finally:
        unsigned.stop()
    return BotServer(make_bot(bot), created.json()["secret"], port=unsigned.port).start()


def test_league_join_adds_an_open_bundled_bot_with_the_leagues_key(cli: Cli, api_base: str) -> None:
    """Rule (issue 24 §8): `league join LEAGUE BOT` with only the league's kept owner key adds a bot
    open to challenges (a bundled bot, registered by someone else); a closed one still needs its own
    owner key (one line: entrant_not_authorized); without either key: missing_owner_key."""
    suffix = uuid.uuid4().hex[:6]
    servers = [
        _open_bundled(api_base, f"heuristic-{suffix}", "heuristic"),
        _open_bundled(api_base, f"closed-{suffix}", "random", open_=False),
    ]
    try:
        created = cli.json(
            "league", "create", "--game", "tricky-teams", "--seats", "3", "--interval-s", "3600"
        )
        lid = str(created["league_id"])
        members = cli.json("league", "join", lid, f"heuristic-{suffix}")["members"]
        assert isinstance(members, list) and len(members) == 1
        assert (
            requests.get(f"{api_base}/bots/{members[0]}", timeout=10).json()["name"] == f"heuristic-{suffix}"
        )
        closed = cli("league", "join", lid, f"closed-{suffix}")
        assert closed.returncode == 2, closed.stderr
        assert closed.stderr.startswith("error: entrant_not_authorized: ")
        (cli.home / "keys.toml").unlink()
        keyless = cli("league", "join", lid, f"heuristic-{suffix}")
        assert keyless.returncode == 2, keyless.stderr
        assert keyless.stderr.startswith("error: missing_owner_key: ")
        assert f"nor for league {lid}" in keyless.stderr
    finally:
        for server in servers:
            server.stop()


@pytest.mark.timeout(300)
def test_the_readme_walkthrough_runs_as_written(cli: Cli, api_base: str, workers: WorkerProcs) -> None:
    """Rule: README's bot section, run by bash as written (a free port for 8001, the test's API):
    check, play, register, check again, and a tournament followed to its end."""
    script = _readme_walkthrough().replace("8001", str(_free_port()))
    for link in (".venv", "bots"):
        (cli.home / link).symlink_to(Path(sys.executable).parents[1] if link == ".venv" else ROOT / link)
    bundled = [_open_bundled(api_base, name) for name in ("heuristic", "random")]
    workers.start()
    try:
        run = subprocess.run(
            ["bash", "-c", "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + script],
            cwd=cli.home,
            env=cli.env,
            capture_output=True,
            text=True,
            timeout=280,
        )
    finally:
        for server in bundled:
            server.stop()
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    out = run.stdout
    assert out.count("all good") == 2  # both checks
    assert "0 fault(s)" in out  # play
    assert "registered my-bot as bot" in out
    flat = " ".join(out.split())  # the follow ends with a summary in words, wrapped at 80 columns
    assert "): finished, " in flat and "Winner: " in flat and "Web page: " in flat
    assert len(list((cli.home / "replays").glob("tricky-teams-*.json"))) == 2


def test_register_once_check_rotate_and_every_page(cli: Cli, ctx: HarnessContext) -> None:
    """Rule (issue 18): `bot add --secret-from-env` registers a bot already running with its own
    secret (nothing to restart); `bot check-registered` has the platform call it (checkBot);
    `bot rotate-key` keeps the new owner key and writes the new secret; `bot list` follows
    `next_cursor` past the API's 100-bot page."""
    secret = new_secret()
    name = f"once-{uuid.uuid4().hex[:6]}"
    with BotServer(make_bot("random"), secret) as server:
        cli.env[SECRET_ENV] = secret
        out = cli.ok(
            "bot", "add", "--name", name, "--url", server.url, "--game", "tricky-teams", "--secret-from-env"
        )
        assert "no restart needed" in out and secret not in out
        checked = cli.ok("bot", "check-registered", name)
        assert checked.splitlines()[-1].endswith("all good"), checked
        assert all(len(line) <= 80 for line in checked.splitlines())
        both = cli("bot", "add", "--name", "x", "--url", server.url, "--game", "tricky-teams",
                   "--secret-from-env", "--secret-file", "s")  # fmt: skip
        assert both.returncode == 2 and both.stderr.startswith("error: conflicting_options: ")
    del cli.env[SECRET_ENV]
    keys = cli.home / "keys.toml"
    before = keys.read_text()
    rotated = cli.ok("bot", "rotate-key", name, "--owner-key", "--secret", "--secret-file", "new.secret")
    assert "new owner key kept" in rotated and keys.read_text() != before
    assert len((cli.home / "new.secret").read_text().strip()) == 43
    assert cli.json("bot", "show", name)["name"] == name  # the kept key still names it
    stub = BotRegistry(redis.Redis.from_url(ctx.redis_url), ctx.store.prefix)
    stub.probe = lambda url, games: {"name": "s", "author": "", "version": "1", "games": games}  # type: ignore[method-assign]
    for n in range(PAGE + 5):
        stub.create(f"page-{n}-{name}", f"http://127.0.0.1:9/page-{n}-{name}", ["tricky-teams"])
    listed = json.loads(cli.ok("bot", "list", "--json"))
    assert len(listed) == PAGE + 6 and len({b["id"] for b in listed}) == PAGE + 6


def _times(doc: object, path: str = "") -> list[tuple[str, object]]:
    """Every (path, value) of a JSON document whose key names a time (`created`, `*_at`, `*_issued`...)."""
    found: list[tuple[str, object]] = []
    if isinstance(doc, dict):
        for key, value in doc.items():
            if key in ("created", "updated", "deleted") or key.endswith(("_at", "_issued")):
                found.append((f"{path}.{key}", value))
            found += _times(value, f"{path}.{key}")
    elif isinstance(doc, list):
        for i, item in enumerate(doc):
            found += _times(item, f"{path}[{i}]")
    return found


def test_every_json_output_writes_times_as_iso_8601(cli: Cli) -> None:
    """Rule: whatever `--json` prints, its times are ISO 8601 strings (the API gives a bot's times
    in Unix seconds; the CLI converts them), bots, tournaments and leagues alike."""
    name = f"iso-{uuid.uuid4().hex[:6]}"
    _bot_id, server = _register(cli, name)
    try:
        outputs = {
            "bot show": cli.json("bot", "show", name),
            "bot list": cli.json("bot", "list"),
            "bot update": cli.json("bot", "update", name, "--open"),
            "bot rotate-key": cli.json("bot", "rotate-key", name, "--owner-key"),
            "league create": cli.json(
                "league", "create", "--game", "trick-n-trouble", "--seats", "3", "--interval-s", "3600"
            ),
            "league list": cli.json("league", "list"),
            "tournament list": cli.json("tournament", "list"),
            "bot delete": cli.json("bot", "delete", name),
        }
    finally:
        server.stop()
    for command in ("bot show", "bot update", "bot delete", "league create"):
        assert any(value is not None for _path, value in _times(outputs[command])), command
    for command, doc in outputs.items():
        for path, value in _times(doc):
            assert value is None or isinstance(value, str), (command, path, value)
            if value is not None:
                assert datetime.fromisoformat(str(value)).tzinfo is not None, (command, path, value)
