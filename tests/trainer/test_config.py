"""`GRPOConfig`: at most 41 fields (30 after the config diet, plus the vLLM generator's and its
importance sampling's four, verifier_executor, the judge table, and async_level, async_workers, async_workers_on, async_schedule, the sampling part),
one allowed-values list, each field read from a flag or a file by its declared type, and a resumed run's config checked against its checkpoint's."""

from __future__ import annotations

import dataclasses
import inspect
import json
import warnings
from dataclasses import fields
from pathlib import Path

import pytest

from trainer import TrainerError
from trainer._math import LOSS_TYPES, SCALES
from trainer.config import PRESETS, GRPOConfig, add_config_flags, config_from_args, load_config
from verifiers.commandline import CommandParser


def test_the_config_fits_on_a_page() -> None:
    # the 30 of the config diet + generator, importance_sampling_{mode,clip_max,clip_min} (issue #41) +
    # verifier_executor (issue #26: judging on Ray) + judge (issue #43: one table, not a field per setting) +
    # async_level, async_workers, async_workers_on (issue #45: processes or Ray actors) +
    # sampling (issue #58: dynamic sampling and overlong shaping, one typed part, not a field per setting)
    assert len(fields(GRPOConfig)) <= 41
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
    assert GRPOConfig().lora_options is None
    opts = GRPOConfig(lora={"r": 8, "alpha": 32}).lora_options
    assert opts == {"r": 8, "alpha": 32, "dropout": 0.0, "target_modules": "all-linear"}
    assert load_config(overrides={"lora": '{"r": 4}'}).lora == {"r": 4}
    with pytest.raises(TrainerError, match="unknown key 'alhpa' \\(did you mean 'alpha'\\?\\); the keys are r, alpha"):
        GRPOConfig(lora={"r": 8, "alhpa": 8})
    with pytest.raises(TrainerError, match='lora needs "r"'):
        GRPOConfig(lora={"alpha": 8})


def test_an_unknown_field_suggests_the_known_one() -> None:
    with pytest.raises(TrainerError, match="unknown config field 'learnig_rate' \\(did you mean 'learning_rate'\\?\\)"):
        load_config(overrides={"learnig_rate": "1e-5"})


def test_every_field_reads_back_from_its_flag_string() -> None:
    # a flag's or a file's string is read as the field's declared type (typing.get_type_hints)
    defaults = GRPOConfig(epsilon=(0.2, 0.28), lora={"r": 4})
    for f in fields(GRPOConfig):
        value = getattr(defaults, f.name)
        text = (
            json.dumps(value)
            if isinstance(value, dict)
            else json.dumps(dataclasses.asdict(value))  # a typed part (sampling): its table as JSON
            if dataclasses.is_dataclass(value)
            else ",".join(map(str, value))
            if isinstance(value, tuple)
            else str(value)
        )
        assert getattr(load_config(overrides={f.name: text}), f.name) == value, f.name
    assert load_config(overrides={"mask_truncated_completions": "yes"}).mask_truncated_completions is True
    with pytest.raises(TrainerError, match="steps: cannot read 'ten' as int"):
        load_config(overrides={"steps": "ten"})
    with pytest.raises(TrainerError, match=r"lora: cannot read '\{r: 4\}' as dict\[str, Any\]"):
        load_config(overrides={"lora": "{r: 4}"})
    with pytest.raises(TrainerError, match="gradient_checkpointing must be true or false, got 'maybe'"):
        load_config(overrides={"gradient_checkpointing": "maybe"})


def test_flags_and_file_keys_set_fields(tmp_path: Path) -> None:
    parser = CommandParser()  # the train command's: --importance-sampling-clip-max, and the _ spelling as its alias
    add_config_flags(parser)
    flags = ["--lora", '{"r": 16, "alpha": 32}', "--epsilon", "0.2,0.28", "--importance_sampling_clip_max", "3"]
    cfg = config_from_args(parser.parse_args([*flags, "--steps", "3"]))
    assert (cfg.lora, cfg.clip_range, cfg.steps, cfg.importance_sampling_clip_max) == (
        {"r": 16, "alpha": 32},
        (0.2, 0.28),
        3,
        3.0,
    )
    toml = tmp_path / "run.toml"
    toml.write_text("lora = {r = 4, dropout = 0.05}\nimportance_sampling_clip_max = 0\n")
    cfg = load_config(toml)
    assert cfg.lora == {"r": 4, "dropout": 0.05} and cfg.importance_sampling_clip_max == 0.0


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
    from trainer._rundir import _plan_resume, open_run

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
