"""Optional LoRA (peft): train low-rank adapters; the reference policy is the adapter switched off.

With ``lora = {"r": ...}`` (`LoraConfig`) no second copy of the model is kept for the KL term: the reference
log-probs are the same weights with the adapter disabled (the frozen base model).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from trainer.errors import TrainerError, reject_unknown_keys

__all__ = ["LoraConfig", "adapter_disabled", "apply_lora", "is_lora", "load_adapter", "merged_copy"]


@dataclass(frozen=True)
class LoraConfig:
    """LoRA adapters: one typed, frozen part of `trainer.config.GRPOConfig` (its ``lora`` field, the
    ``[lora]`` table of a TOML file, ``--lora JSON``); no table (``{}``) trains every weight.

    Examples:
        >>> LoraConfig.from_dict({"r": 8})
        LoraConfig(r=8, alpha=16, dropout=0.0, target_modules='all-linear')
    """

    r: int = field(metadata={"help": "the adapters' rank (no default: it turns LoRA on)"})
    alpha: int = field(default=16, metadata={"help": "the scale's numerator (lora_alpha)"})
    dropout: float = field(default=0.0, metadata={"help": "dropout on the adapters' input, in [0, 1)"})
    target_modules: str = field(
        default="all-linear", metadata={"help": '"all-linear", or module names: "q_proj,v_proj"'}
    )

    def __post_init__(self) -> None:
        if not isinstance(self.r, int) or isinstance(self.r, bool) or self.r < 1:
            raise TrainerError(
                f'GRPOConfig: lora needs "r", the adapter rank (an int >= 1), got {self.r!r}; {{}} turns LoRA off'
            )
        if not isinstance(self.dropout, int | float) or not 0 <= self.dropout < 1:
            raise TrainerError(f"GRPOConfig: lora dropout must be in [0, 1), got {self.dropout!r}")

    @classmethod
    def from_dict(cls, table: Mapping[str, Any]) -> LoraConfig:
        """From a ``[lora]`` table or JSON object; an unknown key or a bad value fails in one line."""
        reject_unknown_keys("lora", table, [f.name for f in fields(cls)])
        return cls(**{"r": None, **table})

    def to_dict(self) -> dict[str, Any]:
        """The ``[lora]`` table, every key (what `from_dict` reads)."""
        return dataclasses.asdict(self)


def apply_lora(model: Any, *, r: int, alpha: int, dropout: float, targets: str) -> Any:
    """Wrap ``model`` in a peft LoRA model (only the adapters train)."""
    try:
        from peft import LoraConfig as PeftLoraConfig
        from peft import get_peft_model
    except ImportError:
        raise TrainerError(
            "lora needs peft: pip install 'grpo-envs[lora]' (or lora = {} to train every weight)"
        ) from None
    target: str | list[str] = targets if targets == "all-linear" else [t.strip() for t in targets.split(",") if t]
    if not target:
        raise TrainerError('lora target_modules is empty: give module names ("q_proj,v_proj") or "all-linear"')
    config = PeftLoraConfig(r=r, lora_alpha=alpha, lora_dropout=dropout, target_modules=target, task_type="CAUSAL_LM")
    try:
        with warnings.catch_warnings():  # peft asks transformers 5 a deprecated question; not ours to fix
            warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
            return get_peft_model(model, config)
    except ValueError as exc:
        raise TrainerError(f"LoRA: {exc} (check lora's target_modules against the model's module names)") from exc


def is_lora(model: Any) -> bool:
    return hasattr(model, "disable_adapter") and hasattr(model, "peft_config")


@contextmanager
def adapter_disabled(model: Any) -> Iterator[None]:
    """Run ``model`` as its frozen base (the reference policy)."""
    with model.disable_adapter():
        yield


def load_adapter(model: Any, directory: Path) -> None:
    """Load adapter weights saved by ``model.save_pretrained`` (a checkpoint) into ``model``."""
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    result = set_peft_model_state_dict(model, load_file(directory / "adapter_model.safetensors"))
    unexpected = getattr(result, "unexpected_keys", [])
    if unexpected:
        raise TrainerError(f"checkpoint {directory} does not match the adapter: unexpected {unexpected[:5]}")


def merged_copy(model: Any) -> Any:
    """A plain transformers model with the adapter merged in (``model`` is left as it is)."""
    import copy

    return copy.deepcopy(model).merge_and_unload()
