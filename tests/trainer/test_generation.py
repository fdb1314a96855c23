"""The generation seam: `TransformersGenerator` (order, EOS, lengths, batching) and a scripted
`Generator` plugged into `rollout`."""

from __future__ import annotations

from typing import Any

import gymnasium
import pytest
import torch

import grpo_envs  # noqa: F401  (registers the envs)
from grpo_envs import TextSpace
from trainer import TrainerError
from trainer.generation._transformers import Continuation, Generator, SamplingParams, TransformersGenerator, cut_at_eos
from trainer.policy._model import demo_model, demo_tokenizer
from trainer.rollouts._rollout import rollout

CPU = torch.device("cpu")
PAD, EOS = 0, 1


def params(
    max_new_tokens: int, temperature: float = 1.0, top_p: float = 1.0, min_new_tokens: int = 0
) -> SamplingParams:
    return SamplingParams(max_new_tokens, temperature, top_p, min_new_tokens)


def pairs(out: list[Continuation]) -> list[tuple[list[int], bool]]:
    """Each continuation as (ids, truncated)."""
    return [(list(c.ids), c.truncated) for c in out]


class ScriptedLM:
    """A stand-in for a causal LM's ``generate``: row k continues with ``script(context_k)``
    (cut at ``max_new_tokens``, padded with PAD after EOS). Records every call."""

    def __init__(self, script: Any) -> None:
        self.script, self.training = script, True
        self.calls: list[dict[str, Any]] = []

    def eval(self) -> None:
        self.training = False

    def train(self, mode: bool = True) -> None:
        self.training = mode

    def generate(self, *, input_ids: torch.Tensor, attention_mask: torch.Tensor, **kwargs: Any) -> torch.Tensor:
        self.calls.append({"shape": tuple(input_ids.shape), "training": self.training, **kwargs})
        n = kwargs["max_new_tokens"]
        rows = []
        for ids, mask in zip(input_ids.tolist(), attention_mask.tolist(), strict=True):
            assert mask == sorted(mask), "left padding: zeros first"
            context = [t for t, m in zip(ids, mask, strict=True) if m]
            new = list(self.script(context))[:n]
            rows.append(ids + new + [PAD] * (n - len(new)))
        return torch.tensor(rows)


@pytest.fixture
def tok() -> Any:
    return demo_tokenizer("0123456789csmp=")


def test_results_are_in_input_order_across_calls_and_lengths(tok: Any) -> None:
    # each continuation names its context: [10 + its length, its last token, EOS]
    lm = ScriptedLM(lambda c: [10 + len(c), c[-1], EOS])
    contexts = [[5] * n + [4 + k] for k, n in enumerate([7, 1, 4, 0, 9, 2, 2])]
    gen = TransformersGenerator(lm, tok, CPU, batch_size=3)
    out = gen.generate(contexts, params(4))
    assert pairs(out) == [([10 + len(c), c[-1], EOS], False) for c in contexts]
    assert all(c.logps is None for c in out)  # transformers reports no sampler log-probs
    assert len(lm.calls) == 3  # ceil(7 / 3)
    # sorted by length before batching: each call's width is close to its rows' lengths
    assert [call["shape"] for call in lm.calls] == [(3, 3), (3, 8), (1, 10)]


def test_eos_truncation_and_truncated_flag(tok: Any) -> None:
    scripts = {4: [7, EOS, 9, 9], 5: [7, 8, 9, 9], 6: [EOS], 7: [7, 8, 9, EOS]}
    lm = ScriptedLM(lambda c: scripts[c[-1]])
    gen = TransformersGenerator(lm, tok, CPU)
    out = gen.generate([[4], [5], [6], [7]], params(4))
    assert pairs(out) == [([7, EOS], False), ([7, 8, 9, 9], True), ([EOS], False), ([7, 8, 9, EOS], False)]
    assert cut_at_eos([3, 2, 1], frozenset({1, 2})) == Continuation((3, 2), False)  # several EOS ids: the first


def test_generate_passes_cache_and_sampling_options_and_restores_train_mode(tok: Any) -> None:
    lm = ScriptedLM(lambda c: [EOS])
    TransformersGenerator(lm, tok, CPU).generate([[4]], params(5, temperature=0.7, top_p=0.9, min_new_tokens=2))
    (call,) = lm.calls
    assert call["use_cache"] is True and call["do_sample"] is True and call["training"] is False
    assert (call["temperature"], call["top_p"], call["top_k"], call["min_new_tokens"]) == (0.7, 0.9, 0, 2)
    assert (call["eos_token_id"], call["pad_token_id"]) == (tok.eos_token_id, tok.pad_token_id)
    assert lm.training is True


