"""``grpo-envs envs init NAME``: a pip-installable environment package to start from.

The package holds the env's module (a working `ReasoningEnv` with the docstring skeleton every
built-in env fills in), a ``register()`` function named in the ``grpo_envs.envs`` entry-point
group (so after ``pip install -e .`` its id shows in ``grpo-envs envs list`` and every command
makes it by that id), a test that runs `check_env`, and a README. The same shape as
``prime env init`` and ``harbor init --task``.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from pathlib import Path

from grpo_envs.errors import GrpoEnvsError

__all__ = ["Scaffold", "scaffold"]


@dataclass(frozen=True)
class Scaffold:
    """The names a scaffold uses: ``my-env`` -> package ``my_env``, class ``MyEnv``, id ``my_env/MyEnv-v0``."""

    name: str
    package: str
    cls: str

    @property
    def env_id(self) -> str:
        return f"{self.package}/{self.cls}-v0"

    @staticmethod
    def of(name: str) -> Scaffold:
        """The scaffold's names from ``name``; `GrpoEnvsError` when ``name`` cannot name a package."""
        package = re.sub(r"[-.\s]+", "_", name.strip()).lower()
        if not re.fullmatch(r"[a-z][a-z0-9_]*", package) or keyword.iskeyword(package):
            raise GrpoEnvsError(
                f"cannot name an env package {name!r}: use letters, digits, '-' or '_', starting with a letter "
                "(e.g. my-multiply)"
            )
        if package in ("grpo_envs", "verifiers", "trainer", "gymnasium", "test", "tests"):
            raise GrpoEnvsError(f"{name!r} is taken (it would shadow the package {package!r}); pick another name")
        cls = "".join(part.capitalize() for part in package.split("_") if part)
        return Scaffold(name.strip(), package, cls)


PYPROJECT = """\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1.0"
description = "{cls}: a reasoning environment for grpo-envs"
requires-python = ">=3.10"
dependencies = ["grpo-envs"]

[project.optional-dependencies]
test = ["pytest>=8"]

# How grpo-envs finds the env: each entry point is a function that registers ids.
[project.entry-points."grpo_envs.envs"]
{package} = "{package}:register"

[tool.setuptools]
packages = ["{package}"]
"""

INIT = '''\
"""{cls}: a reasoning environment for grpo-envs (``{env_id}``)."""

import gymnasium

__all__ = ["register"]

ENV_ID = "{env_id}"


def register() -> None:
    """Register the env (grpo-envs calls this through the ``grpo_envs.envs`` entry point). The
    entry point is a string, so the env's module is imported only when the env is made."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(ENV_ID, entry_point="{package}.env:{cls}")
'''

ENV = '''\
"""{cls}: the environment (replace the example task with yours)."""

from __future__ import annotations

import random
from typing import Any

from grpo_envs import ReasoningEnv, Task
from grpo_envs.errors import EnvConfigError

__all__ = ["{cls}"]


class {cls}(ReasoningEnv):
    """Add two integers (an example: replace it with your task).

    ## Task
    Two integers drawn from ``[0, max_value]``.

    ## Prompt format
    "What is 17 + 25?" plus the answer instruction of the answer format.

    ## Answer format
    ``\\\\boxed{{}}`` (the default `BOXED`), judged by `verifiers.math`.

    ## Reward
    1.0 for the sum, else 0.0.

    ## Episode end
    One step (terminated).

    ## Arguments
    ``max_value`` (default 99).

    ## Version history
    v0: initial version.
    """

    def __init__(self, *, max_value: int = 99, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(max_value, int) or max_value < 1:
            raise EnvConfigError("{cls}", "max_value", "an int >= 1", max_value)
        self.max_value = max_value

    def make_task(self, rng: random.Random) -> Task:
        a, b = rng.randint(0, self.max_value), rng.randint(0, self.max_value)
        return Task(f"{package}-{{self.split}}-{{a}}+{{b}}", f"What is {{a}} + {{b}}?", str(a + b))
'''

TEST = '''\
"""The env keeps every law of grpo_envs.check_env, and is found by its id once installed."""

import gymnasium

import grpo_envs


def test_the_env_keeps_every_law() -> None:
    report = grpo_envs.check_env(gymnasium.make("{env_id}"))
    print(report)


def test_the_env_is_listed_by_its_id() -> None:
    assert "{env_id}" in grpo_envs.env_ids()


def test_the_reference_answer_is_paid() -> None:
    env = gymnasium.make("{env_id}")
    env.reset(seed=0)
    answer = env.unwrapped.task.answer
    assert env.step(f"The answer is \\\\boxed{{{{{{answer}}}}}}.")[1] == 1.0
'''

README = """\
# {name}

`{env_id}`: a reasoning environment for [grpo-envs](https://pypi.org/project/grpo-envs/).

```bash
pip install -e .                      # registers {env_id} (entry point group grpo_envs.envs)
grpo-envs envs list                   # shows it
grpo-envs envs show {env_id}
python -m pytest tests                # check_env's laws (pip install -e '.[test]' for pytest)
grpo-envs train --env {env_id} --model demo --steps 5 --output-dir runs/{package}
grpo-envs eval --env {env_id} --model runs/{package}/final -n 8
```

Edit `{package}/env.py`: `make_task(rng)` returns a `Task(task_id, prompt, answer)`; the class
docstring is what `grpo-envs envs show` prints. A new version of the task is a new id
(`{cls}-v1`), registered in `{package}/__init__.py`.
"""


def scaffold(name: str, where: Path) -> tuple[Scaffold, Path]:
    """Write the env package ``name`` into ``where/name``; returns its names and folder.
    Refuses (`GrpoEnvsError`) a folder that already exists, so nothing of yours is overwritten."""
    s = Scaffold.of(name)
    root = where / s.name
    if root.exists():
        raise GrpoEnvsError(f"{root} already exists; pick another NAME or --dir (nothing was written)")
    values = {"name": s.name, "package": s.package, "cls": s.cls, "env_id": s.env_id}
    files = {
        "pyproject.toml": PYPROJECT,
        f"{s.package}/__init__.py": INIT,
        f"{s.package}/env.py": ENV,
        "tests/test_env.py": TEST,
        "README.md": README,
    }
    for relative, template in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(**values))
    return s, root
