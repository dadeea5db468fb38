"""Bot submission through the real API app, a real Redis and real bot servers on loopback."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from bots.bundled import make_bot
from bots.protocol import sign
from bots.sdk import Bot, BotServer, FunctionBot
from core.bot_registry import NOT_A_BOT_MESSAGE, BotRegistry
from core.outbound import AddressPolicy, BotSession, parse_networks
from tests.api.conftest import json_of

BOTH = ["trick-n-trouble", "tricky-teams"]


class InfoBot(Bot):
    """A bot whose GET / answers whatever body the test wants."""

    def __init__(self, info: Any) -> None:
        self._info = info

    def info(self) -> Any:
        """The canned answer."""
        return self._info


@pytest.fixture(scope="module")
def good_bot() -> Iterator[str]:
    """The bundled random bot, served without a secret yet (as before submission)."""
    with BotServer(make_bot("random"), None) as server:
        yield server.url


@pytest.fixture(scope="module")
def bad_bots() -> Iterator[dict[str, str]]:
    """Bots whose GET / is wrong in different ways."""
    servers = {
        "not-info": BotServer(InfoBot({"hello": "world"}), None),
        "array": BotServer(InfoBot([1, 2, 3]), None),
        "tt-only": BotServer(FunctionBot(lambda v, m: m[0], "tt-only", ["tricky-teams"]), None),
    }
    for server in servers.values():
        server.start()
    yield {name: server.url for name, server in servers.items()}
    for server in servers.values():
        server.stop()


def _app(redis_url: str, key_prefix: str, allowed: str | None = None, registry: bool = False) -> Flask:
    config: dict[str, Any] = {"REDIS_URL": redis_url, "TRICKARENA_KEY_PREFIX": key_prefix, "TESTING": True}
    if allowed is not None:
        config["TRICKARENA_ALLOWED_NETWORKS"] = allowed
    if registry:
        # A name mapped in the test: `evil.test` -> the metadata address, `fine.test` -> loopback.
        names = {
            "evil.test": ["169.254.169.254"],
            "fine.test": ["127.0.0.1"],
            "sneaky.test": ["127.0.0.1", "10.1.1.1"],
        }
        config["TRICKARENA_BOT_REGISTRY"] = BotRegistry(
            redis.Redis.from_url(redis_url),
            key_prefix,
            policy=AddressPolicy(tuple(parse_networks("127.0.0.0/8"))),
            resolver=lambda host, port: names[host],
        )
    return create_app(config)


@pytest.fixture()
def client(redis_url: str, key_prefix: str) -> FlaskClient:
    """An API client with the default local policy (loopback allowed)."""
    return _app(redis_url, key_prefix).test_client()


def _create(client: FlaskClient, name: str, url: str, games: list[str] | None = None) -> Any:
    # The tests serve many registrations from one bot server: the first bot registered at a URL
    # lends its owner key to the others (a URL is one owner's: docs/api.md, url_taken).
    lenders: dict[str, str] = client.application.config.setdefault("TEST_URL_OWNERS", {})
    headers = {"Authorization": f"Bearer {lenders[url]}"} if url in lenders else {}
    answer = client.post("/bots", json={"name": name, "url": url, "games": games or BOTH}, headers=headers)
    if answer.status_code == 201:
        lenders.setdefault(url, json_of(answer)["owner_key"])
    return answer


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_rule_reachable_bot_is_accepted_and_secrets_are_shown_once(
    client: FlaskClient, good_bot: str
) -> None:
    """Rule: a bot answering GET / correctly is stored; owner key and secret appear only in createBot."""
    resp = _create(client, "rando", good_bot)
    assert resp.status_code == 201, resp.json
    body = json_of(resp)
    bot = body["bot"]
    assert resp.headers["Location"] == f"/bots/{bot['id']}"
    assert (bot["name"], bot["url"], bot["games"], bot["status"]) == ("rando", good_bot, BOTH, "active")
    assert bot["author"] == "Trick Arena" and bot["version"] == "1.0"
    assert len(body["owner_key"]) >= 32 and len(body["secret"]) >= 40
    fetched = json_of(client.get(f"/bots/{bot['id']}"))
    assert fetched == bot
    listed = json_of(client.get("/bots"))["bots"]
    assert listed == [bot]
    for text in (str(fetched), str(listed)):
        assert body["secret"] not in text and body["owner_key"] not in text


def test_rule_the_stored_secret_signs_requests_the_bot_accepts(
    client: FlaskClient, good_bot: str, redis_url: str, key_prefix: str
) -> None:
    """Rule: the harness recovers the secret; a bot configured with it accepts the calls."""
    body = json_of(_create(client, "signer", good_bot))
    record = BotRegistry(redis.Redis.from_url(redis_url), key_prefix).record(body["bot"]["id"])
    assert record.secret == body["secret"] and body["owner_key"] not in str(record)
    with BotServer(make_bot("random"), body["secret"]) as configured:
        session = BotSession(configured.url, record.secret, policy=AddressPolicy.from_env({}))
        move = {"type": "play", "card": "red-3"}
        message = {
            "match_id": "m",
            "game": "tricky-teams",
            "seat": 0,
            "view": {},
            "legal_moves": [move],
            "deadline_ms": 100,
            "time_bank_ms": 0,
        }
        assert session.post_json("/move", message) == {"move": move}
        assert sign(record.secret, b"x") != sign("other", b"x")


@pytest.mark.parametrize(
    ("bot", "games", "code"),
    [
        ("closed", BOTH, "bot_unreachable"),
        ("not-info", BOTH, "bot_unreachable"),
        ("array", BOTH, "bot_unreachable"),
        ("tt-only", BOTH, "game_not_played"),
        ("tt-only", ["tricky-teams", "chess"], "unknown_game"),
        ("ftp", BOTH, "invalid_url"),
    ],
)
def test_rule_bad_bots_are_refused_with_their_own_code(
    client: FlaskClient, bad_bots: dict[str, str], bot: str, games: list[str], code: str
) -> None:
    """Rule: unreachable, bad GET / body, unplayed or unknown game: each its own 422; nothing stored."""
    urls = {**bad_bots, "closed": f"http://127.0.0.1:{_closed_port()}", "ftp": "ftp://127.0.0.1/bot"}
    resp = _create(client, "candidate", urls[bot], games)
    assert resp.status_code == 422, resp.json
    assert json_of(resp)["code"] == code
    assert json_of(client.get("/bots?include_deleted=true"))["bots"] == []


@pytest.mark.parametrize("bot", ["closed", "not-info", "array", "wrong-path"])
def test_rule_create_bot_is_no_port_scanner(
    client: FlaskClient, bad_bots: dict[str, str], good_bot: str, bot: str
) -> None:
    """Rule (issue 17): whatever a URL that is not a bot does (refuse, answer 404, answer other
    JSON), createBot answers the same code and message, echoing nothing the other end said."""
    urls = {
        **bad_bots,
        "closed": f"http://127.0.0.1:{_closed_port()}",
        "wrong-path": good_bot + "/nothing-here",
    }
    resp = _create(client, "candidate", urls[bot])
    assert resp.status_code == 422
    assert set(json_of(resp)) == {"code", "message"}
    assert json_of(resp)["code"] == "bot_unreachable"
    assert json_of(resp)["message"] == NOT_A_BOT_MESSAGE


@pytest.mark.parametrize(
    "url_template",
    [
        "http://127.0.0.1:{port}",
        "http://localhost:{port}",
        "http://[::ffff:127.0.0.1]:{port}",
        "http://169.254.169.254/",
        "http://10.0.0.1:{port}",
    ],
)
def test_rule_forbidden_addresses_are_refused_when_loopback_is_not_allowed(
    redis_url: str, key_prefix: str, good_bot: str, url_template: str
) -> None:
    """Rule: with no network allowed, a refused address or a name (`localhost`) reaching one is refused."""
    client = _app(redis_url, key_prefix, allowed="").test_client()
    port = good_bot.rsplit(":", 1)[1]
    resp = _create(client, "sneaky", url_template.format(port=port))
    assert (resp.status_code, json_of(resp)["code"]) == (422, "forbidden_address")
    assert json_of(client.get("/bots"))["bots"] == []


@pytest.mark.parametrize(
    ("host", "code"),
    [("evil.test", "forbidden_address"), ("sneaky.test", "forbidden_address"), ("fine.test", None)],
)
def test_rule_names_are_judged_by_what_they_resolve_to(
    redis_url: str, key_prefix: str, good_bot: str, host: str, code: str | None
) -> None:
    """Rule: a name mapped to metadata, or with a private address among its answers, is refused."""
    client = _app(redis_url, key_prefix, registry=True).test_client()
    port = good_bot.rsplit(":", 1)[1]
    resp = _create(client, "mapped", f"http://{host}:{port}")
    if code is None:
        assert resp.status_code == 201, resp.json
        assert json_of(resp)["bot"]["url"] == f"http://{host}:{port}"
    else:
        assert (resp.status_code, json_of(resp)["code"]) == (422, code)


@pytest.mark.parametrize("name", ["rando", "RANDO", "Rando"])
def test_rule_duplicate_names_conflict(client: FlaskClient, good_bot: str, name: str) -> None:
    """Rule: names are unique case-insensitively: a second bot of the same name is a 409 `duplicate_name`."""
    assert _create(client, "rando", good_bot).status_code == 201
    resp = _create(client, name, good_bot)
    assert (resp.status_code, json_of(resp)["code"]) == (409, "duplicate_name")
    assert len(json_of(client.get("/bots"))["bots"]) == 1


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": "x"},
        {"name": "", "url": "http://127.0.0.1:1", "games": BOTH},
        {"name": "a b", "url": "http://127.0.0.1:1", "games": BOTH},
        {"name": "ok", "url": "http://127.0.0.1:1", "games": []},
        {"name": "ok", "url": "http://127.0.0.1:1", "games": "tricky-teams"},
        {"name": "ok", "url": 5, "games": BOTH},
    ],
)
def test_rule_malformed_submissions_are_422_validation_errors(
    client: FlaskClient, body: dict[str, Any]
) -> None:
    """Rule: missing or malformed fields are a 422 `validation_error` and nothing is stored."""
    resp = client.post("/bots", json=body)
    assert (resp.status_code, json_of(resp)["code"]) == (422, "validation_error")
    assert json_of(client.get("/bots"))["bots"] == []


def test_rule_owner_only_operations_and_delete_keeps_the_record(
    client: FlaskClient, good_bot: str, bad_bots: dict[str, str]
) -> None:
    """Rule: update/delete need the own owner key (401 without, 403 another); a deleted bot is gone from
    getBot (410) but its record stays, listed with include_deleted."""
    mine = json_of(_create(client, "mine", good_bot))
    theirs = json_of(_create(client, "theirs", good_bot))
    bot_id = mine["bot"]["id"]
    auth = {"Authorization": f"Bearer {mine['owner_key']}"}
    other = {"Authorization": f"Bearer {theirs['owner_key']}"}

    for method in (client.patch, client.delete):
        kwargs: dict[str, Any] = {"json": {"name": "renamed"}} if method == client.patch else {}
        assert json_of(method(f"/bots/{bot_id}", **kwargs))["code"] == "missing_token"
        resp = method(f"/bots/{bot_id}", headers=other, **kwargs)
        assert (resp.status_code, json_of(resp)["code"]) == (403, "not_owner")
        resp = method(f"/bots/{bot_id}", headers={"Authorization": "Basic abc"}, **kwargs)
        assert (resp.status_code, json_of(resp)["code"]) == (401, "invalid_authorization")
    assert json_of(client.get(f"/bots/{bot_id}"))["name"] == "mine"

    resp = client.patch(f"/bots/{bot_id}", json={"name": "theirs"}, headers=auth)
    assert (resp.status_code, json_of(resp)["code"]) == (409, "duplicate_name")
    resp = client.patch(f"/bots/{bot_id}", json={"name": "renamed"}, headers=auth)
    assert resp.status_code == 200 and json_of(resp)["name"] == "renamed"
    assert _create(client, "mine", good_bot).status_code == 201  # the old name was released on rename
    resp = client.patch(f"/bots/{bot_id}", json={"games": BOTH, "url": bad_bots["tt-only"]}, headers=auth)
    assert (resp.status_code, json_of(resp)["code"]) == (422, "game_not_played")
    resp = client.patch(
        f"/bots/{bot_id}", json={"games": ["tricky-teams"], "url": bad_bots["tt-only"]}, headers=auth
    )
    assert (
        resp.status_code == 200
        and json_of(resp)["games"] == ["tricky-teams"]
        and json_of(resp)["author"] == "anonymous"
    )
    assert client.patch(f"/bots/{bot_id}", json={}, headers=auth).status_code == 422

    resp = client.delete(f"/bots/{bot_id}", headers=auth)
    assert (
        resp.status_code == 200
        and json_of(resp)["status"] == "deleted"
        and json_of(resp)["deleted"] is not None
    )
    gone = client.get(f"/bots/{bot_id}")
    assert (gone.status_code, json_of(gone)["code"]) == (410, "bot_deleted")
    assert bot_id not in [b["id"] for b in json_of(client.get("/bots"))["bots"]]
    assert bot_id in [b["id"] for b in json_of(client.get("/bots?include_deleted=true"))["bots"]]
    resp = client.patch(f"/bots/{bot_id}", json={"name": "again"}, headers=auth)
    assert (resp.status_code, json_of(resp)["code"]) == (409, "bot_deleted")
    assert (
        json_of(_create(client, "renamed", good_bot))["code"] == "duplicate_name"
    )  # a deleted bot keeps its name


@pytest.mark.parametrize("bot_id", ["0123456789abcdef", "nope", "x" * 300])
def test_rule_unknown_bots_are_404(client: FlaskClient, bot_id: str) -> None:
    """Rule: an id naming no bot, well-formed or not, is a 404 `bot_not_found`."""
    resp = client.get(f"/bots/{bot_id}")
    assert (resp.status_code, json_of(resp)["code"]) == (404, "bot_not_found")


def test_rule_list_filters_by_game(client: FlaskClient, good_bot: str, bad_bots: dict[str, str]) -> None:
    """Rule: listBots?game=G lists only bots that play G."""
    _create(client, "both", good_bot)
    _create(client, "tt", bad_bots["tt-only"], ["tricky-teams"])
    names = {b["name"] for b in json_of(client.get("/bots?game=trick-n-trouble"))["bots"]}
    assert names == {"both"}
    assert {b["name"] for b in json_of(client.get("/bots?game=tricky-teams"))["bots"]} == {"both", "tt"}
