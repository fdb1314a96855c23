"""`GRPOConfig`: at most 38 fields (30 after the config diet, plus the vLLM generator's and its
importance sampling's four, verifier_executor, and the typed parts judge, lora, sampling, asynchronous),
one allowed-values list, each key read from a flag or a file by its declared type, and a resumed run's config
checked against its checkpoint's, a run written before the typed parts included."""

from __future__ import annotations

import inspect
import json
import warnings
from dataclasses import fields
from pathlib import Path

import pytest

from grpo_envs import JudgeConfig
from trainer import TrainerError
from trainer.config import PRESETS, AsyncConfig, GRPOConfig, LoraConfig, add_config_flags, config_from_args, load_config
from trainer.losses._math import LOSS_TYPES, SCALES
from verifiers.commandline import CommandParser


def test_the_config_fits_on_a_page() -> None:
    # the 30 of the config diet + generator, importance_sampling_{mode,clip_max,clip_min} (issue #41) +
    # verifier_executor (issue #26: judging on Ray) + judge (issue #43: one table, not a field per setting) +
    # async_level, async_workers, async_workers_on, async_schedule (issue #45: processes or Ray actors), one
    # typed part since issue #51 + sampling (issue #58: dynamic sampling and overlong shaping, one typed part)
    assert len(fields(GRPOConfig)) <= 38
    for f in fields(GRPOConfig):
        assert f.metadata.get("help"), f"{f.name} has no help text"


def test_allowed_values_are_declared_once() -> None:
    for loss_type in LOSS_TYPES:
        assert GRPOConfig(loss_type=loss_type).loss_type == loss_type
    for scale in SCALES:
        assert GRPOConfig(scale=scale).scale == scale
    with pytest.raises(TrainerError, match="loss_type must be one of grpo, dapo, dr_grpo, gspo, cispo"):
        GRPOConfig(loss_type="ppo")
    assert set(LOSS_TYPES) <= set(PRESETS), "every loss has a preset"


def test_the_gspo_and_cispo_presets() -> None:
    gspo, cispo = load_config(preset="gspo"), load_config(preset="cispo")
    assert (gspo.loss_type, gspo.clip_range, gspo.beta) == ("gspo", (3e-4, 4e-4), 0.0)  # the paper's range
    assert (cispo.loss_type, cispo.clip_range, cispo.beta) == ("cispo", (1.0, 4.0), 0.0)  # weights in [0, 5]


def test_the_clip_range_is_one_field() -> None:
    assert GRPOConfig().clip_range == (0.2, 0.2)
    assert load_config(preset="dapo").clip_range == (0.2, 0.28)
    assert load_config(overrides={"epsilon": "0.1,0.3"}).clip_range == (0.1, 0.3)
    assert load_config(overrides={"epsilon": "0.15"}).clip_range == (0.15, 0.15)
    with pytest.raises(TrainerError, match="epsilon must be"):
        GRPOConfig(epsilon=(0.2, -1.0))


def test_lora_is_one_field_with_defaults_and_checked_keys() -> None:
    assert GRPOConfig().lora is None and GRPOConfig(lora={}).lora is None
    opts = GRPOConfig(lora={"r": 8, "alpha": 32}).lora
    assert opts == LoraConfig(r=8, alpha=32, dropout=0.0, target_modules="all-linear")
    assert load_config(overrides={"lora": '{"r": 4}'}).lora == LoraConfig(r=4)
    with pytest.raises(TrainerError, match="unknown key 'alhpa' \\(did you mean 'alpha'\\?\\); the keys are r, alpha"):
        GRPOConfig(lora={"r": 8, "alhpa": 8})
    with pytest.raises(TrainerError, match='lora needs "r"'):
        GRPOConfig(lora={"alpha": 8})


def test_an_unknown_field_suggests_the_known_one() -> None:
    with pytest.raises(TrainerError, match="unknown config field 'learnig_rate' \\(did you mean 'learning_rate'\\?\\)"):
        load_config(overrides={"learnig_rate": "1e-5"})


