"""Repository repair tasks from real code: break a working Python project one function or class
at a time and keep the bugs its own tests catch (`grpo-envs tasks from-repo`)."""

from ._mutate import Mutation, apply, mutations, unified_diff
from ._sites import TECHNIQUES

__all__ = ["TECHNIQUES", "Mutation", "apply", "mutations", "unified_diff"]
