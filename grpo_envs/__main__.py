"""``python -m grpo_envs ...``: the ``grpo-envs`` command (for a Python that has no console script
for it, e.g. the vLLM virtualenv with the checkout on ``PYTHONPATH``)."""

from grpo_envs._cli import main

raise SystemExit(main())
