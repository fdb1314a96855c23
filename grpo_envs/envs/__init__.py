"""The built-in environments, one per module (imported only when made)."""