def test_min_new_tokens_equal_to_max_gives_exactly_that_length(tok: Any) -> None:
    model = demo_model(len(tok), seed=0)
    # bias the head towards EOS so that, without min_new_tokens, sequences would stop early
    with torch.no_grad():
        model.lm_head.weight[tok.eos_token_id] += 5.0 * model.model.embed_tokens.weight.std()
    gen = TransformersGenerator(model, tok, CPU)
    contexts = [tok("c7=")["input_ids"], tok("s12=")["input_ids"], [5]] * 4
    torch.manual_seed(0)
    fixed = pairs(gen.generate(contexts, params(6, min_new_tokens=6)))
    assert [len(ids) for ids, _ in fixed] == [6] * len(contexts)
    assert all(tok.eos_token_id not in ids and truncated for ids, truncated in fixed)
    free = pairs(gen.generate(contexts, params(6)))
    assert all(len(ids) <= 6 for ids, _ in free)
    with pytest.raises(TrainerError, match="min_new_tokens"):
        gen.generate(contexts, params(2, min_new_tokens=3))


def test_all_contexts_go_in_one_generate_call(tok: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    model = demo_model(len(tok), seed=0)
    calls: list[tuple[int, ...]] = []
    real = model.generate

    def counting(**kwargs: Any) -> Any:
        calls.append(tuple(kwargs["input_ids"].shape))
        return real(**kwargs)

    monkeypatch.setattr(model, "generate", counting)
    contexts = [[5 + k % 7] * (1 + k % 5) for k in range(100)]
    out = TransformersGenerator(model, tok, CPU).generate(contexts, params(3))
    assert len(out) == 100 and len(calls) == 1 and calls[0][0] == 100
    assert model.training  # demo_model starts in train mode; generate restores it
    calls.clear()
    TransformersGenerator(model, tok, CPU, batch_size=40).generate(contexts, params(2))
    assert [c[0] for c in calls] == [40, 40, 20]


def test_repeated_contexts_are_prefilled_once_and_sample_as_without_sharing(tok: Any) -> None:
    model = demo_model(len(tok), seed=0)
    prompts = [tok("c7=")["input_ids"], tok("p12=")["input_ids"], [5], tok("m34=")["input_ids"]]
    contexts = [p for p in prompts for _ in range(4)] + [[6, 7]]  # G = 4, mixed lengths, one single context
    shapes: list[tuple[int, ...]] = []
    hook = model.register_forward_pre_hook(
        lambda _, args, kwargs: shapes.append(tuple(kwargs["input_ids"].shape)), with_kwargs=True
    )
    samples = {}
    for share in (True, False):
        shapes.clear()
        torch.manual_seed(3)
        gen = TransformersGenerator(model, tok, CPU, share_prefix=share)
        samples[share] = gen.generate(contexts, params(6, top_p=0.9))
        if share:  # 5 distinct contexts, all but their last token; then generate() feeds 17 rows one token at a time
            assert shapes[0] == (5, 3) and shapes[1] == (17, 1)
        else:
            assert shapes[0] == (17, 4)
    hook.remove()
    assert samples[True] == samples[False]


class OracleGenerator:
    """A scripted `Generator`: answers Digits tasks, correctly for even positions, wrongly for odd."""

    def __init__(self, tokenizer: Any) -> None:
        self.tok = tokenizer
        self.calls: list[tuple[int, int, int]] = []

    def generate(self, contexts: list[list[int]], params: SamplingParams) -> list[Continuation]:
        self.calls.append((len(contexts), params.max_new_tokens, params.min_new_tokens))
        out = []
        for k, ctx in enumerate(contexts):
            prompt = self.tok.decode(ctx)
            answer = int(prompt[1]) if prompt[0] == "c" else (int(prompt[1]) + 1) % 10
            digit = answer if k % 2 == 0 else (answer + 5) % 10
            out.append(Continuation((*self.tok(str(digit))["input_ids"], self.tok.eos_token_id), False))
        return out


def test_a_custom_generator_plugged_into_rollout_is_used(tok: Any) -> None:
    oracle = OracleGenerator(tok)
    assert isinstance(oracle, Generator)
    envs = [gymnasium.make("grpo_envs/Digits-v0") for _ in range(3)]
    groups = rollout(
        oracle,
        tok,
        envs,
        [11, 12, 13],
        4,
        max_new_tokens=2,
        temperature=1.0,
        make_env=lambda: gymnasium.make("grpo_envs/Digits-v0"),
        min_new_tokens=1,
    )
    assert oracle.calls == [(12, 2, 1)]  # every completion of the step in one call
    assert [[r.reward for r in g] for g in groups] == [[1.0, 0.0, 1.0, 0.0]] * 3
    assert all(r.ids[-1] == tok.eos_token_id and r.mask == [1, 1] for g in groups for r in g)


class Echo(gymnasium.Env[str, str]):
    """Multi-turn: reward 1 when the reply starts with the digit in the observation."""

    def __init__(self) -> None:
        self.observation_space, self.action_space = TextSpace(100), TextSpace(100)
        self.digit, self.t = "0", 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self.digit, self.t = str(int(self.np_random.integers(10))), 0
        return f"c{self.digit}=", {}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        self.t += 1
        ok = action[:1] == self.digit
        return f"c{self.digit}=", float(ok), ok or self.t >= 2, False, {"correct": ok}


def test_a_custom_generator_drives_multi_turn_rollouts(tok: Any) -> None:
    oracle = OracleGenerator(tok)  # odd positions answer wrongly, so they get a second turn
    envs = [Echo() for _ in range(4)]
    groups = rollout(oracle, tok, envs, [1, 2], 2, max_new_tokens=2, temperature=1.0, make_env=Echo)
    assert oracle.calls == [(4, 2, 0), (2, 2, 0)]
    assert all(len(g) == 2 for g in groups)
    assert sum(0 in r.mask for g in groups for r in g) == 2  # env tokens after the wrong first turns


def test_a_generator_returning_the_wrong_count_is_an_error(tok: Any) -> None:
    class Short:
        def generate(self, contexts: list[list[int]], params: SamplingParams) -> list[Continuation]:
            return []

    with pytest.raises(TrainerError, match="returned 0 samples for 4 contexts"):
        rollout(
            Short(),
            tok,
            [gymnasium.make("grpo_envs/Digits-v0")],
            [1],
            4,
            max_new_tokens=1,
            temperature=1.0,
            make_env=lambda: gymnasium.make("grpo_envs/Digits-v0"),
        )


def test_every_generator_class_generates_from_contexts_and_params() -> None:
    import inspect

    from trainer.generation._chat import ChatGenerator
    from trainer.generation._generator import Timed
    from trainer.generation._http import CompletionsGenerator
    from trainer.generation._vllm import ColocatedVLLM
    from trainer.generation._vllm_offline import VLLMGenerator

    classes = [TransformersGenerator, ColocatedVLLM, VLLMGenerator, CompletionsGenerator, ChatGenerator, Timed]
    for cls in classes:
        assert list(inspect.signature(cls.generate).parameters) == ["self", "contexts", "params"], cls
    assert [getattr(cls, "takes", "ids") for cls in classes[:-1]] == ["ids"] * 4 + ["messages"]


class TextOnly:
    """A `Generator` that takes chat messages: answers the transcript's length, as text."""

    takes = "messages"

    def __init__(self) -> None:
        self.seen: list[list[dict[str, str]]] = []

    def generate(self, contexts: list[list[dict[str, str]]], params: SamplingParams) -> list[Continuation]:
        self.seen += contexts
        return [Continuation((), False, text=str(len(c)), num_tokens=3) for c in contexts]


def test_a_generator_of_messages_runs_the_same_multi_turn_loop() -> None:
    gen = TextOnly()
    envs = [Echo() for _ in range(2)]
    groups = rollout(gen, None, envs, [1], 2, max_new_tokens=2, temperature=1.0, make_env=Echo, max_turns=3)
    # turn 1 sees the observation as a user message; turn 2 our answer and the env's reply too
    assert [len(c) for c in gen.seen] == [1, 1, 3, 3] and gen.seen[2][1] == {"role": "assistant", "content": "1"}
    for r in (r for g in groups for r in g):
        assert r.ids == [] and r.prompt_ids == [] and r.mask == [1, 1, 1] * 2 and r.text == "13"
        assert len(r.judgements) == 2 and r.sampler_logps is None


def test_sampler_logps_are_kept_only_while_every_turn_has_them(tok: Any) -> None:
    class Sometimes:
        def __init__(self) -> None:
            self.calls = 0

        def generate(self, contexts: list[list[int]], params: SamplingParams) -> list[Continuation]:
            self.calls += 1
            logps = (-1.0, -1.0) if self.calls == 1 else None
            return [Continuation((9, 9), False, logps) for _ in contexts]

    groups = rollout(Sometimes(), tok, [Echo()], [1], 1, max_new_tokens=2, temperature=1.0, make_env=Echo, max_turns=2)
    r = groups[0][0]
    assert r.mask.count(1) == 4 and r.sampler_logps is None  # the second turn had none: none for the rollout


def test_a_multi_turn_rollout_with_one_env_per_seed_is_an_error_naming_the_count(tok: Any) -> None:
    """Stepped envs are one per rollout: fewer would give short groups with the wrong seeds."""
    with pytest.raises(TrainerError, match=r"one env per rollout \(8 here\), got 2: make them with make_env"):
        rollout(
            OracleGenerator(tok), tok, [Echo(), Echo()], [1, 2], 4, max_new_tokens=2, temperature=1.0, make_env=Echo
        )
    digits = [gymnasium.make("grpo_envs/Digits-v0") for _ in range(2)]
    with pytest.raises(TrainerError, match=r"one env per task \(1 here\), got 2"):
        rollout(OracleGenerator(tok), tok, digits, [1], 4, max_new_tokens=2, temperature=1.0, make_env=Echo)
