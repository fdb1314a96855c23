"""``python -m trainer``: the same as ``grpo-envs train`` (the current folder is taken off
``sys.path`` again, as in `grpo_envs.__main__`)."""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from trainer.cli import main  # noqa: E402

sys.exit(main(prog="python -m trainer"))
