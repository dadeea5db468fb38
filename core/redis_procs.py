"""Redis servers a test or a benchmark starts for itself (never the shared one): a Sentinel group
(a master, a replica and a Sentinel) and a three-master Redis Cluster, on free loopback ports in a
temporary directory, always stopped. (The single embedded server of `make run` is
`core.redis_server`.)"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import redis

from core.redis_factory import API_RETRY, NO_RETRY, build_client

SERVICE = "arena"


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        return bool(build_client(f"redis://127.0.0.1:{port}/0", NO_RETRY, timeout_s=0.5).ping())
    except (redis.RedisError, OSError):
        return False


def _wait(ready: Callable[[], bool], timeout_s: float, what: str) -> None:
    """Poll `ready` every 0.05 s until it holds; fail naming `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        assert time.monotonic() < deadline, f"waited {timeout_s:g} s for {what}"
        time.sleep(0.05)


@dataclass
class Server:
    """One redis-server (or Sentinel) process of the test."""

    name: str
    port: int
    proc: subprocess.Popen[bytes]

    def client(self) -> redis.Redis:
        """A client of this very process alone (for the test's own checks), built by the factory."""
        return build_client(f"redis://127.0.0.1:{self.port}/0", API_RETRY, timeout_s=5)

    def stop(self) -> None:
        """SIGCONT (in case it was stopped), SIGTERM, then SIGKILL if need be."""
        if self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


@dataclass
class ServerGroup:
    """Redis processes started by one test, in one temporary directory."""

    dir: Path
    servers: list[Server] = field(default_factory=list)

    def start(self, name: str, *args: str) -> Server:
        """Start a redis-server with `args` on a free port; wait until it answers."""
        binary = shutil.which("redis-server")
        assert binary, "redis-server is needed on PATH"
        port = free_port()
        workdir = self.dir / name
        workdir.mkdir()
        log = (self.dir / f"{name}.log").open("ab")
        base = ["--bind", "127.0.0.1", "--port", str(port), "--dir", str(workdir), "--save", ""]
        proc = subprocess.Popen([binary, *args, *base], stdout=log, stderr=log, start_new_session=True)
        server = Server(name, port, proc)
        self.servers.append(server)
        deadline = time.monotonic() + 15
        while not _answers(port):
            assert proc.poll() is None and time.monotonic() < deadline, (self.dir / f"{name}.log").read_text()
            time.sleep(0.05)
        return server

    def stop(self) -> None:
        """Stop every process of the group."""
        for server in reversed(self.servers):
            server.stop()


@dataclass
class SentinelGroup(ServerGroup):
    """A master, its replica and one Sentinel (quorum 1) watching them as `SERVICE`."""

    @property
    def sentinel(self) -> Server:
        """The Sentinel."""
        return next(s for s in self.servers if s.name == "sentinel")

    @property
    def url(self) -> str:
        """The `redis+sentinel://` URL of the service."""
        return f"redis+sentinel://127.0.0.1:{self.sentinel.port}/{SERVICE}/0"

    def master_port(self) -> int:
        """The port of the master as the Sentinel names it now."""
        addr = self.sentinel.client().sentinel_get_master_addr_by_name(SERVICE)
        assert addr is not None and not isinstance(addr, bool), addr  # redis-py: (host, port) or None
        _host, port = addr
        return int(port)


@contextlib.contextmanager
def sentinel_group() -> Iterator[SentinelGroup]:
    """Master (refusing writes once it has no replica: `min-replicas-to-write 1`, so a demoted
    master takes no write that the failover would lose), replica, Sentinel; stopped after."""
    group = SentinelGroup(Path(tempfile.mkdtemp(prefix="trickarena-sentinel-")))
    try:
        master = group.start("master", "--min-replicas-to-write", "1", "--min-replicas-max-lag", "10")
        replica = group.start("replica", "--replicaof", "127.0.0.1", str(master.port))
        _wait(
            lambda: replica.client().info("replication").get("master_link_status") == "up",
            15,
            "the replica to sync",
        )
        conf = group.dir / "sentinel.conf"
        conf.write_text(
            f"sentinel monitor {SERVICE} 127.0.0.1 {master.port} 1\n"
            f"sentinel down-after-milliseconds {SERVICE} 2000\n"
            f"sentinel failover-timeout {SERVICE} 10000\n"
        )
        group.start("sentinel", str(conf), "--sentinel")
        _wait(
            lambda: bool(group.sentinel.client().sentinel_slaves(SERVICE)),
            20,
            "the Sentinel to find the replica",
        )
        yield group
    finally:
        group.stop()
        shutil.rmtree(group.dir, ignore_errors=True)


@dataclass
class ClusterGroup(ServerGroup):
    """Three cluster-enabled masters (no replicas) sharing the 16,384 slots."""

    @property
    def url(self) -> str:
        """The `redis+cluster://` URL naming every master."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{s.port}" for s in self.servers)

    def keys_per_master(self, pattern: str) -> dict[int, int]:
        """How many keys matching `pattern` each master holds (port -> count)."""
        out: dict[int, int] = {}
        for server in self.servers:
            out[server.port] = sum(1 for _ in server.client().scan_iter(match=pattern, count=1000))
        return out


@contextlib.contextmanager
def redis_cluster() -> Iterator[ClusterGroup]:
    """A real three-master Redis Cluster (`redis-server --cluster-enabled yes` and `redis-cli
    --cluster create`), up when every slot is served; stopped after."""
    cli = shutil.which("redis-cli")
    assert cli, "redis-cli is needed on PATH"
    group = ClusterGroup(Path(tempfile.mkdtemp(prefix="trickarena-cluster-")))
    try:
        for n in range(3):
            group.start(
                f"m{n}",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                f"nodes-{n}.conf",
                # Its own bus port (the default, port + 10,000, may be taken or above 65,535).
                "--cluster-port",
                str(free_port()),
                "--appendonly",
                "no",
            )
        nodes = [f"127.0.0.1:{s.port}" for s in group.servers]
        subprocess.run(
            [cli, "--cluster", "create", *nodes, "--cluster-replicas", "0", "--cluster-yes"],
            check=True,
            capture_output=True,
            timeout=60,
        )
        _wait(
            lambda: all(s.client().cluster("info").get("cluster_state") == "ok" for s in group.servers),
            30,
            "every slot of the cluster to be served",
        )
        yield group
    finally:
        group.stop()
        shutil.rmtree(group.dir, ignore_errors=True)
