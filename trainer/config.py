"""`GRPOConfig`: one flat, frozen configuration of typed parts; presets; TOML/YAML files;
command-line flags.

Its typed parts (frozen values, each checked once where it is defined): ``sampling``
(`SamplingConfig`), ``judge`` (`grpo_envs.JudgeConfig`), ``lora`` (`LoraConfig`) and
``asynchronous`` (`AsyncConfig`). A file, a flag or ``run.json`` spells them as users know them:
``[sampling]``, ``[judge]`` and ``[lora]`` tables (``--judge-url``, ``--lora JSON``...) and the
asynchronous settings as top-level ``async_*`` keys (``async_level = 1``, ``--async-level 1``).

Precedence (later wins): the preset's defaults < the config file < command-line flags.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import sys
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from grpo_envs import GrpoEnvsError, JudgeConfig
from trainer._config_async import AsyncConfig
from trainer.configs import SHIPPED, shipped_config
from trainer.errors import TrainerError, reject_unknown_keys
from trainer.losses._correction import IS_MODES
from trainer.losses._math import LOSS_TYPES, SCALES
from trainer.policy._lora import LoraConfig
from trainer.sampling._config import SamplingConfig

__all__ = [
    "PRESETS",
    "AsyncConfig",
    "GRPOConfig",
    "LoraConfig",
    "SamplingConfig",
    "add_config_flags",
    "config_from_args",
    "load_config",
]

GENERATORS = ("hf", "vllm")
EXECUTORS = ("local", "ray")


def _f(default: Any, help: str) -> Any:
    if isinstance(default, dict):
        return field(default_factory=lambda: dict(default), metadata={"help": help})
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class GRPOConfig:
    """Everything a GRPO run needs (38 fields). Defaults are the paper's GRPO (preset "grpo").

    Examples:
        >>> cfg = GRPOConfig(steps=10, num_generations=4)
        >>> cfg.replace(learning_rate=1e-5).learning_rate
        1e-05
        >>> GRPOConfig(epsilon=(0.2, 0.28)).clip_range, GRPOConfig(lora={"r": 8}).lora.alpha
        ((0.2, 0.28), 16)
        >>> GRPOConfig.from_dict({"async_level": 2}).asynchronous.level
        2
    """

    # what to train, on what
    model: str = _f("demo", 'hub name, local path, or "demo" (a tiny model built from a config)')
    env: str = _f("grpo_envs/Digits-v0", "environment id (gymnasium.make); your own: 'my_module:MyEnv-v0'")
    env_kwargs: dict[str, Any] = _f({}, 'keyword arguments for the environment, as JSON: \'{"ops": "cs"}\'')
    output_dir: str = _f("runs/demo", "run directory: metrics, checkpoints, plots, final model")
    seed: int = _f(0, "seed of data order, sampling and initialisation")
    # the batch
    steps: int = _f(200, "optimizer steps")
    prompts_per_step: int = _f(16, "tasks (groups) per step")
    num_generations: int = _f(8, "completions per task (G, the group size)")
    max_new_tokens: int = _f(256, "generation limit per turn")
    temperature: float = _f(1.0, "sampling temperature (the loss's log-probs use the same)")
    micro_batch_size: int = _f(32, "completions per forward/backward (gradient accumulation)")
    generator: str = _f(
        "hf",
        '"hf" (transformers generate) or "vllm" (a vllm.LLM in the trainer process, weights synced after '
        "every step; with async_level > 0, one in each rollout worker; engine options as JSON in "
        "$GRPO_ENVS_VLLM_KWARGS)",
    )
    importance_sampling_mode: str = _f(
        "token_truncate",
        "generator=vllm: how each token's loss is weighted by pi_old/pi_vllm: token_truncate, token_mask, "
        "sequence_truncate, sequence_mask (the product of token ratios), seq_mean_truncate, seq_mean_mask "
        "(their geometric mean); *_truncate clamps the weight into [clip_min, clip_max], *_mask zeroes it outside",
    )
    importance_sampling_clip_max: float = _f(2.0, "generator=vllm: upper bound of the weight; 0 turns it off")
    importance_sampling_clip_min: float = _f(0.0, "generator=vllm: the weight's lower bound; 0: none")
    # the objective
    beta: float = _f(0.04, "KL penalty to the frozen reference (0: no reference model is loaded)")
    epsilon: float | tuple[float, float] = _f(0.2, "clip range of the ratio: 0.2, or (low, high), e.g. DAPO's 0.2,0.28")
    loss_type: str = _f(
        "grpo",
        '"grpo" (per-sequence mean), "dapo" (token mean), "dr_grpo", "gspo" (sequence ratio), "cispo" '
        "(clipped IS weight x log-prob)",
    )
    scale: str = _f("group", 'advantage scale: "group", "batch" or "none"')
    num_iterations: int = _f(1, "policy updates per batch of generations (mu)")
    mask_truncated_completions: bool = _f(False, "leave completions without EOS out of the loss")
    skip_zero_variance_groups: bool = _f(False, "leave groups with equal rewards out of the loss")
    sampling: SamplingConfig = field(
        default_factory=SamplingConfig,
        metadata={"help": "dynamic sampling with refill and overlong shaping (a [sampling] table; --sampling-KEY)"},
    )
    # the optimizer (AdamW, no weight decay)
    learning_rate: float = _f(1e-6, "AdamW learning rate")
    warmup_steps: int = _f(0, "linear warm-up steps")
    lr_scheduler: str = _f("constant", '"constant", "linear" or "cosine" decay after warm-up')
    max_grad_norm: float = _f(1.0, "gradient clipping (0 disables)")
    # the machine (bfloat16 on a GPU that has it, float32 on CPU)
    device: str = _f("auto", '"auto", "cpu", "cuda" or "cuda:N"')
    gradient_checkpointing: bool = _f(False, "trade compute for activation memory")
    distributed: str = _f("ddp", 'under torchrun: "ddp" (replicas) or "fsdp" (sharded weights, single-turn envs)')
    verifier_executor: str = _f(
        "local",
        'where completions are judged: "local" (this process, the local Docker engine) or "ray" (a RayExecutor on '
        "RAY_ADDRESS's cluster, else a new local one that all torchrun ranks join; pip install 'grpo-envs[ray]')",
    )
    judge: JudgeConfig | None = _f(
        None,
        'an LLM judge (grpo_envs.JudgeConfig): {"url": "http://127.0.0.1:8000/v1", "model": NAME, "mode": '
        '"hybrid" (the env\'s verifier first, the judge on its rejections) or "judge", "api_key_env": VAR, '
        '"cache_dir": DIR, other LLMJudge settings}; also --judge-url, --judge-model...; {}: no judge',
    )
    lora: LoraConfig | None = _f(
        None,
        'LoRA adapters (peft; LoraConfig): {"r": 16, "alpha": 32, "dropout": 0.0, "target_modules": '
        '"all-linear"}; {} trains every weight',
    )
    asynchronous: AsyncConfig = field(
        default_factory=AsyncConfig,
        metadata={"help": "asynchronous rollouts (AsyncConfig; in files and flags async_level, async_workers...)"},
    )
    # evaluation, checkpoints
    eval_every: int = _f(0, "evaluate on the eval split every N steps (0: only at the end)")
    eval_prompts: int = _f(32, "eval tasks (fixed seeds); pass@k uses num_generations samples")
    save_every: int = _f(50, "checkpoint every N steps (0: only at the end and on Ctrl-C)")
    keep_checkpoints: int = _f(2, "checkpoints kept")

    def __post_init__(self) -> None:
        eps: Any = self.epsilon
        if isinstance(eps, list):  # from a TOML or YAML list
            object.__setattr__(self, "epsilon", tuple(eps))
        for name, part in _typed_parts(self).items():  # a [sampling], [judge] or [lora] table, a JSON object
            object.__setattr__(self, name, part)
        checks = [
            (self.num_generations >= 2, "num_generations must be >= 2 (GRPO compares completions)"),
            (self.prompts_per_step >= 1, "prompts_per_step must be >= 1"),
            (self.eval_prompts >= 1, "eval_prompts must be >= 1 (the final evaluation needs tasks)"),
            (self.steps >= 1, "steps must be >= 1"),
            (self.max_new_tokens >= 1, "max_new_tokens must be >= 1"),
            (self.micro_batch_size >= 1, "micro_batch_size must be >= 1"),
            (self.num_iterations >= 1, "num_iterations must be >= 1"),
            (self.loss_type in LOSS_TYPES, f"loss_type must be one of {', '.join(LOSS_TYPES)}"),
            (self.scale in SCALES, f"scale must be one of {', '.join(SCALES)}"),
            (self.lr_scheduler in ("constant", "linear", "cosine"), "lr_scheduler must be constant, linear or cosine"),
            (_clip_range_ok(self.epsilon), "epsilon must be a number >= 0 or a pair (low, high) of them"),
            (self.beta >= 0, "beta must be >= 0"),
            (self.learning_rate > 0, f"learning_rate must be > 0, got {self.learning_rate!r}"),
            (self.warmup_steps >= 0, f"warmup_steps must be >= 0, got {self.warmup_steps!r}"),
            (self.max_grad_norm >= 0, f"max_grad_norm must be >= 0 (0 disables clipping), got {self.max_grad_norm!r}"),
            (self.eval_every >= 0, f"eval_every must be >= 0 (0: only at the end), got {self.eval_every!r}"),
            (self.save_every >= 0, f"save_every must be >= 0 (0: only at the end), got {self.save_every!r}"),
            (self.temperature > 0, "temperature must be > 0"),
            (self.keep_checkpoints >= 1, "keep_checkpoints must be >= 1"),
            (self.distributed in ("ddp", "fsdp"), "distributed must be ddp or fsdp"),
            (self.verifier_executor in EXECUTORS, f"verifier_executor must be one of {', '.join(EXECUTORS)}"),
            (self.generator in GENERATORS, f"generator must be one of {', '.join(GENERATORS)}"),
            (
                self.importance_sampling_mode in IS_MODES,
                f"importance_sampling_mode must be one of {', '.join(IS_MODES)}",
            ),
            (self.importance_sampling_clip_max >= 0, "importance_sampling_clip_max must be >= 0 (0 turns it off)"),
            (
                0 <= self.importance_sampling_clip_min <= (self.importance_sampling_clip_max or float("inf")),
                "importance_sampling_clip_min must be >= 0 (0: no lower bound) and <= importance_sampling_clip_max",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise TrainerError(f"GRPOConfig: {message}")
        self.asynchronous.check(generator=self.generator, verifier_executor=self.verifier_executor)

    @property
    def clip_range(self) -> tuple[float, float]:
        """``(epsilon_low, epsilon_high)``: the ratio is clipped to ``[1 - low, 1 + high]``."""
        eps = self.epsilon
        return (float(eps[0]), float(eps[1])) if isinstance(eps, tuple) else (float(eps), float(eps))

    def replace(self, **changes: Any) -> GRPOConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The config as a file spells it (``run.json``, a checkpoint's): ``judge`` and ``lora`` as
        tables (``{}``: none), the asynchronous settings as ``async_*`` keys; what `from_dict` reads."""
        out: dict[str, Any] = {}
        for name, value in dataclasses.asdict(self).items():
            if name == "asynchronous":
                out.update(self.asynchronous.to_dict())
            elif name in ("judge", "lora"):
                part = getattr(self, name)
                out[name] = part.to_dict() if part is not None else {}
            else:
                out[name] = value
        return out

    @classmethod
    def from_dict(cls, table: Mapping[str, Any]) -> GRPOConfig:
        """From a config table as a file spells it (what `to_dict` writes, or a run written before
        the typed parts: ``lora = {"r": 8}``); an unknown key fails in one line.

        Examples:
            >>> GRPOConfig.from_dict({"lora": {"r": 8}, "async_workers": 2}).asynchronous.workers
            2
        """
        for key in table:
            _check_key(key)
        rest = {k: v for k, v in table.items() if k not in AsyncConfig.keys()}
        return cls(**rest, asynchronous=AsyncConfig.from_dict(table))