def test_every_key_reads_back_from_its_flag_string() -> None:
    # a flag's or a file's string is read as the key's declared type (typing.get_type_hints); the keys
    # are the fields', the asynchronous part's as async_level, async_workers... (as files spell them)
    defaults = GRPOConfig(epsilon=(0.2, 0.28), lora={"r": 4}, judge={"url": "http://a/v1", "model": "m"})
    table = defaults.to_dict()
    assert set(table) == {f.name for f in fields(GRPOConfig)} - {"asynchronous"} | set(AsyncConfig.keys())
    for key, value in table.items():
        text = (
            json.dumps(value)  # a dict, or a typed part (sampling, judge, lora): its table as JSON
            if isinstance(value, dict)
            else ",".join(map(str, value))
            if isinstance(value, tuple)
            else str(value)
        )
        assert load_config(overrides={key: text}).to_dict()[key] == value, key
    assert load_config(overrides={"lora": '{"r": 4}'}).lora == defaults.lora  # the typed part itself
    assert load_config(overrides={"async_workers": "3"}).asynchronous == AsyncConfig(workers=3)
    assert load_config(overrides={"mask_truncated_completions": "yes"}).mask_truncated_completions is True
    with pytest.raises(TrainerError, match="steps: cannot read 'ten' as int"):
        load_config(overrides={"steps": "ten"})
    with pytest.raises(TrainerError, match=r"lora: cannot read '\{r: 4\}' as a JSON table"):
        load_config(overrides={"lora": "{r: 4}"})
    with pytest.raises(
        TrainerError, match="lora has unknown key 'alpah' .did you mean 'alpha'..; the keys are r, alpha"
    ):
        load_config(overrides={"lora": '{"r": 4, "alpah": 8}'})
    with pytest.raises(TrainerError, match="gradient_checkpointing must be true or false, got 'maybe'"):
        load_config(overrides={"gradient_checkpointing": "maybe"})


def test_flags_and_file_keys_set_fields(tmp_path: Path) -> None:
    parser = CommandParser()  # the train command's: --importance-sampling-clip-max, and the _ spelling as its alias
    add_config_flags(parser)
    flags = ["--lora", '{"r": 16, "alpha": 32}', "--epsilon", "0.2,0.28", "--importance_sampling_clip_max", "3"]
    cfg = config_from_args(parser.parse_args([*flags, "--steps", "3"]))
    assert (cfg.lora, cfg.clip_range, cfg.steps, cfg.importance_sampling_clip_max) == (
        LoraConfig(r=16, alpha=32),
        (0.2, 0.28),
        3,
        3.0,
    )
    toml = tmp_path / "run.toml"
    toml.write_text("lora = {r = 4, dropout = 0.05}\nimportance_sampling_clip_max = 0\n")
    cfg = load_config(toml)
    assert cfg.lora == LoraConfig(r=4, dropout=0.05) and cfg.importance_sampling_clip_max == 0.0
    # the typed parts, spelled as users know them: --async-level, --judge-url; async_level, [judge], [lora]
    flags = ["--async-level", "2", "--async_workers_on", "ray", "--judge-url", "http://a/v1", "--judge-model", "m"]
    cfg = config_from_args(parser.parse_args(flags))
    assert (cfg.asynchronous, cfg.judge) == (AsyncConfig(level=2, workers_on="ray"), JudgeConfig("http://a/v1", "m"))
    toml.write_text(
        'async_level = 1\nasync_schedule = "latest"\n[judge]\nurl = "http://a/v1"\nmodel = "m"\n[lora]\nr = 4\n'
    )
    cfg = load_config(toml)
    assert (cfg.asynchronous, cfg.judge, cfg.lora) == (
        AsyncConfig(level=1, schedule="latest"),
        JudgeConfig("http://a/v1", "m"),
        LoraConfig(r=4),
    )


def test_the_constructor_is_the_dataclass_one() -> None:
    # no wrapper around __init__: its signature is the fields', and a name that is no field is refused
    assert list(inspect.signature(GRPOConfig).parameters) == [f.name for f in fields(GRPOConfig)]
    with pytest.raises(TypeError, match="lora_r"):
        GRPOConfig(lora_r=8)  # type: ignore[call-arg]
    with pytest.raises(TrainerError, match="unknown config field 'lora_r' \\(did you mean 'lora'\\?\\)"):
        load_config(overrides={"lora_r": "8"})


def test_presets_use_only_current_fields() -> None:
    names = {f.name for f in fields(GRPOConfig)}
    for preset, values in PRESETS.items():
        assert set(values) <= names, preset
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            load_config(preset=preset)


def test_a_run_resumes_only_with_the_config_it_was_saved_with(tmp_path: Path) -> None:
    from trainer.run._rundir import _plan_resume, open_run

    cfg = GRPOConfig(lora={"r": 4}, epsilon=(0.2, 0.28), output_dir=str(tmp_path))
    plan = open_run(tmp_path, config=cfg.to_dict())
    step = tmp_path / "checkpoints" / "step-000002"
    step.mkdir(parents=True)
    state = {"step": 2, "run_id": plan.run_id, "config": cfg.to_dict()}
    (step / "trainer_state.json").write_text(json.dumps(state))
    assert _plan_resume(tmp_path, cfg.to_dict()).checkpoint == step
    assert _plan_resume(tmp_path, cfg.replace(steps=500).to_dict()).checkpoint == step  # only steps may change
    with pytest.raises(TrainerError, match="lora differ"):
        _plan_resume(tmp_path, cfg.replace(lora={"r": 8}).to_dict())
    with pytest.raises(TrainerError, match="importance_sampling_mode differ"):
        _plan_resume(tmp_path, cfg.replace(importance_sampling_mode="token_mask").to_dict())


