"""Benchmark: how many sessions the trainer's rollout consumes on the task-folder env, with the
pool's warm sessions (``warm_sessions=G``) against a container per episode (``warm_sessions=0``).

    python bench/terminal_rollout.py [--tasks 2] [--group 8] [--rounds 3] [--json]

The trainer's rollout phase (`trainer.rollouts._rollout.rollout`, what a GRPO step calls) on
``grpo_envs/Terminal-v0`` over the shipped tasks (`verifiers.agentic.shipped_tasks_dir`), ``--tasks``
tasks x ``--group`` episodes each, every episode replaying its task's reference commands as Qwen tool
calls (a scripted generator: no model time, so this is the most sessions per second the trainer
can ask for here; a real model's generation only lowers it), each judged by its task's tests in a
verifier container (separate mode). Per round: wall time, episodes (= sessions) per second, the
share solved (the reference: 1.0 unless a session or a judging failed). One warm-up round first
(task images built, pools filled), not timed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


class ReplayReference:
    """A `Generator`: in turn t of an episode, the t-th reference command of the task whose
    instruction the context holds, as a Qwen tool call; after the last one, "Done." ends it."""

    def __init__(self, tokenizer: Any, tasks: list[Any]) -> None:
        from grpo_envs.tools import ToolCall, tool_format

        self.tokenizer, self.tasks = tokenizer, tasks
        self.write = lambda command: tool_format("qwen").write(ToolCall("bash", {"command": command}))

    def generate(self, contexts: Sequence[Any], params: Any) -> list[Any]:
        from trainer.generation._generator import Continuation

        end = self.tokenizer.convert_tokens_to_ids("<|im_end|>")
        out = []
        for context in contexts:
            text = self.tokenizer.decode(context)
            task = next(t for t in self.tasks if t.instruction.strip() in text)
            turn = text.split(task.instruction.strip(), 1)[1].count("<tool_response>")
            reply = self.write(task.reference[turn]) if turn < len(task.reference) else "Done."
            out.append(Continuation((*self.tokenizer(reply, add_special_tokens=False)["input_ids"], end), False))
        return out


def one_round(env_kwargs: dict[str, Any], seeds: list[int], group: int, tokenizer: Any) -> dict[str, float]:
    import gymnasium

    from trainer.rollouts._rollout import rollout

    def make_env() -> Any:
        return gymnasium.make("grpo_envs/Terminal-v0", **env_kwargs)

    envs = [make_env() for _ in range(len(seeds) * group)]  # one per episode, as the trainer pools them
    gen = ReplayReference(tokenizer, envs[0].unwrapped.tasks)
    start = time.perf_counter()
    groups = rollout(gen, tokenizer, envs, seeds, group, max_new_tokens=256, temperature=1.0, make_env=make_env)
    wall = time.perf_counter() - start
    episodes = [r for g in groups for r in g]
    for env in envs:
        env.close()
    return {
        "wall_s": wall,
        "per_s": len(episodes) / wall,
        "solved": sum(r.reward == 1.0 for r in episodes) / len(episodes),
        "judged": sum(r.judged for r in episodes) / len(episodes),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=2)
    parser.add_argument("--group", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="also print the rows as one JSON line")
    args = parser.parse_args()

    from tests.grpo_envs.test_tool_formats import family_tokenizer
    from verifiers.agentic import build_task_base_image, shipped_tasks_dir

    tokenizer = family_tokenizer("qwen")
    bases = {"grpo-envs-task-base": build_task_base_image()}
    base = {"tasks_dir": str(shipped_tasks_dir()), "split": "all", "base_images": bases}
    seeds = list(range(args.tasks))
    rows = []
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}, {args.tasks} tasks x {args.group}")
    print(f"{'sessions':<22}{'wall s':>9}{'episodes/s':>12}{'solved':>8}{'judged':>8}   (median of {args.rounds})")
    for warm in (0, args.group):
        kwargs = {**base, "warm_sessions": warm}
        one_round(kwargs, seeds, args.group, tokenizer)  # warm-up: images built, the pool filled
        runs = [one_round(kwargs, seeds, args.group, tokenizer) for _ in range(args.rounds)]
        row = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        row["warm_sessions"] = warm
        rows.append(row)
        name = f"warm pool of {warm}" if warm else "a container per episode"
        print(f"{name:<22}{row['wall_s']:>9.2f}{row['per_s']:>12.2f}{row['solved']:>8.2f}{row['judged']:>8.2f}")
    print(f"warm pool vs a container per episode: {rows[1]['per_s'] / rows[0]['per_s']:.2f}x episodes/s")
    if args.json:
        print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()
