"""The API served for real: the way `make run` serves it (`harness.platform.api_server_command`), or
with another server command (compose's, in tests/ops/test_edge.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import requests
import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML is not a dependency)

from harness.platform import api_server_command, free_port

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def make_run_api(redis_url: str, prefix: str, run_dir: Path, **env: str) -> Iterator[str]:
    """gunicorn with make run's command and environment on a free loopback port; yields its base URL."""
    port = free_port()
    command = api_server_command("127.0.0.1", port, run_dir)
    with serve_api(command, port, redis_url, prefix, run_dir, **env) as base:
        yield base


def api_command_as_compose(port: int) -> list[str]:
    """docker-compose.yml's api service command (gunicorn of this venv), bound to a loopback port."""
    command = list(yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["api"]["command"])
    command[command.index("--bind") + 1] = f"127.0.0.1:{port}"
    return [sys.executable, "-m", *command]


@contextlib.contextmanager
def compose_api(redis_url: str, prefix: str, run_dir: Path, **env: str) -> Iterator[str]:
    """gunicorn with compose's api command and environment (one proxy hop trusted) on a free
    loopback port; yields its base URL."""
    port = free_port()
    command = api_command_as_compose(port)
    with serve_api(command, port, redis_url, prefix, run_dir, TRICKARENA_TRUSTED_PROXIES="1", **env) as base:
        yield base


@contextlib.contextmanager
def serve_api(
    command: list[str], port: int, redis_url: str, prefix: str, run_dir: Path, **env: str
) -> Iterator[str]:
    """The API server `command` (listening on `port`) in its own session, JSON logs, the test's Redis
    and prefix; yields its base URL once getHealth answers, stops its process group after."""
    metrics = run_dir / "metrics"
    metrics.mkdir(parents=True, exist_ok=True)
    environ = {
        **{k: v for k, v in os.environ.items() if not k.startswith("TRICKARENA_")},
        "REDIS_URL": redis_url,
        "TRICKARENA_KEY_PREFIX": prefix,
        "TRICKARENA_LOG_FORMAT": "json",
        "PROMETHEUS_MULTIPROC_DIR": str(metrics),
        **env,
    }
    log = (run_dir / "api.log").open("ab")
    proc = subprocess.Popen(
        command,
        env=environ,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (run_dir / "api.log").read_text()[-3000:]
            with contextlib.suppress(requests.RequestException):
                if requests.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, "the API did not start within 60 s"
            time.sleep(0.2)
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
        log.close()


def within_1_s(measure: Callable[[], dict[str, float]]) -> dict[str, float]:
    """The first of up to 3 rounds in which every request answered within 1 s (else the last round):
    on a shared, loaded machine one round can miss; a server whose threads the slow connections hold
    misses every round (no answer within 5 s)."""
    for _ in range(3):
        times = measure()
        if all(value < 1.0 for value in times.values()):
            break
    return times
