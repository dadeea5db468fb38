"""Rotating the owner key of a tournament (rotateTournamentKey) or a league (rotateLeagueKey): the new
key is shown once, the old one stops working at once everywhere (league rounds included), against a
real Redis and real HTTP bots on loopback (issue 17)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, cast

import pytest
from flask.testing import FlaskClient

from core import errors
from harness import tournaments as ops
from harness.runner import HarnessContext
from harness.tournaments import join_league, run_league_round

from .bot_servers import random_bots
from .test_listings import bearer, client, new_league, new_tournament

__all__ = ["client"]  # the fixture, shared


@pytest.fixture()
def bots(ctx: HarnessContext) -> Iterator[list[tuple[str, str]]]:
    """Two real random bots on loopback, registered: [(bot id, owner key)]."""
    with random_bots(ctx.bots, 2, prefix="rot") as made:
        yield made


def rotate(client: FlaskClient, path: str, key: str | None) -> Any:
    """POST <path>/keys with the key as Bearer (none: no header)."""
    return client.post(f"{path}/keys", headers=bearer(key) if key is not None else {})


def listed(client: FlaskClient, path: str, key: str) -> list[str]:
    """Ids a listing shows to `key`."""
    body = client.get(path, headers=bearer(key)).get_json()
    kind = path.strip("/")
    return [item[f"{kind[:-1]}_id"] for item in body[kind]]


def test_a_rotated_tournament_key_replaces_the_old_one_at_once(
    client: FlaskClient, bots: list[tuple[str, str]]
) -> None:
    """Rule: rotateTournamentKey shows a new key once (no-store); from then on the old key is 403 for
    cancelling and rotating and lists nothing, the new key lists the tournament and cancels it."""
    created = new_tournament(client, bots)
    tid, old = created["tournament_id"], created["owner_key"]
    answer = rotate(client, f"/tournaments/{tid}", old)
    assert answer.status_code == 200, answer.get_json()
    assert answer.headers["Cache-Control"] == "no-store"
    body = answer.get_json()
    assert set(body) == {"tournament", "owner_key"} and body["tournament"]["tournament_id"] == tid
    new = body["owner_key"]
    assert new != old and len(new) >= 32
    assert "owner_key" not in client.get(f"/tournaments/{tid}").get_json()
    for response in (
        client.post(f"/tournaments/{tid}/cancel", headers=bearer(old)),
        rotate(client, f"/tournaments/{tid}", old),
    ):
        assert (response.status_code, response.get_json()["code"]) == (403, "not_owner")
    assert listed(client, "/tournaments", old) == []
    assert listed(client, "/tournaments", new) == [tid]
    cancelled = client.post(f"/tournaments/{tid}/cancel", headers=bearer(new))
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"


def test_a_rotated_league_key_covers_the_league_and_its_rounds(
    client: FlaskClient, ctx: HarnessContext, bots: list[tuple[str, str]]
) -> None:
    """Rule: after rotateLeagueKey the old key changes nothing of the league (updateLeague,
    deleteLeague, rotateLeagueKey: 403) nor of its rounds (cancelTournament: 403) and lists nothing;
    the new key does all of it, and lists the league, its rounds from before the rotation and those
    created after."""
    league = new_league(client)
    lid, old = league["league_id"], league["owner_key"]
    for bot_id, bot_key in bots:
        join_league(ctx, lid, bot_id, bot_key)
    before = run_league_round(ctx, lid, 1)
    answer = rotate(client, f"/leagues/{lid}", old)
    assert answer.status_code == 200, answer.get_json()
    assert answer.headers["Cache-Control"] == "no-store"
    assert answer.get_json()["league"]["league_id"] == lid
    new = answer.get_json()["owner_key"]
    refusals = [
        client.patch(f"/leagues/{lid}", json={"status": "paused"}, headers=bearer(old)),
        client.delete(f"/leagues/{lid}", headers=bearer(old)),
        client.post(f"/tournaments/{before}/cancel", headers=bearer(old)),
        rotate(client, f"/leagues/{lid}", old),
    ]
    assert [(r.status_code, r.get_json()["code"]) for r in refusals] == [(403, "not_owner")] * 4
    assert listed(client, "/leagues", old) == [] and listed(client, "/tournaments", old) == []
    assert client.post(f"/tournaments/{before}/cancel", headers=bearer(new)).status_code == 200
    after = run_league_round(ctx, lid, 2)
    assert after is not None
    assert listed(client, "/leagues", new) == [lid]
    assert listed(client, "/tournaments", new) == [after, before]
    renamed = client.patch(f"/leagues/{lid}", json={"name": "Renamed"}, headers=bearer(new))
    assert renamed.status_code == 200 and renamed.get_json()["name"] == "Renamed"


def test_rotation_refusals_change_nothing(
    client: FlaskClient, ctx: HarnessContext, bots: list[tuple[str, str]]
) -> None:
    """Rule: no key 401, another key 403, an unknown id 404, a league round's own rotation 409
    `league_round` (its league's key owns it), a deleted league 409 `league_deleted`; none of them
    changes a stored owner digest."""
    tournament = new_tournament(client, bots)
    tid, t_key = tournament["tournament_id"], tournament["owner_key"]
    league = new_league(client)
    lid, l_key = league["league_id"], league["owner_key"]
    join_league(ctx, lid, bots[0][0], bots[0][1])
    round_id = run_league_round(ctx, lid, 1)
    gone = new_league(client)
    assert (
        client.delete(f"/leagues/{gone['league_id']}", headers=bearer(gone["owner_key"])).status_code == 200
    )

    def owners() -> list[bytes | None]:
        keys = [("tournament", tid), ("tournament", round_id), ("league", lid), ("league", gone["league_id"])]
        return [
            cast("bytes | None", ctx.store.client.hget(ctx.store.key_for(kind, ident), "owner"))
            for kind, ident in keys
        ]

    stored = owners()
    cases = [
        (f"/tournaments/{tid}", None, 401, "missing_token"),
        (f"/tournaments/{tid}", "x" * 32, 403, "not_owner"),
        (f"/tournaments/{tid}", l_key, 403, "not_owner"),
        ("/tournaments/0123456789abcdef", t_key, 404, "tournament_not_found"),
        (f"/tournaments/{round_id}", l_key, 409, "league_round"),
        (f"/leagues/{lid}", None, 401, "missing_token"),
        (f"/leagues/{lid}", t_key, 403, "not_owner"),
        ("/leagues/0123456789abcdef", l_key, 404, "league_not_found"),
        (f"/leagues/{gone['league_id']}", gone["owner_key"], 409, "league_deleted"),
    ]
    for path, key, status, code in cases:
        answer = rotate(client, path, key)
        assert (answer.status_code, answer.get_json()["code"]) == (status, code), (path, answer.get_json())
    assert rotate(client, f"/tournaments/{round_id}", l_key).get_json()["details"] == {"league_id": lid}
    assert owners() == stored


@pytest.mark.parametrize("kind", ["tournament", "league"])
def test_of_simultaneous_rotations_with_one_key_exactly_one_wins(
    client: FlaskClient, ctx: HarnessContext, bots: list[tuple[str, str]], kind: str
) -> None:
    """Rule: rotation is one compare-and-set: 8 rotations at once with the same key give exactly one
    new key, and only that key works afterwards."""
    created = new_tournament(client, bots) if kind == "tournament" else new_league(client)
    ident, key = created[f"{kind}_id"], created["owner_key"]
    rotate_one = ops.rotate_tournament_key if kind == "tournament" else ops.rotate_league_key
    start = threading.Barrier(8)
    won: list[str] = []
    lost: list[str] = []

    def attempt() -> None:
        start.wait()
        try:
            won.append(rotate_one(ctx, ident, key)["owner_key"])
        except errors.InvalidToken as exc:
            lost.append(exc.code)

    threads = [threading.Thread(target=attempt) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 1 and lost == ["not_owner"] * 7
    assert listed(client, f"/{kind}s", won[0]) == [ident]
    assert rotate(client, f"/{kind}s/{ident}", won[0]).status_code == 200
