"""Benchmark: an episode's session start on a shipped task, cold (a container per episode, as the
task-folder env opened them before) vs from the task's warm pool (``task_session(..., warm=G)``).

    python bench/task_sessions.py [--task fix-median] [--rounds 12] [--group 8] [--leads 2,6]

Start to first command: from asking for the task's session (its image's working folder writable
and filled, the shell in it) to the result of its first command (``ls``), each session closed
after it:
  cold                 ``task_session(task, image)``: container start, supervisor, the folder's
                       files extracted, then the command (what each episode paid before)
  warm, 1/s            ``task_session(task, image, warm=G)``, one a second
  group, cold          G cold sessions asked for at once (a container each, all starting together)
  group after a reset  G sessions asked for at once, each of ``--leads`` seconds after
                       `prestart_task_sessions` (what `HarborTerminal.reset` calls: the model's
                       first turn is the lead), from a pool that had none: a GRPO step's group
  group, warm          G at once from a full pool (the task's second group within the idle time)
"""

from __future__ import annotations

import argparse
import concurrent.futures
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sessions import row  # noqa: E402  (bench/sessions.py: the same table of p50 / p99 ms)

from verifiers.agentic import (  # noqa: E402
    _session,  # noqa: E402
    build_task_base_image,
    build_task_image,
    prestart_task_sessions,
    shipped_tasks,
    task_session,
)


def first_command(task: Any, image: str, warm: int) -> tuple[float, Any]:
    start = time.perf_counter()
    s = task_session(task, image, warm=warm)
    r = s.exec("ls")
    took = time.perf_counter() - start
    assert r.ok, r
    return took, s


def group(task: Any, image: str, g: int, warm: int) -> list[float]:
    with concurrent.futures.ThreadPoolExecutor(g) as threads:
        done = list(threads.map(lambda _: first_command(task, image, warm), range(g)))
    for _, s in done:
        s.close()
    return [t for t, _ in done]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="fix-median")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--group", type=int, default=8)
    parser.add_argument("--leads", default="2,6")
    args = parser.parse_args()
    task = next(t for t in shipped_tasks() if t.name == args.task)
    image = build_task_image(task, base_images={"grpo-envs-task-base": build_task_base_image()})
    g = args.group
    print(f"task {task.name} ({image})\n{'':<34}{'p50 ms':>9}{'p99 ms':>9}{'n':>6}\n" + "-" * 60)
    colds = []
    for _ in range(args.rounds):
        took, s = first_command(task, image, 0)
        colds.append(took)
        s.close()
    print(row("cold task_session + first command", colds))
    print(row(f"group of {g} at once, cold", group(task, image, g, 0)))
    for lead in [float(x) for x in args.leads.split(",")]:
        for pool in list(_session._pools.values()):  # a task the pool has not seen: nothing warm
            pool.close()
        _session._pools.clear()
        prestart_task_sessions(task, image, warm=g)
        time.sleep(lead)
        print(row(f"group of {g}, {lead:g} s after reset", group(task, image, g, g)))
    pool = _session._task_pool(task, image, None, g, {})
    warm = []
    for _ in range(args.rounds):
        pool.warm(image)
        took, s = first_command(task, image, g)
        warm.append(took)
        s.close()
        time.sleep(1.0)
    print(row("warm, 1/s", warm))
    groups = []
    for _ in range(max(1, args.rounds // g)):
        pool.warm(image)
        groups += group(task, image, g, g)
    print(row(f"group of {g} at once, warm", groups))
    pool.close()
    print(f"\nwarm vs cold, p50: {statistics.median(colds) / statistics.median(warm):.0f}x faster")


if __name__ == "__main__":
    main()
