"""The policy: loaded (a hub name, a path, a module, the demo model), built for the run (dtype,
LoRA, the frozen reference, DDP/FSDP), stepped, restored from a checkpoint, exported."""
