"""Config fields renamed or removed in 0.1: the old names still work for one release, with a
warning that says what to write instead (`upgrade`).

- ``lora_r``, ``lora_alpha``, ``lora_dropout``, ``lora_target_modules`` are the keys of
  ``lora`` (``{"r": 16, "alpha": 32}``); ``lora_r = 0`` is ``lora = {}``.
- ``epsilon_high`` is the second number of ``epsilon`` (``epsilon = [0.2, 0.28]``).
- ``importance_sampling_cap`` is ``importance_sampling_clip_max`` (issue #41: the upper bound of
  every ``importance_sampling_mode``; a config that names the cap was written before the modes,
  so it also means ``importance_sampling_mode = "token_truncate"`` with no lower bound).
- Removed: ``top_p`` (sampling is from the whole distribution whose log-probs the loss uses; a
  nucleus would bias the ratio), ``weight_decay`` (AdamW runs without it, as GRPO's recipes do),
  ``bf16`` (the dtype follows the device: bfloat16 on a GPU that has it, float32 on CPU),
  ``share_prefix`` (a group's prompt is shared wherever the model takes a cache) and
  ``min_new_tokens`` (a benchmark knob). Their default values are accepted with a warning; any
  other value is an error, since it would now be ignored.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from trainer._lora import LORA_DEFAULTS
from trainer.errors import TrainerError

__all__ = ["OLD_NAMES", "upgrade"]

_LORA = {"lora_r": "r", "lora_alpha": "alpha", "lora_dropout": "dropout", "lora_target_modules": "target_modules"}
_LORA_TYPES = {"lora_r": int, "lora_alpha": int, "lora_dropout": float, "lora_target_modules": str}
_REMOVED: dict[str, tuple[type, Any, str]] = {
    "top_p": (float, 1.0, "sampling uses the whole distribution, whose log-probs the loss computes"),
    "weight_decay": (float, 0.0, "AdamW runs without weight decay"),
    "min_new_tokens": (int, 0, "it was a benchmark knob"),
    "bf16": (bool, None, "the dtype follows the device: bfloat16 on a GPU that has it, float32 on CPU"),
    "share_prefix": (bool, None, "a group's prompt is shared wherever the model takes a cache"),
}
_CAP = "importance_sampling_cap"
OLD_NAMES = (*_LORA, "epsilon_high", _CAP, *_REMOVED)
"""Every old field name `upgrade` understands."""


def _value(kind: type, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    if kind is bool:
        return value.lower() in ("1", "true", "yes", "on")
    if value.lower() == "none":
        return None
    return kind(value)


def _warn(message: str) -> None:
    warnings.warn(message + " (the old name works until the next release)", FutureWarning, stacklevel=4)


def upgrade(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` (config fields: from a file, flags or keyword arguments) with old names
    replaced by the new ones; a removed field set to anything but its default is an error.

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     upgrade({"lora_r": "8", "epsilon_high": 0.28, "steps": 3})
        {'steps': 3, 'lora': {'r': 8}, 'epsilon': (0.2, 0.28)}
    """
    out = {k: v for k, v in values.items() if k not in OLD_NAMES}
    given = {_LORA[k]: _value(_LORA_TYPES[k], v) for k, v in values.items() if k in _LORA and v is not None}
    lora = {k: v for k, v in given.items() if LORA_DEFAULTS.get(k, object()) != v}  # defaults (same then and now)
    if given:
        _warn(f"{', '.join(k for k in values if k in _LORA)}: LoRA is now one field, lora = {lora}")
        if lora.get("r", 1) != 0:
            out["lora"] = {**dict(out.get("lora") or {}), **lora}
        else:
            out.setdefault("lora", {})
    high = _value(float, values.get("epsilon_high"))
    if high is not None:
        low = out.get("epsilon", 0.2)
        low = _value(float, low) if not isinstance(low, list | tuple) else low[0]
        out["epsilon"] = (float(low), float(high))
        _warn(f"epsilon_high is now the second number of epsilon: epsilon = [{low}, {high}]")
    cap = _value(float, values.get(_CAP))
    if cap is not None:
        out["importance_sampling_clip_max"] = cap
        out.setdefault("importance_sampling_mode", "token_truncate")  # what the cap meant before the modes
        out.setdefault("importance_sampling_clip_min", 0.0)
        _warn(f"{_CAP} is now importance_sampling_clip_max = {cap}")
    for name, (kind, default, why) in _REMOVED.items():
        if name not in values or values[name] is None:
            continue
        value = _value(kind, values[name])
        if default is not None and value != default:
            raise TrainerError(f"{name} = {value!r}: {name} is no longer a setting ({why}); remove it")
        _warn(f"{name} is no longer a setting ({why}); remove it")
    return out
