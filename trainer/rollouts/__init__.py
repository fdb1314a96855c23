"""Rollouts: where the trainer's environments come from, the one rollout loop (single- and
multi-turn, for the trainer and every eval backend) and the executor that judges on it."""
