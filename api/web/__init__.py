"""The web pages: tournaments, leagues and a game viewer, plain HTML/CSS/JS served by the API.

The pages are static files (`static/`); they read the public games API (getGame, the event
stream) and a few read-only JSON documents under `/web/data/` that assemble what one page shows
in one request (a tournament with a page of its standings, its rating lines and a window of its
matches; the frames of a finished game re-simulated from its replay). The data routes are outside
openapi.yaml on purpose: they are the pages' private backend, not part of the API contract.

Every data document is bounded whatever the history behind it: a standings page of at most
`harness.tournaments.STANDINGS_PAGE_MAX` rows (``offset``, ``limit``; by default
`STANDINGS_PAGE_DEFAULT`), rating lines for the page's
first `CHART_LINES` entrants (at most `harness.standings.HISTORY_POINTS` points each), at most
`MAX_MATCH_WINDOW` matches (``matches_offset``, ``matches_limit``, by default `MATCH_WINDOW`),
a bot's page at most `harness.botrecords.MAX_PAGE` matches and its latest
`harness.botrecords.LEAGUES_SHOWN` leagues,
the latest `ROUNDS_SHOWN` rounds of a league. The home page reads the public listings
(listTournaments, listLeagues: names, games, statuses and counts, a bounded page each), the bots
page listBots (a page of 100 at a time); "write a bot" is a static page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Flask, Response, abort, current_app, jsonify, request, send_from_directory

from api.bot_records_api import CURSOR_PATTERN
from api.context import app_context
from api.schemas import GAME_ID_PATTERN
from core.bot_registry import BotNotFound
from core.errors import ServiceError
from core.service import GameService
from games.base import GameError
from harness import botrecords, challenges
from harness import tournaments as t
from harness.ratings import Rating, competitive_events, cooperative_events, rate
from harness.replayview import BadReplay, ReplayDocs, parse_replay, perspectives_of, replay_frames
from harness.runner import HarnessContext

if TYPE_CHECKING:
    from api.blueprint_util import Api

STATIC = Path(__file__).resolve().parent / "static"
CHART_LINES = 12
MATCH_WINDOW = 50
MAX_MATCH_WINDOW = 200
ROUNDS_SHOWN = 20
CHALLENGES_SHOWN = 20  # a bot's latest challenges on its page
ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")

bp = Blueprint("web", __name__, url_prefix="/web")


def _service() -> GameService:
    return app_context().service


def _context() -> HarnessContext:
    """The app's harness context (the same pool and settings as every other route)."""
    return app_context().harness


def _check_id(value: str) -> str:
    if not value or len(value) > 64 or not set(value) <= ID_CHARS:
        abort(404)
    return value


def _not_found(message: str) -> Response:
    response = jsonify({"code": "not_found", "message": message})
    response.status_code = 404
    return response


# -- pages ----------------------------------------------------------------------------------------
@bp.get("/")
def index() -> Response:
    """The home page: tournaments and leagues."""
    return send_from_directory(STATIC, "index.html")


@bp.get("/bots/")
def bots_page() -> Response:
    """Every registered bot (listBots), each linking to its page."""
    return send_from_directory(STATIC, "bots.html")


@bp.get("/play")
def play_page() -> Response:
    """A person's table against the bots (createChallenge): pick a game and opponents, then play."""
    return send_from_directory(STATIC, "play.html")


@bp.get("/write-a-bot")
def write_a_bot() -> Response:
    """How to write a bot and take it to a tournament, in short (works offline: no link leaves the site)."""
    return send_from_directory(STATIC, "write-a-bot.html")


@bp.get("/replay")
def replay_page() -> Response:
    """The game viewer for a replay file chosen on the page (POSTed to `/web/data/replays`)."""
    return send_from_directory(STATIC, "viewer.html")


# Pages with an id in their path: the page reads the id from its own URL.
ID_PAGES = {
    "tournaments": "tournament.html",
    "leagues": "league.html",
    "games": "viewer.html",
    "bots": "bot.html",
}


@bp.get("/<kind>/<ident>")
def id_page(kind: str, ident: str) -> Response:
    """A tournament (standings, chart, heat map, matches), a league, a bot, or the game viewer."""
    page = ID_PAGES.get(kind)
    if page is None:
        abort(404)
    _check_id(ident)
    return send_from_directory(STATIC, page)


@bp.get("/static/<path:name>")
def static_file(name: str) -> Response:
    """The pages' CSS and JS."""
    return send_from_directory(STATIC, name, max_age=300)


# -- data -----------------------------------------------------------------------------------------
def _names(ctx: HarnessContext, ids: list[str]) -> dict[str, str]:
    """Bot id -> name (the id for an unknown bot), in one round trip."""
    unique = list(dict.fromkeys(ids))
    pipe = ctx.bots.client.pipeline(transaction=False)
    for bot_id in unique:
        pipe.hget(ctx.bots.key_for("bot", bot_id), "name")
    return {b: (n.decode() if n is not None else b) for b, n in zip(unique, pipe.execute(), strict=True)}


