"""`evaluate`: a model on an environment, sampled and judged, written as it goes and resumable.

Tasks are the env's seeded stream (``-n`` tasks from ``--seed``: the same arguments give the same
tasks; an env over a list of tasks runs them in order from ``--seed``), run in fixed chunks of
8. On transformers each chunk samples from one torch stream seeded from ``seed`` and the chunk;
vLLM and servers get a seed per (task, sample, turn). Multi-turn envs run their turns through
the same backend. With overlong shaping (the training run's ``sampling.overlong``, or
``shaping``; `trainer.eval._shaping`) each sample's reward carries DAPO's soft overlong
punishment as reward part ``overlong``, stored beside it and summarised as ``reward/overlong``;
``correct`` and pass@k stay the verdict's. Every judged task is appended to ``samples.jsonl`` at
once, one `grpo_envs.RolloutRecord` row per sample, so ``resume=True`` after a crash or Ctrl-C
redoes none of them (it reads rows written before a key was added too).
``verifier_executor="ray"`` judges single-turn groups on a `RayExecutor` (each chunk's groups
at once); multi-turn envs judge each turn in their ``step``, here.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from grpo_envs import RolloutRecord, stable_seed
from trainer.errors import TrainerError
from trainer.eval._backends import Options, open_backend
from trainer.eval._metrics import Sample, summarize
from trainer.eval._shaping import overlong_lengths, shaped
from trainer.rollouts._envs import told_opened_thought
from trainer.run._rollout_log import record_of, reference_of
from verifiers.errors import VerifierInputError
from verifiers.executors import executor_named

if TYPE_CHECKING:
    from grpo_envs import JudgeConfig
    from verifiers.executors import Executor

__all__ = ["evaluate", "plot", "table"]

log = logging.getLogger("trainer")
TASKS_PER_CALL = 8


def _task_seeds(seed: int, n: int, probe: Any = None) -> list[int]:
    """The ``n`` task seeds from ``seed``: the env's seeded stream, or, for an env over a list of
    tasks (its ``tasks``, the k-th chosen by seed k modulo their number: the terminal envs),
    consecutive seeds, so that ``-n`` as many as its tasks runs each task once."""
    tasks = getattr(getattr(probe, "unwrapped", None), "tasks", None)
    if isinstance(tasks, Sequence) and len(tasks) > 0:
        return [seed + k for k in range(n)]
    return [stable_seed(seed, "eval-task", k) % (2**31) for k in range(n)]


def _done(path: Path) -> dict[int, list[RolloutRecord]]:
    """The records already in ``samples.jsonl`` (rows written before a key was added included), by
    task seed (a torn last line is dropped)."""
    rows: dict[int, list[RolloutRecord]] = {}
    if not path.exists():
        return rows
    for line in path.read_text().splitlines():
        try:
            record = RolloutRecord.from_json(json.loads(line))
        except (ValueError, TypeError):  # a torn line, or one that is not a record: the task is done again
            continue
        if record.task_seed is not None:
            rows.setdefault(record.task_seed, []).append(record)
    return rows


def _task_info(env: Any, task_seed: int) -> tuple[str, str, dict[str, Any]]:
    """(task id, prompt, attributes) of one task of ``env``."""
    prompt, _ = env.reset(seed=task_seed)
    task = getattr(env.unwrapped, "task", None)
    if task is None:
        return f"seed-{task_seed}", str(prompt), {}
    attributes = {k: v for k, v in dict(task.metadata).items() if isinstance(v, str | int | float | bool)}
    return str(task.task_id), str(prompt), attributes


def evaluate(
    env: Any,
    model: Any,
    *,
    tokenizer: Any = None,
    backend: str = "transformers",
    base_url: str | None = None,
    api_key: str | None = None,
    concurrency: int = 64,
    chat: bool = False,
    engine_kwargs: dict[str, Any] | None = None,
    n: int = 100,
    samples: int = 8,
    ks: Sequence[int] | None = None,
    split: str = "eval",
    seed: int = 0,
    temperature: float = 0.6,
    max_new_tokens: int = 1024,
    out: str | Path | None = None,
    resume: bool = False,
    env_kwargs: dict[str, Any] | None = None,
    device: str = "auto",
    verifier_executor: str = "local",
    judge: JudgeConfig | None = None,  # a sample's reason keeps the rule's and the judge's verdicts
    shaping: Mapping[str, Any] | None = None,
    show_progress: bool = True,
) -> dict[str, Any]:
    """Sample ``samples`` completions for each of ``n`` tasks of ``env`` from ``model``, judge
    them, and return the summary (pass@k and maj@k for each k in ``ks``, default 1, 2, 4, ... up
    to ``samples``). ``backend``: "transformers" (``model`` a hub name, a path, "demo" or a
    module with ``tokenizer``), "vllm" (a path or hub name; ``engine_kwargs`` go to
    ``vllm.LLM``), or "openai" with ``base_url`` (``model`` the served name; ``tokenizer`` the
    folder or hub name of its tokenizer files, default ``model``; ``chat=True`` sends messages and
    lets the server apply its template). ``verifier_executor``: where single-turn groups are
    judged, "local" (here) or "ray" (a `RayExecutor` on ``RAY_ADDRESS``'s cluster, else a new local
    one, closed at the end); multi-turn envs judge here. ``judge``: a `grpo_envs.JudgeConfig`.
    ``shaping``: overlong settings over those of the run ``model`` comes from (`trainer.eval._shaping`).

    Examples:
        >>> s = evaluate("grpo_envs/Digits-v0", "demo", n=2, samples=2, max_new_tokens=1)  # doctest: +SKIP
        >>> s["pass@1"]["value"]  # doctest: +SKIP
        0.0
    """
    ks, (make_env, probe) = _ks(n, samples, ks), _envs(env, env_kwargs, split, judge)
    path, lengths = _samples_file(env, out, resume), overlong_lengths(model, max_new_tokens, shaping)
    opts = Options(samples, seed, temperature, max_new_tokens, device, tokenizer, base_url, api_key, concurrency, chat)
    executor = _executor(verifier_executor, probe, env)
    try:
        opts = replace(opts, engine_kwargs=engine_kwargs or {}, executor=executor)
        engine = shaped(open_backend("openai" if base_url else backend, model, probe, opts), lengths)
        path.parent.mkdir(parents=True, exist_ok=True)
        done, seeds = _resumed(path, samples) if resume else {}, _task_seeds(seed, n, probe)
        with open(path, "a") as sink:
            _generate(engine, make_env, probe, seeds, samples, done, sink, seed=seed, show_progress=show_progress)
    finally:
        if executor is not None:
            executor.close()
    rows = [row for s in seeds for row in done[s][:samples]]
    facts = dict(env=_name(env), model=_name(model), n=n, samples_per_task=samples, seed=seed, temperature=temperature)
    return _summary(path.parent, rows, ks, probe, {**facts, **engine.facts()})


def _name(obj: Any) -> str:
    """A name for the summary: a string as it is, a class or function its name, a module (a model
    object) its class's name, never its multi-line repr."""
    return obj if isinstance(obj, str) else str(getattr(obj, "__name__", type(obj).__name__))


