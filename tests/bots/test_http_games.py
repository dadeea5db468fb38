"""The bundled bots play complete games of both games against each other over the real HTTP protocol."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from bots.arena import BotClient, http_player, play_game, play_http_match
from bots.bundled import make_bot
from bots.examples.minimal import choose
from bots.policy import Message
from bots.sdk import BotServer, FunctionBot
from games.registry import get_game
from games.tricky_teams.cards import coin_values, full_deck

SECRET = "http-games-secret"


@pytest.fixture(scope="module")
def bot_urls() -> Iterator[dict[str, str]]:
    """random, heuristic and search, each its own threaded HTTP server on loopback."""
    servers = {name: BotServer(make_bot(name), SECRET).start() for name in ("random", "heuristic", "search")}
    yield {name: server.url for name, server in servers.items()}
    for server in servers.values():
        server.stop()


def _clients(bot_urls: dict[str, str], names: list[str]) -> list[BotClient]:
    return [BotClient(bot_urls[name], SECRET) for name in names]


@pytest.mark.parametrize(
    ("seats", "names", "seed"),
    [
        (4, ["random", "heuristic", "search", "heuristic"], 11),
        (3, ["search", "random", "heuristic"], 12),
        (6, ["heuristic", "search", "random", "search", "heuristic", "random"], 13),
    ],
)
def test_rule_bundled_bots_finish_tricky_teams_over_http(
    bot_urls: dict[str, str], seats: int, names: list[str], seed: int
) -> None:
    """Rule: every bundled bot answers every decision of a whole game with a legal move (no fault)."""
    clients = _clients(bot_urls, names)
    record = play_http_match("tricky-teams", clients, seed, {"raids": 1}, deadline_ms=60)
    assert get_game("tricky-teams").is_over(record.state)
    assert record.faults == {seat: [] for seat in range(seats)}
    values = coin_values(record.state["header"]["options"]["coins"])
    assert sum(record.result["scores"]) == sum(values[card] for card in full_deck(seats))
    for client in clients:
        client.close()


@pytest.mark.parametrize(
    ("names", "options"),
    [
        (["random", "heuristic", "search"], {}),
        (["search", "search", "heuristic"], {"expert": True}),
        (["heuristic", "random", "search"], {"story": True}),
    ],
)
def test_rule_bundled_bots_finish_trick_n_trouble_over_http(
    bot_urls: dict[str, str], names: list[str], options: dict[str, bool]
) -> None:
    """Rule: the bundled bots complete Trick 'n Trouble in every mode without a single fault."""
    clients = _clients(bot_urls, names)
    record = play_http_match("trick-n-trouble", clients, 21, options, deadline_ms=60)
    assert get_game("trick-n-trouble").is_over(record.state)
    assert record.faults == {0: [], 1: [], 2: []}
    assert record.decisions > 9
    for client in clients:
        client.close()


def test_rule_a_faulty_answer_is_replaced_and_reported(bot_urls: dict[str, str]) -> None:
    """Rule: a move not among the legal ones is an `illegal_move` fault, replaced and reported next time."""
    seen_previous: list[object] = []

    def cheater(message: Message) -> dict[str, object]:
        seen_previous.append(message["previous"])
        return {"type": "play", "card": "no-such-card"}

    honest = _clients(bot_urls, ["random", "random"])
    players = [cheater, http_player(honest[0]), http_player(honest[1])]
    record = play_game("tricky-teams", players, 5, {"raids": 1})
    assert record.faults[0] and set(record.faults[0]) == {"illegal_move"}
    assert seen_previous[0] is None
    assert all(p == {"status": "replaced", "fault": "illegal_move"} for p in seen_previous[1:])


@pytest.mark.parametrize(
    ("game", "seats", "options"), [("tricky-teams", 4, {"raids": 1}), ("trick-n-trouble", 3, {})]
)
def test_rule_the_ten_line_example_bot_plays_whole_games(
    bot_urls: dict[str, str], game: str, seats: int, options: dict[str, int]
) -> None:
    """Rule: the README's ten-line SDK bot is a complete bot: it finishes both games without a fault."""
    with BotServer(FunctionBot(choose, "minimal", [game]), SECRET) as minimal:
        clients = [BotClient(minimal.url, SECRET)]
        clients += _clients(bot_urls, ["heuristic", "random", "random"][: seats - 1])
        record = play_http_match(game, clients, 31, options, deadline_ms=60)
    assert record.faults == {seat: [] for seat in range(seats)}
    assert get_game(game).is_over(record.state)


@pytest.mark.parametrize("game", ["tricky-teams", "trick-n-trouble"])
def test_rule_search_answers_within_its_deadline(bot_urls: dict[str, str], game: str) -> None:
    """Rule: the search bot thinks for half the per-move deadline, so a 200 ms deadline is met with room."""
    engine = get_game(game)
    seats = 4 if game == "tricky-teams" else 3
    state = engine.new_game(seats, {"raids": 1} if game == "tricky-teams" else {}, seed=41)
    [client] = _clients(bot_urls, ["search"])
    slowest = 0.0
    for _ in range(12):
        seat = engine.to_move(state)[0]
        message = {
            "match_id": f"deadline-{game}",
            "game": game,
            "seat": seat,
            "view": engine.view(state, seat),
            "legal_moves": engine.legal_moves(state, seat),
            "deadline_ms": 200,
            "time_bank_ms": 0,
        }
        started = time.monotonic()
        move = client.post_json("/move", message, timeout_s=2.0)["move"]
        slowest = max(slowest, time.monotonic() - started)
        engine.apply(state, seat, move)
    client.close()
    assert slowest < 0.6, slowest  # budget 0.1 s + one sample + HTTP, with slack for a loaded machine
