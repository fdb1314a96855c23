"""The built-in environments, one per module (imported only when made).

Owns each task's generator, prompt and reference answer; judging is the env's `Verifier`, and
the ids are registered by `grpo_envs._registry`."""
