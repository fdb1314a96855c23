"""The known families' thinking formats and end-of-turn tokens: data, one row per format.

Sources: each family's chat template and vLLM's reasoning parsers (``vllm/reasoning/``). A
format is detected by the first of its delimiters in a completion (`_read`); order breaks ties.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifiers.errors import VerifierInputError

__all__ = ["END_OF_TURN", "LEADING", "THINKING_FORMATS", "ThinkingFormat"]


@dataclass(frozen=True)
class ThinkingFormat:
    """How one family marks its thinking section, and its final section where it marks one.

    Only text after the last ``end`` delimiter is the final section; a ``start`` with no
    ``end`` after it is a thinking section that never closed (cut off): no final answer.
    A format with only ``end`` in a completion is the common case where the chat template
    opened the thinking section in the prompt (R1, QwQ, Qwen3-2507, MiniMax-M2, ...).

    Examples:
        >>> mine = ThinkingFormat("scratch", start=("<scratch>",), end=("</scratch>",))
        >>> mine.delimiters
        ('<scratch>', '</scratch>')
    """

    name: str
    start: tuple[str, ...]
    """Delimiters that open the thinking section (alternatives); () when only the template opens it."""
    end: tuple[str, ...]
    """Delimiters that close it (alternatives); the final section follows the last one."""
    final_start: tuple[str, ...] = ()
    """Opens the final section (``<|begin_of_solution|>``); dropped where the final section starts with it."""
    final_end: tuple[str, ...] = ()
    """Closes the final section (``<|end_of_solution|>``); what follows is ignored."""
    at_start: bool = False
    """``start`` counts only at the very beginning (a header in words, such as Granite's). A start
    made of letters alone must be glued to the next word (``analysisWe need``: gpt-oss decoded
    with its special tokens dropped), so prose that begins with the same word is not thinking."""
    turn_tokens: tuple[str, ...] = ()
    """Tokens of `END_OF_TURN` that separate sections here instead (Harmony's ``<|end|>``)."""
    families: str = ""
    """Which models write it (documentation)."""

    def __post_init__(self) -> None:
        for name in ("start", "end", "final_start", "final_end", "turn_tokens"):
            value = getattr(self, name)
            if not isinstance(value, tuple) or not all(isinstance(d, str) and d.strip() for d in value):
                raise VerifierInputError(
                    f"ThinkingFormat.{name} must be a tuple of non-empty strings, got {value!r} (e.g. ('</think>',))"
                )
        if not self.end:
            raise VerifierInputError(f"ThinkingFormat {self.name!r} needs at least one end delimiter")

    @property
    def delimiters(self) -> tuple[str, ...]:
        """Every delimiter of the format, in order: start, end, final start, final end."""
        return self.start + self.end + self.final_start + self.final_end


def _f(name: str, start: tuple[str, ...], end: tuple[str, ...], families: str, **kw: object) -> ThinkingFormat:
    return ThinkingFormat(name, start, end, families=families, **kw)  # type: ignore[arg-type]


THINKING_FORMATS: tuple[ThinkingFormat, ...] = (
    _f(
        "think",
        ("<think>",),
        ("</think>",),
        "DeepSeek-R1 and V3.1+, Qwen3, QwQ, GLM-4.5+, Phi-4-reasoning, Kimi K2/K2.5, OLMo 3, Nemotron, "
        "SmolLM3, OpenThinker, Magistral 2506, MiniMax-M2, Hunyuan, ERNIE 4.5, Granite 3.3, Step3 "
        "(a ``<response>`` or ``<answer>`` may follow the thought)",
        final_start=("<response>",),
        final_end=("</response>",),
    ),
    _f(
        "begin_of_thought",
        ("<|begin_of_thought|>",),
        ("<|end_of_thought|>",),
        "Sky-T1, OpenThoughts-114k, Bespoke-Stratos",
        final_start=("<|begin_of_solution|>",),
        final_end=("<|end_of_solution|>",),
    ),
    _f(
        "harmony",
        ("<|channel|>analysis<|message|>", "<|channel|>commentary"),
        ("<|channel|>final<|message|>",),
        "gpt-oss (OpenAI Harmony: analysis and commentary channels, then the final channel)",
        final_end=("<|end|>",),
        turn_tokens=("<|end|>",),
    ),
    _f(
        "harmony_decoded",
        ("analysis",),
        ("assistantfinal",),
        "gpt-oss decoded with skip_special_tokens=True (the channel tokens dropped)",
        at_start=True,
    ),
    _f("kimi", ("◁think▷",), ("◁/think▷",), "Kimi-VL-Thinking"),
    _f("seed", ("<seed:think>",), ("</seed:think>",), "ByteDance Seed-OSS"),
    _f("minimax", ("<mm:think>",), ("</mm:think>",), "MiniMax-M3 (M1 and M2 write <think>)"),
    _f("mistral", ("[THINK]",), ("[/THINK]",), "Magistral 2507 and later, Ministral 3 reasoning (control tokens)"),
    _f("thought", ("<thought>",), ("</thought>",), "EXAONE Deep"),
    _f("thinking", ("<thinking>",), ("</thinking>",), "Apriel 1.5, models prompted with <thinking> tags"),
    _f("longcat", ("<longcat_think>",), ("</longcat_think>",), "LongCat"),
    _f(
        "cohere",
        ("<|START_THINKING|>",),
        ("<|END_THINKING|>",),
        "Cohere Command A Reasoning, Command R7B",
        final_start=("<|START_RESPONSE|>", "<|START_TEXT|>"),
        final_end=("<|END_RESPONSE|>", "<|END_TEXT|>"),
    ),
    _f("gemma", ("<|channel>thought",), ("<channel|>",), "Gemma 4 (the thought channel)"),
    _f(
        "kimi_k3",
        ("<|open|>think<|sep|>",),
        ("<|close|>think<|sep|>",),
        "Kimi K3",
        final_start=("<|open|>response<|sep|>",),
        final_end=("<|close|>response<|sep|>",),
    ),
    _f("solar", ("<|think:start|>",), ("<|think:end|>",), "Solar Open 2"),
    _f("apertus", ("<|inner_prefix|>",), ("<|inner_suffix|>",), "Apertus"),
    _f("plamo", ("<|plamo:begin_think:plamo|>",), ("<|plamo:end_think:plamo|>",), "PLaMo 3"),
    _f(
        "granite",
        ("Here is my thought process:", "Here's my thought process:"),
        ("Here is my response:", "Here's my response:"),
        "Granite 3.2",
        at_start=True,
    ),
    _f(
        "apriel",
        ("Here are my reasoning steps:",),
        ("[BEGIN FINAL RESPONSE]",),
        "Apriel Nemotron / Apriel 1.6",
        final_end=("[END FINAL RESPONSE]",),
        at_start=True,
    ),
)
"""The known formats, detected in this order of priority when two begin at the same place."""

END_OF_TURN: tuple[str, ...] = (
    "<|im_end|>",  # ChatML: Qwen, Phi-4, SmolLM, OLMo, Hermes
    "<|im_start|>",  # ChatML: the next turn
    "<|endoftext|>",  # GPT-2 / Qwen / GLM end of text
    "<|end_of_text|>",  # Llama 3
    "<|eot_id|>",  # Llama 3
    "<|eom_id|>",  # Llama 3 (tool call)
    "<|start_header_id|>",  # Llama 3: the next turn
    "</s>",  # Llama 2, Mistral, ERNIE
    "[INST]",  # Mistral: the next user turn
    "[/INST]",
    "<eos>",  # Gemma
    "<end_of_turn>",  # Gemma 2/3
    "<start_of_turn>",  # Gemma: the next turn
    "<turn|>",  # Gemma 4
    "<｜end▁of▁sentence｜>",  # DeepSeek
    "<|end▁of▁sentence|>",  # DeepSeek (ASCII bars, as some decoders write it)
    "<｜User｜>",  # DeepSeek: the next turn
    "<|EOT|>",  # DeepSeek-Coder
    "<|end|>",  # Phi-3 / Phi-4-mini, Apriel (in Harmony it closes a message: see turn_tokens)
    "<|return|>",  # Harmony: end of the final message
    "<|call|>",  # Harmony: a tool call ends the turn
    "<|user|>",  # GLM, Phi: the next turn
    "<|observation|>",  # GLM: a tool result follows
    "<|system|>",
    "<seed:eos>",  # Seed-OSS
    "[|endofturn|]",  # EXAONE
    "<|END_OF_TURN_TOKEN|>",  # Cohere
    "<|START_OF_TURN_TOKEN|>",  # Cohere: the next turn
    "<|endofturn|>",
    "[|user|]",  # EXAONE: the next turn
    "<|start_of_role|>",  # Granite: the next turn
    "<eop>",  # GLM
    "[e~[",  # MiniMax-M2
    "]~b]",  # MiniMax-M2: the next turn
    "<SPECIAL_12>",  # Nemotron-H / Nano v2
    "<｜tool▁calls▁begin｜>",  # DeepSeek: a tool call, not an answer
)
"""Tokens after which nothing is the answer (the turn ended), unless a detected format uses one
as a section separator (`ThinkingFormat.turn_tokens`)."""

LEADING: tuple[str, ...] = (
    "<|im_start|>assistant",
    "<|im_start|>",
    "<|im_sep|>",
    "<|start_header_id|>assistant<|end_header_id|>",
    "<|begin_of_text|>",
    "<|start|>assistant",
    "<|assistant|>",
    "<｜Assistant｜>",
    "<start_of_turn>model",
    "<|turn>model",
    "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
    "<|CHATBOT_TOKEN|>",
    "<|endoftext|>",
    "<bos>",
    "<s>",
)
"""Template tokens that may open a completion (the assistant turn's header): dropped."""
