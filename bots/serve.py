"""`python -m bots.serve <botname> [--port N]`: serve a bundled bot over HTTP (port 8001 by default).

The signing secret comes from `$TRICKARENA_BOT_SECRET`, or from a file (`--secret-file PATH`, or
`$TRICKARENA_BOT_SECRET_FILE`), never from the command line by default: `ps` shows every process's
arguments, and a secret starting with `-` (one `token_urlsafe` secret in 64) does not parse as an
option's value. `--secret S` still works but is deprecated (if you must: `--secret=S`).
"""

from __future__ import annotations

import argparse
import logging

from bots.bundled import BUNDLED, make_bot
from bots.sdk import DEFAULT_PORT, SECRET_ENV, SECRET_FILE_ENV, SecretError, load_secret, serve_bot


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve the chosen bundled bot until interrupted."""
    parser = argparse.ArgumentParser(
        prog="python -m bots.serve",
        description=__doc__.split("\n", 1)[0],
        epilog=f"The signing secret: ${SECRET_ENV}, or a file (--secret-file, ${SECRET_FILE_ENV}).",
    )
    parser.add_argument("bot", choices=sorted(BUNDLED))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"the port to listen on (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--secret-file", default=None, metavar="PATH", help="a file holding the signing secret alone"
    )
    parser.add_argument(
        "--secret",
        default=None,
        help=f"deprecated: the secret on the command line, where ps shows it (use ${SECRET_ENV})",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    if args.secret is not None:
        logging.getLogger("trickarena.bot").warning(
            "--secret is deprecated (ps shows it): set $%s or use --secret-file", SECRET_ENV
        )
        secret: str | None = args.secret
    else:
        try:
            secret = load_secret(args.secret_file)
        except SecretError as exc:
            parser.exit(2, f"{parser.prog}: {exc}\n")
    serve_bot(make_bot(args.bot), secret, args.host, args.port)


if __name__ == "__main__":
    main()
