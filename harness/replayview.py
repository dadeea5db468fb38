"""`trickarena replay view FILE`: a replay file in the web viewer, with no platform running.

The command serves, on loopback only (127.0.0.1, a free port unless `--port`), the web viewer's
own page and assets (`api/web/static`: package data read as files, never imported) and the few
read-only documents the viewer asks the API for, made from the file: the game (getGame, finished),
its frames (`/web/data/games/ID/frames`, computed by `replay_frames`, the function the API's route
uses too), the seats' names, the author's seat and each decision's latency and outcome
(getGamePlayers, `/games/ID/players`; for a viewer that does not read it yet, also under the
tournament-match address, `?tournament=local&match=0` in the page's URL). It prints
the page's URL, opens a browser unless `--no-browser` (where there is a display: `graphical`),
and serves until Ctrl-C.

The author's seat: a file `trickarena play` wrote names the seats (`players`), says which seat was
the author's bot (`your_seat`) and records each decision (`decisions`), the fields uploadReplay
takes too. The page names
the seat "you(N)" everywhere and marks it with `replay_view.js`, a small script added to the
viewer's page (the viewer's own files are not changed): `?you=N` in the page's URL outlines that
seat and says so under the title. `--seat N` marks a seat of a replay from elsewhere (getReplay's).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from games.registry import get_game
from harness.match_detail import latency_summary, player_entry, seat_faults

# The web viewer's files: package data of `api.web`, read (never imported) from beside this package.
VIEWER_ASSETS = Path(__file__).resolve().parents[1] / "api" / "web" / "static"
# The script that marks the author's seat, added to the viewer's page by this server only.
SEAT_MARKER = Path(__file__).resolve().with_name("replay_view.js")
SEAT_MARKER_URL = "/web/static/replay-view.js"
LOCAL_TOURNAMENT = "local"  # the tournament id the page is given, so that it reads the seats' names
MAX_FRAMES = 5000  # a finished game has a few hundred actions; this bounds a pathological one
CONTENT_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".png": "image/png"}


def viewer_reads_players() -> bool:
    """Whether the viewer asks getGamePlayers (`/games/ID/players`) for the seats' names."""
    return "/players" in (VIEWER_ASSETS / "viewer.js").read_text(encoding="utf-8")


class BadReplay(ValueError):
    """The file is not a replay."""


def replay_frames(replay: dict[str, Any], perspectives: list[int | None]) -> list[dict[str, Any]]:
    """A finished game re-simulated from its replay (header and actions): the views after every
    action from each perspective (a seat, or None for a spectator). Raises games' GameError."""
    engine = get_game(replay["game"])
    state = engine.replay(replay["header"], [])
    frames = [{"step": 0, "action": None, "views": [engine.view(state, p) for p in perspectives]}]
    for step, action in enumerate(replay["actions"][:MAX_FRAMES], start=1):
        engine.apply(state, int(action["seat"]), action["move"])
        frames.append(
            {"step": step, "action": action, "views": [engine.view(state, p) for p in perspectives]}
        )
    return frames


def perspectives_of(seats: int, raw: str | None) -> list[int | None]:
    """`spectator` (or nothing), `all`, or one seat number; ValueError otherwise."""
    if raw in (None, "", "spectator"):
        return [None]
    if raw == "all":
        return list(range(seats))
    seat = int(str(raw))
    if not 0 <= seat < seats:
        raise ValueError(f"no seat {seat}")
    return [seat]


def load_replay(path: str) -> dict[str, Any]:
    """A replay file (`trickarena play`'s, or getReplay's JSON) checked enough to be replayed."""
    try:
        with open(path, "rb") as fh:
            raw = json.load(fh)
    except (OSError, ValueError) as exc:
        raise BadReplay(f"{path} is not a replay file: {exc}") from None
    return parse_replay(raw, path)


def parse_replay(replay: Any, what: str = "the upload") -> dict[str, Any]:
    """A replay document (a file's JSON, or one uploaded to the web viewer) checked enough to be
    replayed: its game, seats and actions replay on the engine; its decisions are kept as far as
    they are well-formed (at most `MAX_FRAMES`), their fault details dropped."""
    if not isinstance(replay, dict):
        raise BadReplay(f"{what} is not a replay file: not a JSON object")
    try:
        game = get_game(str(replay["game"]))
        seats = int(replay["header"]["seats"])
        state = game.replay(replay["header"], replay["actions"])
    except (ValueError, KeyError, TypeError) as exc:
        raise BadReplay(f"{what} is not a replay file: {exc!r}") from None
    except Exception as exc:  # the engine refuses it: GameError and the like
        raise BadReplay(f"{what} does not replay: {exc}") from None
    out: dict[str, Any] = {
        "game_id": "local",
        **replay,
        "decisions": _decisions(replay.get("decisions"), seats),
        "_final_view": game.view(state, None),
        "_seats": seats,
    }
    return out


