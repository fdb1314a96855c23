"""A run's directory: its rules (never overwritten, only its own checkpoints), checkpoints, and
records (metrics.jsonl, perf.jsonl, rollouts.jsonl, what the rollouts say about the learning
signal)."""