_PARTS: dict[str, Any] = {"sampling": SamplingConfig, "judge": JudgeConfig, "lora": LoraConfig}
"""The typed parts a table may give (the asynchronous settings come as ``async_*`` keys: `GRPOConfig.from_dict`)."""


def _typed_parts(cfg: GRPOConfig) -> dict[str, Any]:
    """Each typed part of ``cfg`` as given, or made from the table given for it (a file's, a
    JSON flag's); an empty ``judge`` or ``lora`` table is none. Anything else fails in one line."""
    made = {name: _part(name, getattr(cfg, name)) for name in _PARTS}
    given: Any = cfg.asynchronous  # a table too, as the other parts
    if isinstance(given, Mapping):  # by field name, as the other parts' tables: {"level": 1}
        reject_unknown_keys("asynchronous", given, [f.name for f in fields(AsyncConfig)])
        made["asynchronous"] = AsyncConfig(**given)
    elif not isinstance(given, AsyncConfig):
        raise TrainerError(f"GRPOConfig: asynchronous must be an AsyncConfig or a table, got {given!r}")
    return made


def _part(name: str, value: Any) -> Any:
    kind = _PARTS[name]
    if isinstance(value, kind) or (value is None and name != "sampling"):
        return value
    if not isinstance(value, Mapping):
        raise TrainerError(f"GRPOConfig: {name} must be a table ({kind.__name__}), got {value!r}")
    if not value and name != "sampling":
        return None
    try:
        return kind.from_dict(dict(value))
    except GrpoEnvsError as exc:  # the judge's own checks
        raise TrainerError(f"GRPOConfig: {name}: {exc}") from None


