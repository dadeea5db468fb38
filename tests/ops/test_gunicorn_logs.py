"""gunicorn started the way `make run` and compose start it (`-c python:api.gunicorn_conf`), for real.

Rules pinned: with `TRICKARENA_LOG_FORMAT=json` every line the API's processes write is one JSON
object of the same shape as our other log lines, gunicorn's own included (start-up, workers
booting and exiting, a SIGHUP reload, shutdown; logger `gunicorn.error`); without the variable
gunicorn keeps its plain format.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"Listening at: http://127\.0\.0\.1:(\d+) ")
# gunicorn's own plain line: "[2026-01-01 12:00:00 +0000] [123] [INFO] Listening at: ..."
PLAIN = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}\] \[\d+\] \[[A-Z]+\] ")


@dataclass
class Served:
    """A gunicorn master in its own session, and every line its processes wrote so far."""

    proc: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)
    port: int = 0
    reader: threading.Thread | None = None

    def wait_for(self, done: Callable[[], bool], what: str, timeout: float = 60) -> None:
        """Poll `done` until it holds; fail with the output so far when it does not in time."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if done():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        pytest.fail(f"gunicorn: no {what} (exit {self.proc.poll()}):\n" + "\n".join(self.lines))

    def count(self, text: str) -> int:
        """How many lines so far contain `text`."""
        return sum(text in line for line in self.lines)


def gunicorn_command(ctl_dir: str) -> list[str]:
    """platform.Platform.start_api's command, on an ephemeral port with one worker."""
    from gunicorn.config import KNOWN_SETTINGS  # type: ignore[import-untyped]

    extra = []
    if any(setting.name == "control_socket" for setting in KNOWN_SETTINGS):
        # Not the per-user default path: a `make run` on this machine may be using it.
        extra = ["--control-socket", os.path.join(ctl_dir, "gunicorn.ctl")]
    head = [sys.executable, "-m", "gunicorn", "-c", "python:api.gunicorn_conf", "--bind", "127.0.0.1:0"]
    workers = ["--worker-class", "gthread", "--workers", "1", "--threads", "2", "--graceful-timeout", "5"]
    return [*head, *workers, *extra, "api.app:create_app()"]


@pytest.fixture()
def serve(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[Callable[[str | None], Served]]:
    """Start gunicorn with TRICKARENA_LOG_FORMAT set to the given value (None: unset), serving."""
    started: list[Served] = []
    ctl_dir = tempfile.mkdtemp(prefix="ta-ctl-")  # short: a unix socket path has at most 107 bytes

    def start(log_format: str | None) -> Served:
        env = {k: v for k, v in os.environ.items() if k != "TRICKARENA_LOG_FORMAT"}
        metrics = tmp_path / f"metrics-{uuid.uuid4().hex[:6]}"
        metrics.mkdir()
        env.update(
            {
                "REDIS_URL": redis_url,
                "TRICKARENA_KEY_PREFIX": key_prefix,
                "PROMETHEUS_MULTIPROC_DIR": str(metrics),
                "PYTHONUNBUFFERED": "1",
            }
        )
        if log_format is not None:
            env["TRICKARENA_LOG_FORMAT"] = log_format
        proc = subprocess.Popen(
            gunicorn_command(ctl_dir),
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        served = Served(proc)
        started.append(served)

        def pump() -> None:
            """Collect the merged stdout and stderr of the master and its workers, line by line."""
            assert proc.stdout is not None
            for line in proc.stdout:
                served.lines.append(line.rstrip("\n"))

        served.reader = threading.Thread(target=pump, daemon=True)
        served.reader.start()
        served.wait_for(lambda: any(LISTENING.search(line) for line in served.lines), "'Listening at' line")
        served.port = int(next(m for line in served.lines if (m := LISTENING.search(line))).group(1))
        served.wait_for(lambda: answers(served.port), "answer on /health")
        return served

    yield start
    for served in started:
        if served.proc.poll() is None:
            os.killpg(served.proc.pid, signal.SIGKILL)
            served.proc.wait(timeout=10)
    shutil.rmtree(ctl_dir, ignore_errors=True)


def answers(port: int) -> bool:
    """True once getHealth answers 200 on `port`."""
    try:
        return requests.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200
    except requests.RequestException:
        return False


def stop(served: Served) -> None:
    """SIGTERM to the master, as `make run` and `docker stop` send it; wait for everything to exit."""
    served.proc.send_signal(signal.SIGTERM)
    assert served.proc.wait(timeout=60) == 0, "\n".join(served.lines)
    assert served.reader is not None
    served.reader.join(timeout=10)  # every process that held the pipe is gone: the reader sees its end


def json_objects(lines: list[str]) -> list[dict[str, Any]]:
    """Every non-empty line, each of which must be one JSON object with our formatter's fields."""
    out = []
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            pytest.fail(f"not a JSON line: {line!r}\n" + "\n".join(lines))
        assert isinstance(record, dict), line
        assert {"ts", "level", "logger", "msg"} <= set(record), line
        out.append(record)
    return out


def test_every_line_is_json_with_the_json_log_format_gunicorns_own_included(
    serve: Callable[[str | None], Served],
) -> None:
    """Rule: under TRICKARENA_LOG_FORMAT=json gunicorn's start-up, reload, worker and shutdown lines are
    JSON (logger gunicorn.error) like the API's access lines, and nothing else is written."""
    served = serve("json")
    request_id = f"gunicorn-logs-{uuid.uuid4().hex[:8]}"
    answer = requests.get(
        f"http://127.0.0.1:{served.port}/health", headers={"X-Request-ID": request_id}, timeout=10
    )
    assert answer.status_code == 200
    # A reload re-runs the logger's setup: the JSON formatter must survive it.
    booted = served.count("Booting worker with pid")
    served.proc.send_signal(signal.SIGHUP)
    served.wait_for(lambda: served.count("Booting worker with pid") > booted, "worker booted after SIGHUP")
    stop(served)

    records = json_objects(served.lines)
    own = [r for r in records if r["logger"] == "gunicorn.error"]
    messages = [r["msg"] for r in own]
    for start in (
        "Starting gunicorn ",
        f"Listening at: http://127.0.0.1:{served.port} ",
        "Using worker: gthread",
        "Booting worker with pid: ",
        "Handling signal: hup",
        "Hang up: ",
        "Handling signal: term",
        "Worker exiting (pid: ",
        "Shutting down: Master",
    ):
        assert any(m.startswith(start) for m in messages), f"no gunicorn line {start!r}: {messages}"
    listening = next(r for r in own if r["msg"].startswith("Listening at: "))
    assert listening["level"] == "info" and isinstance(listening["ts"], float), listening
    access = [r for r in records if r["logger"] == "trickarena.access" and r.get("request_id") == request_id]
    assert len(access) == 1 and access[0]["path"] == "/health" and access[0]["status"] == 200, records


def test_without_the_json_log_format_gunicorn_keeps_its_plain_lines(
    serve: Callable[[str | None], Served],
) -> None:
    """Rule: without TRICKARENA_LOG_FORMAT gunicorn writes its own plain format, as it always did."""
    served = serve(None)
    stop(served)
    listening = [line for line in served.lines if LISTENING.search(line)]
    assert len(listening) == 1 and PLAIN.match(listening[0]), served.lines
    assert all(not line.startswith("{") for line in served.lines), served.lines
