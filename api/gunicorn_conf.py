"""gunicorn settings for the API: `gunicorn -c python:api.gunicorn_conf ... "api.app:create_app()"`.

The server's own limits, the same for `make run` and compose (docs/operations.md, Limits):

- `worker_class` gevent, for `make run` and compose alike: a connection holds a greenlet, not a
  thread, so slow clients (a slowloris sending its headers or body a byte at a time) cannot take
  every worker's threads (`tests/ops/test_slow_clients.py`: 256 slow connections, getHealth and a
  move still answer within 1 s), nor can open event streams (`tests/ops/test_stream_load.py`:
  1,000 streams; 16 of them held all 2 x 8 threads of the gthread worker compose used to run).
  A waiting stream holds no Redis connection either: the process's event hub reads for all of
  them (core.event_hub).
- `worker_connections`: open connections per worker (streams, slow ones and keep-alive ones
  included); above `TRICKARENA_SSE_MAX_STREAMS` (1,000 streams per process), so streams alone never
  fill a worker.
- `keepalive`: seconds an idle connection is kept; the gevent worker also gives a request's
  headers at most this long. `timeout`: a worker silent this long is restarted.
- `limit_request_line` / `limit_request_fields` / `limit_request_field_size`: the request line,
  the number of headers and each header's size (above them: 400, or 431 for a header too large).

With `TRICKARENA_LOG_FORMAT=json` gunicorn's own lines (start-up, workers booting and exiting,
signals, errors; access lines if an access log is asked for) are written by
`api.ops.JsonFormatter`, so the API's log is one JSON object per line like every other process's.
Without it gunicorn keeps its plain format.

gunicorn takes every module-level name of this file that is one of its settings (command-line
flags win over them) and ignores the others.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from gunicorn.glogging import Logger  # type: ignore[import-untyped]

from core.telemetry import LOG_FORMAT_ENV, JsonFormatter

if TYPE_CHECKING:
    from gunicorn.config import Config  # type: ignore[import-untyped]


# A logger class rather than `logconfig_dict`: any logconfig_dict turns gunicorn's access log on (a
# second line per request, and its atoms built on every request) and gunicorn merges it over
# defaults that give the root logger a plain stdout handler, doubling the app's own lines.
class JsonLogger(Logger):  # type: ignore[misc]
    """gunicorn's logger with its handlers (stderr, log files) writing our JSON lines."""

    def setup(self, cfg: Config) -> None:
        """Set up gunicorn's handlers as usual, then give them the JSON formatter."""
        # Only the formatter changes: which streams, files, levels, and whether access lines are
        # written at all stay as gunicorn decides from its settings (also on a SIGHUP reload).
        super().setup(cfg)
        formatter = JsonFormatter()
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(formatter)


# -- the server's limits (command-line flags win over these) ----------------------------------------
worker_class = "gevent"
workers = 2
worker_connections = 2000  # gevent: open connections per worker, streams and slow ones included
timeout = 30
graceful_timeout = 5
keepalive = 5
limit_request_line = 4094
limit_request_fields = 50
limit_request_field_size = 8190

if os.environ.get(LOG_FORMAT_ENV) == "json":
    logger_class = JsonLogger
