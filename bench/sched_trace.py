"""Where the second core goes: the harness bench's 1- and 2-worker runs under the kernel's scheduler trace.

    sudo .venv/bin/python bench/sched_trace.py [--deals 12] [--cpu-policy batch|normal] [--keep FILE]

Runs one 1-worker and one 2-worker tournament exactly as `bench/harness_bench.py` does, with the
ftrace events sched_switch, sched_waking, sched_wakeup, sched_migrate_task and sched_process_fork
on (needs root and tracefs; it is mounted if it is not), and prints for each run:

- the cores kept busy and the cores left idle, on average;
- of the idle time, how much passed while a runnable process waited on the *other* core's run
  queue (work was there, but on the wrong core), and who that process was;
- preemptions, by (preempted process, the process that took the core, who woke that one, and
  whether it was woken from the same core);
- run-queue waits (woken or preempted until running again), by who woke whom.

Processes are told apart by ancestry: `bot` (a bot process or any thread of it), `worker` (an RQ
worker), `horse` (a work-horse the worker forked), `redis`, `bench`, and `other:<comm>`. The
trace buffer is the machine's own, so nothing else should be tracing meanwhile.

Some kernels do not report the switch from the idle task on every CPU (seen on a KVM guest with
6.18: never on CPU 1); such a switch is put back at the task's wake-up, when the task was woken
onto that idle CPU, else when the CPU went idle.
"""

from __future__ import annotations

import argparse
import collections
import heapq
import re
import subprocess
import sys
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.harness_bench import BotProc, run_once, start_bots, tear_down  # noqa: E402
from core.redis_server import ensure_redis  # noqa: E402
from harness.runner import HarnessContext  # noqa: E402

TRACEFS = Path("/sys/kernel/tracing")
EVENTS = (
    "sched_switch",
    "sched_waking",
    "sched_wakeup",
    "sched_wakeup_new",
    "sched_migrate_task",
    "sched_process_fork",
)
LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")
STALE_S = 0.005  # a "runnable" entry older than this lost its switch-in event; forget it


def _write(name: str, text: str) -> None:
    (TRACEFS / name).write_text(text)


def start_tracing() -> None:
    """Mount tracefs if needed, clear the buffer, enable the scheduler events."""
    if not (TRACEFS / "trace").exists():
        subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], check=True)
    _write("tracing_on", "0")
    _write("trace_clock", "mono")
    _write("buffer_size_kb", "200000")
    _write("trace", "")
    for event in EVENTS:
        _write(f"events/sched/{event}/enable", "1")
    _write("tracing_on", "1")


def stop_tracing() -> str:
    """Stop tracing, switch the events off again; the trace text."""
    _write("tracing_on", "0")
    for event in EVENTS:
        _write(f"events/sched/{event}/enable", "0")
    text = (TRACEFS / "trace").read_text()
    _write("trace", "")
    return text


def mark(text: str) -> None:
    """A marker line in the trace."""
    _write("trace_marker", text + "\n")


@dataclass
class Window:
    """One marked run's tallies."""

    label: str
    start: float
    end: float = 0.0
    busy: float = 0.0
    idle: float = 0.0
    idle_with_work_elsewhere: float = 0.0
    stranded: collections.defaultdict[str, float] = field(
        default_factory=lambda: collections.defaultdict(float)
    )
    preemptions: collections.Counter[tuple[str, ...]] = field(default_factory=collections.Counter)
    waits: collections.defaultdict[str, float] = field(default_factory=lambda: collections.defaultdict(float))
    wait_count: collections.Counter[str] = field(default_factory=collections.Counter)


