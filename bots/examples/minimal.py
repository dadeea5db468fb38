"""A complete bot in ten lines: plays the lowest-ranked legal card, else the first legal move."""

import sys

from bots.sdk import serve


def choose(view, legal_moves):
    """Prefer playing the card with the smallest number; any other decision: the first option."""
    plays = [m for m in legal_moves if m["type"] == "play"]
    return (
        min(plays, key=lambda m: int(m["card"].rsplit("-", 1)[1].rstrip("abc"))) if plays else legal_moves[0]
    )


if __name__ == "__main__":
    serve(choose, name="minimal", games=["tricky-teams", "trick-n-trouble"], secret=sys.argv[1], port=8001)