def _clip_range_ok(eps: Any) -> bool:
    values = eps if isinstance(eps, tuple) else (eps,)
    return len(values) in (1, 2) and all(isinstance(v, int | float) and v >= 0 for v in values)


PRESETS: dict[str, dict[str, Any]] = {
    "grpo": {},
    "dapo": {
        "epsilon": (0.2, 0.28),
        "beta": 0.0,
        "loss_type": "dapo",
        "skip_zero_variance_groups": True,
        "mask_truncated_completions": True,  # beside the penalty: cut-off answers teach nothing (docs/training.md)
        "sampling": {"dynamic": True, "overlong": True},
    },
    "dr_grpo": {"scale": "none", "loss_type": "dr_grpo", "beta": 0.0},
    # GSPO (arXiv 2507.18071): the sequence ratio, clipped to the paper's tiny range, no KL
    "gspo": {"loss_type": "gspo", "epsilon": (3e-4, 4e-4), "beta": 0.0},
    # CISPO (MiniMax-M1): the IS weight capped at 5 (ScaleRL's epsilon_max), no lower bound, no KL
    "cispo": {"loss_type": "cispo", "epsilon": (1.0, 4.0), "beta": 0.0},
}


def _keys() -> dict[str, tuple[Any, str]]:
    """Each key of a config table (a file's, an override's, ``run.json``'s) with its type and help
    text, in field order: the fields, the asynchronous part as its ``async_*`` keys."""
    hints, inner, out = typing.get_type_hints(GRPOConfig), typing.get_type_hints(AsyncConfig), {}
    for f in fields(GRPOConfig):
        if f.name == "asynchronous":
            out.update({key: (inner[part.name], part.metadata["help"]) for key, part in AsyncConfig.keys().items()})
        else:
            out[f.name] = (hints[f.name], f.metadata.get("help", ""))
    return out


