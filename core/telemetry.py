"""Telemetry shared by every process: JSON log lines with context ids, and platform counters in Redis.

What the RQ workers do (moves played in matches, bot decision time, bot faults) is counted in a
Redis hash (`record_match`, once per recorded match) so that any API process can report the
whole platform at `/metrics` (`api.ops`).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import os
import sys
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson
from prometheus_client.utils import floatToGoString

if TYPE_CHECKING:
    # Only a type here: gunicorn's master loads this module (api.gunicorn_conf), and a redis imported
    # there is imported before the gevent worker monkey-patches (a MonkeyPatchWarning in the log).
    import redis

LOG_FORMAT_ENV = "TRICKARENA_LOG_FORMAT"
QUEUE_ENV = "TRICKARENA_QUEUE"
DEFAULT_QUEUE = "trickarena"
METRICS_KEY = "metrics"  # under the key prefix: a hash of platform-wide counters
# Upper bounds (seconds) of the bot decision-time histogram; a bot's deadline is 1 s by default.
BOT_LATENCY_BUCKETS: tuple[float, ...] = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
)  # fmt: skip

# Fields that a log line carries from its context (set per request, or per match by the worker).
LOG_CONTEXT: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "trickarena_log_context", default=None
)


# -- logs ---------------------------------------------------------------------------------------
class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, context ids and `extra` fields."""

    _STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}

    def format(self, record: logging.LogRecord) -> str:
        """Render `record` as a single JSON line."""
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        out.update(LOG_CONTEXT.get() or {})
        for key, value in vars(record).items():
            if key not in self._STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        try:
            # orjson: every API request writes one of these lines when JSON logs are on.
            return orjson.dumps(out, default=str, option=orjson.OPT_NON_STR_KEYS).decode()
        except TypeError:  # what orjson refuses (ints beyond 64 bits, lone surrogates)
            return json.dumps(out, default=str, separators=(",", ":"))


def configure_logging(fmt: str | None = None, level: int = logging.INFO) -> None:
    """Install the JSON (or plain) formatter on the root logger once; `fmt` defaults to the env."""
    fmt = fmt or os.environ.get(LOG_FORMAT_ENV)
    if not fmt:
        return  # leave logging as the host (pytest, an embedding app) configured it
    root = logging.getLogger()
    if any(getattr(h, "_trickarena", False) for h in root.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    plain = logging.Formatter("%(levelname)s %(name)s %(message)s")
    handler.setFormatter(JsonFormatter() if fmt == "json" else plain)
    handler._trickarena = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)


@contextlib.contextmanager
def log_context(**fields: Any) -> Iterator[None]:
    """Add fields (e.g. match_id, tournament_id) to every log line written inside the block."""
    added = {k: v for k, v in fields.items() if v is not None}
    token = LOG_CONTEXT.set({**(LOG_CONTEXT.get() or {}), **added})
    try:
        yield
    finally:
        LOG_CONTEXT.reset(token)


# -- worker-side counters in Redis --------------------------------------------------------------
def latency_bucket(seconds: float) -> int:
    """Index of the bot-latency bucket `seconds` falls in (`len(BOT_LATENCY_BUCKETS)` is +Inf)."""
    return bisect_left(BOT_LATENCY_BUCKETS, seconds)


def bucket_label(index: int) -> str:
    """Prometheus's label (`le`) of bucket `index` ("+Inf" past the last bound)."""
    if index >= len(BOT_LATENCY_BUCKETS):
        return "+Inf"
    bound: str = floatToGoString(BOT_LATENCY_BUCKETS[index])  # type: ignore[no-untyped-call]
    return bound


def record_match(client: redis.Redis, prefix: str, game: str, record: Mapping[str, Any]) -> None:
    """Count one recorded match (moves, bot decision times, faults by code) in the Redis metrics hash.

    Decision times arrive as `record["bot_latency"]`: per-bucket counts of the match's /move calls
    (not cumulative; indexed like `latency_bucket`) and their sum. They are stored per bucket
    bound, not per index, so that changing the bounds later never mixes two histograms.
    """
    timing = record.get("timing") or {}
    # `decisions` covers the whole match; `timing` only the run that finished it (after a resume).
    decisions = int(record.get("decisions", timing.get("decisions", 0)))
    pipe = client.pipeline(transaction=False)
    key = f"{prefix}{METRICS_KEY}"
    pipe.hincrby(key, f"matches|{game}", 1)
    pipe.hincrby(key, f"moves|{game}", decisions)
    latency = record.get("bot_latency") or {}
    counts: Sequence[int] = latency.get("counts") or ()
    for index, count in enumerate(counts[: len(BOT_LATENCY_BUCKETS) + 1]):
        if count:
            pipe.hincrby(key, f"bot_latency|{game}|{bucket_label(index)}", int(count))
    if counts:
        pipe.hincrbyfloat(key, f"bot_latency_sum|{game}", float(latency.get("sum_s", 0.0)))
    for codes in record.get("fault_codes") or ():
        for code, n in codes.items():
            pipe.hincrby(key, f"faults|{game}|{code}", int(n))
    pipe.execute()
