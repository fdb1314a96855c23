"""`grpo-envs doctor`: what this machine offers the SDK, and how to fix what is missing."""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

__all__ = ["Check", "name_clashes", "render", "run_checks"]

OK, WARN, FAIL, INFO = "ok", "warn", "FAIL", "--"
DIST = "grpo-envs"
OUR_PACKAGES = ("grpo_envs", "verifiers", "trainer")
REQUIRED = ("gymnasium", "sympy", "docker", "hypothesis")
TRAIN = ("torch", "transformers")
MIN_FREE_GIB = 2.0


@dataclass(frozen=True)
class Check:
    """One line of the doctor's table; ``fix`` says what to do when it is not ok."""

    name: str
    status: str
    detail: str
    fix: str = ""


def _norm(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def name_clashes(mapping: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Other distributions that also install one of our top-level packages.

    ``mapping`` is what `importlib.metadata.packages_distributions` returns.

    Examples:
        >>> name_clashes({"verifiers": ["grpo-envs", "verifiers"], "trainer": ["grpo-envs"]})
        {'verifiers': ['verifiers']}
    """
    clashes: dict[str, list[str]] = {}
    for package in OUR_PACKAGES:
        others = sorted({d for d in mapping.get(package, ()) if _norm(d) != DIST})
        if others:
            clashes[package] = others
    return clashes


def _check_python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    return Check("python", OK, f"{version} ({sys.executable})")


def _check_install() -> Check:
    try:
        version = md.version(DIST)
    except md.PackageNotFoundError:
        return Check(
            DIST,
            WARN,
            "running from a source tree, not installed",
            "pip install -e '.[train,dev]' in the checkout",
        )
    return Check(DIST, OK, version)


def _check_clashes() -> Check:
    clashes = name_clashes(md.packages_distributions())
    if not clashes:
        return Check("package names", OK, "grpo_envs, verifiers, trainer are ours")
    named = "; ".join(f"`{p}` also comes from {', '.join(d)}" for p, d in clashes.items())
    dists = sorted({d for ds in clashes.values() for d in ds})
    return Check(
        "package names",
        FAIL,
        named,
        f"these distributions overwrite our packages: pip uninstall {' '.join(dists)}, "
        f"then pip install --force-reinstall {DIST} (or use separate virtualenvs)",
    )


def _check_dist(name: str, *, required: bool) -> Check:
    try:
        return Check(name, OK, md.version(name))
    except md.PackageNotFoundError:
        if required:
            return Check(name, FAIL, "not installed", f"pip install '{DIST}' (installs {name})")
        return Check(name, INFO, "not installed (optional)", f"pip install '{DIST}[train]'")


def _check_torch(required: bool) -> Check:
    if not required:
        return _check_dist("torch", required=False)
    try:
        import torch
    except Exception as exc:  # a broken torch install must not crash the doctor
        return Check("torch", FAIL, f"import failed: {exc}", "pip install torch")
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        device = f"CUDA: {props.name}, {props.total_memory / 2**30:.0f} GiB"
        if torch.cuda.device_count() > 1:
            device += f" (x{torch.cuda.device_count()})"
    else:
        device = "CPU (no CUDA device; a GPU is optional)"
    return Check("torch", OK, f"{torch.__version__}, {device}")


def _check_engine() -> tuple[Check, Any]:
    from verifiers.errors import EngineUnavailableError
    from verifiers.sandbox import engine_client, how_to_start_engine

    try:
        client = engine_client(timeout_s=5)
        info = client.info()
    except EngineUnavailableError as exc:
        first = str(exc).splitlines()[0]
        return Check("docker engine", FAIL, first, how_to_start_engine()), None
    detail = f"{info.get('ServerVersion', '?')}, storage driver {info.get('Driver', '?')}"
    return Check("docker engine", OK, detail), client


def _check_image(client: Any) -> Check:
    from verifiers.sandbox import image_exists, image_tag

    tag = image_tag()
    if client is None:
        return Check(
            "sandbox image",
            FAIL,
            f"{tag}: unknown (no engine)",
            "start the engine first, then: grpo-envs sandbox build-image",
        )
    if image_exists(client, tag):
        return Check("sandbox image", OK, tag)
    return Check(
        "sandbox image",
        FAIL,
        f"{tag} is missing",
        "grpo-envs sandbox build-image (add --offline where no registry is reachable)",
    )


def _check_disk() -> Check:
    free = shutil.disk_usage(os.getcwd()).free / 2**30
    detail = f"{free:.1f} GiB free in {os.getcwd()}"
    if free < MIN_FREE_GIB:
        return Check("disk", WARN, detail, "free some space: models, images and checkpoints need it")
    return Check("disk", OK, detail)


def _check_ray() -> Check:
    """Ray, when installed: the cluster named by RAY_ADDRESS (never one started, nor joined, here)."""
    try:
        version = md.version("ray")
    except md.PackageNotFoundError:
        return Check("ray", INFO, "not installed (optional: judging on a Ray cluster)", f"pip install '{DIST}[ray]'")
    address = os.environ.get("RAY_ADDRESS", "").strip()
    if not address:
        return Check("ray", INFO, f"{version}; no cluster address given (RAY_ADDRESS unset)")
    from verifiers.errors import ExecutorError
    from verifiers.executors import describe_cluster

    try:
        info = describe_cluster(address, timeout_s=60)
    except ExecutorError as exc:
        return Check("ray", WARN, f"{version}; {exc}", f"start the cluster, or unset RAY_ADDRESS ({address})")
    return Check("ray", OK, f"{version}; {address}: {info.summary()}")


def _guard(name: str, fn: Callable[[], Check]) -> Check:
    try:
        return fn()
    except Exception as exc:  # the doctor reports; it never crashes
        return Check(name, FAIL, f"check crashed: {type(exc).__name__}: {exc}", "please report this as a bug")


def run_checks() -> list[Check]:
    """Run every check; a line with status FAIL makes the doctor exit non-zero."""
    train = any(_check_dist(n, required=False).status == OK for n in TRAIN)
    checks = [
        _guard("python", _check_python),
        _guard(DIST, _check_install),
        _guard("package names", _check_clashes),
        *(_guard(n, partial(_check_dist, n, required=True)) for n in REQUIRED),
        _guard("torch", lambda: _check_torch(train)),
        _guard("transformers", lambda: _check_dist("transformers", required=train)),
    ]
    try:
        engine, client = _check_engine()
    except Exception as exc:
        engine, client = Check("docker engine", FAIL, f"check crashed: {exc}"), None
    checks += [
        engine,
        _guard("sandbox image", lambda: _check_image(client)),
        _guard("ray", _check_ray),
        _guard("disk", _check_disk),
    ]
    return checks


def render(checks: Sequence[Check]) -> str:
    """Format checks as the doctor's table."""
    width = max(len(c.name) for c in checks)
    lines = []
    for c in checks:
        lines.append(f"  {c.status:<4}  {c.name:<{width}}  {c.detail}")
        if c.status in (FAIL, WARN) and c.fix:
            pad = " " * (width + 10)
            lines += [f"{pad}fix: {c.fix.splitlines()[0]}"]
            lines += [f"{pad}{line}" for line in c.fix.splitlines()[1:]]
    failed = sum(c.status == FAIL for c in checks)
    lines.append(f"\n{failed} problem(s) found." if failed else "\nEverything grpo-envs needs is here.")
    return "\n".join(lines)
