"""Operations: /metrics in Prometheus format, JSON logs with request and match ids, getHealth workers.

All against the real app on loopback and a real Redis; the worker check runs a real RQ worker
process.
"""

from __future__ import annotations

import io
import json
import logging
import os
import string
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from api import ops
from api.app import create_app
from core import telemetry
from tests.ops.conftest import Served, new_game
from tests.ops.make_run_api import make_run_api

ROOT = Path(__file__).resolve().parents[2]
# LogRecord's own attributes (and the formatter's keys) cannot be `extra` fields.
JSON_RESERVED = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "ts",
    "level",
    "logger",
    "msg",
}


def scrape(base: str, path: str = "/metrics") -> dict[str, list[tuple[dict[str, str], float]]]:
    """GET `path` (/metrics), parsed by prometheus_client's own parser: sample name -> [(labels, value)]."""
    answer = requests.get(f"{base}{path}", timeout=10)
    assert answer.status_code == 200
    assert answer.headers["Content-Type"].startswith("text/plain")
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            out.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return out


def value(samples: dict[str, list[tuple[dict[str, str], float]]], name: str, **labels: str) -> float:
    """The sum of a sample's values over the series matching `labels`."""
    return sum(v for lab, v in samples.get(name, []) if all(lab.get(k) == x for k, x in labels.items()))


def play_one_move(base: str, game: str = "tricky-teams") -> str:
    """Create a game and post one legal move over HTTP; the game id."""
    created = new_game(base, game)
    gid = created["game_id"]
    seat = requests.get(f"{base}/games/{gid}", timeout=10).json()["view"]["to_move"][0]
    auth = {"Authorization": f"Bearer {created['tokens'][seat]['token']}"}
    legal = requests.get(f"{base}/games/{gid}/legal-moves", headers=auth, timeout=10).json()["legal_moves"]
    answer = requests.post(f"{base}/games/{gid}/moves", json=legal[0], headers=auth, timeout=10)
    assert answer.status_code == 200
    return str(gid)


def test_metrics_count_requests_by_endpoint_and_status_and_moves(served: Served) -> None:
    """Rule: every request is counted under its route template and status; applied moves are counted."""
    before = scrape(served.base)
    play_one_move(served.base)
    requests.get(f"{served.base}/games/ffffffffffffffff", timeout=10)  # a 404
    after = scrape(served.base)
    name = "trickarena_http_requests_total"
    route = "/games/<game_id:game_id>"

    def grew(status: str) -> float:
        """How much the route's counter for `status` grew."""
        now = value(after, name, endpoint=route, status=status)
        return now - value(before, name, endpoint=route, status=status)

    assert grew("200") >= 1
    assert grew("404") == 1
    assert value(after, name, endpoint="/games", method="POST", status="201") >= 1
    moves = "trickarena_api_moves_total"
    assert value(after, moves) - value(before, moves) == 1
    assert value(after, "trickarena_http_request_duration_seconds_count", endpoint=route) >= 1


def test_metrics_report_worker_counters_queue_depth_and_workers_from_redis(served: Served) -> None:
    """Rule: match moves, bot time and faults recorded by workers (in Redis) show on any API process,
    under /metrics/platform."""
    client = redis.Redis.from_url(served.redis_url)
    before = scrape(served.base, "/metrics/platform")
    # Five /move answers: three in (0.0025, 0.005], one in (0.005, 0.01], one over the last bound.
    counts = [0] * (len(telemetry.BOT_LATENCY_BUCKETS) + 1)
    counts[2], counts[3], counts[-1] = 3, 1, 1
    record = {
        "decisions": 40,
        "timing": {"decisions": 40, "bot_s": 1.5},
        "bot_latency": {"counts": counts, "sum_s": 12.5},
        "fault_codes": [{"timeout": 2}, {}, {"illegal_move": 1}, {}],
    }
    telemetry.record_match(client, served.prefix, "tricky-teams", record)
    after = scrape(served.base, "/metrics/platform")
    for name, delta in (
        ("trickarena_match_moves_total", 40),
        ("trickarena_matches_total", 1),
        ("trickarena_bot_decision_seconds_count", 5),
        ("trickarena_bot_decision_seconds_sum", 12.5),
    ):
        assert value(after, name, game="tricky-teams") - value(before, name, game="tricky-teams") == delta
    bucket = "trickarena_bot_decision_seconds_bucket"
    for le, delta in (("0.001", 0), ("0.0025", 0), ("0.005", 3), ("0.01", 4), ("10.0", 4), ("+Inf", 5)):
        labels = {"game": "tricky-teams", "le": le}
        assert value(after, bucket, **labels) - value(before, bucket, **labels) == delta, le
    faults = "trickarena_bot_faults_total"
    assert value(after, faults, code="timeout") - value(before, faults, code="timeout") == 2
    assert value(after, faults, code="illegal_move") - value(before, faults, code="illegal_move") == 1
    assert value(after, "trickarena_queue_depth", queue=telemetry.DEFAULT_QUEUE) >= 0
    assert "trickarena_workers" in after and value(after, "trickarena_redis_up") == 1


