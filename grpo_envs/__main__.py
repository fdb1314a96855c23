"""``python -m grpo_envs ...``: the ``grpo-envs`` command (for a Python that has no console script
for it, e.g. the vLLM virtualenv with the checkout on ``PYTHONPATH``).

``python -m`` puts the current folder first on ``sys.path``; it is moved last, as the console
script has it, so a folder of the user's named ``trainer/`` or ``verifiers/`` cannot shadow ours.
"""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()):
    sys.path.append(sys.path.pop(0))

from grpo_envs._cli import main  # noqa: E402

raise SystemExit(main())