_KEYS: dict[str, tuple[Any, str]] = _keys()
_TYPES: dict[str, Any] = {key: kind for key, (kind, _) in _KEYS.items()}
"""Each key's type, resolved (``int``, ``float | tuple[float, float]``, ``LoraConfig | None``...)."""


def _check_key(name: str) -> None:
    if name not in _TYPES:
        hint = difflib.get_close_matches(name, list(_TYPES), n=1)
        known = ", ".join(sorted(_TYPES))
        guess = f" (did you mean {hint[0]!r}?)" if hint else ""
        raise TrainerError(f"unknown config field {name!r}{guess}; known fields: {known}")


def _is_pair_or_number(kind: Any) -> bool:
    """``float | tuple[float, float]`` (epsilon): a number, or two of them."""
    args = typing.get_args(kind) if typing.get_origin(kind) in (types.UnionType, typing.Union) else ()
    return float in args and any(typing.get_origin(a) is tuple for a in args)


def _coerce(name: str, value: Any) -> Any:
    """``value`` (a string from a flag or an override) read as key ``name``'s type; other values as they are."""
    _check_key(name)
    kind = _TYPES[name]
    if value is None or not isinstance(value, str):
        return value
    if kind is bool:
        if value.lower() in ("1", "true", "yes", "on"):
            return True
        if value.lower() in ("0", "false", "no", "off"):
            return False
        raise TrainerError(f"{name} must be true or false, got {value!r}")
    try:
        if kind is int:
            return int(value)
        if _is_pair_or_number(kind):  # epsilon: 0.2 or 0.2,0.28
            parts = [float(v) for v in value.strip("()[] ").split(",")]
            return parts[0] if len(parts) == 1 else tuple(parts)
        if kind is float:
            return None if value.lower() == "none" else float(value)
        if _is_table(kind):
            return json.loads(value)
    except ValueError as exc:
        raise TrainerError(f"{name}: cannot read {value!r} as {_type_name(kind)} ({exc})") from None
    return value


def _is_table(kind: Any) -> bool:
    """A dict, or a typed part (``LoraConfig | None``): a JSON object on a command line."""
    return typing.get_origin(kind) is dict or any(part in (kind, *typing.get_args(kind)) for part in _PARTS.values())


