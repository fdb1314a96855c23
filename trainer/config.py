"""`GRPOConfig`: one flat, frozen configuration; presets; TOML/YAML files; command-line flags.

Precedence (later wins): the preset's defaults < the config file < command-line flags.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from trainer.errors import TrainerError

__all__ = ["PRESETS", "GRPOConfig", "add_config_flags", "config_from_args", "load_config"]


def _f(default: Any, help: str) -> Any:
    if isinstance(default, dict):
        return field(default_factory=lambda: dict(default), metadata={"help": help})
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class GRPOConfig:
    """Everything a GRPO run needs. Defaults are the paper's GRPO (preset "grpo").

    Example:
        >>> cfg = GRPOConfig(steps=10, num_generations=4)
        >>> cfg.replace(learning_rate=1e-5).learning_rate
        1e-05
    """

    # what to train, on what
    model: str = _f("demo", 'hub name, local path, or "demo" (a tiny model built from a config)')
    env: str = _f("grpo_envs/Digits-v0", "environment id (gymnasium.make)")
    env_kwargs: dict[str, Any] = _f({}, "keyword arguments for the environment")
    output_dir: str = _f("runs/demo", "run directory: metrics, checkpoints, plots, final model")
    seed: int = _f(0, "seed of data order, sampling and initialisation")
    # the batch
    steps: int = _f(200, "optimizer steps")
    prompts_per_step: int = _f(16, "tasks (groups) per step")
    num_generations: int = _f(8, "completions per task (G)")
    max_new_tokens: int = _f(256, "generation limit per turn")
    min_new_tokens: int = _f(0, "generate at least this many tokens per turn (benchmarks: = max_new_tokens)")
    temperature: float = _f(1.0, "sampling temperature")
    top_p: float = _f(1.0, "nucleus sampling")
    micro_batch_size: int = _f(32, "completions per forward/backward (gradient accumulation)")
    # the objective
    beta: float = _f(0.04, "KL penalty to the frozen reference (0: no reference model is loaded)")
    epsilon: float = _f(0.2, "lower clip range of the ratio")
    epsilon_high: float | None = _f(None, "upper clip range (None: same as epsilon; DAPO: 0.28)")
    loss_type: str = _f("grpo", '"grpo" (per-sequence mean), "dapo" (token mean), "dr_grpo"')
    scale: str = _f("group", 'advantage scale: "group", "batch" or "none"')
    num_iterations: int = _f(1, "policy updates per batch of generations (mu)")
    mask_truncated_completions: bool = _f(False, "leave completions without EOS out of the loss")
    skip_zero_variance_groups: bool = _f(False, "leave groups with equal rewards out of the loss")
    # the optimizer
    learning_rate: float = _f(1e-6, "AdamW learning rate")
    weight_decay: float = _f(0.0, "AdamW weight decay")
    warmup_steps: int = _f(0, "linear warm-up steps")
    lr_scheduler: str = _f("constant", '"constant", "linear" or "cosine" decay after warm-up')
    max_grad_norm: float = _f(1.0, "gradient clipping (0 disables)")
    # the machine
    device: str = _f("auto", '"auto", "cpu", "cuda" or "cuda:N"')
    bf16: bool = _f(True, "bfloat16 weights and compute on GPU (ignored on CPU)")
    gradient_checkpointing: bool = _f(False, "trade compute for activation memory")
    share_prefix: bool = _f(True, "run each group's shared prompt through the model once (generation and loss)")
    distributed: str = _f("ddp", 'under torchrun: "ddp" (replicas) or "fsdp" (sharded weights, single-turn envs)')
    # LoRA (peft): the reference policy is the adapter disabled, not a second model
    lora_r: int = _f(0, "LoRA rank (0: full fine-tuning)")
    lora_alpha: int = _f(16, "LoRA scaling numerator (alpha / r scales the update)")
    lora_dropout: float = _f(0.0, "LoRA dropout")
    lora_target_modules: str = _f("all-linear", 'comma-separated module names, or "all-linear"')
    # evaluation, checkpoints
    eval_every: int = _f(0, "evaluate on the eval split every N steps (0: only at the end)")
    eval_prompts: int = _f(32, "eval tasks (fixed seeds); pass@k uses num_generations samples")
    save_every: int = _f(50, "checkpoint every N steps (0: only at the end and on Ctrl-C)")
    keep_checkpoints: int = _f(2, "checkpoints kept")

    def __post_init__(self) -> None:
        checks = [
            (self.num_generations >= 2, "num_generations must be >= 2 (GRPO compares completions)"),
            (self.prompts_per_step >= 1, "prompts_per_step must be >= 1"),
            (self.steps >= 1, "steps must be >= 1"),
            (self.max_new_tokens >= 1, "max_new_tokens must be >= 1"),
            (self.micro_batch_size >= 1, "micro_batch_size must be >= 1"),
            (self.num_iterations >= 1, "num_iterations must be >= 1"),
            (self.loss_type in ("grpo", "dapo", "dr_grpo"), "loss_type must be grpo, dapo or dr_grpo"),
            (self.scale in ("group", "batch", "none"), "scale must be group, batch or none"),
            (self.lr_scheduler in ("constant", "linear", "cosine"), "lr_scheduler must be constant, linear or cosine"),
            (self.beta >= 0 and self.epsilon >= 0, "beta and epsilon must be >= 0"),
            (self.temperature > 0, "temperature must be > 0"),
            (0 < self.top_p <= 1, "top_p must be in (0, 1]"),
            (self.keep_checkpoints >= 1, "keep_checkpoints must be >= 1"),
            (0 <= self.min_new_tokens <= self.max_new_tokens, "min_new_tokens must be in [0, max_new_tokens]"),
            (self.distributed in ("ddp", "fsdp"), "distributed must be ddp or fsdp"),
            (self.lora_r >= 0 and 0 <= self.lora_dropout < 1, "lora_r must be >= 0 and lora_dropout in [0, 1)"),
        ]
        for ok, message in checks:
            if not ok:
                raise TrainerError(f"GRPOConfig: {message}")

    def replace(self, **changes: Any) -> GRPOConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


PRESETS: dict[str, dict[str, Any]] = {
    "grpo": {},
    "dapo": {
        "epsilon_high": 0.28,
        "beta": 0.0,
        "loss_type": "dapo",
        "skip_zero_variance_groups": True,
        "mask_truncated_completions": True,
    },
    "dr_grpo": {"scale": "none", "loss_type": "dr_grpo", "beta": 0.0},
}


def _coerce(name: str, value: Any) -> Any:
    kinds = {f.name: f.type for f in fields(GRPOConfig)}
    if name not in kinds:
        known = ", ".join(sorted(kinds))
        raise TrainerError(f"unknown config field {name!r}; known fields: {known}")
    kind = str(kinds[name])
    if value is None or not isinstance(value, str):
        return value
    if kind.startswith("bool"):
        if value.lower() in ("1", "true", "yes", "on"):
            return True
        if value.lower() in ("0", "false", "no", "off"):
            return False
        raise TrainerError(f"{name} must be true or false, got {value!r}")
    try:
        if kind.startswith("int"):
            return int(value)
        if kind.startswith("float"):
            return None if value.lower() == "none" else float(value)
        if kind.startswith("dict"):
            return json.loads(value)
    except ValueError as exc:
        raise TrainerError(f"{name}: cannot read {value!r} as {kind} ({exc})") from None
    return value


def load_config(
    path: str | Path | None = None, *, preset: str = "grpo", overrides: Mapping[str, Any] | None = None
) -> GRPOConfig:
    """Build a config: ``preset`` defaults, then the TOML/YAML file at ``path``, then ``overrides``.

    Example:
        >>> load_config(preset="dapo", overrides={"steps": "5"}).loss_type
        'dapo'
    """
    if preset not in PRESETS:
        raise TrainerError(f"preset must be one of {sorted(PRESETS)}, got {preset!r}")
    values: dict[str, Any] = dict(PRESETS[preset])
    if path is not None:
        file = Path(path)
        if not file.is_file():
            raise TrainerError(f"config file not found: {file}")
        if file.suffix == ".toml":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # pragma: no cover - Python 3.10
                import tomli as tomllib

            data = tomllib.loads(file.read_text())
        elif file.suffix in (".yaml", ".yml"):
            try:
                import yaml
            except ImportError:
                raise TrainerError("YAML configs need PyYAML (pip install pyyaml); TOML needs nothing") from None
            data = yaml.safe_load(file.read_text()) or {}
        else:
            raise TrainerError(f"config files are .toml or .yaml, got {file.name}")
        if not isinstance(data, dict):
            raise TrainerError(f"{file}: expected a table of fields")
        file_preset = data.pop("preset", None)
        if file_preset is not None and preset == "grpo":
            if file_preset not in PRESETS:
                raise TrainerError(f"{file}: preset must be one of {sorted(PRESETS)}")
            values = dict(PRESETS[file_preset])
        values.update(data)
    values.update(overrides or {})
    return GRPOConfig(**{k: _coerce(k, v) for k, v in values.items()})


def add_config_flags(parser: argparse.ArgumentParser) -> None:
    """One ``--field`` flag per config field (help text from the field), plus ``--config`` and
    ``--preset``."""
    parser.add_argument("--config", help="a .toml or .yaml file of config fields")
    parser.add_argument("--preset", default="grpo", choices=sorted(PRESETS), help="defaults to start from")
    for f in fields(GRPOConfig):
        parser.add_argument(f"--{f.name}", dest=f"cfg_{f.name}", default=None, help=f.metadata.get("help"))


def config_from_args(args: argparse.Namespace) -> GRPOConfig:
    overrides = {
        f.name: getattr(args, f"cfg_{f.name}")
        for f in fields(GRPOConfig)
        if getattr(args, f"cfg_{f.name}", None) is not None
    }
    return load_config(args.config, preset=args.preset, overrides=overrides)


def help_table(names: Sequence[str] | None = None) -> str:
    """Field, default and help, one per line (for the README and ``--help``)."""
    rows = []
    for f in fields(GRPOConfig):
        if names is None or f.name in names:
            factory: Any = f.default_factory
            default = factory() if f.default is dataclasses.MISSING else f.default
            rows.append(f"{f.name} = {default!r}  # {f.metadata.get('help', '')}")
    return "\n".join(rows)
