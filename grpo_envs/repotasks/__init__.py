"""Repository repair tasks from real code: break a working Python project one function or class
at a time and keep the bugs its own tests catch (`grpo-envs tasks from-repo`)."""

from ._combine import combine
from ._coverage import Coverage
from ._from_repo import RepoReport, RepoTaskError, from_repo
from ._mutate import Mutation, apply, mutations, unified_diff
from ._sites import TECHNIQUES
from ._split import split_tasks
from ._validate import Outcome, Verdict, judge, parse_junit
from ._write import instruction, write_task

__all__ = [
    "TECHNIQUES",
    "Coverage",
    "Mutation",
    "Outcome",
    "RepoReport",
    "RepoTaskError",
    "Verdict",
    "apply",
    "combine",
    "from_repo",
    "instruction",
    "judge",
    "mutations",
    "parse_junit",
    "split_tasks",
    "unified_diff",
    "write_task",
]
