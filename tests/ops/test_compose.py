"""docker-compose.yml and the Dockerfile, checked without Docker (it cannot run on these machines).

Rules pinned here: every service's command (and health check) resolves to a real entry point of
the package and accepts its arguments; gunicorn, started as a service starts it, writes its own
lines as JSON; every environment variable set is one the code reads;
ports agree between `ports`/`expose`, the command and the health check; dependencies on health
point at services that have one; workers are scalable; the image holds every package.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs installed (types-PyYAML is not a dependency)

ROOT = Path(__file__).resolve().parents[2]
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
OUR_IMAGE = "trick-arena:latest"
BIN = Path(sys.executable).parent
SOURCE_DIRS = ("api", "harness", "bots", "games")


def ours(name: str) -> bool:
    """Services running the project image (not the stock redis image)."""
    service = SERVICES[name]
    return service.get("image") == OUR_IMAGE or "build" in service


def container_port(service: dict[str, Any]) -> int | None:
    """The one container port a service offers (from `ports` or `expose`)."""
    entries = [str(p) for p in service.get("ports", [])] + [str(p) for p in service.get("expose", [])]
    ports = {int(e.split(":")[-1]) for e in entries}
    assert len(ports) <= 1, f"several container ports: {ports}"
    return ports.pop() if ports else None


def command_port(command: list[str]) -> int | None:
    """The port a command listens on: `--port N`, `-p N` or `--bind host:N`."""
    for i, arg in enumerate(command[:-1]):
        if arg in ("--port", "-p"):
            return int(command[i + 1])
        if arg in ("--bind", "-b") and ":" in command[i + 1]:
            return int(command[i + 1].rsplit(":", 1)[1])
    return None


def code_sources() -> str:
    """All Python source of the package, concatenated."""
    return "\n".join(p.read_text() for d in SOURCE_DIRS for p in (ROOT / d).rglob("*.py"))


def resolve_entry(command: list[str]) -> str:
    """Check that the command's program is a real entry point; return how it resolved."""
    program = command[0]
    if program == "python":
        assert command[1] == "-m", command
        module = command[2]
        assert importlib.util.find_spec(module) is not None, f"no module {module}"
        return f"module {module}"
    scripts = PYPROJECT["project"].get("scripts", {})
    if program in scripts:
        target = scripts[program]
    else:
        found = [ep for ep in importlib.metadata.entry_points(group="console_scripts") if ep.name == program]
        assert found, f"{program} is neither our console script nor an installed one"
        target = found[0].value
    module_name, _, attr = target.partition(":")
    assert callable(getattr(importlib.import_module(module_name), attr)), target
    return f"script {program} -> {target}"


def runnable(command: list[str]) -> list[str]:
    """The command as it runs in this venv (python -> this interpreter, scripts -> venv bin)."""
    if command[0] == "python":
        return [sys.executable, *command[1:]]
    return [str(BIN / command[0]), *command[1:]]


OUR_SERVICES = sorted(n for n in SERVICES if ours(n))


