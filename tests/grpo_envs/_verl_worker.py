"""Run by test_adapters_verl_peer.py with the verl virtualenv's python (the checkout on PYTHONPATH):
our verl adapter through verl 0.9.1's own code, without a ray cluster. Prints one line,
``RESULT {json}``, for the test to judge.

- config: hydra composes verl's ``ppo_trainer`` with our reward keys, then
  ``migrate_legacy_reward_impl`` (the legacy spelling is composed and migrated too);
- data: our `write_parquet` files (two envs in one dataset, and a user's own file without
  ``extra_info``) read by verl's ``create_rl_dataset`` with ``filter_overlong_prompts``;
- reward: verl's ``RewardLoopWorker.compute_score_batch`` (``naive`` reward manager, which
  loads our ``compute_score`` from the config's path) on a batch laid out as verl's agent loop
  lays it out, then ``RewardLoopManager.compute_rm_score`` (its one ray call, ``ray.get`` on
  its workers' results, is the only stand-in: the worker runs in this process), then
  ``extract_reward`` and ``process_validation_metrics`` (maj@N votes on ``pred``).

verl is imported inside functions: pytest imports this file for doctests in .venv, where verl is
not installed.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = str(ROOT / "grpo_envs" / "adapters" / "verl.py")
N = 3  # tasks per env
ENVS = [("grpo_envs/Arithmetic-v0", {}), ("grpo_envs/Sorting-v0", {"length": 4})]
TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
WRONG = "The answer is \\boxed{123456789}."
NONE = "I am not sure."


def save_tokenizer(folder: Path) -> None:
    """A byte-level tokenizer (exact round trip of any text) with a chat template, saved the way a
    model's tokenizer is: verl's reward worker loads it from ``actor_rollout_ref.model.path``."""
    from _byte_tokenizer import byte_tokenizer

    tok = byte_tokenizer(("<|endoftext|>", "<|im_start|>", "<|im_end|>"))
    tok.chat_template = TEMPLATE
    tok.save_pretrained(folder)


def configs(tokenizer_dir: Path) -> tuple[Any, dict[str, Any]]:
    """verl's trainer config with our reward function (0.9's keys), and what the legacy spelling
    (top-level ``custom_reward_function``) gives before and after ``migrate_legacy_reward_impl``."""
    import verl
    from hydra import compose, initialize_config_dir
    from verl.experimental.reward_loop import migrate_legacy_reward_impl

    common = [
        f"actor_rollout_ref.model.path={tokenizer_dir}",
        "data.max_prompt_length=1024",
        "data.filter_overlong_prompts=True",
        "data.filter_overlong_prompts_workers=1",
        "reward.num_workers=1",
    ]
    ours = [
        f"reward.custom_reward_function.path={ADAPTER}",
        "reward.custom_reward_function.name=compute_score",
        "reward.reward_manager.name=naive",
    ]
    legacy = [f"custom_reward_function.path={ADAPTER}", "custom_reward_function.name=compute_score"]
    config_dir = str(Path(verl.__file__).parent / "trainer" / "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        cfg = compose("ppo_trainer", overrides=common + ours)
        old = compose("ppo_trainer", overrides=common + legacy + ["reward_model.reward_manager=naive"])
    facts = {"legacy_path_unmigrated": old.reward.custom_reward_function.path}
    old = migrate_legacy_reward_impl(old)
    facts["legacy_path_migrated"] = old.reward.custom_reward_function.path
    facts["legacy_name_migrated"] = old.reward.custom_reward_function.name
    facts["legacy_manager_migrated"] = old.reward.reward_manager.name
    cfg = migrate_legacy_reward_impl(cfg)
    facts["path"] = cfg.reward.custom_reward_function.path
    return cfg, facts


def datasets(cfg: Any, tokenizer: Any, tmp: Path) -> tuple[Any, Any, list[int]]:
    """Our parquet files read by verl's ``create_rl_dataset``: two envs together, and a user's own
    file (our rows without ``extra_info``: judged by ``data_source`` and ``ground_truth`` only)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from verl.trainer.ppo.utils import create_rl_dataset

    from grpo_envs.adapters.verl import rows, write_parquet

    paths = [str(write_parquet(env_id, N, 0, tmp / f"{k}.parquet", **kw)) for k, (env_id, kw) in enumerate(ENVS)]
    own = rows("grpo_envs/Arithmetic-v0", N, 1)
    bare = [{k: v for k, v in row.items() if k != "extra_info"} for row in own]
    pq.write_table(pa.Table.from_pylist(bare), tmp / "own.parquet")
    ours = create_rl_dataset(paths, cfg.data, tokenizer, None, is_train=True)
    theirs = create_rl_dataset([str(tmp / "own.parquet")], cfg.data, tokenizer, None, is_train=False)
    return ours, theirs, [int(row["extra_info"]["task_seed"]) for row in own]


def env_step(env_id: str, env_kwargs: dict[str, Any], seed: int, completions: list[str]) -> list[dict[str, Any]]:
    """What ``env.step`` gives each completion of the task ``env.reset(seed=seed)`` makes."""
    import gymnasium

    env = gymnasium.make(env_id, **env_kwargs)
    out = []
    for completion in completions:
        env.reset(seed=seed)
        _, reward, _, _, info = env.step(completion)
        out.append({"reward": float(reward), "extracted": info["extracted"] or ""})
    return out


