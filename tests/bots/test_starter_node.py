"""The Node.js starter bot (bots/starters/node) against the real platform: registered through the
API, checked, and playing tournament matches of both games through the match runner."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests
from werkzeug.serving import make_server

from api.app import create_app
from bots.bundled import make_bot
from bots.sdk import SECRET_ENV, SECRET_FILE_ENV, BotServer
from harness.botcheck import check_bot
from harness.runner import HarnessContext, run_match
from harness.tournaments import create_tournament, finalize_if_complete, get_standings, get_tournament

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "bots" / "starters" / "node" / "bot.js"
GAMES = ["tricky-teams", "trick-n-trouble"]


def node() -> str:
    """The node binary; the test fails (never skips) without it."""
    found = shutil.which("node") or shutil.which("nodejs")
    assert found, "node is missing: install Debian's nodejs (apt-get install -y nodejs)"
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def node_bot(port: int, secret: str | None) -> Iterator[str]:
    """The starter on `port` (secret from the environment, as it reads it); its URL once it answers."""
    env = {k: v for k, v in os.environ.items() if k not in (SECRET_ENV, SECRET_FILE_ENV)}
    env["PORT"] = str(port)
    if secret is not None:
        env[SECRET_ENV] = secret
    proc = subprocess.Popen([node(), str(STARTER)], env=env, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, "the node bot exited"
            try:
                requests.get(url + "/", timeout=1)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, "the node bot did not come up"
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture()
def api(redis_url: str, key_prefix: str) -> Iterator[str]:
    """The API app served on loopback, on the test's Redis prefix."""
    app = create_app({"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=10)


def test_the_starter_passes_its_own_signature_self_test() -> None:
    """Rule: `node bot.js --self-test` checks its signing code against the protocol's test vector."""
    run = subprocess.run([node(), str(STARTER), "--self-test"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "6 passed, 0 failed" in run.stdout


def _register(api: str, name: str, url: str) -> dict[str, str]:
    created = requests.post(f"{api}/bots", json={"name": name, "url": url, "games": GAMES}, timeout=30)
    assert created.status_code == 201, created.text
    body = created.json()
    return {"id": body["bot"]["id"], "owner_key": body["owner_key"], "secret": body["secret"]}


@pytest.mark.timeout(300)
def test_the_starter_registers_passes_the_check_and_plays_both_games(
    api: str, redis_url: str, key_prefix: str
) -> None:
    """Rule: the starter is registered through createBot, passes `bot check` with the secret the
    API issued, refuses a forged request, and plays a tournament of each game without a fault."""
    port = _free_port()
    suffix = uuid.uuid4().hex[:6]
    with node_bot(port, None) as url:  # before registration: GET / only
        node_reg = _register(api, f"node-{suffix}", url)
        refused = requests.post(url + "/move", json={}, timeout=5)
        assert (refused.status_code, refused.json()["code"]) == (401, "no_secret")
    unsigned = BotServer(make_bot("random"), None).start()
    random_reg = _register(api, f"random-{suffix}", unsigned.url)
    unsigned.stop()
    with (
        node_bot(port, node_reg["secret"]) as url,
        BotServer(make_bot("random"), random_reg["secret"], port=unsigned.port),
    ):
        report = check_bot(url, node_reg["secret"])
        assert report.ok and not [f for f in report.findings if f.severity != "ok"], report.lines()
        ctx = HarnessContext.build(redis_url, key_prefix, f"ta-test-{suffix}")
        for game, seats, options in (("tricky-teams", 4, {"raids": 1}), ("trick-n-trouble", 3, None)):
            info = create_tournament(
                ctx,
                game,
                seats,
                [node_reg["id"], random_reg["id"]],
                deals=1,
                deadline_ms=1000,
                options=options,
                seed=5,
                enqueue=False,
                owner_keys=[node_reg["owner_key"], random_reg["owner_key"]],
            )
            tid = info["tournament_id"]
            for index in range(info["progress"]["total"]):
                assert run_match(ctx, tid, index).status == "recorded"
            finalize_if_complete(ctx, tid)
            assert get_tournament(ctx, tid)["status"] == "finished"
            rows = {row["entrant"]: row for row in get_standings(ctx, tid)["rows"]}
            assert rows[node_reg["id"]]["games"] > 0
            assert rows[node_reg["id"]]["faults"] == 0, game
