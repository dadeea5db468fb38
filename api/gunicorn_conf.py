"""gunicorn settings for the API: `gunicorn -c python:api.gunicorn_conf ... "api.app:create_app()"`.

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


if os.environ.get(LOG_FORMAT_ENV) == "json":
    logger_class = JsonLogger