def _decisions(raw: Any, seats: int) -> list[dict[str, Any]]:
    """The well-formed decisions of a file (seat, version, latency, outcome, fallback, status)."""
    out: list[dict[str, Any]] = []
    for d in raw[:MAX_FRAMES] if isinstance(raw, list) else []:
        if not isinstance(d, dict) or not isinstance(d.get("seat"), int) or not 0 <= d["seat"] < seats:
            continue
        latency, status = d.get("latency_ms"), d.get("status")
        out.append(
            {
                "seat": d["seat"],
                "version": d["version"] if isinstance(d.get("version"), int) else 0,
                "latency_ms": latency if isinstance(latency, int) and latency >= 0 else None,
                "outcome": str(d.get("outcome", "ok"))[:40],
                "fallback": bool(d.get("fallback")),
                "status": status if isinstance(status, int) else None,
                "detail": None,
            }
        )
    return out


class ReplayDocs:
    """The documents the viewer reads, made from one replay (`parse_replay`'s) with seat `you`
    marked as the author's: served by `trickarena replay view`, and by the API for a replay
    uploaded to the viewer's page (`/web/data/replays`)."""

    def __init__(self, replay: dict[str, Any], you: int | None) -> None:
        self.replay = replay
        self.you = you
        self.gid = re.sub(r"[^A-Za-z0-9_-]", "-", str(replay["game_id"]))[:64] or "local"

    def names(self) -> list[str]:
        """The seats' names: the file's (`trickarena play`'s), else "Seat N"; the author's marked."""
        seats = self.replay["_seats"]
        names = [str(n) for n in self.replay.get("players") or []][:seats]
        names += [f"Seat {s}" for s in range(len(names), seats)]
        if self.you is not None and self.replay.get("your_seat") != self.you:
            names[self.you] = f"you({self.you})"
        return names

    def decisions(self) -> list[dict[str, Any]]:
        """Each decision's seat, version, latency and outcome, as the file recorded them."""
        return [{"index": i, **d} for i, d in enumerate(self.replay.get("decisions") or [])]

    def game_doc(self) -> dict[str, Any]:
        """What getGame says of the finished game."""
        replay = self.replay
        return {
            "game_id": self.gid,
            "game": replay["game"],
            "seats": replay["_seats"],
            "status": "finished",
            "version": replay.get("version", len(replay["actions"]) + 1),
            "view": replay["_final_view"],
            "result": replay.get("result"),
        }

    def match_doc(self) -> dict[str, Any]:
        """What getTournamentMatch says of it: the seats' names and every decision."""
        return {
            "tournament_id": LOCAL_TOURNAMENT,
            "index": 0,
            "game_id": self.gid,
            "status": "finished",
            "seats": self.players(),
            "decisions": self.decisions(),
            "result": self.replay.get("result"),
        }

    def players(self) -> list[dict[str, Any]]:
        """The seats as getGamePlayers and getTournamentMatch list them (no bot ids: a local game),
        each with its faults, their reasons and its answer times from the file's decisions."""
        decisions = self.decisions()
        faults = seat_faults(decisions, self.replay["_seats"])
        return [
            player_entry(
                s,
                None,
                name,
                yours=s == self.you,
                faults=faults[s] if decisions else None,
                latency=latency_summary(decisions, s) if decisions else None,
            )
            for s, name in enumerate(self.names())
        ]

    def players_doc(self) -> dict[str, Any]:
        """What getGamePlayers says of an uploaded replay: its names, author's seat and decisions."""
        return {
            "game_id": self.gid,
            "game": self.replay["game"],
            "seats": self.replay["_seats"],
            "version": self.game_doc()["version"],
            "status": "finished",
            "source": "upload",
            "tournament_id": None,
            "tournament_name": None,
            "match_index": None,
            "sealed": False,
            "withheld": False,
            "players": self.players(),
            "decisions": self.decisions(),
            "details_shown": [],
        }

    def frames_doc(self, raw_seat: str | None) -> dict[str, Any]:
        """The viewer's frames document."""
        perspectives = perspectives_of(self.replay["_seats"], raw_seat)
        return {
            "game_id": self.gid,
            "game": self.replay["game"],
            "seats": self.replay["_seats"],
            "perspectives": perspectives,
            "result": self.replay.get("result"),
            "frames": replay_frames(self.replay, perspectives),
        }


