"""What every ``grpo-envs`` command shares: one flag style and the user's modules from the
current folder.

- `CommandParser` is `argparse.ArgumentParser` with one flag style: flags are spelled with
  dashes (``--max-new-tokens``, shown in ``--help``), and the underscore spelling of any of them
  (``--max_new_tokens``) is accepted as a hidden alias, as vLLM and TRL accept both. An unknown
  flag is refused with the closest known one. ``add_no_progress`` gives a command ``--no-progress``.
- `import_user_module` imports a module named on the command line (``--env my_envs:my_envs/X-v0``,
  ``check-verifier my_rewards:verify``) from the current folder the way ``python -m`` would find
  it, but behind the installed packages: a folder of the user's named ``trainer/`` or
  ``verifiers/`` never replaces ours.

Examples:
    >>> p = CommandParser(prog="demo")
    >>> _ = p.add_argument("--max-new-tokens", type=int, default=8)
    >>> p.parse_args(["--max_new_tokens", "3"]).max_new_tokens
    3
"""

from verifiers._commandline import (
    CommandParser,
    UserModuleError,
    add_no_progress,
    import_user_module,
    load_user_object,
)

__all__ = ["CommandParser", "UserModuleError", "add_no_progress", "import_user_module", "load_user_object"]
