"""Repository repair tasks from real code: break a working Python project one function or class
at a time and keep the bugs its own tests catch (`grpo-envs tasks from-repo`)."""

from ._from_repo import RepoReport, RepoTaskError, from_repo
from ._mutate import Mutation, apply, mutations, unified_diff
from ._sites import TECHNIQUES
from ._validate import Outcome, Verdict, judge, parse_junit
from ._write import instruction, write_task

__all__ = [
    "TECHNIQUES",
    "Mutation",
    "Outcome",
    "RepoReport",
    "RepoTaskError",
    "Verdict",
    "apply",
    "from_repo",
    "instruction",
    "judge",
    "mutations",
    "parse_junit",
    "unified_diff",
    "write_task",
]
