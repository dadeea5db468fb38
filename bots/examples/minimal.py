"""A complete bot in ten lines: always the lowest-numbered card on offer, else the first legal move."""

from typing import Any

from bots.sdk import serve


def rank(move: dict[str, Any]) -> int:
    """The number on the move's card (moves without a card rank last)."""
    return int(move.get("card", "x-99").rsplit("-", 1)[1].rstrip("abc"))


def choose(view: dict[str, Any], legal_moves: list[dict[str, Any]]) -> dict[str, Any]:
    """The legal move with the lowest-numbered card."""
    return min(legal_moves, key=rank)


if __name__ == "__main__":
    # The signing secret comes from $TRICKARENA_BOT_SECRET (or --secret-file), never argv.
    serve(choose, name="minimal", games=["tricky-teams", "trick-n-trouble"])  # http://127.0.0.1:8001