class Analysis:
    """Replays a trace: who runs on which CPU, who waits where, who preempts whom."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.parent: dict[int, int] = {}
        self.comm: dict[int, str] = {}
        self.bots: set[int] = set()
        self.workers: set[int] = set()
        self.bench = -1
        self.events = self._events(lines)

    def _events(self, lines: Iterable[str]) -> list[tuple[float, int, int, str, Any]]:
        events: list[tuple[float, int, int, str, Any]] = []
        running: dict[int, int] = {}
        idle_since: dict[int, float] = {}
        last_wake: dict[int, tuple[float, int]] = {}
        for line in lines:
            match = LINE.match(line)
            if not match:
                continue
            _, pid, cpu_s, ts, name, rest = match.groups()
            t, cpu = float(ts), int(cpu_s)
            if name == "tracing_mark_write":
                if "bots=" in rest:
                    self.bench = int(pid)
                    self.bots |= {int(p) for p in rest.split("bots=")[1].split()[0].split(",")}
                events.append((t, len(events), cpu, "mark", rest.strip()))
                continue
            fields = dict(FIELD.findall(rest))
            if name == "sched_process_fork":
                self.parent[int(fields["child_pid"])] = int(fields["pid"])
            elif name == "sched_waking":
                events.append((t, len(events), cpu, "waking", (int(fields["pid"]), int(pid))))
            elif name == "sched_switch":
                prev, nxt = int(fields["prev_pid"]), int(fields["next_pid"])
                self.comm[prev], self.comm[nxt] = fields["prev_comm"], fields["next_comm"]
                if running.get(cpu) == 0 and prev != 0:  # the switch from idle was not reported
                    woken = last_wake.get(prev)
                    since = idle_since.get(cpu, t)
                    at = max(since, woken[0]) if woken and woken[1] == cpu else since
                    events.append((at, len(events), cpu, "switch", (0, "R", prev)))
                running[cpu] = nxt
                if nxt == 0:
                    idle_since[cpu] = t
                events.append((t, len(events), cpu, "switch", (prev, fields["prev_state"], nxt)))
            elif name in ("sched_wakeup", "sched_wakeup_new"):
                woken_pid, target = int(fields["pid"]), int(fields["target_cpu"])
                self.comm[woken_pid] = fields["comm"]
                last_wake[woken_pid] = (t, target)
                events.append((t, len(events), cpu, "wake", (woken_pid, target)))
            elif name == "sched_migrate_task":
                events.append((t, len(events), cpu, "migrate", (int(fields["pid"]), int(fields["dest_cpu"]))))
        events.sort()
        return events

    def kind(self, pid: int | None) -> str:
        """What a pid is: bot, worker, horse, redis, bench or other:<comm>."""
        if pid is None:
            return "?"
        if pid == 0:
            return "idle"
        if self.comm.get(pid) == "redis-server":
            return "redis"
        ancestors, current = [pid], pid
        while current in self.parent and len(ancestors) < 12:
            current = self.parent[current]
            ancestors.append(current)
        if self.bots & set(ancestors):
            return "bot"
        if pid == self.bench:
            return "bench"
        if pid in self.workers or self.parent.get(pid) == self.bench:
            return "worker"
        if any(self.parent.get(a) == self.bench for a in ancestors[1:]):
            return "horse"
        return f"other:{self.comm.get(pid, '?')}"

    def windows(self) -> list[Window]:
        """Replay the events; one `Window` per marked run."""
        cpus = sorted({cpu for _, _, cpu, _, _ in self.events})
        running: dict[int, int | None] = dict.fromkeys(cpus)
        queued: dict[int, tuple[int, float, str]] = {}  # pid -> (cpu, since, why)
        waker: dict[int, tuple[int, int]] = {}
        nobody: tuple[int | None, int | None] = (None, None)
        done: list[Window] = []
        window: Window | None = None
        last = None
        for t, _, cpu, what, data in self.events:
            if window is not None and last is not None:
                self._account(window, t - last, t, running, queued)
            last = t
            if what == "mark":
                if data.startswith("RUN_START"):
                    window = Window(data.split()[1], t)
                elif data.startswith("RUN_END") and window is not None:
                    window.end = t
                    done.append(window)
                    window = None
            elif what == "waking":
                waker[data[0]] = (data[1], cpu)
            elif what == "wake":
                pid, target = data
                if pid not in running.values():
                    by, by_cpu = waker.get(pid, nobody)
                    placed = "same core" if by_cpu == target else "other core"
                    queued[pid] = (target, t, f"{self.kind(by)} -> {self.kind(pid)} ({placed})")
            elif what == "migrate":
                pid, dest = data
                if pid in queued:
                    queued[pid] = (dest, *queued[pid][1:])
            elif what == "switch":
                prev, state, nxt = data
                running[cpu] = nxt
                if prev and state.startswith("R"):
                    queued[prev] = (cpu, t, f"{self.kind(prev)} preempted")
                    if window is not None:
                        woke_nxt = waker.get(nxt, nobody)
                        window.preemptions[
                            (
                                self.kind(prev),
                                self.kind(nxt),
                                self.kind(woke_nxt[0]),
                                "same core" if woke_nxt[1] == cpu else "other core",
                            )
                        ] += 1
                else:
                    queued.pop(prev, None)
                if nxt in queued:
                    _, since, why = queued.pop(nxt)
                    if window is not None:
                        window.waits[why] += t - since
                        window.wait_count[why] += 1
        return done

    @staticmethod
    def _account(
        window: Window,
        dt: float,
        now: float,
        running: dict[int, int | None],
        queued: dict[int, tuple[int, float, str]],
    ) -> None:
        for stale in [p for p, (_, since, _) in queued.items() if now - since > STALE_S]:
            del queued[stale]
        for cpu, pid in running.items():
            if pid is None:
                continue
            if pid:
                window.busy += dt
                continue
            window.idle += dt
            elsewhere = [why for c, _, why in queued.values() if c != cpu]
            if elsewhere:
                window.idle_with_work_elsewhere += dt
                for why in elsewhere:
                    window.stranded[why] += dt / len(elsewhere)


def most(tally: dict[str, float], top: int) -> list[tuple[str, float]]:
    """The `top` largest entries, largest first (what Counter.most_common does, for float tallies)."""
    return heapq.nlargest(top, tally.items(), key=itemgetter(1))


def report(windows: list[Window], top: int = 8) -> None:
    """Print each window's tallies, as cores (seconds per second) and counts."""
    for w in windows:
        span = w.end - w.start
        print(f"\n== {w.label}: {span:.2f} s")
        print(f"   busy {w.busy / span:.3f} cores, idle {w.idle / span:.3f} cores")
        stranded = w.idle_with_work_elsewhere / span
        print(f"   idle while a runnable process waited on another core: {stranded:.3f} cores")
        for why, v in most(w.stranded, top):
            print(f"      {v / span:.3f}  {why}")
        print("   preemptions (preempted, by, woken by, from):")
        for key, n in w.preemptions.most_common(top):
            print(f"      {n:6d}  {', '.join(key)}")
        print("   run-queue waits (cores, count, mean us):")
        for why, v in most(w.waits, top):
            n = w.wait_count[why]
            print(f"      {v / span:.3f} {n:6d} {v / n * 1e6:6.0f}  {why}")


