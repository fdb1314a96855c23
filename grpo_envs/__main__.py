"""``python -m grpo_envs ...``: the ``grpo-envs`` command (for a Python that has no console script
for it, e.g. the vLLM virtualenv with the checkout on ``PYTHONPATH``).

``python -m`` puts the current folder first on ``sys.path``; it is taken off again, as the console
script has it (a module named on the command line is still found there, by
`verifiers.commandline.import_user_module`), so a folder of the user's named ``trainer/`` cannot
replace ours. Only the console script is safe from ``grpo_envs/`` and ``verifiers/`` too: Python
imports those before this module runs.
"""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from grpo_envs._cli import main  # noqa: E402

raise SystemExit(main())
