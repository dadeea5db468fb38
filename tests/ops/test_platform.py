"""`make run`'s entry point, run for real in a subprocess (its own Redis, gunicorn, workers, bots).

Rules pinned: a short run finishes a tournament of each game and prints their standings; the API's
log is JSON lines only, gunicorn's own lines included, and so are the workers' and bots' logs;
nothing it started survives it; a second run reuses the stored bot registrations; its workers play
a person's challenge against the bundled bots (issue 28); Ctrl-C stops everything.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("tricky-teams", "trick-n-trouble")
# How lines gunicorn itself writes to var/log/api.log start (logger gunicorn.error), stop included.
GUNICORN_LINES = ("Starting gunicorn ", "Listening at: ", "Booting worker with pid: ", "Handling signal:")


def processes_mentioning(marker: str) -> list[int]:
    """Live processes whose command line or environment mentions `marker` (our var dir)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            blob = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in blob and state != "Z":
            found.append(int(entry.name))
    return found


def platform_env(var: Path) -> dict[str, str]:
    """The environment of a run: no REDIS_URL, so it starts its own Redis under `var`."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "TRICKARENA_KEY_PREFIX")}
    # Every child inherits this; it lets the test find any survivor by its environment.
    env["TRICKARENA_TEST_MARKER"] = str(var)
    return env


def json_lines(path: Path) -> list[dict[str, Any]]:
    """Every non-empty line of a log, each of which must be one JSON object."""
    out = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            pytest.fail(f"{path.name}:{number} is not a JSON line: {line!r}")
        assert isinstance(record, dict), f"{path.name}:{number} is not a JSON object: {line!r}"
        out.append(record)
    return out


def registrations(var: Path) -> dict[str, str]:
    """Bot name -> bot id, as stored under var/bots."""
    return {p.stem: json.loads(p.read_text())["bot_id"] for p in sorted((var / "bots").glob("*.json"))}


def play_a_challenge(base: str, bots: list[str]) -> None:
    """createChallenge against `bots` with a person at seat 0, who plays the first legal move on each
    turn until the game ends; the challenge is then recorded with every bot seat having moved."""
    made = requests.post(
        f"{base}/challenges",
        json={"game": "tricky-teams", "seats": 3, "people": [0], "bots": bots, "options": {"raids": 1}},
        timeout=30,
    )
    assert made.status_code == 201, made.text
    challenge = made.json()
    me = {"Authorization": f"Bearer {challenge['tokens'][0]['token']}"}
    game_url = f"{base}/games/{challenge['game_id']}"
    deadline = time.monotonic() + 180
    while True:
        assert time.monotonic() < deadline, "the challenge did not finish"
        game = requests.get(game_url, headers=me, timeout=10).json()
        if game["status"] == "finished":
            break
        legal = game["view"]["legal_moves"]
        if legal:
            headers = {**me, "If-Match": f'"{game["version"]}"'}
            requests.post(f"{game_url}/moves", json=legal[0], headers=headers, timeout=10)
        else:
            time.sleep(0.1)
    while time.monotonic() < deadline:
        done = requests.get(f"{base}/challenges/{challenge['challenge_id']}", timeout=10).json()
        if done["status"] == "finished":
            assert all(p["moves"] > 0 for p in done["players"]), done
            return
        time.sleep(0.2)
    pytest.fail("the challenge was not recorded")


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_make_run_short_finishes_both_tournaments_then_a_rerun_reuses_bots_and_ctrl_c_stops_all(
    tmp_path: Path,
) -> None:
    """Rules: short mode ends with final standings of both games; no child survives; a rerun reuses
    the stored registrations; SIGINT (Ctrl-C) stops every process."""
    var = tmp_path / "var"
    command = [sys.executable, "-m", "harness.cli", "run", "--short", "--port", "0", "--var", str(var)]
    done = subprocess.run(
        command, cwd=ROOT, env=platform_env(var), capture_output=True, text=True, timeout=400
    )
    out = done.stdout
    assert done.returncode == 0, out[-3000:] + done.stderr[-3000:]
    for game in GAMES:
        assert f"{game} — standings (final)" in out
        assert f"{game} tournament" in out and "finished" in out
    for name in ("random", "heuristic", "search"):
        assert name in out
    # It ends with a summary in words per tournament; the bundled bots never fault (docs/bots.md, Time).
    assert out.count("Winner: ") == len(GAMES) and out.count("Faults: none.") == len(GAMES), out[-3000:]
    assert "/web/" in out and "/docs" in out
    assert processes_mentioning(str(var)) == [], "a process of the run survived it"
    first = registrations(var)
    assert set(first) == {"random", "heuristic", "search"}
    # JSON logs of the API, every line (gunicorn's own too), with request ids.
    api_lines = json_lines(var / "log" / "api.log")
    access = [line for line in api_lines if line["logger"] == "trickarena.access"]
    assert access and all("request_id" in line for line in access)
    own = [line["msg"] for line in api_lines if line["logger"] == "gunicorn.error"]
    for start in GUNICORN_LINES:
        assert any(msg.startswith(start) for msg in own), f"no JSON gunicorn line {start!r}: {own}"
    # The workers' and bots' logs are JSON lines only as well (RQ's own lines: tests/harness/test_cli.py).
    logs = sorted((var / "log").glob("worker-*.log")) + sorted((var / "log").glob("bot-*.log"))
    assert len(logs) >= 5
    for path in logs:
        json_lines(path)

    # Second run, the long mode, interrupted with Ctrl-C once the tournaments are created.
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", "--port", "0", "--var", str(var)],
        cwd=ROOT,
        env=platform_env(var),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    seen = []
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if "API docs" in line:
            break
    assert any("API docs" in line for line in seen), "".join(seen)
    assert processes_mentioning(str(var)), "nothing running mid-run?"
    # The bundled bots are open to challenges: anyone may enter them without their owner key.
    api = re.search(r"http://127\.0\.0\.1:\d+", "".join(seen))
    assert api is not None, "".join(seen)
    for bot_id in first.values():
        assert requests.get(f"{api.group(0)}/bots/{bot_id}", timeout=10).json()["open"] is True
    # Issue 28: a person challenges the bundled bots; make run's workers play their seats.
    play_a_challenge(api.group(0), [first["heuristic"], first["random"]])
    # A child that dies is started again (issue 17): kill worker-1's whole group.
    pids_file = var / "run" / "pids.json"
    victim = json.loads(pids_file.read_text())["worker-1"]
    os.killpg(victim, signal.SIGKILL)

    def restarted() -> bool:
        now = json.loads(pids_file.read_text()).get("worker-1")
        return now is not None and now != victim

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not restarted():
        time.sleep(0.2)
    assert restarted(), "make run did not start worker-1 again"
    proc.send_signal(signal.SIGINT)
    try:
        rest, _ = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGUSR1)  # the platform dumps every thread's stack on SIGUSR1
        time.sleep(2)
        proc.kill()
        rest, _ = proc.communicate()
        pytest.fail("the platform did not stop within 120 s of Ctrl-C:\n" + "".join(seen) + rest)
    assert proc.returncode == 130, "".join(seen) + rest
    assert registrations(var) == first, "the rerun registered new bots instead of reusing the stored ones"
    for name in first:
        assert '"reused": true' in (var / "log" / f"bot-{name}.log").read_text()
    assert processes_mentioning(str(var)) == [], "a process survived Ctrl-C"
    assert not (var / "run" / "pids.json").exists()
