"""A Trick Arena bot in Python on the SDK (`bots.sdk`): copy it and replace `choose`.

    export TRICKARENA_BOT_SECRET=...            # or TRICKARENA_BOT_SECRET_FILE=path
    python bots/starters/python/bot.py          # http://127.0.0.1:8001 (PORT=N, HOST=0.0.0.0 to change)

The SDK serves it over HTTP (keep-alive), answers `GET /`, and checks the signature of every
`POST` with the secret it reads from the environment (never from the command line).
"""

from __future__ import annotations

import os
import random
from typing import Any

from bots.sdk import DEFAULT_PORT, serve

GAMES = ["tricky-teams", "trick-n-trouble"]


def choose(view: dict[str, Any], legal_moves: list[dict[str, Any]]) -> dict[str, Any]:
    """Your strategy: one of `legal_moves`, unchanged (here: any of them)."""
    return random.choice(legal_moves)


if __name__ == "__main__":
    name = os.environ.get("BOT_NAME", "my-bot")
    serve(
        choose,
        name=name,
        games=GAMES,
        host=os.environ.get("HOST", "127.0.0.1"),
        port=int(os.environ.get("PORT", DEFAULT_PORT)),
    )
