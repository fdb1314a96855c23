"""``python -m trainer``: the same as ``grpo-envs train``."""

import sys

from trainer.cli import main

sys.exit(main(prog="python -m trainer"))
