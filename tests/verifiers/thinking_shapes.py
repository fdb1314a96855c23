"""Raw completions in each reasoning-model family's own format, written here from the families'
chat templates and vLLM's reasoning parsers (not from `verifiers.structure`'s table, so a wrong
row there fails a test). ``{t}`` is the thinking, ``{f}`` the final section.

Each shape: (name, closed, cut_off); ``closed`` holds both parts, ``cut_off`` is the output
stopped by the token limit inside the thinking (None where the template opens the thinking in
the prompt: a cut-off output then carries no delimiter at all).
"""

from __future__ import annotations

# ruff: noqa: E501

SHAPES: list[tuple[str, str, str | None]] = [
    ("DeepSeek-R1-0528 (<think> emitted)", "<think>\n{t}\n</think>\n\n{f}<｜end▁of▁sentence｜>", "<think>\n{t}"),
    ("DeepSeek-R1 / QwQ (template opens <think>)", "{t}\n</think>\n\n{f}<｜end▁of▁sentence｜>", None),
    ("Qwen3 hybrid", "<think>\n{t}\n</think>\n\n{f}<|im_end|>", "<think>\n{t}"),
    ("Qwen3-2507 thinking (opened)", "{t}\n</think>\n\n{f}<|im_end|>\n", None),
    ("GLM-4.5", "<think>{t}</think>\n{f}<|user|>", "<think>{t}"),
    ("GLM-4.1V (answer tags)", "<think>{t}</think><answer>{f}</answer><|user|>", "<think>{t}"),
    ("Hunyuan-A13B", "<think>\n{t}\n</think>\n<answer>\n{f}\n</answer>", "<think>\n{t}"),
    ("Phi-4-reasoning", "<think>{t}</think>{f}<|im_end|>", "<think>{t}"),
    ("Phi-4-mini-reasoning (<|end|> ends the turn)", "<think>{t}</think>\n{f}<|end|><|user|>", "<think>{t}"),
    ("Granite 3.3", "<think>{t}</think><response>{f}</response><|end_of_text|>", "<think>{t}"),
    ("ERNIE-4.5 thinking (opened, <response>)", "{t}\n</think>\n\n<response>\n{f}\n</response></s>", None),
    ("Kimi K2 thinking", "<think>{t}</think>{f}<|im_end|>", "<think>{t}"),
    ("MiniMax-M2 (opened)", "{t}\n</think>\n\n{f}[e~[", None),
    ("Nemotron Nano v2 (opened)", "{t}\n</think>\n\n{f}\n<SPECIAL_12>\n\n", None),
    (
        "Sky-T1 / OpenThoughts / Bespoke-Stratos",
        "<|begin_of_thought|>\n\n{t}\n\n<|end_of_thought|>\n\n<|begin_of_solution|>\n\n{f}\n\n<|end_of_solution|>",
        "<|begin_of_thought|>\n\n{t}",
    ),
    (
        "gpt-oss Harmony",
        "<|channel|>analysis<|message|>{t}<|end|><|start|>assistant<|channel|>final<|message|>{f}<|return|>",
        "<|channel|>analysis<|message|>{t}",
    ),
    ("gpt-oss Harmony, special tokens dropped", "analysis{t}assistantfinal{f}", "analysis{t}"),
    ("Kimi-VL-Thinking", "◁think▷{t}◁/think▷{f}<|im_end|>", "◁think▷{t}"),
    ("Seed-OSS", "<seed:think>{t}</seed:think>{f}<seed:eos>", "<seed:think>{t}"),
    ("MiniMax-M3", "<mm:think>{t}</mm:think>{f}", "<mm:think>{t}"),
    ("Magistral 2507+", "[THINK]{t}[/THINK]{f}</s>", "[THINK]{t}"),
    ("EXAONE Deep", "<thought>\n{t}\n</thought>\n\n{f}[|endofturn|]", "<thought>\n{t}"),
    (
        "Cohere Command A Reasoning",
        "<|START_THINKING|>{t}<|END_THINKING|><|START_RESPONSE|>{f}<|END_RESPONSE|><|END_OF_TURN_TOKEN|>",
        "<|START_THINKING|>{t}",
    ),
    ("Gemma 4", "<|channel>thought\n{t}<channel|>{f}<turn|>", "<|channel>thought\n{t}"),
    (
        "Granite 3.2",
        "Here is my thought process:\n{t}\n\nHere is my response:\n{f}<|end_of_text|>",
        "Here is my thought process:\n{t}",
    ),
    (
        "Granite 3.2 (contracted)",
        "Here's my thought process:\n{t}\nHere's my response:\n{f}",
        "Here's my thought process:\n{t}",
    ),
    (
        "Apriel",
        "Here are my reasoning steps:\n{t}\n[BEGIN FINAL RESPONSE]\n{f}\n[END FINAL RESPONSE]\n<|end|>",
        "Here are my reasoning steps:\n{t}",
    ),
    (
        "Kimi K3",
        "<|open|>think<|sep|>{t}<|close|>think<|sep|><|open|>response<|sep|>{f}<|close|>response<|sep|>",
        "<|open|>think<|sep|>{t}",
    ),
]


def render(template: str, thinking: str, final: str = "") -> str:
    """``template`` with ``{t}`` and ``{f}`` filled (plain replacement: braces in math stay)."""
    return template.replace("{t}", thinking).replace("{f}", final)
