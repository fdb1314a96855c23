"""Run by test_eval_vllm.py with the vLLM virtualenv's python (the checkout on PYTHONPATH): the
eval on the offline ``vllm.LLM``, and its error for a model folder that does not exist."""

from __future__ import annotations

import json
import sys

from trainer import TrainerError
from trainer.eval import evaluate


def main() -> None:
    model, out, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    engine = {"dtype": "float32", "max_model_len": 256}
    try:
        evaluate("grpo_envs/Digits-v0", "/no/such/model", backend="vllm", engine_kwargs=engine, out=out + "-x", **args)
        error = None
    except TrainerError as exc:
        error = str(exc)
    summary = evaluate("grpo_envs/Digits-v0", model, backend="vllm", engine_kwargs=engine, out=out, **args)
    print("RESULT " + json.dumps({"error": error, "backend": summary["backend"], "seeding": summary["seeding"]}))


if __name__ == "__main__":  # vLLM's engine core starts with spawn
    main()
