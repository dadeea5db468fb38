"""The access log never holds a path segment that could be a secret (issue 26 row 8): a request
that matched no route, or named something that does not exist (404), is logged by its route
template, without the ids in it; a request that found its resource keeps its path."""

from __future__ import annotations

import io
import json
import secrets
from typing import Any

from flask.testing import FlaskClient

from tests.api.conftest import create


def lines_of(captured: io.StringIO) -> list[dict[str, Any]]:
    """Every JSON log line written so far."""
    return [json.loads(line) for line in captured.getvalue().splitlines() if line.strip()]


def test_a_secret_pasted_into_a_path_is_never_logged(client: FlaskClient, captured: io.StringIO) -> None:
    """Rule: `/bots/<secret>` (404 bot_not_found), `/games/<secret>` (no such game), an unmatched
    `/<secret>/x` and `/web/bots/<secret>`: their access lines name the route template (or
    `<unmatched>`), never the secret, in no field and not in the message."""
    secret = secrets.token_urlsafe(32)
    paths = [f"/bots/{secret}", f"/bots/{secret}/matches", f"/{secret}/x", f"/tournaments/{secret}"]
    for path in paths:
        answer = client.get(path)
        assert answer.status_code == 404, (path, answer.status_code)
    text = captured.getvalue()
    assert secret not in text
    access = [line for line in lines_of(captured) if line.get("status") == 404]
    assert len(access) == len(paths)
    assert {line["path"] for line in access} == {
        "/bots/<string:bot_id>",
        "/bots/<string:bot_id>/matches",
        "<unmatched>",
        "/tournaments/<string:tournament_id>",
    }
    assert all(line["game_id"] is None and line["tournament_id"] is None for line in access)


def test_a_request_that_found_its_resource_keeps_its_path(client: FlaskClient, captured: io.StringIO) -> None:
    """Rule: a 200 on a real game logs its path and game id, as before (the ids are not secrets)."""
    game_id = create(client, "tricky-teams", 4, seed=5)["game_id"]
    assert client.get(f"/games/{game_id}").status_code == 200
    mine = [line for line in lines_of(captured) if line.get("path") == f"/games/{game_id}"]
    assert mine and mine[-1]["game_id"] == game_id