class ReplayViewer(ThreadingHTTPServer, ReplayDocs):
    """The viewer and one replay's documents on a loopback port."""

    daemon_threads = True

    def __init__(self, replay: dict[str, Any], you: int | None, port: int = 0) -> None:
        ThreadingHTTPServer.__init__(self, ("127.0.0.1", port), _Handler)
        ReplayDocs.__init__(self, replay, you)

    @property
    def url(self) -> str:
        """The viewer's page for the replay, the author's seat marked. A viewer that names the seats
        from getGamePlayers needs nothing more; an older one reads them from a tournament's match
        detail only, so it is given the local one's address."""
        params: dict[str, str | int] = (
            {} if viewer_reads_players() else {"tournament": LOCAL_TOURNAMENT, "match": 0}
        )
        if self.you is not None:
            params["you"] = self.you
        query = f"?{urlencode(params)}" if params else ""
        return f"http://127.0.0.1:{self.server_address[1]}/web/games/{self.gid}{query}"


class _Handler(BaseHTTPRequestHandler):
    server: ReplayViewer

    def log_message(self, *args: Any) -> None:
        """Quiet: the command prints its URL, not every request."""

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{ctype}; charset=utf-8" if ctype.startswith("text") else ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, doc: Any, status: int = 200) -> None:
        self._send(status, json.dumps(doc).encode(), "application/json")

    def _not_found(self) -> None:
        self._json({"code": "not_found", "message": f"nothing at {self.path}"}, 404)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        """The viewer's page and files, and the replay's documents."""
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        viewer = self.server
        if path in ("/", f"/web/games/{viewer.gid}"):
            if path == "/":
                self.send_response(HTTPStatus.FOUND)
                self.send_header("Location", viewer.url)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            page = (VIEWER_ASSETS / "viewer.html").read_text(encoding="utf-8")
            marker = f'<script src="{SEAT_MARKER_URL}" defer></script>\n</head>'
            self._send(200, page.replace("</head>", marker, 1).encode(), "text/html")
        elif path == SEAT_MARKER_URL:
            self._send(200, SEAT_MARKER.read_bytes(), "text/javascript")
        elif path.startswith("/web/static/"):
            name = path.rsplit("/", 1)[1]
            files = {p.name: p for p in VIEWER_ASSETS.iterdir() if p.is_file()}
            if name not in files or "/" in path[len("/web/static/") :]:
                self._not_found()
                return
            self._send(200, files[name].read_bytes(), CONTENT_TYPES.get(files[name].suffix, "text/plain"))
        elif path == f"/games/{viewer.gid}":
            self._json(viewer.game_doc())
        elif path == f"/games/{viewer.gid}/players":
            self._json(viewer.players_doc())
        elif path == f"/tournaments/{LOCAL_TOURNAMENT}/matches/0":
            self._json(viewer.match_doc())
        elif path == f"/web/data/games/{viewer.gid}/frames":
            try:
                self._json(viewer.frames_doc(query.get("seat", [""])[0]))
            except ValueError as exc:
                self._json({"code": "invalid_seat", "message": str(exc)}, 422)
        else:
            self._not_found()


def graphical() -> bool:
    """Whether a browser can open a window here (Python's webbrowser would otherwise start a text
    browser such as lynx in this terminal): macOS, Windows, an X or Wayland display, or $BROWSER."""
    if sys.platform in ("darwin", "win32"):
        return True
    return any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"))


def cmd_replay_view(args: argparse.Namespace) -> int:
    """Serve the viewer on loopback for a replay file; print its URL; open a browser unless asked not to."""
    try:
        replay = load_replay(args.file)
    except BadReplay as exc:
        raise SystemExit(f"error: bad_replay: {exc}") from None
    you = args.seat if args.seat is not None else replay.get("your_seat")
    if you is not None and not 0 <= int(you) < replay["_seats"]:
        raise SystemExit(f"error: invalid_seat: the game has seats 0 to {replay['_seats'] - 1}")
    server = ReplayViewer(replay, None if you is None else int(you), args.port)
    print(f"The replay in the web viewer (Ctrl-C stops): {server.url}", flush=True)
    if not args.no_browser and graphical():
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def add_view_command(rsub: Any) -> None:
    """`trickarena replay view FILE [--seat N] [--port P] [--no-browser]`."""
    view = rsub.add_parser("view", help="show a replay file in the web viewer, no platform needed")
    view.add_argument(
        "file", metavar="FILE", help="a replay file `trickarena play` wrote (or getReplay's JSON)"
    )
    view.add_argument(
        "--seat", type=int, default=None, help="the seat to mark as yours (default: the file's, from play)"
    )
    view.add_argument("--port", type=int, default=0, help="the loopback port to serve on (default: any free)")
    view.add_argument("--no-browser", action="store_true", help="only print the URL, open no browser")
    view.set_defaults(func=cmd_replay_view)