def _type_name(kind: Any) -> str:
    """A key's type as its annotation reads: ``int``, ``dict[str, Any]``; a typed part: a JSON table."""
    if _is_table(kind) and typing.get_origin(kind) is not dict:
        return "a JSON table"
    return kind.__name__ if isinstance(kind, type) else str(kind).replace("typing.", "")


def load_config(
    path: str | Path | None = None, *, preset: str = "grpo", overrides: Mapping[str, Any] | None = None
) -> GRPOConfig:
    """Build a config: ``preset`` defaults, then the TOML/YAML file at ``path``, then ``overrides``.

    Examples:
        >>> load_config(preset="dapo", overrides={"steps": "5"}).loss_type
        'dapo'
    """
    if preset not in PRESETS:
        raise TrainerError(f"preset must be one of {sorted(PRESETS)}, got {preset!r}")
    values: dict[str, Any] = dict(PRESETS[preset])
    if path is not None:
        file = Path(path)
        if not file.is_file():
            file = shipped_config(str(path)) or file  # --config demo: the package's own
        if not file.is_file():
            raise TrainerError(f"config file not found: {file} (shipped with the package: {', '.join(SHIPPED)})")
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
        _merge(values, data)
    _merge(values, {k: _coerce(k, v) for k, v in (overrides or {}).items()})
    return GRPOConfig.from_dict({k: _coerce(k, v) for k, v in values.items()})


def _merge(values: dict[str, Any], more: Mapping[str, Any]) -> None:
    """``more`` over ``values``; a ``sampling`` table over the preset's, key by key."""
    for key, value in more.items():
        below = values.get(key)
        both = key == "sampling" and isinstance(below, Mapping) and isinstance(value, Mapping)
        values[key] = {**below, **value} if both else value  # type: ignore[dict-item]


def add_config_flags(parser: argparse.ArgumentParser) -> None:
    """One ``--key-name`` flag per config key (help text from the field; with a
    `verifiers.commandline.CommandParser` the ``--field_name`` spelling works too), plus
    ``--config`` and ``--preset``."""
    parser.add_argument("--config", help="a .toml or .yaml file of config fields")
    parser.add_argument("--preset", default="grpo", choices=sorted(PRESETS), help="defaults to start from")
    defaults = GRPOConfig().to_dict()
    for name, (_, help) in _KEYS.items():
        default = defaults[name]
        shown = "{}" if name == "sampling" else json.dumps(default) if isinstance(default, dict) else repr(default)
        text = f"{help} (default: {shown})".replace("%", "%%")
        parser.add_argument(flag(name), dest=f"cfg_{name}", default=None, metavar=_metavar(default), help=text)
    JudgeConfig.add_flags(parser)  # the judge table's keys, as serve and eval spell them
    SamplingConfig.add_flags(parser)


def flag(name: str) -> str:
    """The command-line flag of a config field: ``max_new_tokens`` -> ``--max-new-tokens``."""
    return "--" + name.replace("_", "-")


def _metavar(default: Any) -> str:
    """What a flag takes, from its default's type: N, X, BOOL, JSON or VALUE."""
    if isinstance(default, bool):
        return "BOOL"
    if isinstance(default, int):
        return "N"
    if isinstance(default, float):
        return "X"
    return "JSON" if isinstance(default, dict | tuple | list) else "VALUE"


def config_from_args(args: argparse.Namespace) -> GRPOConfig:
    overrides = {name: getattr(args, f"cfg_{name}") for name in _KEYS if getattr(args, f"cfg_{name}", None) is not None}
    config = load_config(args.config, preset=args.preset, overrides=overrides)
    if SamplingConfig.flag_settings(args):  # --sampling-KEY flags over the sampling table
        table = {**dataclasses.asdict(config.sampling), **SamplingConfig.flag_settings(args)}
        config = config.replace(sampling=SamplingConfig.from_dict(table))
    return _with_judge_flags(config, args)


def _with_judge_flags(config: GRPOConfig, args: argparse.Namespace) -> GRPOConfig:
    """``config`` with the ``--judge-*`` flags' settings over its judge table (flags win)."""
    try:
        given = JudgeConfig.flag_settings(args)
    except GrpoEnvsError as exc:
        raise TrainerError(str(exc)) from None
    table = config.judge.to_dict() if config.judge is not None else {}
    return config.replace(judge={**table, **given}) if given else config
