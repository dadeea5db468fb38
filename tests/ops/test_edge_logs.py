"""The edge's access log holds no path segment that could be a secret (issue 26 row 8): deploy/
nginx.conf logs a 404's path as `<not found>`, as the API logs its route template. Real nginx in
front of compose's API command, on loopback."""

from __future__ import annotations

import json
import secrets
import shutil
from pathlib import Path

import pytest

from harness.platform import free_port
from tests.ops.make_run_api import api_command_as_compose, serve_api
from tests.ops.test_edge import edge_in_front, get


def test_a_secret_pasted_into_a_path_is_in_no_log_line_of_the_edge_or_the_api(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """Rule: `GET /bots/<secret>` through the edge is a 404 whose nginx line says `<not found>` and
    whose API line names the route template; a found path is still logged as it is."""
    if shutil.which("nginx") is None:  # `make test` installs it; a test that cannot run fails
        pytest.fail("nginx is not installed: sudo apt-get install -y nginx (make test does it as root)")
    secret = secrets.token_urlsafe(32)
    api_port = free_port()
    with serve_api(api_command_as_compose(api_port), api_port, redis_url, key_prefix, tmp_path):
        with edge_in_front(api_port, tmp_path) as port:
            assert get(port, f"/bots/{secret}")[0] == 404
            assert get(port, f"/{secret}")[0] == 404
            assert get(port, "/health")[0] == 200
    logs = {path.name: path.read_text() for path in tmp_path.rglob("*.log")}
    assert logs and all(secret not in text for text in logs.values()), [
        n for n, t in logs.items() if secret in t
    ]
    edge = [json.loads(line) for line in logs["nginx.log"].splitlines() if line.startswith("{")]
    paths = {line["path"] for line in edge if line.get("logger") == "nginx.access"}
    assert "<not found>" in paths and "/health" in paths, paths