# GRPOConfig.to_dict() before the typed parts (issue #51), as run.json and trainer_state.json hold it:
# the judge and lora tables as given, the asynchronous settings as four fields
OLD_SHAPE = json.loads(
    """{"model": "demo", "env": "grpo_envs/Digits-v0", "env_kwargs": {}, "output_dir": "runs/demo", "seed": 0,
    "steps": 2, "prompts_per_step": 2, "num_generations": 4, "max_new_tokens": 2, "temperature": 1.0,
    "micro_batch_size": 32, "generator": "hf", "importance_sampling_mode": "token_truncate",
    "importance_sampling_clip_max": 2.0, "importance_sampling_clip_min": 0.0, "beta": 0.04, "epsilon": 0.2,
    "loss_type": "grpo", "scale": "group", "num_iterations": 1, "mask_truncated_completions": false,
    "skip_zero_variance_groups": false, "sampling": {"dynamic": false, "max_rounds": 4, "tolerance": 1e-06,
    "overlong": false, "overlong_max": 0, "overlong_buffer": 0, "curriculum": false, "level_up": 0.8,
    "level_down": 0.2, "level_window": 5, "start_level": 0, "pass_rate_filter": false, "skip_above": 1.0,
    "skip_below": 0.0, "revisit_after": 20}, "learning_rate": 1e-06, "warmup_steps": 0, "lr_scheduler": "constant",
    "max_grad_norm": 1.0, "device": "cpu", "gradient_checkpointing": false, "distributed": "ddp",
    "verifier_executor": "local", "judge": {"url": "http://127.0.0.1:9/v1", "model": "judge", "retries": 0},
    "lora": {"r": 2}, "async_level": 1, "async_workers": 2, "async_schedule": "exact", "async_workers_on": "local",
    "eval_every": 0, "eval_prompts": 2, "save_every": 1, "keep_checkpoints": 2}"""
)


def test_a_run_written_before_the_typed_parts_resumes(tmp_path: Path) -> None:
    from trainer.run._rundir import _plan_resume

    old = {**OLD_SHAPE, "output_dir": str(tmp_path)}
    (tmp_path / "run.json").write_text(json.dumps({"run_id": "old", "started": "2026-01-01", "config": old}))
    step = tmp_path / "checkpoints" / "step-000001"
    step.mkdir(parents=True)
    (step / "trainer_state.json").write_text(json.dumps({"step": 1, "run_id": "old", "config": old}))
    now = GRPOConfig.from_dict(old)  # the same table, read as today's typed parts
    judge = JudgeConfig("http://127.0.0.1:9/v1", "judge", options={"retries": 0})
    assert (now.judge, now.lora, now.asynchronous) == (judge, LoraConfig(r=2), AsyncConfig(level=1, workers=2))
    assert now.to_dict()["lora"] == {"r": 2, "alpha": 16, "dropout": 0.0, "target_modules": "all-linear"}
    assert _plan_resume(tmp_path, now.to_dict()).checkpoint == step
    assert _plan_resume(tmp_path, now.replace(asynchronous=AsyncConfig(1, 2, "exact", "ray")).to_dict()).checkpoint
    with pytest.raises(TrainerError, match="lora differ"):
        _plan_resume(tmp_path, now.replace(lora={"r": 4}).to_dict())
    with pytest.raises(TrainerError, match="judge differ"):
        _plan_resume(tmp_path, now.replace(judge={"url": "http://127.0.0.1:9/v1", "model": "other"}).to_dict())
    with pytest.raises(TrainerError, match="async_level differ"):
        _plan_resume(tmp_path, now.replace(asynchronous=AsyncConfig(level=2, workers=2)).to_dict())


@pytest.mark.slow
def test_a_lora_run_written_before_the_typed_parts_trains_on(tmp_path: Path) -> None:
    """A run stopped after step 1, its run.json and checkpoints rewritten as they were written before
    the typed parts (``"lora": {"r": 2}``), resumes to step 2."""
    pytest.importorskip("peft")
    from trainer.grpo import GRPOTrainer

    cfg = GRPOConfig.from_dict({**OLD_SHAPE, "judge": {}, "async_level": 0, "output_dir": str(tmp_path)})
    GRPOTrainer(cfg.replace(steps=1), show_progress=False).train()
    written = [tmp_path / "run.json", *tmp_path.glob("checkpoints/*/trainer_state.json")]
    assert len(written) >= 2
    for file in written:
        body = json.loads(file.read_text())
        assert body["config"]["lora"]["alpha"] == 16  # today's shape: every key
        body["config"]["lora"] = {"r": 2}
        file.write_text(json.dumps(body))
    GRPOTrainer(cfg, resume=True, show_progress=False).train()
    steps = [json.loads(line).get("step") for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert 2 in steps