def _samples_file(env: Any, out: str | Path | None, resume: bool) -> Path:
    """The run's ``samples.jsonl`` (in ``out``, default ``runs/eval/<env>``); one that exists only with ``resume``."""
    folder = Path(out) if out is not None else Path("runs/eval") / re.sub(r"[^A-Za-z0-9_.-]+", "-", str(env))
    path = folder / "samples.jsonl"
    if path.exists() and not resume:
        raise TrainerError(f"{path} exists: pass --resume to continue that run, or another --out")
    return path


def _summary(
    folder: Path, rows: list[RolloutRecord], ks: list[int], probe: Any, facts: dict[str, Any]
) -> dict[str, Any]:
    """The summary of ``rows`` with ``facts`` beside it, written to ``summary.json`` and plotted."""
    equivalent = getattr(getattr(probe.unwrapped, "verifier", None), "equivalent", None)
    summary = summarize([_sample(row) for row in rows], ks, equivalent, seed=facts["seed"])
    summary.update(facts)
    failed = [row.judgement.reason for row in rows if row.judgement.correct is None]
    summary["unjudged_reason"] = failed[0] if failed else ""  # why a sample was not judged (the first)
    (folder / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    plot(summary, folder / "passk.png")
    return summary


def _ks(n: int, samples: int, ks: Sequence[int] | None) -> list[int]:
    """The k of pass@k and maj@k (default 1, 2, 4, ... up to ``samples``), checked."""
    if n < 1 or samples < 1:
        raise TrainerError(f"-n and --samples must be >= 1, got -n {n} and --samples {samples}")
    ks = list(ks or [k for k in (1, 2, 4, 8, 16, 32, 64, 128) if k <= samples])
    if max(ks) > samples or min(ks) < 1:
        shown = ",".join(map(str, ks))
        raise TrainerError(f"each -k must be in [1, --samples]; got -k {shown} with --samples {samples}")
    return ks


def _executor(name: str, probe: Any, env: Any) -> Executor | None:
    """The executor named ``name`` (None: "local"), not connected yet (Ray starts at the first
    batch it judges)."""
    from trainer.rollouts._rollout import is_single_turn

    try:
        executor = None if name == "local" else executor_named(name)
    except VerifierInputError as exc:
        raise TrainerError(f"verifier_executor: {exc}") from None
    if executor is not None and not is_single_turn(probe):
        log.warning("verifier_executor=%s judges single-turn envs; %s steps its turns here", name, env)
    return executor


def _resumed(path: Path, samples: int) -> dict[int, list[RolloutRecord]]:
    """The whole tasks (``samples`` rows) of ``path``, which is rewritten to hold only them (no
    torn last line is appended to), as records written now."""
    done = {s: r for s, r in _done(path).items() if len(r) >= samples}
    if path.exists():
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(row.to_json()) + "\n" for task_rows in done.values() for row in task_rows))
        tmp.replace(path)
    return done


