"""Where the answer is: a completion's thinking section, final section and end-of-turn residue.

Every verifier reads only the *final section* of a completion: the math verifier's answer
grammar, the code extractor and the environments' answer formats all start from
`read_completion`. Reasoning models write their thinking in one of a few families of formats
(`THINKING_FORMATS`, data: ``<think>...</think>``, ``<|begin_of_thought|>...<|end_of_thought|>``
with a ``<|begin_of_solution|>`` section, gpt-oss's Harmony channels, ``◁think▷``,
``<seed:think>``, ``[THINK]``, Cohere's ``<|START_THINKING|>``, the Granite and Apriel headers,
...); the format is detected, never configured. Rules:

- only the text after the thinking section's last closing delimiter can hold the answer; a
  closing delimiter alone is a thinking section the chat template opened in the prompt;
- a thinking section opened and never closed (cut off by the token limit) has no final section:
  a right value inside it is never an answer;
- a chat template that opens the thought in the prompt (R1 and its distills, Qwen3-Thinking,
  QwQ: the prompt ends with ``<think>``) is found once with `opened_thought(tokenizer)`; told so
  (``read_completion(text, opened="think")``), a completion cut off before ``</think>``, which
  then carries no delimiter at all, is a cut-off thought, not a plain answer;
- the turn ends at the first end-of-turn token of the table (`END_OF_TURN`: ``<|im_end|>``,
  ``<|eot_id|>``, ``<｜end▁of▁sentence｜>``, ``<seed:eos>``, ``[|endofturn|]``, ...); a token that
  a detected format uses as a section separator (Harmony's ``<|end|>``) does not end it there;
  section delimiters never end a completion.

Delimiters that are special tokens (``[THINK]``, Harmony's, Gemma's) must be in the text: our
trainer and eval decode with them kept (`trainer`'s generators keep every delimiter of this
table); with another engine, decode with ``skip_special_tokens=False`` or keep them yourself.
gpt-oss decoded with its special tokens dropped (``analysis...assistantfinal...``) is read too.

Examples:
    >>> from verifiers.structure import read_completion
    >>> read_completion("<|channel|>analysis<|message|>11?<|end|><|start|>assistant"
    ...                 "<|channel|>final<|message|>It is 12.<|return|>").final
    'It is 12.'
"""

from __future__ import annotations

from verifiers.structure._families import END_OF_TURN, THINKING_FORMATS, ThinkingFormat
from verifiers.structure._read import Completion, read_completion
from verifiers.structure._template import opened_thought

__all__ = ["END_OF_TURN", "THINKING_FORMATS", "Completion", "ThinkingFormat", "opened_thought", "read_completion"]
