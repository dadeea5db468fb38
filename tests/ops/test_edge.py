"""Compose's nginx edge (deploy/nginx.conf) and its networks, checked without Docker.

Rules pinned: the edge (the official nginx image) is the API's only public door and the API
believes exactly its one hop; bot URLs may reach only the compose network of the bundled bots;
and the file itself run in front of gunicorn as compose starts it:
256 slow connections leave getHealth and a move under 1 s, a body over the limit is the API's
JSON 413, and slow connections from one address are cut off without touching other clients;
event streams pass through unbuffered with their own cap per address (429 too_many_streams).
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML is not a dependency)

from api.app import DEFAULTS
from api.games_api import KEEPALIVE_S
from bench.slowloris import SlowLoris
from bench.streams import Streams, create_games, move
from core.outbound import AddressPolicy
from harness.platform import free_port
from tests.ops.make_run_api import api_command_as_compose, serve_api, within_1_s

ROOT = Path(__file__).resolve().parents[2]
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
NGINX_CONF = (ROOT / "deploy" / "nginx.conf").read_text()
BOT_SERVICES = sorted(name for name in SERVICES if name.startswith("bot-"))


def test_the_edge_is_the_only_public_door_of_the_api() -> None:
    """Rule: the official nginx image with deploy/nginx.conf publishes the API; the API publishes no
    port, trusts one proxy hop, and nginx proxies to it with the API's own body limit."""
    edge = SERVICES["edge"]
    assert edge["image"].startswith("nginx:") and "build" not in edge
    assert "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in edge["volumes"]
    host, _, container = edge["ports"][0].rpartition(":")
    assert host == "8000" and re.search(rf"^\s*listen {container};", NGINX_CONF, re.M)
    assert edge["depends_on"]["api"]["condition"] == "service_healthy"
    api = SERVICES["api"]
    assert "ports" not in api and api["expose"] == ["8000"]
    assert api["environment"]["TRICKARENA_TRUSTED_PROXIES"] == "1"
    assert re.search(r"^\s*server api:8000;", NGINX_CONF, re.M)
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in NGINX_CONF  # set, not appended
    limit_kib = int(re.search(r"client_max_body_size (\d+)k;", NGINX_CONF).group(1))  # type: ignore[union-attr]
    assert limit_kib * 1024 == DEFAULTS["MAX_CONTENT_LENGTH"]
    for directive in ("client_header_timeout", "client_body_timeout", "keepalive_timeout", "limit_conn "):
        assert re.search(rf"^\s*{directive}", NGINX_CONF, re.M), directive
    for service in set(SERVICES) - {"edge", "dashboard"}:
        assert "ports" not in SERVICES[service], f"{service} is published"
    assert SERVICES["dashboard"]["ports"] == ["127.0.0.1:9181:9181"]  # no login of its own


def test_bot_urls_may_reach_only_the_bots_network() -> None:
    """Rule: the outbound policy of the API and the workers allows the bots' compose network and no
    other private range; Redis and the dashboard are not on that network."""
    subnet = COMPOSE["networks"]["bots"]["ipam"]["config"][0]["subnet"]
    bots_network = ipaddress.ip_network(subnet)
    assert bots_network.is_private and bots_network.num_addresses <= 256
    for name in ("api", "worker"):
        environment = SERVICES[name]["environment"]
        assert environment["TRICKARENA_ALLOWED_NETWORKS"] == subnet, name
        assert "bots" in SERVICES[name]["networks"], name
    for name in BOT_SERVICES:
        assert SERVICES[name]["networks"] == ["bots"], name
    for name in ("redis", "dashboard"):
        assert "bots" not in SERVICES[name]["networks"], name
    policy = AddressPolicy.from_env({"TRICKARENA_ALLOWED_NETWORKS": subnet})
    assert policy.refusal(str(bots_network[5])) is None
    for other in ("10.0.0.5", "192.168.1.1", "172.17.0.2", "172.30.10.1", "127.0.0.1", "169.254.169.254"):
        assert policy.refusal(other) is not None, other


