"""`FileTokenizer`: a model's tokenizer files read with ``tokenizers`` and its chat template
rendered with ``jinja2``, without torch or transformers, for the OpenAI-compatible backend: the
prompts it sends are the ones the transformers and vLLM backends build (same template, same
special tokens).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from trainer.errors import TrainerError

__all__ = ["FileTokenizer"]

FILES = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "chat_template.json")


def _token(value: Any) -> str | None:
    if isinstance(value, dict):  # {"content": "<eos>", ...}
        value = value.get("content")
    return value if isinstance(value, str) else None


def _compile(template: str) -> Any:
    """The template in jinja2's sandbox, with the globals and filters transformers gives it."""
    import jinja2
    from jinja2.ext import loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise jinja2.exceptions.TemplateError(message)

    def tojson(
        x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None, sort_keys: bool = False
    ) -> str:
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = tojson
    env.globals.update(raise_exception=raise_exception, strftime_now=lambda f: datetime.now().strftime(f))
    return env.from_string(template)


class FileTokenizer:
    """The tokenizer in a folder (``tokenizer.json``, ``tokenizer_config.json``, and the chat
    template from ``chat_template.jinja`` or the config), or a hub name fetched with
    ``huggingface_hub`` (online). It offers the part of a transformers tokenizer that rollouts use:
    calling it, ``decode``, ``apply_chat_template``, ``chat_template``, ``eos_token_id``.

    Examples:
        >>> import tempfile
        >>> from trainer.policy._model import demo_tokenizer
        >>> folder = tempfile.mkdtemp()
        >>> hf = demo_tokenizer("0123456789")
        >>> hf.chat_template = "{% for m in messages %}{{ m['content'] }}{{ eos_token }}{% endfor %}"
        >>> _ = hf.save_pretrained(folder)
        >>> tok = FileTokenizer(folder)
        >>> ids = tok.apply_chat_template([{"role": "user", "content": "12"}], add_generation_prompt=True)
        >>> ids == hf.apply_chat_template([{"role": "user", "content": "12"}], add_generation_prompt=True)["input_ids"]
        True
        >>> tok.decode(ids, skip_special_tokens=True)
        '12'
    """

    def __init__(self, name_or_path: str | Path) -> None:
        folder = Path(name_or_path)
        if not folder.is_dir():
            folder = self._fetch(str(name_or_path))
        if not (folder / "tokenizer.json").is_file():
            raise TrainerError(
                f"{folder} has no tokenizer.json: pass --tokenizer with a folder that has the model's tokenizer files"
            )
        from tokenizers import Tokenizer

        self._core = Tokenizer.from_file(str(folder / "tokenizer.json"))
        config_path = folder / "tokenizer_config.json"
        config: dict[str, Any] = json.loads(config_path.read_text()) if config_path.is_file() else {}
        self.special = {
            key: token
            for key in ("bos_token", "eos_token", "pad_token", "unk_token")
            if (token := _token(config.get(key)))
        }
        template = config.get("chat_template")
        if (folder / "chat_template.jinja").is_file():
            template = (folder / "chat_template.jinja").read_text()
        elif (folder / "chat_template.json").is_file():
            template = json.loads((folder / "chat_template.json").read_text()).get("chat_template")
        if isinstance(template, list):  # named templates: the default one
            template = next((t["template"] for t in template if t.get("name") == "default"), None)
        self.chat_template: str | None = template if isinstance(template, str) else None
        self._compiled = _compile(self.chat_template) if self.chat_template else None

    @staticmethod
    def _fetch(name: str) -> Path:
        try:
            from huggingface_hub import snapshot_download

            return Path(snapshot_download(name, allow_patterns=list(FILES)))
        except Exception as exc:
            raise TrainerError(
                f"cannot find the tokenizer {name!r}: not a local folder, and the hub said {type(exc).__name__}. "
                "Pass --tokenizer DIR (a folder with tokenizer.json), or go online for a hub name."
            ) from None

    def _id(self, key: str) -> int | None:
        token = self.special.get(key)
        return self._core.token_to_id(token) if token is not None else None

    @property
    def eos_token(self) -> str | None:
        return self.special.get("eos_token")

    @property
    def bos_token(self) -> str | None:
        return self.special.get("bos_token")

    @property
    def eos_token_id(self) -> int | None:
        return self._id("eos_token")

    @property
    def bos_token_id(self) -> int | None:
        return self._id("bos_token")

    @property
    def pad_token_id(self) -> int | None:
        return self._id("pad_token")

    def __call__(self, text: str, add_special_tokens: bool = False) -> dict[str, list[int]]:
        return {"input_ids": list(self._core.encode(text, add_special_tokens=add_special_tokens).ids)}

    @property
    def added_tokens_decoder(self) -> dict[int, Any]:
        """The added tokens by id (each with ``content`` and ``special``), as transformers has it."""
        return dict(self._core.get_added_tokens_decoder())

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        text: str = self._core.decode(list(ids), skip_special_tokens=skip_special_tokens)
        return text

    def render(self, messages: Sequence[dict[str, str]], *, add_generation_prompt: bool) -> str:
        """The chat template rendered as text (transformers' `apply_chat_template` with ``tokenize=False``)."""
        if self._compiled is None:
            raise TrainerError("this tokenizer has no chat template: its prompts are the env's plain text")
        out: str = self._compiled.render(
            messages=list(messages), add_generation_prompt=add_generation_prompt, **self.special
        )
        return out

    def apply_chat_template(
        self, messages: Sequence[dict[str, str]], *, add_generation_prompt: bool = False, tokenize: bool = True
    ) -> list[int] | str:
        text = self.render(messages, add_generation_prompt=add_generation_prompt)
        return self(text)["input_ids"] if tokenize else text
