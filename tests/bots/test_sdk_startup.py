"""SDK start-up: `serve()` listens on the documented bot port (not the platform's 8000), says so
plainly when that port is taken, and refuses a `choose` it could not call before it listens."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import pytest

from bots.sdk import DEFAULT_PORT, FunctionBot, check_choose

ROOT = Path(__file__).resolve().parents[2]
PLATFORM_PORT = 8000  # the API's own port under `make run` and compose


def _serve_script(choose_source: str, serve_args: str) -> subprocess.CompletedProcess[str]:
    """Run a bot script (`choose_source`, then `serve(choose, name="x", games=[...], <serve_args>)`)."""
    script = "from bots.sdk import serve\n" + textwrap.dedent(choose_source)
    script += f'\nserve(choose, name="x", games=["tricky-teams"]{serve_args})\n'
    return subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=20
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _taken(port: int) -> Iterator[None]:
    """`port` on loopback taken (by this test if it was free, else by whoever holds it)."""
    sock = socket.socket()
    try:
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen()
        except OSError:
            pass  # already taken by someone else: just as good
        yield
    finally:
        sock.close()


BAD_CHOOSERS = {
    "one parameter": ("def choose(view):\n    return None\n", "choose(view) cannot be called"),
    "three parameters": (
        "def choose(view, legal_moves, depth):\n    return legal_moves[0]\n",
        "choose(view, legal_moves, depth) cannot be called",
    ),
    "async": ("async def choose(view, legal_moves):\n    return legal_moves[0]\n", "async"),
    "keyword-only": (
        "def choose(*, view, legal_moves):\n    return legal_moves[0]\n",
        "choose(*, view, legal_moves) cannot be called",
    ),
    "generator": ("def choose(view, legal_moves):\n    yield legal_moves[0]\n", "yields"),
}


@pytest.mark.parametrize("case", sorted(BAD_CHOOSERS))
def test_rule_serve_refuses_a_choose_it_cannot_call_before_it_listens(case: str) -> None:
    """Rule (issue 24 §9): `serve()` checks `choose` at start-up (two positional parameters, view and
    legal_moves; a plain function, not async nor a generator): a wrong one exits at once with one
    clear line naming the signature it needs, no traceback, before the server listens; not a 500 on
    the first move of a match."""
    source, reason = BAD_CHOOSERS[case]
    run = _serve_script(source, f", port={_free_port()}")
    assert run.returncode == 1, run.stderr
    assert "choose(view, legal_moves)" in run.stderr and reason in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and "serving on" not in run.stderr, run.stderr


def test_rule_check_choose_takes_what_can_be_called_with_view_and_legal_moves() -> None:
    """Rule (issue 24 §9): any callable that takes (view, legal_moves) positionally is fine: extra
    parameters with defaults, *args, a bound method, a lambda; FunctionBot checks at construction."""

    class Player:
        def choose(self, view: dict[str, Any], legal_moves: list[Any]) -> Any:
            return legal_moves[0]

    def with_default(view: Any, legal_moves: list[Any], depth: int = 2) -> Any:
        return legal_moves[0]

    def star(*args: Any) -> Any:
        return args[1][0]

    fine: list[Callable[..., Any]] = [
        Player().choose,
        with_default,
        star,
        lambda view, legal_moves: legal_moves[0],
    ]
    for choose in fine:
        check_choose(choose)
        assert FunctionBot(choose, "ok", ["tricky-teams"]).move({"view": {}, "legal_moves": [{"a": 1}]}) == {
            "a": 1
        }

    def one(view: Any) -> Any:
        return view

    with pytest.raises(TypeError, match=r"choose\(view, legal_moves\)"):
        FunctionBot(cast(Any, one), "bad", ["tricky-teams"])  # the wrong signature on purpose
    with pytest.raises(TypeError, match="not callable"):
        check_choose("first")


def test_rule_serve_defaults_to_the_documented_bot_port_and_says_when_it_is_taken() -> None:
    """Rule (issue 24 §9): `serve()` without `port=` listens on the SDK's bot port (8001, named in
    docs/bot-protocol.md), never the platform's 8000; when it is taken, one clear line names the
    port and how to choose another (`port=`), no traceback."""
    assert DEFAULT_PORT != PLATFORM_PORT
    assert f"port {DEFAULT_PORT}" in (ROOT / "docs" / "bot-protocol.md").read_text()
    with _taken(DEFAULT_PORT):
        run = _serve_script("def choose(view, legal_moves):\n    return legal_moves[0]\n", "")
    assert run.returncode == 1, run.stderr
    assert f"port {DEFAULT_PORT} " in run.stderr and "port=" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    with _taken(DEFAULT_PORT):
        cli = subprocess.run(
            [sys.executable, "-m", "bots.serve", "random"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=20,
        )
    assert cli.returncode == 1 and f"port {DEFAULT_PORT} " in cli.stderr and "--port" in cli.stderr, (
        cli.stderr
    )