PLATFORM_FAMILIES = (
    "trickarena_matches_total",
    "trickarena_match_moves_total",
    "trickarena_queue_depth",
    "trickarena_workers",
    "trickarena_redis_up",
)


def test_metrics_summed_over_api_replicas_count_each_request_and_each_match_once(
    redis_url: str, tmp_path: Path
) -> None:
    """Rule: with two API replicas (make run's gunicorn, each its own processes) on one Redis,
    `sum()` over their /metrics counts each replica's own requests once and never the Redis-derived
    platform metrics: those are on /metrics/platform, the same from either replica (one target)."""
    prefix = f"ta-test:{uuid.uuid4().hex[:12]}:"
    client = redis.Redis.from_url(redis_url)
    try:
        with (
            make_run_api(redis_url, prefix, tmp_path / "a") as first,
            make_run_api(redis_url, prefix, tmp_path / "b") as second,
        ):
            record = {"decisions": 7, "timing": {"decisions": 7, "bot_s": 0.1}}
            for _ in range(3):
                telemetry.record_match(client, prefix, "tricky-teams", record)
            for _ in range(2):
                per_process = [scrape(base) for base in (first, second)]
            for samples in per_process:
                for family in PLATFORM_FAMILIES:
                    assert family not in samples, family
            # Each replica counted the one /metrics request it answered before this scrape.
            metric, route = "trickarena_http_requests_total", "/metrics"
            assert sum(value(s, metric, endpoint=route) for s in per_process) == 2
            platform = [scrape(base, "/metrics/platform") for base in (first, second)]
            assert platform[0]["trickarena_matches_total"] == platform[1]["trickarena_matches_total"]
            assert value(platform[0], "trickarena_matches_total", game="tricky-teams") == 3
            assert value(platform[0], "trickarena_match_moves_total", game="tricky-teams") == 21
            assert value(platform[0], "trickarena_redis_up") == 1
    finally:
        for key in client.scan_iter(match=prefix + "*", count=1000):
            client.delete(key)
        client.close()


@pytest.mark.parametrize(
    ("seconds", "bucket"),
    [(0.0, 0), (0.001, 0), (0.0010001, 1), (0.004, 2), (0.3, 8), (10.0, 12), (10.5, 13), (1e9, 13)],
)
def test_a_decision_time_falls_in_the_first_bucket_whose_bound_it_does_not_exceed(
    seconds: float, bucket: int
) -> None:
    """Rule: Prometheus buckets are "less than or equal": a time on a bound counts in that bucket."""
    assert telemetry.latency_bucket(seconds) == bucket
    assert len(telemetry.BOT_LATENCY_BUCKETS) == 13


def test_access_logs_are_json_with_the_request_id_echoed_and_the_game_id(
    served: Served, captured: io.StringIO
) -> None:
    """Rule: one JSON line per request with its request id (the caller's, echoed back) and game id."""
    gid = play_one_move(served.base)
    rid = uuid.uuid4().hex
    answer = requests.get(f"{served.base}/games/{gid}", headers={"X-Request-ID": rid}, timeout=10)
    assert answer.headers["X-Request-ID"] == rid
    lines = [json.loads(line) for line in captured.getvalue().splitlines()]
    mine = [line for line in lines if line.get("request_id") == rid]
    assert len(mine) == 1
    assert mine[0]["game_id"] == gid and mine[0]["status"] == 200 and mine[0]["method"] == "GET"
    assert mine[0]["level"] == "info" and mine[0]["duration_ms"] >= 0
    # Without a caller id, the server makes one, and every request gets its own.
    ids = {requests.get(f"{served.base}/game-types", timeout=10).headers["X-Request-ID"] for _ in range(3)}
    assert len(ids) == 3


@pytest.mark.parametrize(
    "incoming, kept",
    [
        ("abc-123", True),
        ("a" * 64, True),  # 64 hex digits
        (str(uuid.UUID(int=7)), True),
        ("x" * 31, True),
        ("x" * 32, False),  # 32 or more characters must be hex: every issued secret is longer
        ("a" * 65, False),
        ("bad\nid", False),
        ("bad id", False),
        ("", False),
    ],
)
def test_only_short_safe_request_ids_are_trusted(served: Served, incoming: str, kept: bool) -> None:
    """Rule: a caller's request id goes into every log line, so only a short safe one is kept."""
    headers = {"X-Request-ID": incoming} if "\n" not in incoming else {}
    answer = requests.get(f"{served.base}/game-types", headers=headers, timeout=10)
    assert (answer.headers["X-Request-ID"] == incoming) is (kept and "\n" not in incoming)


