"""Repository repair tasks from real code: break a working Python project one function or class
at a time and keep the bugs its own tests catch (`grpo-envs tasks from-repo`)."""

from ._combine import combine
from ._coverage import Coverage
from ._data import repo_tasks_dir
from ._deps import DependencyError, diagnose, download_wheels, project_image, project_requirements
from ._from_repo import RepoReport, RepoTaskError, from_repo
from ._mutate import Mutation, apply, mutations, unified_diff
from ._sites import TECHNIQUES
from ._split import split_task_folders
from ._validate import Outcome, Validation, parse_junit, validate_candidate
from ._write import BASE_IMAGE, instruction, repair_task, write_repair_task

__all__ = [
    "BASE_IMAGE",
    "TECHNIQUES",
    "Coverage",
    "DependencyError",
    "Mutation",
    "Outcome",
    "RepoReport",
    "RepoTaskError",
    "Validation",
    "apply",
    "combine",
    "diagnose",
    "download_wheels",
    "from_repo",
    "instruction",
    "validate_candidate",
    "mutations",
    "parse_junit",
    "project_image",
    "project_requirements",
    "repair_task",
    "repo_tasks_dir",
    "split_task_folders",
    "unified_diff",
    "write_repair_task",
]
