"""Third-party environments register through the ``grpo_envs.envs`` entry point group."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

PLUGIN = """
import gymnasium

def register():
    gymnasium.register("demo/Echo-v0", entry_point="demo_plugin_envs:Echo")
"""
ENVS = '''
from grpo_envs import ReasoningEnv, Task

class Echo(ReasoningEnv):
    """Repeat a word."""

    def make_task(self, rng):
        word = rng.choice(["alpha", "beta", "gamma"])
        return Task(f"echo-{word}", f"Repeat the word {word}.", word)
'''
BROKEN = """
def register():
    raise RuntimeError("this plugin is broken")
"""


def _site(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "demo_plugin.py").write_text(PLUGIN)
    (tmp_path / "demo_plugin_envs.py").write_text(ENVS)
    (tmp_path / "broken_plugin.py").write_text(BROKEN)
    info = tmp_path / "demo_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[grpo_envs.envs]\ndemo = demo_plugin:register\nbroken = broken_plugin:register\n"
    )
    (info / "RECORD").write_text("")
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def test_a_plugin_env_is_found_lazily_and_a_broken_plugin_only_warns(tmp_path: Path) -> None:
    code = (
        "import sys, gymnasium, grpo_envs\n"
        "print('lazy', 'demo_plugin_envs' not in sys.modules)\n"
        "env = gymnasium.make('demo/Echo-v0')\n"
        "prompt, _ = env.reset(seed=1)\n"
        "word = env.unwrapped.task.answer\n"
        "print('reward', env.step('\\\\boxed{' + word + '}')[1])\n"
        "grpo_envs.check_env(env)\n"
        "print('ids', [i for i in grpo_envs.env_ids() if i.startswith('demo/')])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=_site(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "lazy True" in proc.stdout and "reward 1.0" in proc.stdout
    assert "ids ['demo/Echo-v0']" in proc.stdout
    assert "plugin 'broken'" in proc.stderr and "this plugin is broken" in proc.stderr


def test_the_cli_lists_plugin_envs(tmp_path: Path) -> None:
    script = shutil.which("grpo-envs", path=os.path.dirname(sys.executable))
    assert script is not None
    proc = subprocess.run([script, "envs", "list"], env=_site(tmp_path), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "demo/Echo-v0" in proc.stdout and "(plugin demo) Repeat a word." in proc.stdout
    assert "grpo_envs/Countdown-v0" in proc.stdout


def test_a_plugin_command_joins_the_cli(tmp_path: Path) -> None:
    """The ``grpo_envs.commands`` group: a third-party ``main(argv) -> int`` becomes a command."""
    (tmp_path / "hello_cmd.py").write_text("def main(argv):\n    print('hello', *argv)\n    return 3\n")
    info = tmp_path / "hello_cmd-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hello-cmd\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[grpo_envs.commands]\nhello = hello_cmd:main\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    script = shutil.which("grpo-envs", path=os.path.dirname(sys.executable))
    assert script is not None
    listed = subprocess.run([script, "--help"], env=env, capture_output=True, text=True, timeout=120)
    assert "hello" in listed.stdout and "(from hello-cmd)" in listed.stdout
    ran = subprocess.run([script, "hello", "a", "b"], env=env, capture_output=True, text=True, timeout=120)
    assert (ran.returncode, ran.stdout.strip()) == (3, "hello a b")
