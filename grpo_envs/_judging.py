"""`JudgeConfig`: an LLM judge named by plain settings (a URL, a model, ...) and what it does to
an env's verifier. The one place ``grpo-envs serve``, ``grpo-envs train`` (the config's ``judge``
table) and ``grpo-envs eval`` build their judge from, with one set of flags (``--judge-url``...)."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import os
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from grpo_envs._env import ReasoningEnv
from grpo_envs._verifier import Verifier, judge_verifier
from grpo_envs.errors import GrpoEnvsError
from verifiers import VerifyResult
from verifiers.executors import Executor

__all__ = ["JUDGE_MODES", "KEY_VARIABLE", "JudgeConfig"]

JUDGE_MODES = ("hybrid", "judge")
""""hybrid": the env's own verifier first, the judge on its rejections (`verifiers.judges.with_judge`);
"judge": the judge alone decides every answer the env's format finds."""
KEY_VARIABLE = "GRPO_ENVS_JUDGE_API_KEY"
"""Read for the judge's API key when no other variable is named."""
_NAMED = ("url", "model", "mode", "api_key_env", "cache_dir", "reward_model")
_FLAGS = {
    "url": "judge_url",
    "model": "judge_model",
    "mode": "judge_mode",
    "api_key_env": "judge_api_key_env",
    "reward_model": "judge_reward_model",
}


def _options(reward_model: bool = False) -> tuple[str, ...]:
    """The `LLMJudge` (or, for a reward model, `RewardModel`) keywords a config may set besides
    the named ones (JSON values only)."""
    from verifiers.judges import LLMJudge, RewardModel

    taken = {"base_url", "model", "api_key", "cache_dir", "template", "self"}
    made = RewardModel if reward_model else LLMJudge
    return tuple(p for p in inspect.signature(made.__init__).parameters if p not in taken)


