"""The fallback for a model without tools: each fenced ```` ```bash ```` (or ```` ```sh ````)
block is one ``bash`` call; results return as a user turn (the prompt must describe the tool:
no ``tools=`` goes to the template)."""

from __future__ import annotations

import re
from typing import Any, ClassVar

from grpo_envs.tools._call import ToolCall, ToolFormat, after_thinking

_FENCE = re.compile(r"```(?:bash|sh|shell)[ \t]*\n(.*?)(?:\n)?```", re.DOTALL)


class FencedBash(ToolFormat):
    """```` ```bash\\nls\\n``` ````.

    Examples:
        >>> FencedBash().parse("I will list.\\n```bash\\nls -l\\n```")
        [ToolCall(name='bash', arguments={'command': 'ls -l'}, id='call00001')]
    """

    name: ClassVar[str] = "fenced"
    result_role: ClassVar[str] = "user"
    takes_tools: ClassVar[bool] = False
    end_tokens: ClassVar[tuple[str, ...]] = ()

    def parse(self, text: str, tools: list[dict[str, Any]] | None = None) -> list[ToolCall]:
        return [ToolCall("bash", {"command": body}) for body in _FENCE.findall(after_thinking(text))]

    def write(self, call: ToolCall) -> str:
        return f"```bash\n{call.arguments.get('command', '')}\n```"

    def call_message(self, calls: list[ToolCall], content: str = "") -> dict[str, Any]:
        return {"role": "assistant", "content": content + "\n".join(self.write(c) for c in calls)}

    def result_message(self, output: str, call: ToolCall) -> dict[str, Any]:
        return {"role": "user", "content": output}
