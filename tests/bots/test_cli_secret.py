"""The bot's signing secret comes from the environment or a file, never the command line (#18 §3)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import requests

from bots.arena import BotClient
from bots.protocol import sign
from bots.sdk import SECRET_ENV, SECRET_FILE_ENV, SecretError, load_secret, new_secret

ROOT = Path(__file__).resolve().parents[2]
# A secret `token_urlsafe` can produce, one time in 64: argparse would take it for an option.
DASH_SECRET = "-Ab3" + "x" * 39
MOVE: dict[str, Any] = {
    "match_id": "m-1",
    "game": "tricky-teams",
    "seat": 0,
    "view": {"hand": ["red-3"]},
    "legal_moves": [{"type": "play", "card": "red-3"}],
    "deadline_ms": 500,
    "time_bank_ms": 0,
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _bundled(args: list[str], env: dict[str, str]) -> Iterator[str]:
    """`python -m bots.serve random --port N <args>` with `env`; its URL once it answers GET /."""
    port = _free_port()
    clean = {k: v for k, v in os.environ.items() if k not in (SECRET_ENV, SECRET_FILE_ENV)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bots.serve", "random", "--port", str(port), *args],
        cwd=ROOT,
        env={**clean, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, "the bot exited"
            try:
                requests.get(url + "/", timeout=1)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, "bot did not come up"
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _signed_move_works(url: str, secret: str) -> bool:
    with BotClient(url, secret) as client:
        answer = client.post_json("/move", MOVE)
    return bool(answer["move"] == MOVE["legal_moves"][0])


def test_secret_from_the_environment_even_one_starting_with_a_dash() -> None:
    """Rule: `$TRICKARENA_BOT_SECRET` signs; a secret starting with `-` is no problem there."""
    with _bundled([], {SECRET_ENV: DASH_SECRET}) as url:
        assert _signed_move_works(url, DASH_SECRET)
        body = b"{}"
        refused = requests.post(url + "/move", data=body, headers=sign("other", body), timeout=5)
        assert (refused.status_code, refused.json()["code"]) == (401, "bad_signature")


def test_secret_from_a_file(tmp_path: Path) -> None:
    """Rule: `--secret-file PATH` (and `$TRICKARENA_BOT_SECRET_FILE`) read the secret, newline dropped."""
    path = tmp_path / "secret"
    path.write_text(DASH_SECRET + "\n")
    with _bundled(["--secret-file", str(path)], {}) as url:
        assert _signed_move_works(url, DASH_SECRET)
    with _bundled([], {SECRET_FILE_ENV: str(path)}) as url:
        assert _signed_move_works(url, DASH_SECRET)


def test_an_empty_or_missing_secret_file_stops_the_bot(tmp_path: Path) -> None:
    """Rule: a secret file that can't be read or is empty is an error (exit 2), not an unsigned bot."""
    empty = tmp_path / "empty"
    empty.write_text("\n")
    for path in (empty, tmp_path / "missing"):
        run = subprocess.run(
            [sys.executable, "-m", "bots.serve", "random", "--port", "1", "--secret-file", str(path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 2
        assert "secret file" in run.stderr
    with pytest.raises(SecretError):
        load_secret(empty)


def test_load_secret_order_and_fresh_secrets(tmp_path: Path) -> None:
    """Rule: an explicit file first, then the variable, then the variable's file; None when unset."""
    path = tmp_path / "s"
    path.write_text("from-file")
    assert load_secret(path, {SECRET_ENV: "from-env"}) == "from-file"
    assert load_secret(None, {SECRET_ENV: "from-env", SECRET_FILE_ENV: str(path)}) == "from-env"
    assert load_secret(None, {SECRET_FILE_ENV: str(path)}) == "from-file"
    assert load_secret(None, {}) is None
    fresh = {new_secret() for _ in range(50)}
    assert len(fresh) == 50 and all(len(s) >= 43 for s in fresh)


def test_trickarena_bot_secret_prints_a_fresh_secret_a_bot_accepts() -> None:
    """Rule: `trickarena bot secret` prints a new secret each time, usable as $TRICKARENA_BOT_SECRET."""
    runs = [
        subprocess.run(
            [sys.executable, "-m", "harness.cli", "bot", "secret"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        for _ in range(2)
    ]
    secrets = [run.stdout.strip() for run in runs]
    assert all(run.returncode == 0 for run in runs) and secrets[0] != secrets[1]
    assert all(len(s) >= 43 and "\n" not in s for s in secrets)
    with _bundled([], {SECRET_ENV: secrets[0]}) as url:
        assert _signed_move_works(url, secrets[0])