def test_log_context_puts_match_ids_on_every_line(captured: io.StringIO) -> None:
    """Rule: lines written inside log_context(match_id=...) carry it; lines outside do not."""
    log = logging.getLogger("trickarena.harness")
    with telemetry.log_context(match_id="t1:3", tournament_id="t1"):
        log.info("move applied", extra={"seat": 2})
    log.info("outside")
    first, second = (json.loads(line) for line in captured.getvalue().splitlines())
    assert first["match_id"] == "t1:3" and first["tournament_id"] == "t1" and first["seat"] == 2
    assert "match_id" not in second


def test_health_reports_redis_and_worker_status(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule: getHealth shows the workers on our queue: "degraded" with none, "ok" with a live one."""
    queue = f"ta-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("TRICKARENA_QUEUE", queue)
    app = create_app({"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix})
    client = app.test_client()
    answer = client.get("/health")
    body = answer.get_json()
    # The API itself still serves without workers: 200, with the degradation in the body.
    assert answer.status_code == 200 and body["status"] == "degraded"
    assert body["redis"]["ok"] is True and body["workers"] == {
        "ok": False,
        "count": 0,
        "queue": queue,
        "queued": 0,
        "workers": [],
        "unhealthy": [],
    }
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "TRICKARENA_KEY_PREFIX": key_prefix,
        "TRICKARENA_QUEUE": queue,
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "worker", "--log-level", "WARNING"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            body = client.get("/health").get_json()
            if body["workers"]["count"] == 1:
                break
            time.sleep(0.2)
        answer = client.get("/health")
        assert answer.status_code == 200, answer.get_json()
        assert answer.get_json()["status"] == "ok" and answer.get_json()["workers"]["ok"] is True
    finally:
        worker.terminate()
        worker.wait(timeout=30)


@pytest.mark.parametrize(
    "path, healthy",
    [("/health", True), ("/game-types", True), ("/no-such-page", False)],
)
def test_container_probe(served: Served, path: str, healthy: bool) -> None:
    """Rule: the probe passes when the URL answers (getHealth: when its Redis is ok), fails on errors."""
    assert ops.main(["probe", f"{served.base}{path}"]) == (0 if healthy else 1)


def test_container_probe_fails_when_nothing_listens() -> None:
    """Rule: a closed port is unhealthy."""
    from harness.platform import free_port

    assert ops.main(["probe", f"http://127.0.0.1:{free_port()}/health"]) == 1


@settings(max_examples=60, deadline=None)
@given(
    message=st.text(max_size=200),
    extra=st.dictionaries(
        st.from_regex(r"[a-z][a-z_]{0,15}", fullmatch=True).filter(lambda k: k not in JSON_RESERVED),
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=50)),
        max_size=5,
    ),
)
def test_every_log_record_is_exactly_one_json_line(message: str, extra: dict[str, object]) -> None:
    """Property: whatever the message (newlines included) and fields, one parseable line carrying them."""
    record = logging.LogRecord("trickarena.test", logging.INFO, __file__, 1, "%s", (message,), None)
    for key, val in extra.items():
        setattr(record, key, val)
    line = telemetry.JsonFormatter().format(record)
    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["msg"] == message and parsed["level"] == "info"
    for key, val in extra.items():
        assert parsed[key] == val


@pytest.fixture(scope="module")
def plain_app(redis_url: str) -> Any:
    """An app for in-process requests (Flask test client: fast enough for many examples)."""
    return create_app({"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": f"ta-test:{uuid.uuid4().hex[:12]}:"})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    incoming=st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=255), max_size=80)
    | st.from_regex(r"[A-Za-z0-9._-]{1,70}", fullmatch=True)
)
def test_the_request_id_is_the_callers_only_when_short_and_safe(plain_app: Any, incoming: str) -> None:
    """Property: the echoed id is the caller's iff 1..31 characters of [A-Za-z0-9._-] or 32..64 of
    [0-9A-Fa-f-], else a fresh 32-hex one."""
    answer = plain_app.test_client().get("/game-types", headers={"X-Request-ID": incoming})
    echoed = answer.headers["X-Request-ID"]
    # WSGI carries headers as latin-1 and strips surrounding spaces; compare what the server saw.
    seen = incoming.strip(" \t")  # HTTP drops optional whitespace (space, tab) around a value
    safe = set(string.ascii_letters + string.digits + "._-")
    if (0 < len(seen) < 32 and set(seen) <= safe) or (
        32 <= len(seen) <= 64 and set(seen) <= set(string.hexdigits + "-")
    ):
        assert echoed == seen
    else:
        assert len(echoed) == 32 and all(c in "0123456789abcdef" for c in echoed)