def main(argv: list[str] | None = None) -> int:
    """Trace one 1-worker and one 2-worker run and print where the cores went."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=12)
    parser.add_argument("--cpu-policy", choices=("batch", "normal"), default="batch")
    parser.add_argument("--redis-url", default=None)
    parser.add_argument("--keep", type=Path, default=None, help="also save the raw trace here")
    args = parser.parse_args(argv)
    handle = ensure_redis(args.redis_url)
    url = handle.url.rsplit("/", 1)[0] + "/14"
    tag = uuid.uuid4().hex[:8]
    prefix, queue = f"ta-bench:{tag}:", f"ta-bench-{tag}"
    ctx = HarnessContext.build(url, prefix, queue)
    bots: list[BotProc] = []
    args.max_in_flight = None  # the workers' default
    try:
        ids, bots = start_bots(ctx, 4, 0.0, tag)
        bot_pids = [bot.proc.pid for bot in bots]
        start_tracing()
        try:
            for workers in (1, 2):
                mark(f"RUN_START workers={workers} bots={','.join(map(str, bot_pids))}")
                figures = run_once(ctx, url, ids, workers, args.deals * 4, 1, args, [ctx.store.client])
                mark(f"RUN_END workers={workers}")
                print(f"workers={workers}: {figures['matches_per_min']:.1f} matches/min")
        finally:
            text = stop_tracing()
    finally:
        tear_down(bots, ctx, queue, handle)
    if args.keep:
        args.keep.write_text(text)
    report(Analysis(text.splitlines()).windows())
    return 0


if __name__ == "__main__":
    sys.exit(main())
