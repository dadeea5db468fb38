"""CPU time of processes from Linux /proc, for the benchmarks that run servers, bots and workers."""

from __future__ import annotations

import os


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its live descendants (e.g. gunicorn's workers)."""
    total = 0.0
    pids = [pid]
    while pids:
        current = pids.pop()
        try:
            total += cpu_seconds(current)
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as fh:
                    pids += [int(child) for child in fh.read().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue  # it exited meanwhile
    return total