@pytest.mark.parametrize("name", OUR_SERVICES)
def test_every_service_command_is_a_real_entry_point_accepting_its_arguments(name: str) -> None:
    """Rule: the command resolves to our package and parses its own arguments (checked with --help)."""
    command = SERVICES[name].get("command") or yaml_cmd_from_dockerfile()
    resolve_entry(command)
    if command[0] == "gunicorn":
        app_spec = command[-1]
        module_name, _, call = app_spec.partition(":")
        factory = getattr(importlib.import_module(module_name), call.removesuffix("()"))
        assert callable(factory), app_spec
        if "-c" in command:
            # `--help` below exits before gunicorn reads its config: check that the module is there.
            location = command[command.index("-c") + 1]
            assert location.startswith("python:"), f"{name}: gunicorn -c {location} is not a module"
            assert importlib.util.find_spec(location.removeprefix("python:")) is not None, location
    done = subprocess.run(runnable(command) + ["--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{name}: {done.stderr[-2000:]}"


GUNICORN_SERVICES = sorted(n for n in OUR_SERVICES if SERVICES[n].get("command", [""])[0] == "gunicorn")
# gunicorn as the service's command starts it, up to its logger: it reads the command line and the
# `-c` config module, builds its logger class and logs one line (then exits, serving nothing).
GUNICORN_LOGGER_PROBE = """
import sys
from gunicorn.app.wsgiapp import WSGIApplication

sys.argv = sys.argv[1:]  # the command after `python -c PROBE`, its "gunicorn" as the program name
app = WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]")
app.cfg.logger_class(app.cfg).info("Listening at: %s", "probe")
"""


@pytest.mark.parametrize("name", GUNICORN_SERVICES)
def test_gunicorn_services_write_gunicorns_own_lines_as_json(name: str, tmp_path: Path) -> None:
    """Rule: with the service's command and environment, gunicorn's own lines are our JSON lines."""
    service = SERVICES[name]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRICKARENA_")}
    env.update({k: str(v) for k, v in (service.get("environment") or {}).items()})
    env["PROMETHEUS_MULTIPROC_DIR"] = str(tmp_path)  # the image's directory does not exist here
    probe = [sys.executable, "-c", GUNICORN_LOGGER_PROBE, *service["command"]]
    done = subprocess.run(probe, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    record = json.loads(lines[0])
    assert record["logger"] == "gunicorn.error" and record["level"] == "info", record
    assert record["msg"] == "Listening at: probe" and isinstance(record["ts"], float), record


@pytest.mark.parametrize("name", OUR_SERVICES)
def test_health_checks_call_a_real_entry_point_on_the_service_port(name: str) -> None:
    """Rule: a health check runs our probe (a real module) against the port the service listens on."""
    check = SERVICES[name].get("healthcheck")
    if check is None:
        return
    test = check["test"]
    assert test[0] == "CMD"
    resolve_entry(test[1:])
    url = next(a for a in test if a.startswith("http://"))
    port = int(re.match(r"http://[^:/]+:(\d+)", url).group(1))  # type: ignore[union-attr]
    assert port == container_port(SERVICES[name]) == command_port(SERVICES[name]["command"])


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_every_environment_variable_set_is_read_by_the_code(name: str) -> None:
    """Rule: no variable is set that nothing reads (a typo would silently configure nothing)."""
    sources = code_sources()
    env = SERVICES[name].get("environment") or {}
    for var in env:
        assert f'"{var}"' in sources, f"{name} sets {var}, which no code reads"


def test_services_agree_on_ports_and_urls() -> None:
    """Rule: URLs between services name a real service and the port it listens on."""
    ports = {n: container_port(s) for n, s in SERVICES.items()}
    assert ports["redis"] == 6379 and ports["api"] == 8000
    for name, service in SERVICES.items():
        text = (
            " ".join(str(x) for x in service.get("command", []))
            + " "
            + " ".join(str(v) for v in (service.get("environment") or {}).values())
        )
        for host, port in re.findall(r"(?:redis|http)://([a-z][a-z0-9-]*):(\d+)", text):
            assert host in SERVICES, f"{name} points at unknown service {host}"
            assert ports[host] == int(port), f"{name} calls {host}:{port}, it listens on {ports[host]}"
        command = service.get("command", [])
        if "--advertise" in command:
            advertised = command[command.index("--advertise") + 1]
            assert advertised == f"http://{name}:{ports[name]}"


def test_dependencies_on_health_point_at_services_with_health_checks() -> None:
    """Rule: `condition: service_healthy` only on services that define a health check."""
    for name, service in SERVICES.items():
        for dep, spec in (service.get("depends_on") or {}).items():
            assert dep in SERVICES, f"{name} depends on unknown {dep}"
            if spec.get("condition") == "service_healthy":
                assert "healthcheck" in SERVICES[dep], f"{name} waits for {dep}'s health, which has none"


def test_redis_persists_append_only_on_a_volume() -> None:
    """Rule: Redis runs with appendonly on a named volume mounted at its data dir."""
    redis = SERVICES["redis"]
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    volume, _, mount = redis["volumes"][0].partition(":")
    assert volume in COMPOSE["volumes"] and mount == "/data"
    assert redis["healthcheck"]["test"][1:3] == ["redis-cli", "-p"]


def test_worker_is_scalable_and_needs_only_redis() -> None:
    """Rule: `--scale worker=N` works (no fixed name or host port) and the worker needs only Redis."""
    worker = SERVICES["worker"]
    assert "container_name" not in worker and "ports" not in worker
    assert set(worker.get("depends_on", {})) == {"redis"}
    assert "REDIS_URL" in worker["environment"]


def test_every_named_volume_is_declared() -> None:
    """Rule: services only mount volumes the file declares."""
    for name, service in SERVICES.items():
        for entry in service.get("volumes", []):
            source = entry.split(":")[0]
            if not source.startswith(("/", ".")):
                assert source in COMPOSE["volumes"], f"{name} mounts undeclared volume {source}"


def test_the_bundled_bots_of_both_games_and_a_dashboard_are_services() -> None:
    """Rule: one service per bundled bot, and an RQ dashboard."""
    from bots.bundled import BUNDLED

    for bot in BUNDLED:
        assert f"bot-{bot}" in SERVICES
    assert SERVICES["dashboard"]["command"][0] == "rq-dashboard"


def yaml_cmd_from_dockerfile() -> list[str]:
    """The Dockerfile's CMD (the api image default)."""
    text = (ROOT / "Dockerfile").read_text()
    match = re.search(r"^CMD (\[.*\])$", text, re.M)
    assert match, "Dockerfile has no exec-form CMD"
    return list(yaml.safe_load(match.group(1)))


def test_dockerfile_copies_every_package_and_installs_the_dashboard() -> None:
    """Rule: the image holds every package setuptools ships, and the extra the dashboard needs."""
    text = (ROOT / "Dockerfile").read_text()
    for pattern in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]:
        package = pattern.rstrip("*")
        assert re.search(rf"^COPY {package} \./{package}$", text, re.M), f"{package} not copied"
    assert "'.[dashboard]'" in text and "dashboard" in PYPROJECT["project"]["optional-dependencies"]
    assert yaml_cmd_from_dockerfile() == SERVICES["api"]["command"]
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".venv" in ignored and "var" in ignored


def test_the_cluster_profile_runs_three_masters_and_keeps_rq_off_the_cluster() -> None:
    """Rule (issue 25, operations.md Redis topologies): `--profile cluster` starts three
    cluster-enabled nodes and a one-shot job joining them; the api and the worker read
    RQ_REDIS_URL (RQ cannot use a cluster), and the profile's REDIS_URL names every node."""
    nodes = sorted(
        n for n, s in SERVICES.items() if "cluster" in (s.get("profiles") or []) and n != "redis-cluster-init"
    )
    assert nodes == ["redis-c1", "redis-c2", "redis-c3"]
    for name in nodes:
        command = SERVICES[name]["command"]
        assert command[command.index("--cluster-enabled") + 1] == "yes"
        assert command[command.index("--cluster-announce-hostname") + 1] == name
    init = " ".join(SERVICES["redis-cluster-init"]["command"])
    assert "--cluster create" in init and all(n in init for n in nodes)
    for name in ("api", "worker"):
        assert "RQ_REDIS_URL" in SERVICES[name]["environment"], name
    text = (ROOT / "docker-compose.yml").read_text()
    assert "redis+cluster://redis-c1:6379,redis-c2:6379,redis-c3:6379" in text
    assert "RQ_REDIS_URL=redis://redis:6379/0" in text