def plot(summary: dict[str, Any], path: Path) -> bool:
    """pass@k and maj@k against k, with their intervals, as a PNG (False without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    ks = sorted(int(key.split("@")[1]) for key in summary if key.startswith("pass@"))
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, color in (("pass", "tab:blue"), ("maj", "tab:orange")):
        values = [summary[f"{name}@{k}"] for k in ks]
        mid = [v["value"] for v in values]
        err = [
            [m - v["ci95"][0] for m, v in zip(mid, values, strict=True)],
            [v["ci95"][1] - m for m, v in zip(mid, values, strict=True)],
        ]
        ax.errorbar(ks, mid, yerr=err, marker="o", capsize=3, color=color, label=f"{name}@k (95% interval)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_xlabel("k")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"{summary.get('env', '')}  {summary.get('model', '')}", fontsize=9)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def _envs(
    env: Any, env_kwargs: dict[str, Any] | None, split: str, judge: JudgeConfig | None = None
) -> tuple[Callable[..., Any], Any]:
    """A factory of the env on ``split`` (our envs have train/eval splits; others one stream),
    judged with ``judge`` when given, and a first instance."""
    from grpo_envs import ReasoningEnv
    from trainer.rollouts._envs import env_factory

    kwargs = dict(env_kwargs or {})  # an unknown id or argument: env_factory's TrainerError
    if isinstance(env_factory(env, kwargs)().unwrapped, ReasoningEnv):
        kwargs["split"] = split
    make_env = env_factory(env, kwargs, judge)
    return make_env, make_env()


def _generate(
    engine: Any,
    make_env: Callable[..., Any],
    probe: Any,
    seeds: list[int],
    samples: int,
    done: dict[int, list[RolloutRecord]],
    sink: IO[str],
    *,
    seed: int,
    show_progress: bool = True,
) -> None:
    """Sample and judge every task not yet in ``done``, appending each task's rows to ``sink``.
    Chunks are fixed slices of ``seeds`` with seeds of their own: a resumed chunk redraws the
    samples it drew before (on CPU, bit for bit)."""
    from tqdm.auto import tqdm

    from trainer.rollouts._rollout import envs_needed

    make_env = told_opened_thought(make_env, engine.tokenizer, probe)  # R1-like templates open the thought
    started, tokens = time.perf_counter(), 0
    finished = sum(len(done.get(s, [])) >= samples for s in seeds)
    total, initial = len(seeds) * samples, finished * samples
    with tqdm(total=total, initial=initial, unit="sample", desc="eval", disable=not show_progress) as bar:
        for start in range(0, len(seeds), TASKS_PER_CALL):
            chunk = seeds[start : start + TASKS_PER_CALL]
            missing = {s for s in chunk if len(done.get(s, [])) < samples}
            if not missing:
                continue
            envs = [make_env() for _ in range(envs_needed(probe, len(chunk), samples))]
            groups = engine.run(envs, chunk, make_env, stable_seed(seed, "eval-sampling", start) % (2**31))
            for task_seed, group in zip(chunk, groups, strict=True):
                if task_seed in missing:
                    task_id, prompt, attributes = _task_info(probe, task_seed)
                    task = dict(task_id=task_id, prompt=prompt, reference=reference_of(probe), attributes=attributes)
                    done[task_seed] = [record_of(r, task_seed=task_seed, sample=j, **task) for j, r in enumerate(group)]
                    sink.write("".join(json.dumps(row.to_json()) + "\n" for row in done[task_seed]))
                    sink.flush()
                    tokens += sum(row.tokens for row in done[task_seed])
                    bar.update(samples)
            elapsed = max(time.perf_counter() - started, 1e-9)
            bar.set_postfix(tokens_per_s=f"{tokens / elapsed:.0f}")


def _sample(row: RolloutRecord) -> Sample:
    return Sample(
        task_id=str(row.task_seed),  # tasks by seed: two seeds may draw the same small task
        correct=row.judgement.correct,
        status=row.judgement.status,
        extracted=row.judgement.extracted,
        reward=float(row.reward or 0.0),
        tokens=row.tokens,
        truncated=row.truncated,
        attributes=dict(row.attributes),
        overlong=row.overlong,
    )


def table(summary: dict[str, Any]) -> str:
    """The summary as a printed table: one row per metric, with its interval and task count."""
    head = f"{summary.get('env', '')}  {summary.get('model', '')}"
    lines = [f"{head}  ({summary['tasks']} tasks, {summary['samples']} samples)"]
    lines.append(f"{'metric':<14}{'value':>8}  {'95% interval':<17}{'tasks':>6}{'left out':>10}")
    for key, value in summary.items():
        if isinstance(value, dict) and "ci95" in value:
            low, high = value["ci95"]
            lines.append(
                f"{key:<14}{value['value']:>8.3f}  [{low:.3f}, {high:.3f}]   {value['tasks']:>6}{value['left_out']:>10}"
            )
    lines.append(f"statuses: {summary['statuses']}  (not judged: {summary['unjudged']})")
    lines.append(
        f"completion tokens: mean {summary['tokens_mean']:.1f}, p95 {summary['tokens_p95']}; "
        f"truncated {summary['truncated_rate']:.1%}"
    )
    return "\n".join(lines)
