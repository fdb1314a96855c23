"""Run by test_adapters_verl_peer.py with the verl virtualenv's python: our `compute_score` with
an LLM judge in ``reward_kwargs`` (``judge: {url, model, retries}``, composed by verl's own
hydra config), called by verl's ``RewardLoopWorker.compute_score_batch`` (``naive`` manager) on
Arithmetic rows read by verl's ``create_rl_dataset``, against a scripted judge on 127.0.0.1 that
pays the answer "pay me"; then the same with the judge's URL dead. Prints ``RESULT {json}``:
verl's scores and extra info, what ``env.step`` gives with the same judge, the judge's requests.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "verifiers")]  # verl's venv has a `tests` package of its own

from _verl_worker import ADAPTER, batch, save_tokenizer  # noqa: E402
from judge_server import JudgeServer, closed_port, slots  # noqa: E402

ENV = "grpo_envs/Arithmetic-v0"
COMPLETIONS = ["\\boxed{pay me}", "\\boxed{123456789}", "I am not sure."]  # + each task's reference


def pays(body: dict[str, Any]) -> tuple[int, str, float]:
    return 200, "VERDICT: " + ("CORRECT" if slots(body)["answer"] == "pay me" else "INCORRECT"), 0.0


def config(tokenizer_dir: Path, url: str) -> Any:
    import verl
    from hydra import compose, initialize_config_dir
    from verl.experimental.reward_loop import migrate_legacy_reward_impl

    judge = "+reward.custom_reward_function.reward_kwargs.judge"
    overrides = [
        f"actor_rollout_ref.model.path={tokenizer_dir}",
        "data.max_prompt_length=1024",
        "reward.num_workers=1",
        f"reward.custom_reward_function.path={ADAPTER}",
        "reward.custom_reward_function.name=compute_score",
        "reward.reward_manager.name=naive",
        f"{judge}.url={url}",
        f"{judge}.model=judge",
        f"{judge}.retries=0",
    ]
    with initialize_config_dir(config_dir=str(Path(verl.__file__).parent / "trainer" / "config"), version_base=None):
        return migrate_legacy_reward_impl(compose("ppo_trainer", overrides=overrides))


def scored(cfg: Any, data: Any) -> list[dict[str, Any]]:
    from verl.experimental.reward_loop import RewardLoopWorker

    worker = RewardLoopWorker(cfg)
    rows = worker.loop.run_until_complete(worker.compute_score_batch(data))
    return [{"score": r["reward_score"], "extra": r["reward_extra_info"]} for r in rows]


def main() -> None:
    import gymnasium
    from verl.trainer.ppo.utils import create_rl_dataset
    from verl.utils import hf_tokenizer

    from grpo_envs import JudgeConfig
    from grpo_envs.adapters.verl import write_parquet

    tmp = Path(sys.argv[1])
    save_tokenizer(tmp / "tokenizer")
    server = JudgeServer(pays)
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    cfg = config(tmp / "tokenizer", server.url)
    tokenizer = hf_tokenizer(str(tmp / "tokenizer"))
    dataset = create_rl_dataset([str(write_parquet(ENV, 2, 0, tmp / "a.parquet"))], cfg.data, tokenizer, None)
    env = JudgeConfig(server.url, "judge", options={"retries": 0}).apply(gymnasium.make(ENV))
    items, completions, expected = [], [], []
    for k in range(len(dataset)):
        item = dataset[k]
        env.reset(seed=int(item["extra_info"]["task_seed"]))
        for completion in [env.unwrapped.reference_completion(env.unwrapped.task), *COMPLETIONS]:
            items.append(item)
            completions.append(completion)
            _, reward, *_, info = env.step(completion)
            expected.append({"reward": float(reward), "status": info["status"], "reason": info["reason"]})
            env.reset(seed=int(item["extra_info"]["task_seed"]))
    data = batch(items, completions, tokenizer)
    asked = len(server.requests)
    got = scored(cfg, data)
    result: dict[str, Any] = {"expected": expected, "worker": got, "asked": asked, "verl_asked": 0}
    result["verl_asked"] = len(server.requests) - asked
    result["answers"] = sorted({slots(body)["answer"] for _, body in server.requests})
    result["dead"] = scored(config(tmp / "tokenizer", dead), data)
    server.close()
    print("RESULT " + json.dumps(result, default=str))


if __name__ == "__main__":
    main()
