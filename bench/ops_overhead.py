"""What the operations layer (api/ops.py: request id, Prometheus counters, JSON access log) costs.

Each mode runs in its own process (logging configuration is process-wide): `without` (the app
factory minus api.ops), `ops` (hooks and counters, no log handler) and `json` (hooks, counters and
one JSON log line per request written to /dev/null). Each times Flask's full request cycle --
context, before/after/teardown hooks, response -- around a trivial response, so the difference
between modes is the hooks' own cost, not Redis or the network. Prints the median of 5 runs,
each the best of 3 repeats of 3000 cycles, plus per-piece costs.

    .venv/bin/python bench/ops_overhead.py [--redis-url URL]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import statistics
import subprocess
import sys
import timeit
import uuid
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
MODES = ("without", "ops", "json")


def build(with_ops: bool, url: str, prefix: str) -> Any:
    """The app factory's app, with or without the ops module registered."""
    from api import app as app_module
    from api import ops

    # The app factory calls each optional module's `register`; without ops, its is a no-op.
    skip_ops = (
        contextlib.nullcontext() if with_ops else mock.patch.object(ops, "register", lambda _api, _app: None)
    )
    with skip_ops:
        # Rate limits off, as in api_bench.py: the loop is one client address far over any limit.
        return app_module.create_app(
            {"REDIS_URL": url, "TRICKARENA_KEY_PREFIX": prefix, "TRICKARENA_RATE_LIMITS": "off"}
        )


def cycle_us(mode: str, url: str) -> float:
    """Microseconds per request cycle in this process, for `mode`."""
    if mode == "json":
        os.environ["TRICKARENA_LOG_FORMAT"] = "json"
    app = build(mode != "without", url, f"ta-bench-ops:{uuid.uuid4().hex[:8]}:")
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(open(os.devnull, "w"))  # noqa: SIM115 (lives as long as the process)

    def one() -> None:
        """One full request cycle around a trivial response."""
        with app.test_request_context("/games/abcdef0123456789"):
            app.preprocess_request()
            app.process_response(app.make_response(("x", 200)))
            app.do_teardown_request()

    runs = [min(timeit.repeat(one, number=3000, repeat=3)) / 3000 * 1e6 for _ in range(5)]
    return statistics.median(runs)


def pieces(number: int = 20000) -> dict[str, float]:
    """Microseconds per call of each piece of the hooks (median of 3 x best-of-3)."""
    from api import ops
    from core import telemetry

    log = logging.getLogger("trickarena.bench.access")
    log.propagate = False
    log.setLevel(logging.INFO)
    handler = logging.StreamHandler(io.StringIO())
    handler.setFormatter(telemetry.JsonFormatter())
    log.addHandler(handler)
    fields = {
        "method": "GET",
        "path": "/games/ab",
        "endpoint": "/games/<game_id:game_id>",
        "status": 200,
        "duration_ms": 1.0,
        "game_id": "ab",
        "tournament_id": None,
    }
    route = "/games/<game_id:game_id>"
    cases = {
        "counter inc (labels)": lambda: ops.HTTP_REQUESTS.labels(route, "GET", "200").inc(),
        "histogram observe (labels)": lambda: ops.HTTP_LATENCY.labels(route).observe(0.001),
        "request id (uuid4)": lambda: uuid.uuid4().hex,
        "JSON access log line": lambda: log.info("%s %s %s", "GET", "/x", "200", extra=fields),
    }
    out = {}
    for name, call in cases.items():
        runs = [min(timeit.repeat(call, number=number, repeat=3)) / number * 1e6 for _ in range(3)]
        out[name] = statistics.median(runs)
    return out


def main() -> None:
    """Run every mode in its own process and print the medians."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/13"))
    parser.add_argument("--mode", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mode:
        print(f"{cycle_us(args.mode, args.redis_url):.2f}")
        return
    results: dict[str, list[float]] = {mode: [] for mode in MODES}
    for _ in range(3):  # interleaved, so a burst of load elsewhere hits every mode alike
        for mode in MODES:
            done = subprocess.run(
                [sys.executable, __file__, "--mode", mode, "--redis-url", args.redis_url],
                capture_output=True,
                text=True,
                check=True,
            )
            results[mode].append(float(done.stdout.strip().splitlines()[-1]))
    base = statistics.median(results["without"])
    for mode, values in results.items():
        median = statistics.median(values)
        runs = ", ".join(f"{v:.1f}" for v in values)
        print(f"{mode:8} request cycle: median {median:6.1f} us (runs {runs})  +{median - base:5.1f} us")
    for name, cost in pieces().items():
        print(f"{name:28} {cost:6.2f} us")


if __name__ == "__main__":
    main()
