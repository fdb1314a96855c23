"""Weight transfer to rollout workers: the one seam (`WeightChannel`), and its file-based kind.

The learner publishes its weights after every optimizer step as version ``v`` (the number of
updates they hold); a worker loads the version its next batch must come from. `FileWeights`
writes each version as a safetensors file (the version in the file's metadata) into a folder in
``/dev/shm`` (a temp folder where there is none), atomically (a temp name renamed into place),
and prunes the versions no batch can need any more. `trainer.weights._ray.RayWeights`
implements the same two calls with Ray's object store.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from trainer.errors import TrainerError

__all__ = ["FileWeights", "WeightChannel", "open_folder", "shm_root", "version_file"]

PREFIX = "grpo-envs-weights-"


@runtime_checkable
class WeightChannel(Protocol):
    """How weights reach the workers: ``publish`` (learner) and ``load`` (worker), by version.

    A channel holds what it shares: its ``folder`` (the model's config and tokenizer, and for
    `FileWeights` the versions' files) and the versions it publishes. The learner also prunes the
    versions no batch can need, copies them into a checkpoint (``save``, a safetensors file named
    `version_file`) and publishes them again from one (``add``)."""

    folder: Path

    def publish(self, model: Any, version: int) -> None: ...

    def load(self, model: Any, version: int) -> int: ...

    def newest(self) -> int: ...

    def prune(self, below: int) -> None: ...

    def save(self, version: int, file: Path) -> None: ...

    def add(self, file: Path, version: int) -> None: ...

    def close(self) -> None: ...


def version_file(version: int) -> str:
    """The file name of weights ``version`` (in a `FileWeights` folder and in a checkpoint)."""
    return f"v{version:08d}.safetensors"


def open_folder(folder: Path | None = None) -> Path:
    """``folder`` (made if missing), or a new one in `shm_root` named by this process's id (the
    folders of processes that are gone are swept first: a learner killed by SIGKILL leaves its own)."""
    if folder is None:
        root = shm_root()
        _sweep(root)
        folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=root))
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shm_root() -> Path:
    """``/dev/shm`` when it exists and is writable (RAM, no disk I/O), else the temp folder."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sweep(root: Path) -> None:
    """Remove the folders of learners that are gone (a learner killed by SIGKILL leaves its own)."""
    for old in root.glob(f"{PREFIX}*"):
        pid = old.name[len(PREFIX) :].split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)


class FileWeights:
    """Versioned safetensors files in one folder (made in `shm_root` when ``folder`` is None).

    Examples:
        >>> import torch
        >>> ch = FileWeights()
        >>> ch.publish(torch.nn.Linear(2, 2), 3)
        >>> ch.versions(), ch.load(torch.nn.Linear(2, 2), 3)
        ([3], 3)
        >>> ch.close()
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = open_folder(folder)

    def path(self, version: int) -> Path:
        return self.folder / version_file(version)

    def publish(self, model: Any, version: int) -> None:
        """Write ``model``'s weights as ``version`` (tied tensors once); readers see all of it or none."""
        from safetensors.torch import save_model

        tmp = self.folder / f".tmp-v{version:08d}-{os.getpid()}"
        save_model(model, str(tmp), metadata={"version": str(version)})
        os.replace(tmp, self.path(version))

    def add(self, file: Path, version: int) -> None:
        """A version saved elsewhere (a checkpoint's), published as it is."""
        tmp = self.folder / f".tmp-v{version:08d}-{os.getpid()}"
        shutil.copyfile(file, tmp)
        os.replace(tmp, self.path(version))

    def save(self, version: int, file: Path) -> None:
        """Copy ``version`` to ``file`` (a checkpoint's; `add` publishes it again)."""
        shutil.copyfile(self.path(version), file)

    def load(self, model: Any, version: int) -> int:
        """Load ``version`` into ``model``; returns the version its file says it holds."""
        from safetensors import safe_open
        from safetensors.torch import load_model

        path = self.path(version)
        if not path.is_file():
            raise TrainerError(f"weights version {version} is not in {self.folder} (pruned, or never published)")
        with safe_open(str(path), framework="pt") as f:
            found = int((f.metadata() or {}).get("version", -1))
        load_model(model, str(path))
        return found

    def versions(self) -> list[int]:
        return sorted(int(p.stem[1:]) for p in self.folder.glob("v*.safetensors"))

    def newest(self) -> int:
        """The newest version published (-1: none)."""
        return max(self.versions(), default=-1)

    def prune(self, below: int) -> None:
        """Drop every version older than ``below`` (no batch still to come needs them)."""
        for v in self.versions():
            if v < below:
                self.path(v).unlink(missing_ok=True)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
