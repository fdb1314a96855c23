"""`RayWeights`: the `WeightChannel` on a Ray cluster, each weights version put once in Ray's
object store.

The learner puts version ``v`` once (``ray.put``) and sends its ObjectRef with every job of that
version; an actor fetches it only when it holds another version. Each tensor travels as its raw
bytes in a numpy array, which Ray keeps once per node and hands to the actors of that node
without a copy; loading copies them into the actor's model. Tied tensors (an embedding shared
with the LM head) go once, as in `FileWeights`' files. For a checkpoint a version is written as a
safetensors file with the version in its metadata, as `FileWeights` writes it, so a resume
publishes it again the same way (`add`). It shares no code with `FileWeights` by inheritance:
both hold a folder made by `open_folder` (here it holds only the model's config and tokenizer).
"""

from __future__ import annotations

import os
import shutil
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from trainer.errors import TrainerError
from trainer.weights._channel import open_folder

__all__ = ["RayWeights", "load_packed", "pack"]


def _key(t: torch.Tensor) -> tuple[Any, ...]:
    """Tensors with equal keys are one tensor under two names (tied)."""
    return (t.device, t.untyped_storage().data_ptr(), t.storage_offset(), tuple(t.shape), tuple(t.stride()), t.dtype)


def pack(state: Mapping[str, torch.Tensor], version: int) -> dict[str, Any]:
    """``state``'s tensors as (dtype, shape, raw bytes) on the CPU, tied ones once, and ``version``.

    Examples:
        >>> packed = pack(torch.nn.Linear(2, 3).state_dict(), 7)
        >>> packed["version"], sorted(packed["tensors"]), packed["tensors"]["weight"][:2]
        (7, ['bias', 'weight'], ('float32', (3, 2)))
    """
    tensors: dict[str, tuple[str, tuple[int, ...], Any]] = {}
    seen: set[tuple[Any, ...]] = set()
    for name, t in state.items():
        if t.numel() and _key(t) in seen:
            continue
        seen.add(_key(t))
        raw = t.detach().to("cpu").contiguous().reshape(-1).view(torch.uint8).numpy()
        tensors[name] = (str(t.dtype).removeprefix("torch."), tuple(t.shape), raw)
    return {"version": version, "tensors": tensors}


def unpack(packed: Mapping[str, Any]) -> tuple[int, dict[str, torch.Tensor]]:
    """(version, tensors) of a `pack`: views of its arrays, not copies."""
    out = {}
    with warnings.catch_warnings():  # arrays from the object store are read-only: they are only read
        warnings.simplefilter("ignore", UserWarning)
        for name, (dtype, shape, raw) in packed["tensors"].items():
            out[name] = torch.from_numpy(raw).view(getattr(torch, dtype)).reshape(shape)
    return int(packed["version"]), out


def load_packed(model: Any, packed: Mapping[str, Any]) -> int:
    """Copy a `pack` into ``model`` (every weight, tied ones through their other name); returns
    the version it holds."""
    version, tensors = unpack(packed)
    missing, unexpected = model.load_state_dict(tensors, strict=False)
    state = model.state_dict()
    sent = {_key(state[n]) for n in tensors if n in state}
    lost = [n for n in missing if _key(state[n]) not in sent]
    if lost or unexpected:
        raise TrainerError(
            f"weights version {version} does not fit the worker's model: missing {lost[:3]}, unexpected "
            f"{list(unexpected)[:3]}; the learner and its rollout workers must build the same model"
        )
    return version


class RayWeights:
    """Weights versions as objects in Ray's object store (``ray``: the module, or a stand-in with
    ``put`` and ``get``). The learner `publish`es, a worker `load`s the version whose ObjectRef
    came with its job (``refs``); the folder only holds the model's config and tokenizer.

    Examples:
        >>> import types
        >>> store = types.SimpleNamespace(put=lambda obj: [obj], get=lambda ref: ref[0])  # no Ray
        >>> ch = RayWeights(store)
        >>> ch.publish(torch.nn.Linear(2, 2), 3)
        >>> ch.versions(), ch.load(torch.nn.Linear(2, 2), 3)
        ([3], 3)
        >>> ch.close()
    """

    def __init__(self, ray: Any, folder: Path | None = None) -> None:
        self.folder = open_folder(folder)
        self.ray = ray
        self.refs: dict[int, Any] = {}

    def publish(self, model: Any, version: int) -> None:
        """Put ``model``'s weights in the object store as ``version`` (one copy, made now)."""
        self.refs[version] = self.ray.put(pack(model.state_dict(), version))

    def add(self, file: Path, version: int) -> None:
        """A version saved as a safetensors file (a checkpoint's), published with the version it says."""
        from safetensors import safe_open
        from safetensors.torch import load_file

        with safe_open(str(file), framework="pt") as f:
            found = int((f.metadata() or {}).get("version", -1))
        self.refs[version] = self.ray.put(pack(load_file(str(file)), found))

    def save(self, version: int, file: Path) -> None:
        """Write ``version`` to ``file`` as `FileWeights` would (safetensors, the version in its metadata)."""
        from safetensors.torch import save_file

        found, tensors = unpack(self.ray.get(self.refs[version]))
        tmp = file.with_name(f".tmp-{file.name}-{os.getpid()}")
        save_file(tensors, str(tmp), metadata={"version": str(found)})
        os.replace(tmp, file)

    def load(self, model: Any, version: int) -> int:
        """Load ``version`` (its ObjectRef in ``refs``) into ``model``; returns the version it holds."""
        if version not in self.refs:
            raise TrainerError(f"weights version {version} was not sent with this job (pruned, or never published)")
        return load_packed(model, self.ray.get(self.refs[version]))

    def versions(self) -> list[int]:
        return sorted(self.refs)

    def newest(self) -> int:
        """The newest version held (-1: none)."""
        return max(self.refs, default=-1)

    def prune(self, below: int) -> None:
        """Let go of every version older than ``below`` (Ray frees it once no job holds it)."""
        for v in [v for v in self.refs if v < below]:
            del self.refs[v]

    def close(self) -> None:
        self.refs.clear()
        shutil.rmtree(self.folder, ignore_errors=True)
