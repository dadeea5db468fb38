"""`python -m bots.serve <botname> --port N --secret S`: serve a bundled bot over HTTP."""

from __future__ import annotations

import argparse
import logging
import os

from bots.bundled import BUNDLED, make_bot
from bots.sdk import SECRET_ENV, serve_bot


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve the chosen bundled bot until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m bots.serve", description=__doc__)
    parser.add_argument("bot", choices=sorted(BUNDLED))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--secret", default=os.environ.get(SECRET_ENV), help=f"signing secret (or ${SECRET_ENV})"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    serve_bot(make_bot(args.bot), args.secret, args.host, args.port)


if __name__ == "__main__":
    main()