def _tournament_names(ctx: HarnessContext, tids: list[str]) -> dict[str, str]:
    """Tournament id -> name, in one round trip (tournaments gone since are left out)."""
    unique = list(dict.fromkeys(tids))
    pipe = ctx.store.client.pipeline(transaction=False)
    for tid in unique:
        pipe.hget(ctx.store.key_for("tournament", tid), "spec")
    found = zip(unique, pipe.execute(), strict=True)
    return {tid: t.tournament_name(tid, json.loads(spec)) for tid, spec in found if spec}


def _chart_history(ctx: HarnessContext, scope: str, bots: list[str]) -> dict[str, Any]:
    """The rating lines of the page's first `CHART_LINES` bots, and which bots those are
    (``charted``): the page names every bot of the page the chart draws no line for, and why."""
    charted = bots[:CHART_LINES]
    return {**t.rating_history(ctx, scope, charted), "charted": charted}


def _int_arg(name: str, default: int, low: int, high: int) -> int:
    """A bounded integer query argument (the default when absent or not a number)."""
    try:
        value = int(request.args.get(name, default))
    except ValueError:
        value = default
    return max(low, min(high, value))


def _by() -> str:
    """The standings' `by` argument: ``version`` (a row per bot version) or ``bot`` (the default)."""
    return "version" if request.args.get("by") == "version" else "bot"


def rating_history(results: list[dict[str, Any]], cooperative: bool, prior: dict[str, Any]) -> dict[str, Any]:
    """Each entrant's OpenSkill mu/ordinal after every rating event, from scratch (the reference the
    stored, thinned lines of `harness.tournaments.rating_history` end at; the pages read those)."""

    ordered = sorted(results, key=lambda r: int(r["index"]))
    events = cooperative_events(ordered) if cooperative else competitive_events(ordered)
    ratings: dict[str, Rating] = {b: Rating(mu, sigma) for b, (mu, sigma) in prior.items()}
    series: dict[str, list[dict[str, float]]] = {}
    bots = sorted({b for ev in events for team in ev.teams for b in team} | set(ratings))
    for bot in bots:
        start = ratings.get(bot, Rating())
        series[bot] = [{"mu": start.mu, "ordinal": start.ordinal}]
    for event in events:
        ratings = rate([event], ratings)
        for bot in bots:
            now = ratings.get(bot, Rating())
            series[bot].append({"mu": now.mu, "ordinal": now.ordinal})
    return {"events": len(events), "series": series}


@bp.get("/data/tournaments/<tid>")
def tournament_data(tid: str) -> Response:
    """What the tournament page shows: a page of standings, its rating lines, a window of matches."""

    _check_id(tid)
    ctx = _context()
    try:
        info = t.get_tournament(ctx, tid)
    except t.TournamentNotFound:
        return _not_found(f"no tournament {tid}")
    offset = _int_arg("offset", 0, 0, 1_000_000)
    limit = _int_arg("limit", t.STANDINGS_PAGE_DEFAULT, 1, t.STANDINGS_PAGE_MAX)
    standings = t.get_standings(ctx, tid, offset, limit, _by())
    bots = list(dict.fromkeys(r["entrant"] for r in standings["rows"]))
    total = int(info["progress"]["total"])
    m_offset = _int_arg("matches_offset", 0, 0, max(0, total - 1))
    m_limit = _int_arg("matches_limit", MATCH_WINDOW, 1, MAX_MATCH_WINDOW)
    matches = t.list_matches(ctx, tid, m_offset, m_limit, {"status": info["status"], "total": total})
    info["entrants_total"] = len(info["entrants"])
    info["entrants"] = bots
    return jsonify(
        {
            "tournament": info,
            "names": _names(ctx, [*bots, *(b for m in matches for b in m["seats"])]),
            "standings": standings,
            "history": _chart_history(ctx, f"t:{tid}", bots),
            "matches": matches,
            "matches_window": {"offset": m_offset, "limit": m_limit, "total": total},
        }
    )


@bp.get("/data/leagues/<lid>")
def league_data(lid: str) -> Response:
    """The league, a page of its standings over every round, its rating lines and latest rounds."""

    _check_id(lid)
    ctx = _context()
    try:
        info = t.league_overview(ctx, lid, rounds=ROUNDS_SHOWN)
    except t.LeagueNotFound:
        return _not_found(f"no league {lid}")
    offset = _int_arg("offset", 0, 0, 1_000_000)
    limit = _int_arg("limit", t.STANDINGS_PAGE_DEFAULT, 1, t.STANDINGS_PAGE_MAX)
    standings = t.league_standings(ctx, lid, offset, limit, _by())
    bots = list(dict.fromkeys(r["entrant"] for r in standings["rows"]))
    return jsonify(
        {
            "league": info,
            "names": _names(ctx, bots),
            "standings": standings,
            "rounds": info.pop("latest_rounds"),
            "history": _chart_history(ctx, f"l:{lid}", bots),
        }
    )


