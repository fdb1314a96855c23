"""Tool calls in each chat family's format against that family's published chat template
(vendored in chat_templates/, see its README), through a byte-level tokenizer built here whose
vocabulary holds the family's special tokens: what the template renders for a call parses back to
the call; a multi-turn episode keeps the sampled ids and appends exactly the template's ids for
each observation (never re-rendering earlier turns)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grpo_envs.tools import (
    FencedBash,
    ToolCall,
    ToolFormat,
    ToolFormatError,
    bash_tool,
    detect_format,
    observation_ids,
    tool_format,
)
from grpo_envs.tools._qwen_xml import coerce
from grpo_envs.tools._render import render_ids

TEMPLATES = Path(__file__).with_name("chat_templates")
QWEN = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
LLAMA = ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|eom_id|>", "<|python_tag|>")
HARMONY = (
    "<|endoftext|>",
    "<|start|>",
    "<|end|>",
    "<|message|>",
    "<|channel|>",
    "<|call|>",
    "<|return|>",
    "<|constrain|>",
)
MISTRAL = (
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[TOOL_CALLS]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
)
# format, template, special tokens, bos, eos
FAMILIES = {
    "qwen": ("qwen", "Qwen-Qwen3-0.6B.jinja", QWEN, None, "<|im_end|>"),
    "qwen-xml": ("qwen-xml", "Qwen3-Coder.jinja", QWEN, None, "<|im_end|>"),
    "llama": ("llama", "meta-llama-Llama-3.2-3B-Instruct.jinja", LLAMA, "<|begin_of_text|>", "<|eot_id|>"),
    "harmony": ("harmony", "openai-gpt-oss-120b.jinja", HARMONY, None, "<|return|>"),
    "mistral": ("mistral", "mistralai-Mistral-Nemo-Instruct-2407.jinja", MISTRAL, "<s>", "</s>"),
    "fenced": ("fenced", "Qwen-Qwen3-0.6B.jinja", QWEN, None, "<|im_end|>"),
}
TOOLS = [bash_tool()]
_TOKENIZERS: dict[str, Any] = {}


def family_tokenizer(family: str) -> Any:
    """A byte-level tokenizer (exact round trip) with ``family``'s special tokens and its
    published chat template."""
    if family not in _TOKENIZERS:
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
        from transformers import PreTrainedTokenizerFast

        _, template, specials, bos, eos = FAMILIES[family]
        core = Tokenizer(models.BPE())
        core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        core.decoder = decoders.ByteLevel()
        alphabet = pre_tokenizers.ByteLevel.alphabet()
        trainer = trainers.BpeTrainer(vocab_size=300, initial_alphabet=alphabet, special_tokens=list(specials))
        core.train_from_iterator([], trainer=trainer)
        tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, bos_token=bos, eos_token=eos, pad_token=specials[0])
        tokenizer.chat_template = (TEMPLATES / template).read_text()
        _TOKENIZERS[family] = tokenizer
    return _TOKENIZERS[family]


def _format(family: str) -> ToolFormat:
    return tool_format(FAMILIES[family][0])


def _decode(tokenizer: Any, ids: list[int]) -> str:
    return str(tokenizer.decode(ids, skip_special_tokens=False))


@pytest.mark.parametrize("family", [f for f in FAMILIES if f != "fenced"])
def test_what_the_template_renders_for_a_call_parses_back_to_that_call(family: str) -> None:
    """The published template writes an earlier call; our parser reads it back (so parsing
    meets the family's own convention, not only ours)."""
    tokenizer, fmt = family_tokenizer(family), _format(family)
    call = ToolCall("bash", {"command": "grep -c 'x' a.txt && echo \"done\""})
    user = {"role": "user", "content": "Count."}
    before = tokenizer.apply_chat_template([user], tools=TOOLS, tokenize=False, add_generation_prompt=True)
    after = tokenizer.apply_chat_template([user, fmt.call_message([call])], tools=TOOLS, tokenize=False)
    assert fmt.parse(after[len(before) :], TOOLS) == [call]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_written_call_parses_back(family: str) -> None:
    fmt = _format(family)
    call = ToolCall("bash", {"command": "cd /tmp; printf '%s\\n' \"a b\" | wc -l # {x}"})
    assert fmt.parse(fmt.write(call), TOOLS) == [call]
    assert fmt.parse("I am done.", TOOLS) == []


@pytest.mark.parametrize("family", list(FAMILIES))
def test_an_episode_keeps_sampled_ids_and_appends_the_templates_observation(family: str) -> None:
    """Two tool turns, then the answer: the context is the prompt, then each turn exactly as
    sampled and each observation exactly as the template renders the tool role's message (the
    ids the template gives after the call turn's end token)."""
    tokenizer, fmt = family_tokenizer(family), _format(family)
    tools = TOOLS if fmt.takes_tools else None
    messages: list[dict[str, Any]] = [{"role": "user", "content": "List the files."}]
    context = render_ids(tokenizer, messages, tools, add_generation_prompt=True)
    for command, output in (("ls", "a.txt\nb.txt"), ("wc -l a.txt", '3 a.txt "quoted"')):
        call = ToolCall("bash", {"command": command})
        thought = "<think>\nI should look.\n</think>\n\n" if family in ("qwen", "qwen-xml", "fenced") else ""
        sampled = tokenizer(thought + fmt.write(call), add_special_tokens=False)["input_ids"]
        sampled += [tokenizer.convert_tokens_to_ids(fmt.end_tokens[0] if fmt.end_tokens else tokenizer.eos_token)]
        assert fmt.parse(_decode(tokenizer, sampled), tools) == [call]
        observation = observation_ids(tokenizer, fmt, [(call, output)], tools)
        start = len(context)
        context = [*context, *sampled, *observation]
        assert context[start : start + len(sampled)] == sampled  # what was sampled stays, id for id
        messages += [fmt.call_message([call]), fmt.result_message(output, call)]
        # the observation is the template's own rendering of the tool message and the next prompt
        full = _decode(tokenizer, render_ids(tokenizer, messages, tools, add_generation_prompt=True))
        rendered = _decode(tokenizer, observation)
        assert full.endswith(rendered)
        assert output in rendered or json.dumps(output) in rendered  # Llama and Harmony JSON-encode it
        assert render_ids(tokenizer, messages, tools, add_generation_prompt=True)[-len(observation) :] == observation


def test_qwen3_re_rendering_would_change_sampled_thinking_but_appending_does_not() -> None:
    """Why earlier turns are never re-rendered: Qwen3's template drops the thinking of a turn
    before the last user query, so the whole conversation rendered again differs from the ids
    sampled; the appended context keeps them."""
    tokenizer, fmt = family_tokenizer("qwen"), tool_format("qwen")
    call = ToolCall("bash", {"command": "ls"})
    sampled_text = "<think>\nplan\n</think>\n\n" + fmt.write(call)
    messages = [{"role": "user", "content": "Go."}, {"role": "assistant", "content": sampled_text}]
    messages += [{"role": "user", "content": "Again."}]
    again = _decode(tokenizer, render_ids(tokenizer, messages, TOOLS, add_generation_prompt=True))
    assert "plan" not in again  # a re-render loses the sampled thought
    sampled = tokenizer(sampled_text, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
    context = [*sampled, *observation_ids(tokenizer, fmt, [(call, "a.txt")], TOOLS)]
    assert "plan" in _decode(tokenizer, context) and context[: len(sampled)] == sampled


def test_several_results_render_as_one_observation() -> None:
    tokenizer, fmt = family_tokenizer("qwen"), tool_format("qwen")
    calls = [(ToolCall("bash", {"command": "ls"}), "a"), (ToolCall("bash", {"command": "pwd"}), "/w")]
    text = _decode(tokenizer, observation_ids(tokenizer, fmt, calls, TOOLS))
    assert (
        text
        == "\n<|im_start|>user\n<tool_response>\na\n</tool_response>\n<tool_response>\n/w\n</tool_response><|im_end|>\n<|im_start|>assistant\n"
    )


def test_observations_render_in_each_familys_tool_role() -> None:
    """The result goes where each family's template puts it (the shapes the issue names)."""
    call = ToolCall("bash", {"command": "ls"})
    seen = {
        f: _decode(family_tokenizer(f), observation_ids(family_tokenizer(f), _format(f), [(call, "ok")], TOOLS))
        for f in FAMILIES
    }
    assert seen["qwen"].startswith("\n<|im_start|>user\n<tool_response>\nok\n</tool_response><|im_end|>")
    assert seen["qwen-xml"].startswith("\n<|im_start|>user\n<tool_response>\nok\n</tool_response>\n<|im_end|>")
    assert (
        seen["llama"]
        == '<|start_header_id|>ipython<|end_header_id|>\n\n"ok"<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n'
    )
    assert (
        seen["harmony"]
        == '<|start|>functions.bash to=assistant<|channel|>commentary<|message|>"ok"<|end|><|start|>assistant'
    )
    assert seen["mistral"] == '[TOOL_RESULTS]{"content": ok, "call_id": "call00001"}[/TOOL_RESULTS]'
    assert seen["fenced"] == "\n<|im_start|>user\nok<|im_end|>\n<|im_start|>assistant\n"


def test_qwen_xml_values_are_coerced_by_the_tools_schema() -> None:
    schema = {"n": {"type": "integer"}, "x": {"type": "number"}, "on": {"type": "boolean"}, "opts": {"type": "object"}}
    schema |= {"items": {"type": "array"}, "s": {"type": "string"}}
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": schema}}}]
    text = (
        "<tool_call>\n<function=f>\n"
        + "".join(
            f"<parameter={k}>\n{v}\n</parameter>\n"
            for k, v in (
                ("n", "3"),
                ("x", "2.5"),
                ("on", "True"),
                ("opts", "{'a': 1}"),
                ("items", "[1, 2]"),
                ("s", "007"),
            )
        )
        + "</function>\n</tool_call>"
    )
    (call,) = tool_format("qwen-xml").parse(text, tools)
    assert call.arguments == {"n": 3, "x": 2.5, "on": True, "opts": {"a": 1}, "items": [1, 2], "s": "007"}
    assert coerce("three", {"type": "integer"}) == "three"  # what the model wrote, for the verifier to judge
    assert coerce("1", {"type": "boolean"}) == "1"


def test_lenient_and_strict_edges() -> None:
    """A call cut off by the end of generation still parses when its body is whole; garbage does not."""
    assert tool_format("qwen").parse('<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}') == [
        ToolCall("bash", {"command": "ls"})
    ]
    assert tool_format("qwen").parse("<tool_call>\n{not json}\n</tool_call>") == []
    assert tool_format("qwen").parse(
        '<tool_call>{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}</tool_call>'
    )[0].arguments == {"command": "ls"}
    assert (
        tool_format("mistral")
        .parse('[TOOL_CALLS][{"name": "bash", "arguments": {"command": "ls"}, "id": "abcdefghi"}]</s>')[0]
        .id
        == "abcdefghi"
    )
    assert tool_format("llama").parse("The answer is 4.") == []
    assert FencedBash().parse("```python\nprint(1)\n```") == []


@pytest.mark.parametrize("family", [f for f in FAMILIES if f != "harmony"])
def test_a_call_drafted_in_the_thinking_is_no_call(family: str) -> None:
    """A thought that drafts a call, then an answer: no call; a call after the thought counts;
    a thought cut off before its end holds no call either."""
    fmt = _format(family)
    draft, real = fmt.write(ToolCall("bash", {"command": "rm -rf /"})), fmt.write(ToolCall("bash", {"command": "ls"}))
    opening, closing = ("[THINK]", "[/THINK]") if family == "mistral" else ("<think>", "</think>")
    assert fmt.parse(f"{opening}maybe {draft}?{closing}\nThe answer is 4.", TOOLS) == []
    assert fmt.parse(f"{opening}maybe {draft}?{closing}\n{real}", TOOLS) == [ToolCall("bash", {"command": "ls"})]
    assert fmt.parse(f"{opening}I could run {draft}", TOOLS) == []


@pytest.mark.parametrize("family", list(FAMILIES))
def test_the_format_is_detected_from_the_template(family: str) -> None:
    expected = "qwen" if family == "fenced" else family
    assert detect_format(family_tokenizer(family)).name == expected


def test_an_unknown_format_and_a_rerendering_template_are_refused_in_one_line() -> None:
    with pytest.raises(ToolFormatError, match="tool format must be one of"):
        tool_format("hermes2")
    tokenizer = family_tokenizer("qwen")
    saved = tokenizer.chat_template
    tokenizer.chat_template = (
        "{% for m in messages %}{{ '<|im_start|>' + m.role + (messages|length|string) + '<|im_end|>' }}{% endfor %}"
    )
    try:
        with pytest.raises(ToolFormatError, match="pure suffix"):
            observation_ids(tokenizer, tool_format("qwen"), [(ToolCall("bash", {"command": "ls"}), "a")], TOOLS)
    finally:
        tokenizer.chat_template = saved
