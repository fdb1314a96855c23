"""grpo-envs: reasoning tasks as Gymnasium environments with verifiable rewards.

Owns: the environment (`ReasoningEnv`, `Task`, the registry and the built-in `envs`), answer
formats and rubrics, the verdict on one completion as one value (`Judgement`), a judged
rollout as one JSON row (`RolloutRecord`), groups of G completions (`make_group`), the laws
every env keeps (`check_env`), the `adapters` to other trainers and the ``grpo-envs`` command.
Uses `verifiers`; never imports `trainer` (see ``docs/architecture.md``).

Importing this package is cheap: it imports neither torch nor docker, and environment
modules load only when an environment is made. It registers the built-in ids
(``grpo_envs/Name-v0``) and those of plugins (entry point group ``grpo_envs.envs``).

Examples:
    >>> import gymnasium, grpo_envs
    >>> env = gymnasium.make("grpo_envs/Arithmetic-v0")
    >>> prompt, info = env.reset(seed=0)
    >>> group = grpo_envs.make_group("grpo_envs/Arithmetic-v0", seed=0, num_generations=8)
    >>> group.task.prompt == env.unwrapped.task.prompt
    True
"""

from __future__ import annotations

from grpo_envs._check import EnvReport, check_disjoint, check_env
from grpo_envs._env import ReasoningEnv
from grpo_envs._formats import ANSWER_TAGS, BOXED, CODE, THINK_ANSWER, AnswerFormat
from grpo_envs._group import Group, GroupScore, make_group, score_groups
from grpo_envs._judgement import Judgement
from grpo_envs._judging import JudgeConfig
from grpo_envs._record import RolloutRecord
from grpo_envs._registry import env_ids, resolve_env_id
from grpo_envs._registry import load_plugins as _load_plugins
from grpo_envs._registry import register_builtins as _register_builtins
from grpo_envs._rubric import RewardTerm, Rubric, format_reward, length_penalty
from grpo_envs._spaces import TextSpace
from grpo_envs._task import Task, stable_seed
from grpo_envs._verifier import Verifier, code_verifier, judge_verifier, math_verifier
from grpo_envs.errors import EnvCheckError, EnvConfigError, GrpoEnvsError, SetupError

__version__ = "0.1.0"

__all__ = [
    "ANSWER_TAGS",
    "BOXED",
    "CODE",
    "THINK_ANSWER",
    "AnswerFormat",
    "EnvCheckError",
    "EnvConfigError",
    "EnvReport",
    "GrpoEnvsError",
    "Group",
    "GroupScore",
    "JudgeConfig",
    "Judgement",
    "ReasoningEnv",
    "RewardTerm",
    "RolloutRecord",
    "Rubric",
    "SetupError",
    "Task",
    "TextSpace",
    "Verifier",
    "__version__",
    "check_disjoint",
    "check_env",
    "code_verifier",
    "env_ids",
    "format_reward",
    "judge_verifier",
    "length_penalty",
    "make_group",
    "math_verifier",
    "resolve_env_id",
    "score_groups",
    "stable_seed",
]

_register_builtins()
_load_plugins()