@dataclass(frozen=True)
class JudgeConfig:
    """An LLM judge at ``url`` serving ``model`` (any OpenAI-compatible server) and how an env
    uses it: ``mode`` "hybrid" (default; the env's verifier first, the judge only on its
    rejections that hold an extracted answer) or "judge" (the judge alone). The API key is read
    from the environment variable ``api_key_env`` (default ``$GRPO_ENVS_JUDGE_API_KEY`` when
    set; a key in a config file would be written into every run directory); ``api_key`` is one
    given on a command line. ``cache_dir`` keeps the judge's verdicts on disk; ``options`` are
    other `verifiers.judges.LLMJudge` keywords (``concurrency``, ``timeout_s``, ``retries``...).
    Instead of an LLM, ``reward_model`` names a sequence-classification reward model (a directory
    or hub name; `verifiers.judges.RewardModel`, whose keywords ``options`` then holds: ``reward``,
    ``threshold``, ``device``...); mode "judge" is the usual one for it (its score is the reward).

    Examples:
        >>> import gymnasium
        >>> cfg = JudgeConfig.from_dict({"url": "http://127.0.0.1:9/v1", "model": "judge", "retries": 0})
        >>> env = cfg.apply(gymnasium.make("grpo_envs/Arithmetic-v0"))
        >>> env.unwrapped.verifier.name, cfg.options
        ('math+judge', {'retries': 0})
    """

    url: str = ""
    model: str = ""
    mode: str = "hybrid"
    api_key_env: str | None = None
    cache_dir: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    api_key: str | None = field(default=None, repr=False, compare=False)
    reward_model: str | None = None

    def __post_init__(self) -> None:
        if self.reward_model is not None:
            self._check_reward_model()
            return
        if not isinstance(self.url, str) or not self.url:
            raise GrpoEnvsError("a judge needs url: its OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
        if not isinstance(self.model, str) or not self.model:
            raise GrpoEnvsError(f"the judge at {self.url} needs model: the name its server serves the model under")
        if self.mode not in JUDGE_MODES:
            raise GrpoEnvsError(f"judge mode must be one of {', '.join(JUDGE_MODES)}, got {self.mode!r}")
        unknown = sorted(set(self.options) - set(_options()))
        if unknown:
            known = ", ".join((*_NAMED, *_options()))
            hint = " (a key goes in an environment variable that api_key_env names)" if "api_key" in unknown else ""
            raise GrpoEnvsError(f"the judge takes no setting {unknown[0]!r}{hint}; its settings: {known}")
        object.__setattr__(self, "options", dict(self.options))

    def _check_reward_model(self) -> None:
        if not isinstance(self.reward_model, str) or not self.reward_model:
            raise GrpoEnvsError(f"reward_model must be a model's directory or hub name, got {self.reward_model!r}")
        if self.url or self.model or self.api_key_env or self.cache_dir:
            raise GrpoEnvsError("a judge is either an LLM (url, model) or a reward_model, not both")
        if self.mode not in JUDGE_MODES:
            raise GrpoEnvsError(f"judge mode must be one of {', '.join(JUDGE_MODES)}, got {self.mode!r}")
        unknown = sorted(set(self.options) - set(_options(reward_model=True)))
        if unknown:
            known = ", ".join(("reward_model", "mode", *_options(reward_model=True)))
            raise GrpoEnvsError(f"a reward model takes no setting {unknown[0]!r}; its settings: {known}")
        object.__setattr__(self, "options", dict(self.options))

    @classmethod
    def from_dict(cls, settings: Mapping[str, Any]) -> JudgeConfig:
        """From one table (a config file's ``[judge]``): the named keys, the rest as ``options``."""
        if not isinstance(settings, Mapping):
            raise GrpoEnvsError(f"judge settings must be a table (url, model, ...), got {settings!r}")
        named = {"url": "", "model": "", **{k: settings[k] for k in _NAMED if k in settings}}
        return cls(**named, options={k: v for k, v in settings.items() if k not in _NAMED})

    def to_dict(self) -> dict[str, Any]:
        """The settings as one table (never the API key), what `from_dict` reads."""
        named = {k: getattr(self, k) for k in _NAMED if getattr(self, k) not in (None, "")}
        return {**named, **self.options}

    def key(self) -> str | None:
        """The API key: ``api_key``, else the variable ``api_key_env`` names (which must be set)."""
        if self.api_key:
            return self.api_key
        if self.api_key_env is None:
            return os.environ.get(KEY_VARIABLE) or None
        if not os.environ.get(self.api_key_env):
            raise GrpoEnvsError(f"the judge's api_key_env {self.api_key_env}: that environment variable is not set")
        return os.environ[self.api_key_env]

    def judge(self) -> Any:
        """The `verifiers.judges.LLMJudge` (or `RewardModel`) these settings name (one per
        process: share it)."""
        from verifiers.errors import VerifierInputError
        from verifiers.judges import LLMJudge, RewardModel

        if self.reward_model is not None:
            try:
                return RewardModel(self.reward_model, **self.options)
            except (VerifierInputError, TypeError) as exc:
                raise GrpoEnvsError(f"the reward model {self.reward_model}: {exc}") from None
        try:
            return LLMJudge(
                base_url=self.url, model=self.model, api_key=self.key(), cache_dir=self.cache_dir, **self.options
            )
        except (VerifierInputError, TypeError) as exc:
            raise GrpoEnvsError(f"the judge at {self.url}: {exc}") from None

    def check(self, option: str = "url", timeout_s: float = 3.0) -> None:
        """Raise `GrpoEnvsError` with the cause when the judge's server does not answer one short
        request (``GET /models``, ``timeout_s``; no tokens spent): before a command spends time.
        ``option`` names the setting the URL came from (``--judge-url``). A reward model: nothing."""
        from verifiers.errors import ServerError
        from verifiers.http import Client

        if self.reward_model is not None:
            return
        try:
            client = Client(self.url, model=self.model, api_key=self.key(), option=option)
        except ServerError:
            return  # a malformed URL: `judge` says so, as the API would
        try:
            client.probe(timeout_s)
        except ServerError as exc:
            raise GrpoEnvsError(f"the judge: {exc}") from None

    def over(self, rule: Callable[..., VerifyResult], judge: Any = None, *, rule_many: Any = None) -> Any:
        """What judges an answer given a rule function (e.g. `verifiers.math.verify`; its batch
        ``rule_many``, e.g. `verifiers.math.verify_many`, runs on an executor): the rule then
        ``judge`` (default: a new `judge`), or the judge alone in mode "judge"."""
        from verifiers.judges import with_judge

        judge = judge if judge is not None else self.judge()
        return judge if self.mode == "judge" else with_judge(rule, judge, rule_many=rule_many)

    def verifier(self, rule: Verifier, judge: Any = None) -> Verifier:
        """An env's verifier ``rule`` with the judge (`over`): named ``<rule>+judge``, keeping the
        rule's ``equivalent`` (maj@k) and, for answers an answer format hands over, its ``spans``."""
        judge = judge if judge is not None else self.judge()
        key: tuple[str, Verifier, int] | None = (self.mode, rule, id(judge))  # one value for envs that
        try:  # share the rule and the judge: their tasks' items go in one batch (`score_tasks`)
            found = _MADE.get(key)  # type: ignore[arg-type]
        except TypeError:  # a rule whose config cannot be a key: a verifier of its own
            found, key = None, None
        if found is not None:
            return found
        one, many = _as_rule(rule)
        made = judge_verifier(self.over(one, judge, rule_many=many), name=f"{rule.name}+judge")
        spans = None if rule.spans is None else self.verifier(rule.spans, judge)
        made = dataclasses.replace(made, equivalent=rule.equivalent, spans=spans)
        if key is not None:
            _MADE[key] = made  # it holds the judge (so the key's id stays its) while an env holds it
        return made

    def apply(self, env: Any, judge: Any = None) -> Any:
        """``env`` (a `ReasoningEnv`, or a wrapper of one) judged with the judge; returns it."""
        base = getattr(env, "unwrapped", env)
        if not isinstance(base, ReasoningEnv):
            raise GrpoEnvsError(f"a judge goes into a ReasoningEnv's verifier; {type(base).__name__} is not one")
        base.verifier = self.verifier(base.verifier, judge)
        return env

    def factory(self, make_env: Callable[..., Any]) -> Callable[..., Any]:
        """``make_env`` whose envs are judged with one shared judge (made now)."""
        judge = self.judge()
        return lambda **extra: self.apply(make_env(**extra), judge)

    @staticmethod
    def add_flags(parser: argparse.ArgumentParser, *, key_flag: bool = False) -> None:
        """The judge's flags (``--judge-url``, ``--judge-model``, ``--judge-mode``,
        ``--judge-api-key-env``, ``--judge-cache``, ``--judge-options``; ``--judge-api-key``
        with ``key_flag``), read back by `from_flags`."""
        group = parser.add_argument_group("an LLM judge (verifiers.judges; docs/verifiers/judges.md)")
        group.add_argument(
            "--judge-url", default=None, help="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1"
        )
        group.add_argument("--judge-model", default=None, help="the served model's name (required with --judge-url)")
        group.add_argument(
            "--judge-mode",
            default=None,
            choices=JUDGE_MODES,
            help="hybrid (default): the env's verifier first, the judge on its rejections; judge: the judge alone",
        )
        group.add_argument(
            "--judge-api-key-env", default=None, help=f"the variable holding its API key (default ${KEY_VARIABLE})"
        )
        if key_flag:
            group.add_argument("--judge-api-key", default=None, help=f"its API key (or ${KEY_VARIABLE})")
        group.add_argument("--judge-cache", default=None, help="keep the judge's verdicts in this directory")
        group.add_argument(
            "--judge-reward-model",
            default=None,
            help="instead of --judge-url: a sequence-classification reward model (a directory or hub name)",
        )
        group.add_argument(
            "--judge-options", default=None, help="other LLMJudge settings as JSON, e.g. '{\"retries\": 2}'"
        )

    @staticmethod
    def flag_settings(args: argparse.Namespace) -> dict[str, Any]:
        """The settings the judge flags in ``args`` give (only those passed)."""
        out = {name: getattr(args, flag) for name, flag in _FLAGS.items() if getattr(args, flag, None) is not None}
        if getattr(args, "judge_cache", None) is not None:
            out["cache_dir"] = args.judge_cache
        text = getattr(args, "judge_options", None)
        if text is not None:
            try:
                options = json.loads(text)
            except ValueError as exc:
                raise GrpoEnvsError(f"--judge-options must be a JSON object: {exc}") from None
            if not isinstance(options, dict):
                raise GrpoEnvsError(f"--judge-options must be a JSON object, got {text!r}")
            out.update(options)
        return out

    @classmethod
    def from_flags(cls, args: argparse.Namespace) -> JudgeConfig | None:
        """The judge the flags name, or None without ``--judge-url``; one line on a missing part."""
        settings = cls.flag_settings(args)
        if "reward_model" in settings and "url" not in settings:
            return cls.from_dict(settings)
        if "url" not in settings:
            if settings:
                raise GrpoEnvsError("the --judge-* flags need --judge-url (the judge's server)")
            return None
        if "model" not in settings:
            raise GrpoEnvsError("--judge-url needs --judge-model NAME (the name the server serves the model under)")
        made = cls.from_dict(settings)
        return dataclasses.replace(made, api_key=getattr(args, "judge_api_key", None))


_MADE: weakref.WeakValueDictionary[tuple[str, Verifier, int], Verifier] = weakref.WeakValueDictionary()
"""`JudgeConfig.verifier`'s verifiers by (mode, rule, judge), while an env holds them (a run's envs
share one; an eval's chunks of envs, made and dropped, leave nothing behind)."""


def _as_rule(verifier: Verifier) -> tuple[Callable[[Any, Any], VerifyResult], Callable[..., list[VerifyResult]]]:
    """An env's verifier as the rule `with_judge` takes, ``rule(reference, answer)``, and its
    batch ``rule_many(references, answers, executor=)`` (on the executor: in parallel on Ray).
    A verifier's failure is an "error" verdict, never raised."""

    def rule(reference: Any, answer: Any) -> VerifyResult:
        return verifier.verify_many([reference], [answer])[0]

    def rule_many(references: list[Any], answers: list[Any], *, executor: Executor | None = None) -> list[VerifyResult]:
        return verifier.verify_many(references, answers, executor=executor)

    rule.__name__ = rule_many.__name__ = verifier.name
    return rule, rule_many
