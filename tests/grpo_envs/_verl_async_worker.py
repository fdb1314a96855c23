"""Run by test_adapters_verl_peer.py with the verl virtualenv's python: our `compute_score_async`
(the batch form for verl 0.9's reward loop) loaded by verl's own config with ``reward_kwargs``,
awaited by verl's ``RewardLoopWorker.compute_score_batch`` (the ``naive`` manager sees a
coroutine function and awaits it on its event loop) on the batch _verl_worker.py builds. Prints
``RESULT {json}``: each row's score and extra info, and what ``env.step`` gives it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _verl_worker import ADAPTER, batch, datasets, episodes, save_tokenizer  # noqa: E402


def config(tokenizer_dir: Path) -> Any:
    import verl
    from hydra import compose, initialize_config_dir
    from verl.experimental.reward_loop import migrate_legacy_reward_impl

    overrides = [
        f"actor_rollout_ref.model.path={tokenizer_dir}",
        "data.max_prompt_length=1024",
        "data.filter_overlong_prompts=True",
        "data.filter_overlong_prompts_workers=1",
        "reward.num_workers=1",
        f"reward.custom_reward_function.path={ADAPTER}",
        "reward.custom_reward_function.name=compute_score_async",
        "+reward.custom_reward_function.reward_kwargs.verifier_executor=local",
        "reward.reward_manager.name=naive",
    ]
    with initialize_config_dir(config_dir=str(Path(verl.__file__).parent / "trainer" / "config"), version_base=None):
        return migrate_legacy_reward_impl(compose("ppo_trainer", overrides=overrides))


def main() -> None:
    from verl.experimental.reward_loop import RewardLoopWorker
    from verl.utils import hf_tokenizer

    tmp = Path(sys.argv[1])
    save_tokenizer(tmp / "tokenizer")
    cfg = config(tmp / "tokenizer")
    tokenizer = hf_tokenizer(str(tmp / "tokenizer"))
    ours, theirs, own_seeds = datasets(cfg, tokenizer, tmp)
    items, expected = episodes(ours, theirs, own_seeds)
    data = batch(items, [e["completion"] for e in expected], tokenizer)
    worker = RewardLoopWorker(cfg)
    rows = worker.loop.run_until_complete(worker.compute_score_batch(data))
    got = [{"score": r["reward_score"], "extra": r["reward_extra_info"]} for r in rows]
    print("RESULT " + json.dumps({"expected": expected, "worker": got}, default=str))


if __name__ == "__main__":
    main()
