"""Harbor task folders: read one into an `AgenticTask`, write one out, load a folder of them.

The layout (Harbor, Terminal-Bench 2's successor format)::

    task-name/
      instruction.md            the prompt
      task.toml                 version, [metadata], [agent], [verifier], [environment]
      environment/Dockerfile    and its build context (everything under environment/)
      tests/test.sh             writes /logs/verifier/reward.txt or reward.json
      solution/solve.sh         the reference solution

``task.toml`` as Harbor's ``TaskConfig`` (``harbor.models.task.config``; checked against the
copies vendored in AlienKevin/sprint@49e3cd77, schema 1.4, and LegoX/harbor@73fd120e, 1.1):
``schema_version`` or the legacy ``version``, any 1.x (1.0 to 1.4 seen). Read: top-level
``artifacts`` (paths, or tables with a ``source``; our former ``[verifier] artifacts`` too);
``[agent] timeout_sec, user``; ``[verifier] timeout_sec, user, env, environment_mode``;
``[environment] build_timeout_sec, docker_image, workdir, cpus, memory_mb, storage_mb,
network_mode`` (``public`` | ``allowlist`` | ``no-network``, and an ``[agent]`` / ``[verifier]``
``network_mode`` override: any that is not ``no-network`` needs the network). Legacy keys are
normalised: ``memory = "2G"`` / ``storage = "10G"`` become ``memory_mb`` / ``storage_mb``,
``allow_internet = false`` becomes ``network_mode = "no-network"`` when no ``network_mode`` is
set. Unsupported (one line naming it, `TaskFormatError`): docker-compose environments, multi-step
tasks (``[[steps]]``), GPUs and TPUs, MCP servers, a non-linux ``os``, a ``[verifier.environment]``
of its own, ``[[verifier.collect]]`` hooks, ``[verifier.continuous]``. Not read (no effect here):
``[task]``, ``[solution] env``, ``[environment] env, healthcheck, skills_dir, allowed_hosts``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomllib

from verifiers.agentic._task import AgenticTask, Environment, Limits, NetworkMode, Verifier
from verifiers.errors import TaskFormatError

__all__ = ["load_tasks", "read_task", "split_tasks", "write_task"]

SCHEMA_MAJOR = "1"
FOLDER_CAP = 64 * 2**20  # bytes read from one of a task's folders
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*$", re.IGNORECASE)
_MB = {"": 1 / 2**20, "K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}
# Harbor's network modes (its NetworkMode enum); "none" is read too (what this module wrote before).
_NETWORK: dict[str, NetworkMode] = {"public": "public", "allowlist": "public", "no-network": "none", "none": "none"}
# Harbor keys this reader cannot honour: (section, key, why), each refused with one line.
_UNSUPPORTED = (
    ("environment", "gpus", "containers here have no GPU"),
    ("environment", "tpu", "containers here have no TPU"),
    ("environment", "mcp_servers", "no MCP server is started for the agent"),
    ("verifier", "environment", "the verifier's container is built from the task's own environment"),
    ("verifier", "collect", "collect hooks run in docker-compose services"),
)
_COMPOSE = ("docker-compose.yaml", "docker-compose.yml", "compose.yaml", "compose.yml")


def _files(folder: Path, task: str) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    total = 0
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            raise TaskFormatError(f"task {task}: {path} is a symlink; copy the file instead")
        if path.is_file():
            data = path.read_bytes()
            total += len(data)
            if total > FOLDER_CAP:
                cap = FOLDER_CAP >> 20
                raise TaskFormatError(f"task {task}: {folder} holds over {cap} MiB; keep data in the image")
            out[path.relative_to(folder).as_posix()] = data
    return out


def _megabytes(value: Any, key: str, task: str) -> int:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    m = _SIZE.match(str(value))
    if not m:
        raise TaskFormatError(f"task {task}: [environment] {key} = {value!r} is not a size such as '2G' or '512M'")
    return max(1, round(float(m.group(1)) * _MB[m.group(2).upper()]))


def _check_version(config: Mapping[str, Any], task: str) -> None:
    version = str(config.get("schema_version", config.get("version", "1.0")))
    if version.split(".")[0] != SCHEMA_MAJOR:
        raise TaskFormatError(f"task {task}: task.toml version {version} is not supported (read: 1.x)")


def _limits(config: Mapping[str, Any], task: str) -> Limits:
    agent, verifier, env = (config.get(k, {}) for k in ("agent", "verifier", "environment"))
    defaults = Limits()
    memory = env.get("memory_mb", env.get("memory", defaults.memory_mb))
    storage = env.get("storage_mb", env.get("storage", defaults.storage_mb))
    return Limits(
        agent_timeout_s=float(agent.get("timeout_sec", defaults.agent_timeout_s)),
        verifier_timeout_s=float(verifier.get("timeout_sec", defaults.verifier_timeout_s)),
        build_timeout_s=float(env.get("build_timeout_sec", defaults.build_timeout_s)),
        cpus=float(env.get("cpus", defaults.cpus)),
        memory_mb=_megabytes(memory, "memory", task),
        storage_mb=_megabytes(storage, "storage", task),
        network_mode=_network(config, task),
    )


def _network(config: Mapping[str, Any], task: str) -> NetworkMode:
    """``"none"`` when neither the environment nor an [agent] / [verifier] override asks for the
    network (Harbor's legacy ``allow_internet`` counts only when ``network_mode`` is not set)."""
    env = config.get("environment", {})
    network = env.get("network_mode")
    if network is None:
        network = "public" if env.get("allow_internet", True) else "none"
    modes = [("environment", network)]
    modes += [(s, config[s]["network_mode"]) for s in ("agent", "verifier") if "network_mode" in config.get(s, {})]
    for section, mode in modes:
        if mode not in _NETWORK:
            raise TaskFormatError(
                f"task {task}: [{section}] network_mode = {mode!r}: read 'public', 'allowlist' or 'no-network'"
            )
    return "public" if any(_NETWORK[m] == "public" for _, m in modes) else "none"


def _refuse_unsupported(config: Mapping[str, Any], task: str) -> None:
    """One line for a Harbor feature this reader cannot honour (see `_UNSUPPORTED`)."""
    for section, key, why in _UNSUPPORTED:
        if config.get(section, {}).get(key):
            raise TaskFormatError(f"task {task}: [{section}] {key} is not supported ({why})")
    if str(config.get("environment", {}).get("os", "linux")).lower() != "linux":
        raise TaskFormatError(f"task {task}: [environment] os = {config['environment']['os']!r}: only linux is run")
    if config.get("verifier", {}).get("continuous", {}).get("enabled"):
        raise TaskFormatError(f"task {task}: [verifier.continuous] (judging during the agent's turn) is not supported")


def _artifacts(config: Mapping[str, Any], task: str) -> tuple[str, ...]:
    """Harbor's top-level ``artifacts`` (paths, or tables with a ``source``), and the
    ``[verifier] artifacts`` this module wrote before; absolute paths, in order, once each."""
    out: list[str] = []
    for entry in [*config.get("artifacts", ()), *config.get("verifier", {}).get("artifacts", ())]:
        if isinstance(entry, Mapping):
            if entry.get("exclude") or entry.get("service") not in (None, "main"):
                raise TaskFormatError(f"task {task}: artifact {dict(entry)}: exclude and service are not supported")
            entry = entry.get("source")
        if not isinstance(entry, str) or not entry.startswith("/"):
            raise TaskFormatError(f"task {task}: artifact {entry!r}: name an absolute path in the agent's container")
        out.append(entry)
    return tuple(dict.fromkeys(out))


def _environment(folder: Path, config: Mapping[str, Any], task: str) -> Environment:
    env_dir = folder / "environment"
    image = config.get("environment", {}).get("docker_image")
    if env_dir.is_dir() and any((env_dir / c).exists() for c in _COMPOSE):
        raise TaskFormatError(f"task {task}: docker-compose environments (several containers) are not supported")
    context = _files(env_dir, task) if env_dir.is_dir() else {}
    dockerfile = context.get("Dockerfile")
    if dockerfile is None and not image:
        raise TaskFormatError(f"task {task}: no environment/Dockerfile and no [environment] docker_image")
    return Environment(
        dockerfile=None if dockerfile is None else dockerfile.decode(),
        context=context,
        docker_image=image or None,
        workdir=config.get("environment", {}).get("workdir") or None,
    )


def _verifier(folder: Path, config: Mapping[str, Any], task: str) -> Verifier:
    tests_dir = folder / "tests"
    if not (tests_dir / "test.sh").is_file():
        raise TaskFormatError(f"task {task}: tests/test.sh is missing (it writes /logs/verifier/reward.txt)")
    tests = _files(tests_dir, task)
    section = config.get("verifier", {})
    mode = section.get("environment_mode", "separate")
    if mode not in ("separate", "shared"):
        raise TaskFormatError(f"task {task}: [verifier] environment_mode = {mode!r}: read 'separate' or 'shared'")
    return Verifier(
        tests=tests,
        mode=mode,
        artifacts=_artifacts(config, task),
        user=section.get("user"),
        env={str(k): str(v) for k, v in section.get("env", {}).items()},
    )


def read_task(folder: str | Path) -> AgenticTask:
    """Read a Harbor task folder (see the module's docstring for the layout and what is read).

    Raises:
        TaskFormatError: one line naming the task, what is wrong or unsupported, and the fix.
    """
    folder = Path(folder)
    task = folder.name
    if not (folder / "instruction.md").is_file():
        raise TaskFormatError(f"task {task}: instruction.md is missing ({folder} is not a Harbor task folder)")
    try:
        config = tomllib.loads((folder / "task.toml").read_text()) if (folder / "task.toml").is_file() else {}
    except tomllib.TOMLDecodeError as exc:
        raise TaskFormatError(f"task {task}: task.toml is not valid TOML ({exc})") from exc
    _check_version(config, task)
    _refuse_unsupported(config, task)
    if "steps" in config:
        raise TaskFormatError(f"task {task}: multi-step tasks ([[steps]]) are not supported")
    solution_dir = folder / "solution"
    return AgenticTask(
        name=task,
        instruction=(folder / "instruction.md").read_text(),
        environment=_environment(folder, config, task),
        verifier=_verifier(folder, config, task),
        solution=_files(solution_dir, task) if solution_dir.is_dir() else {},
        limits=_limits(config, task),
        agent_user=config.get("agent", {}).get("user"),
        metadata=dict(config.get("metadata", {})),
    )


def load_tasks(root: str | Path) -> list[AgenticTask]:
    """Every task folder directly under ``root`` (a folder holding ``instruction.md``), by name."""
    root = Path(root)
    if not root.is_dir():
        raise TaskFormatError(f"{root} is not a folder of tasks")
    return [read_task(p) for p in sorted(root.iterdir()) if (p / "instruction.md").is_file()]


def split_tasks(
    tasks: list[AgenticTask], eval_fraction: float = 0.2, *, seed: int = 0
) -> tuple[list[AgenticTask], list[AgenticTask]]:
    """(train, eval): a task is in eval when a hash of its split key and ``seed`` falls under
    ``eval_fraction``, so adding a task never moves another between the two sets. The key is
    ``[metadata] split_key`` where the task has one (repair tasks name the mutated file there, so
    near-duplicates of one file stay on one side), else the task's name."""
    if not 0.0 <= eval_fraction <= 1.0:
        raise ValueError(f"eval_fraction must be in [0, 1], got {eval_fraction}")
    train: list[AgenticTask] = []
    held: list[AgenticTask] = []
    for t in tasks:
        key = t.metadata.get("split_key") or t.name
        h = int.from_bytes(hashlib.sha256(f"{seed}:{key}".encode()).digest()[:8], "big") / 2**64
        (held if h < eval_fraction else train).append(t)
    return train, held


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _task_toml(task: AgenticTask) -> str:
    lim, ver = task.limits, task.verifier
    sections: dict[str, dict[str, Any]] = {
        "metadata": dict(task.metadata),
        "agent": {"timeout_sec": lim.agent_timeout_s, **({"user": task.agent_user} if task.agent_user else {})},
        "verifier": {
            "timeout_sec": lim.verifier_timeout_s,
            "environment_mode": ver.mode,
            **({"user": ver.user} if ver.user else {}),
            **({"env": dict(ver.env)} if ver.env else {}),
        },
        "environment": {
            "build_timeout_sec": lim.build_timeout_s,
            "cpus": lim.cpus,
            "memory_mb": lim.memory_mb,
            "storage_mb": lim.storage_mb,
            "network_mode": "no-network" if lim.network_mode == "none" else lim.network_mode,
            **({"docker_image": task.environment.docker_image} if task.environment.docker_image else {}),
            **({"workdir": task.environment.workdir} if task.environment.workdir else {}),
        },
    }
    lines = ['schema_version = "1.1"']
    if ver.artifacts:  # a top-level key: before the first table
        lines.append(f"artifacts = {_toml_value(list(ver.artifacts))}")
    for name, values in sections.items():
        lines += ["", f"[{name}]", *(f"{k} = {_toml_value(v)}" for k, v in values.items())]
    return "\n".join(lines) + "\n"


def write_task(task: AgenticTask, root: str | Path) -> Path:
    """Write ``task`` as a Harbor folder ``root/<name>`` (which must not exist); return it.
    `read_task` of the folder gives back an equal task."""
    folder = Path(root) / task.name
    if folder.exists():
        raise FileExistsError(f"{folder} exists; remove it or write elsewhere")
    files: dict[str, bytes] = {"instruction.md": task.instruction.encode(), "task.toml": _task_toml(task).encode()}
    files |= {f"environment/{p}": d for p, d in task.environment.context.items()}
    files |= {f"tests/{p}": d for p, d in task.verifier.tests.items()}
    files |= {f"solution/{p}": d for p, d in task.solution.items()}
    for rel, data in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        if rel.endswith(".sh"):
            path.chmod(0o755)
    return folder
