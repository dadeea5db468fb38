"""A secret sent as X-Request-ID never reaches the log: it is replaced by a fresh id (api/ops.py)."""

from __future__ import annotations

import io
import json

import requests

from tests.ops.conftest import Served, new_game


def test_a_seat_token_sent_as_request_id_never_reaches_the_log(served: Served, captured: io.StringIO) -> None:
    """Rule (operations.md, Logs): a seat token, an owner key or a signing secret in X-Request-ID is not
    a safe request id: the answer carries a fresh one, and no log line holds the secret."""
    created = new_game(served.base, "trick-n-trouble")
    token = created["tokens"][0]["token"]
    bot_secret_shaped = "Ab0_" * 10 + "xyz"  # 43 characters, like a bot's signing secret
    for secret in (token, bot_secret_shaped):
        answer = requests.get(
            f"{served.base}/games/{created['game_id']}",
            headers={"X-Request-ID": secret, "Authorization": f"Bearer {token}"},
            timeout=10,
        )
        assert answer.status_code == 200
        echoed = answer.headers["X-Request-ID"]
        assert echoed != secret and len(echoed) == 32 and all(c in "0123456789abcdef" for c in echoed)
    logged = captured.getvalue()
    lines = [json.loads(line) for line in logged.splitlines()]
    assert any(line.get("game_id") == created["game_id"] for line in lines)  # the requests were logged
    assert token not in logged and bot_secret_shaped not in logged
