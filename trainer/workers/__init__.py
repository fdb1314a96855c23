"""Asynchronous rollouts (``async_level > 0``): rollout workers as processes, as Ray actors or under
torchrun, on an exact schedule with bounded staleness."""
