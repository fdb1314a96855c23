"""`verifiers.judges.RewardModel` on the CPU with a tiny sequence-classification model built from a
config (no hub): TRL's tokenisation (text and conversations, no special tokens added, right
padding, the raw logit), the explicit reward/correct mapping, batches, pickling, an executor,
and one clear error for a model that cannot be loaded or is not a reward model."""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import pytest

from tests.grpo_envs._byte_tokenizer import byte_tokenizer
from verifiers import VerifierInputError
from verifiers.executors import LocalExecutor
from verifiers.judges import RewardModel, with_judge

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

CHAT = "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"


def save_reward_model(folder: Path, labels: int = 1) -> Path:
    tokenizer = byte_tokenizer(("<|endoftext|>", "<|im_end|>", "<|im_start|>"))
    tokenizer.chat_template = CHAT
    config = transformers.Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=1, num_labels=labels, pad_token_id=tokenizer.pad_token_id,
    )  # fmt: skip
    torch.manual_seed(0)
    model = transformers.AutoModelForSequenceClassification.from_config(config)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def rm_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_reward_model(tmp_path_factory.mktemp("rm"))


def trl_logits(folder: Path, texts: list[str]) -> list[float]:
    """What TRL's GRPOTrainer computes for a reward model: right padding, no special tokens."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(folder).eval()
    inputs = tokenizer(text=texts, return_tensors="pt", padding=True, padding_side="right", add_special_tokens=False)
    with torch.inference_mode():
        return [float(x) for x in model(**inputs).logits[:, 0]]


def test_scores_are_trls_logits_mapped_explicitly(rm_dir: Path) -> None:
    prompts, completions = ["2+2=", "Say hi: ", "x"], ["4", "hello there, friend", "<|im_end|>y"]
    expected = trl_logits(rm_dir, [p + c for p, c in zip(prompts, completions, strict=True)])
    results = RewardModel(rm_dir, device="cpu").verify_many(["-"] * 3, completions, prompts=prompts)
    for logit, r in zip(expected, results, strict=True):
        p = 1 / (1 + math.exp(-logit))
        assert r.reward == pytest.approx(p, abs=1e-5) and r.components["logit"] == pytest.approx(logit, abs=1e-5)
        assert r.correct is (p >= 0.5) and r.status == ("correct" if p >= 0.5 else "incorrect")
    raw = RewardModel(rm_dir, device="cpu", reward="raw").verify_many(["-"] * 3, completions, prompts=prompts)
    assert [r.reward for r in raw] == pytest.approx(expected, abs=1e-5)
    middle = sorted(1 / (1 + math.exp(-x)) for x in expected)[1]
    split = RewardModel(rm_dir, device="cpu", threshold=middle).verify_many(["-"] * 3, completions, prompts=prompts)
    assert sorted(r.correct for r in split) == [False, True, True]  # correct from the threshold up


def test_a_conversation_goes_through_the_chat_template(rm_dir: Path) -> None:
    messages = [{"role": "user", "content": "2+2?"}]
    tokenizer = transformers.AutoTokenizer.from_pretrained(rm_dir)
    text = tokenizer.apply_chat_template([*messages, {"role": "assistant", "content": "4"}], tokenize=False)
    r = RewardModel(rm_dir, device="cpu").verify("-", "4", prompt=messages)  # type: ignore[arg-type]
    assert r.components["logit"] == pytest.approx(trl_logits(rm_dir, [text])[0], abs=1e-5)


def test_batches_pickling_and_an_executor_give_the_same_scores(rm_dir: Path) -> None:
    completions = [f"answer {k} " * (k + 1) for k in range(7)] + [None]
    rm = RewardModel(rm_dir, device="cpu", batch_size=3)
    one_batch = RewardModel(rm_dir, device="cpu", batch_size=16).verify_many(["-"] * 8, completions)
    batched = rm.verify_many(["-"] * 8, completions)
    clone = pickle.loads(pickle.dumps(rm)).verify_many(["-"] * 8, completions)
    executor = LocalExecutor()
    try:
        remote = rm.verify_many(["-"] * 8, completions, executor=executor)
    finally:
        executor.close()
    assert batched[-1].status == "no_answer" and remote[-1].status == "no_answer"
    for results in (batched, clone, remote):
        assert [r.reward for r in results[:-1]] == pytest.approx([r.reward for r in one_batch[:-1]], abs=1e-5)


def test_a_reward_model_can_be_the_judge_of_a_rule(rm_dir: Path) -> None:
    from verifiers import math as vm

    hybrid = with_judge(vm.verify, RewardModel(rm_dir, device="cpu", threshold=0.01))
    assert hybrid.verify("4", "The answer is 4.").reason.startswith("The rule decided")
    judged = hybrid.verify("4", "The answer is four.")
    assert judged.reason.startswith("The judge decided: The reward model gave") and judged.status == "correct"


def test_a_model_that_cannot_load_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VerifierInputError, match="cannot load the reward model '/no/such/dir'"):
        RewardModel("/no/such/dir")
    two = save_reward_model(tmp_path / "two", labels=2)
    with pytest.raises(VerifierInputError, match="has 2 labels; a reward model has one logit"):
        RewardModel(two)
    with pytest.raises(VerifierInputError, match="threshold is on the sigmoid"):
        RewardModel(two, threshold=0.0)


@pytest.mark.gpu
def test_on_a_gpu_by_default_with_the_cpus_scores(rm_dir: Path) -> None:
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU here")
    completions = [f"answer {k} " * (k + 1) for k in range(5)]
    on_gpu = RewardModel(rm_dir)  # CUDA when present
    assert on_gpu.device == "cuda" and next(on_gpu.model.parameters()).device.type == "cuda"
    expected = [r.components["logit"] for r in RewardModel(rm_dir, device="cpu").verify_many(["-"] * 5, completions)]
    got = [r.components["logit"] for r in on_gpu.verify_many(["-"] * 5, completions)]
    assert got == pytest.approx(expected, abs=1e-3)