# -- the file itself, run in front of gunicorn as compose starts it ---------------------------------
@contextlib.contextmanager
def edge_in_front(api_port: int, tmp_path: Path) -> Iterator[int]:
    """deploy/nginx.conf, with the API on a loopback port, served on a free port; yields it."""
    port = free_port()
    conf = NGINX_CONF.replace("server api:8000;", f"server 127.0.0.1:{api_port};")
    conf = conf.replace("listen 8080;", f"listen 127.0.0.1:{port};")
    temp = "".join(
        f"    {kind}_temp_path {tmp_path / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = conf.replace("http {\n", "http {\n" + temp, 1)
    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp_path / kind).mkdir()
        (tmp_path / kind).chmod(0o777)  # nginx's workers run as nobody
    (tmp_path / "nginx.conf").write_text(conf)
    base = ["nginx", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")]
    pid = f"pid {tmp_path / 'nginx.pid'};"
    checked = subprocess.run([*base, "-t", "-g", pid], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    log = (tmp_path / "nginx.log").open("ab")
    proc = subprocess.Popen(
        [*base, "-g", f"{pid} daemon off;"], stdout=log, stderr=log, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 20
        while get(port, "/health")[0] != 200:
            assert proc.poll() is None and time.monotonic() < deadline, (tmp_path / "nginx.log").read_text()
            time.sleep(0.2)
        yield port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGQUIT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
        log.close()


def get(
    port: int, path: str, method: str = "GET", body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Any, float]:
    """One request from 127.0.0.2 (another client than the slow connections): status, JSON, seconds."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=("127.0.0.2", 0))
    try:
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        connection.request(
            method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})}
        )
        answer = connection.getresponse()
        payload = answer.read()
    except OSError:
        return 0, None, time.monotonic() - started
    finally:
        connection.close()
    try:
        parsed = json.loads(payload)
    except ValueError:
        parsed = payload
    return answer.status, parsed, time.monotonic() - started


def health_and_move(port: int) -> dict[str, float]:
    """Seconds getHealth, createGame and one postMove took through the edge (each must answer)."""
    status, _, health_s = get(port, "/health")
    assert status == 200
    status, created, create_s = get(
        port, "/games", "POST", {"game": "trick-n-trouble", "seats": 3, "seed": 7}
    )
    assert status == 201, created
    game = f"/games/{created['game_id']}"
    seat = get(port, game)[1]["view"]["to_move"][0]
    token = next(t["token"] for t in created["tokens"] if t["seat"] == seat)
    auth = {"Authorization": f"Bearer {token}"}
    moves = get(port, f"{game}/legal-moves", headers=auth)[1]["legal_moves"]
    status, moved, move_s = get(port, f"{game}/moves", "POST", moves[0], headers=auth)
    assert status == 200, moved
    return {"health_s": health_s, "create_s": create_s, "move_s": move_s}


@pytest.mark.timeout(180)
def test_the_edge_keeps_slow_clients_off_the_api(redis_url: str, key_prefix: str, tmp_path: Path) -> None:
    """Rule: behind deploy/nginx.conf, compose's API answers getHealth and a move within 1 s with 256
    slow connections open (the edge buffers: the API never sees them; compose's gthread API of
    before, 2 x 8 threads, relied on that); a body over the limit gets the API's JSON 413 from the
    edge."""
    if shutil.which("nginx") is None:  # `make test` installs it; a test that cannot run fails
        pytest.fail("nginx is not installed: sudo apt-get install -y nginx (make test does it as root)")
    api_port = free_port()
    command = api_command_as_compose(api_port)
    with serve_api(command, api_port, redis_url, key_prefix, tmp_path, TRICKARENA_TRUSTED_PROXIES="1"):
        with edge_in_front(api_port, tmp_path) as port:
            health_and_move(port)  # warm
            with SlowLoris(port, 256, interval_s=1.0, max_seconds=60) as loris:
                time.sleep(0.5)
                times = within_1_s(lambda: health_and_move(port))
                assert all(value < 1.0 for value in times.values()), times
                time.sleep(2)
                later = within_1_s(lambda: health_and_move(port))
                assert all(value < 1.0 for value in later.values()), later
                assert loris.open_connections() > 0
            status, error, _ = get(port, "/games", "POST", b'{"game": "' + b"x" * 100_000 + b'"}')
            assert status == 413 and error["code"] == "body_too_large", error


STREAM_LOCATION = re.search(r'location ~ "\^/games/.*?/stream\$" \{(.*?)\n        \}', NGINX_CONF, re.S)


def test_the_stream_location_has_its_own_connection_cap_and_timeouts() -> None:
    """Rule (issue 26): the event-stream location passes answers unbuffered with a cap of its own on
    open streams per address (429 too_many_streams) and deadlines for a silent API and a client that
    does not read; the API's keep-alive comes well within the read deadline."""
    assert STREAM_LOCATION, "no event-stream location in deploy/nginx.conf"
    body = STREAM_LOCATION.group(1)
    assert "proxy_buffering off;" in body
    zone, cap = re.search(r"limit_conn (\w+) (\d+);", body).groups()  # type: ignore[union-attr]
    assert re.search(rf"limit_conn_zone \$binary_remote_addr zone={zone}:", NGINX_CONF) and int(cap) <= 16
    assert "error_page 429 @too_many_streams;" in body
    read_s = int(re.search(r"proxy_read_timeout (\d+)s;", body).group(1))  # type: ignore[union-attr]
    assert KEEPALIVE_S * 2 <= read_s <= 30
    assert int(re.search(r"send_timeout (\d+)s;", body).group(1)) <= 10  # type: ignore[union-attr]
    assert f'"limit":{cap}' in NGINX_CONF and "too_many_streams" in NGINX_CONF


@pytest.mark.timeout(180)
def test_streams_pass_the_edge_and_its_per_address_cap_applies(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """Rule (issue 26): behind deploy/nginx.conf, compose's API streams events through the edge;
    one address's 17th stream gets the edge's 429 too_many_streams with Retry-After (the API's own
    cap raised here, so the edge is what refuses) while another address still opens one; every
    stream gets the move, and getHealth and a move answer within 1 s meanwhile."""
    if shutil.which("nginx") is None:  # `make test` installs it; a test that cannot run fails
        pytest.fail("nginx is not installed: sudo apt-get install -y nginx (make test does it as root)")
    api_port = free_port()
    command = api_command_as_compose(api_port)
    env = {"TRICKARENA_TRUSTED_PROXIES": "1", "TRICKARENA_SSE_MAX_PER_ADDRESS": "1000"}
    with serve_api(command, api_port, redis_url, key_prefix, tmp_path, **env):
        with edge_in_front(api_port, tmp_path) as port:
            base = f"http://127.0.0.1:{port}"
            health_and_move(port)  # warm
            created = create_games(base, 1)[0]
            path = f"/games/{created['game_id']}/events/stream"
            cap = int(STREAM_LOCATION.group(1).split("limit_conn per_address_streams ")[1].split(";")[0])  # type: ignore[union-attr]
            with Streams(port, [path], cap, source="127.0.0.2", max_seconds=60) as streams:
                deadline = time.monotonic() + 20
                while streams.status_counts().get(200, 0) < cap:
                    assert time.monotonic() < deadline, streams.status_counts()
                    time.sleep(0.1)
                refused = http.client.HTTPConnection(
                    "127.0.0.1", port, timeout=5, source_address=("127.0.0.2", 0)
                )
                refused.request("GET", path)  # from 127.0.0.2 too: one too many
                answer = refused.getresponse()
                error = json.loads(answer.read())
                refused.close()
                assert answer.status == 429 and error["code"] == "too_many_streams", error
                assert error["details"]["limit"] == cap and int(answer.getheader("Retry-After") or 0) >= 1
                with Streams(port, [path], 1, source="127.0.0.3", max_seconds=60) as other:
                    deadline = time.monotonic() + 20
                    while other.status_counts().get(200, 0) < 1:
                        assert time.monotonic() < deadline, other.status_counts()
                        time.sleep(0.1)
                    times = within_1_s(lambda: health_and_move(port))
                    assert all(value < 1.0 for value in times.values()), times
                    _, event_id = move(base, created)
                    assert streams.wait_received(event_id, path, 10.0) == (cap, cap)
                    assert other.wait_received(event_id, path, 10.0) == (1, 1)