def episodes(ours: Any, theirs: Any, own_seeds: list[int]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Dataset rows (as verl's dataset returns them) with three completions each (the env's
    reference completion, a wrong answer, no answer), and what ``env.step`` says of each."""
    import gymnasium

    items, expected = [], []
    for k in range(len(ours) + len(theirs)):
        item = ours[k] if k < len(ours) else theirs[k - len(ours)]
        info = item["extra_info"]
        env_id = info.get("env_id", item["data_source"])
        kwargs = json.loads(info["env_kwargs"]) if "env_kwargs" in info else {}
        seed = int(info["task_seed"]) if "task_seed" in info else own_seeds[k - len(ours)]
        env = gymnasium.make(env_id, **kwargs).unwrapped
        env.reset(seed=seed)
        completions = [env.reference_completion(env.task), WRONG, NONE]
        path = "task_seed" if "task_seed" in info else "ground_truth"
        for completion, step in zip(completions, env_step(env_id, kwargs, seed, completions), strict=True):
            items.append(item)
            expected.append({"env_id": env_id, "path": path, "completion": completion, **step})
    return items, expected


def batch(items: list[dict[str, Any]], completions: list[str], tokenizer: Any) -> Any:
    """A ``DataProto`` as verl's agent loop leaves it after a rollout: prompts (the chat template
    applied to ``raw_prompt``) left-padded, responses (completion + EOS) right-padded."""
    import torch
    from verl import DataProto
    from verl.utils.dataset.rl_dataset import collate_fn
    from verl.utils.model import compute_position_id_with_mask
    from verl.utils.tokenizer import normalize_token_ids

    chat = [tokenizer.apply_chat_template(i["raw_prompt"], add_generation_prompt=True, tokenize=True) for i in items]
    prompts = [normalize_token_ids(c) for c in chat]
    responses = [tokenizer.encode(c, add_special_tokens=False) + [tokenizer.eos_token_id] for c in completions]
    p_len, r_len, pad = max(map(len, prompts)), max(map(len, responses)), tokenizer.pad_token_id
    ids, mask = [], []
    for p, r in zip(prompts, responses, strict=True):
        ids.append([pad] * (p_len - len(p)) + p + r + [pad] * (r_len - len(r)))
        mask.append([0] * (p_len - len(p)) + [1] * (len(p) + len(r)) + [0] * (r_len - len(r)))
    input_ids, attention_mask = torch.tensor(ids), torch.tensor(mask)
    rollout = DataProto.from_dict(
        tensors={
            "prompts": input_ids[:, :p_len],
            "responses": input_ids[:, p_len:],
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "position_ids": compute_position_id_with_mask(attention_mask),
        }
    )
    return DataProto.from_single_dict(collate_fn(items)).union(rollout)


def reward(cfg: Any, data: Any) -> dict[str, Any]:
    """verl's reward path on ``data``: the reward loop worker per row, the manager's batch
    (``rm_scores``, extra info keys from the first result), validation metrics (maj@N)."""
    import numpy as np
    from verl.experimental.reward_loop import RewardLoopManager, RewardLoopWorker
    from verl.experimental.reward_loop import reward_loop as reward_loop_module
    from verl.trainer.ppo.metric_utils import process_validation_metrics
    from verl.trainer.ppo.reward import extract_reward, resolve_reward_manager_cls

    worker = RewardLoopWorker(cfg)
    rows = worker.loop.run_until_complete(worker.compute_score_batch(data))

    class InProcess:  # a ray actor handle's shape: ``handle.compute_score_batch.remote(chunk)``
        compute_score_batch = types.SimpleNamespace(
            remote=lambda chunk: worker.loop.run_until_complete(worker.compute_score_batch(chunk))
        )

    manager = RewardLoopManager.__new__(RewardLoopManager)  # its __init__ starts ray actors
    manager.config, manager.reward_model_manager = cfg, None
    manager.reward_manager_cls = resolve_reward_manager_cls(cfg)
    manager.reward_loop_workers = [InProcess()]
    reward_loop_module.ray = types.SimpleNamespace(get=lambda results: results)
    reward_tensor, infos = extract_reward(manager.compute_rm_score(data))
    length = data.batch["attention_mask"][:, data.batch["prompts"].shape[1] :].sum(-1)
    last = reward_tensor[np.arange(len(data)), length - 1]
    val = {"reward": reward_tensor.sum(-1).tolist(), **{k: v.tolist() for k, v in infos.items()}}
    uids = [f"{s}-{i // 3}" for i, s in enumerate(data.non_tensor_batch["data_source"])]
    metrics = process_validation_metrics(list(data.non_tensor_batch["data_source"]), uids, val)
    return {
        "worker": [{"score": r["reward_score"], "extra": r["reward_extra_info"]} for r in rows],
        "manager_keys": list(infos),
        "manager_pred": [str(p) for p in infos.get("pred", [])],
        "rm_last": last.tolist(),
        "rm_sum": reward_tensor.sum(-1).tolist(),
        "metrics": {src: sorted(var.get("score", {})) for src, var in metrics.items()},
    }


def main() -> None:
    tmp = Path(sys.argv[1])
    save_tokenizer(tmp / "tokenizer")
    cfg, facts = configs(tmp / "tokenizer")
    from verl.utils import hf_tokenizer

    tokenizer = hf_tokenizer(str(tmp / "tokenizer"))
    ours, theirs, own_seeds = datasets(cfg, tokenizer, tmp)
    items, expected = episodes(ours, theirs, own_seeds)
    data = batch(items, [e["completion"] for e in expected], tokenizer)
    got = reward(cfg, data)
    result = {"config": facts, "len_ours": len(ours), "len_theirs": len(theirs), "expected": expected, **got}
    print("RESULT " + json.dumps(result, default=str))


if __name__ == "__main__":
    main()