@bp.get("/data/bots/<bot_id>")
def bot_data(bot_id: str) -> Response:
    """What a bot's page shows: the bot, its results per version, a page of its matches (newest
    first, `matches_limit`, `cursor`), the tournaments of that page whose standings flag it (most of
    its calls faulted, and why), their names (``tournaments``: id -> name) and its rating line in
    each of its latest leagues."""

    _check_id(bot_id)
    ctx = _context()
    try:
        bot = ctx.bots.get(bot_id)
    except BotNotFound:
        return _not_found(f"no bot {bot_id}")
    limit = _int_arg("matches_limit", botrecords.DEFAULT_PAGE, 1, botrecords.MAX_PAGE)
    cursor = request.args.get("cursor") or None
    if cursor is not None and not re.fullmatch(CURSOR_PATTERN, cursor):
        cursor = None
    page = botrecords.bot_matches(ctx, bot_id, limit=limit, cursor=cursor)
    leagues = []
    for lid in botrecords.bot_leagues(ctx, bot_id):
        try:
            info = t.league_overview(ctx, lid, rounds=0)
        except t.LeagueNotFound:
            continue
        history = t.rating_history(ctx, f"l:{lid}", [bot_id])
        leagues.append(
            {
                "league_id": lid,
                "name": info.get("name"),
                "game": info["game"],
                "events": history["events"],
                "points": history["series"].get(bot_id, []),
            }
        )
    others = [b for m in page.matches for b in m["table"]]
    tids = [m["tournament_id"] for m in page.matches]
    return jsonify(
        {
            "bot": bot,
            "versions": botrecords.version_summary(ctx, bot_id),
            "matches": page.matches,
            "next_cursor": page.next_cursor,
            "leagues": leagues,
            "flags": botrecords.tournament_flags(ctx, bot_id, tids),
            "names": _names(ctx, [bot_id, *others]),
            "tournaments": _tournament_names(ctx, tids),
            # People's games against it (issue 28): never rated, listed apart with their results.
            "challenges": challenges.bot_challenges(ctx, bot_id, CHALLENGES_SHOWN),
        }
    )


def _perspectives(seats: int, raw: str | None) -> list[int | None]:
    try:
        return perspectives_of(seats, raw)
    except ValueError:
        abort(422)


@bp.get("/data/games/<gid>/frames")
def game_frames(gid: str) -> Response:
    """A finished game re-simulated from its replay: the views after every action.

    `seat` is `spectator` (default), a seat number, or `all` (one view per seat per frame).
    Views of a finished game are computed from its replay, which the API only gives out once
    the game is over, so no hidden card of a running game leaves through here.
    """

    if not re.fullmatch(GAME_ID_PATTERN.strip("^$"), gid):
        return _not_found(f"no game {gid}")

    try:
        replay = _service().replay(gid)
    except ServiceError as error:
        response = jsonify(error.to_dict())
        response.status_code = error.status
        return response
    perspectives = _perspectives(int(replay["seats"]), request.args.get("seat"))
    try:
        frames = replay_frames(replay, perspectives)
    except GameError as exc:
        return jsonify({"code": exc.code, "message": exc.message}), 409  # type: ignore[return-value]
    return jsonify(
        {
            "game_id": gid,
            "game": replay["game"],
            "seats": replay["seats"],
            "perspectives": perspectives,
            "result": replay["result"],
            "frames": frames,
        }
    )


@bp.post("/data/replays")
def uploaded_replay() -> Response:
    """A replay file uploaded to the viewer's page (`trickarena play` writes them; getReplay's
    JSON too), as the viewer reads a game: getGame's document of the finished game (`game`),
    getGamePlayers's (`players`: the file's names, the author's seat `your_seat`, each seat's faults
    and answer times from its `decisions`) and the frames from the perspective `seat` (`frames`).
    Nothing is stored; the body is bounded by the API's (MAX_CONTENT_LENGTH, 413 above)."""
    raw = request.get_json(silent=True)
    try:
        replay = parse_replay(raw)
    except BadReplay as exc:
        return jsonify({"code": "bad_replay", "message": str(exc)}), 422  # type: ignore[return-value]
    you = replay.get("your_seat")
    docs = ReplayDocs(replay, you if isinstance(you, int) and 0 <= you < replay["_seats"] else None)
    _perspectives(replay["_seats"], request.args.get("seat"))  # 422 for a seat the game has not
    frames = docs.frames_doc(request.args.get("seat"))
    return jsonify({"game": docs.game_doc(), "players": docs.players_doc(), "frames": frames})


def init_app(app: Flask) -> None:
    """Serve the pages under /web and send / to them."""
    app.register_blueprint(bp)

    if "/" not in {rule.rule for rule in app.url_map.iter_rules()}:
        app.add_url_rule("/", endpoint="web_root", view_func=lambda: current_app.redirect("/web/"))


def register(_api: Api, app: Flask) -> None:
    """Hook for the app factory's optional modules."""
    init_app(app)
