"""bench/sched_trace.py replays a hand-written trace (docs/performance.md quotes its numbers)."""

from __future__ import annotations

import pytest

from bench.sched_trace import Analysis


def _line(comm: str, pid: int, cpu: int, t: float, event: str, rest: str) -> str:
    return f"{comm:>16}-{pid:<7} [{cpu:03d}] d..2. {t:12.6f}: {event}: {rest}"


def _switch(cpu: int, t: float, prev: tuple[str, int], state: str, nxt: tuple[str, int]) -> str:
    return _line(
        prev[0],
        prev[1],
        cpu,
        t,
        "sched_switch",
        f"prev_comm={prev[0]} prev_pid={prev[1]} prev_prio=120 prev_state={state} ==> "
        f"next_comm={nxt[0]} next_pid={nxt[1]} next_prio=120",
    )


def _wake(cpu: int, t: float, by: tuple[str, int], woken: tuple[str, int], target: int) -> list[str]:
    rest = f"comm={woken[0]} pid={woken[1]} prio=120 target_cpu={target:03d}"
    return [
        _line(by[0], by[1], cpu, t, "sched_waking", rest),
        _line(by[0], by[1], target, t, "sched_wakeup", rest),
    ]


def _fork(t: float, parent: int, child: int) -> str:
    return _line(
        "python",
        parent,
        0,
        t,
        "sched_process_fork",
        f"comm=python pid={parent} child_comm=python child_pid={child}",
    )


BENCH, WORKER, HORSE, BOT, BOT_T1, BOT_T2 = 100, 300, 301, 200, 201, 202
IDLE0, IDLE1 = ("swapper/0", 0), ("swapper/1", 0)
H, T1, T2 = ("python", HORSE), ("python", BOT_T1), ("python", BOT_T2)

# CPU 1 never reports its switches from idle (as on the KVM guest the docs describe): T1 is woken
# onto idle CPU 1 at 9.9995 and runs until 10.001. CPU 0 runs the horse, which wakes T2 onto its own
# core at 10.0005 and is preempted by it at 10.003; T2 runs to the end. CPU 1 idles from 10.001:
# 2 ms while T2 waits on CPU 0, then 1 ms while the preempted horse does.
TRACE = [
    _fork(9.0, BENCH, WORKER),
    _fork(9.1, WORKER, HORSE),
    _fork(9.2, BOT, BOT_T1),
    _fork(9.3, BOT, BOT_T2),
    _switch(0, 9.9, IDLE0, "R", H),
    _switch(1, 9.999, T1, "S", IDLE1),
    *_wake(0, 9.9995, H, T1, 1),
    _line("python", BENCH, 0, 10.0, "tracing_mark_write", f"RUN_START workers=2 bots={BOT}"),
    *_wake(0, 10.0005, H, T2, 0),
    _switch(1, 10.001, T1, "S", IDLE1),
    _switch(0, 10.003, H, "R+", T2),
    _line("python", BENCH, 0, 10.004, "tracing_mark_write", "RUN_END workers=2"),
]


def test_cores_busy_idle_and_idle_while_work_waits_elsewhere() -> None:
    """Rule: idle time counts as stranded while a runnable process waits on the other core's queue."""
    (window,) = Analysis(TRACE).windows()
    assert window.label == "workers=2"
    assert window.end - window.start == pytest.approx(0.004)
    assert window.busy == pytest.approx(0.005)  # CPU 0 all 4 ms, CPU 1 its first 1 ms
    assert window.idle == pytest.approx(0.003)
    assert window.idle_with_work_elsewhere == pytest.approx(0.003)
    assert window.stranded["horse -> bot (same core)"] == pytest.approx(0.002)
    assert window.stranded["horse preempted"] == pytest.approx(0.001)


def test_preemptions_and_waits_are_told_apart_by_ancestry() -> None:
    """Rule: processes are named by ancestry (bot threads, horse under worker under bench)."""
    analysis = Analysis(TRACE)
    assert [analysis.kind(p) for p in (BENCH, WORKER, HORSE, BOT_T1, BOT_T2, 0)] == [
        "bench",
        "worker",
        "horse",
        "bot",
        "bot",
        "idle",
    ]
    (window,) = analysis.windows()
    assert window.preemptions == {("horse", "bot", "horse", "same core"): 1}
    assert window.wait_count == {"horse -> bot (same core)": 1}
    assert window.waits["horse -> bot (same core)"] == pytest.approx(0.0025)
