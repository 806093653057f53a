"""State an answer carries for the next turn, inside the assistant message the client sends back.

The service is stateless: chat clients resend the whole conversation, so the place to keep what a
follow-up needs ("再来两个" after which list, with which filters) is the assistant message itself.
It rides as the last line, a CommonMark link reference definition:

    [suikou]: # "q1.eyJwbGFuIjp7Li4ufX0"

which every Markdown renderer (Open WebUI, LobeChat, Cherry Studio, NextChat) shows as nothing and
clients keep verbatim. `q1` names the kind and version of the payload; the rest is compact JSON in
unpadded base64url. A feature owns its payload's schema; this module owns only the envelope.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

_LINE = re.compile(r'\n*^\[suikou\]: # "(?P<kind>[a-z][a-z0-9]{0,7})\.(?P<data>[A-Za-z0-9_-]+)"[ \t]*$', re.M)
MAX_ENCODED_CHARS = 4096  # far above a real payload; a bound on what a client can make us decode
# Stage lines an answer opened with (`<think>` display mode, docs/fdr/0021), as a client sends the
# message back; Open WebUI may keep them as a `<details type="reasoning">` block instead.
_LEADING_THINK = re.compile(r'\A\s*(?:<think>.*?</think>|<details type="reasoning"[^>]*>.*?</details>)\s*', re.S)


def attach(text: str, kind: str, payload: dict[str, Any]) -> str:
    """`text` with the payload appended as an invisible last line (a blank line first, as Markdown needs)."""
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    data = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return f'{strip(text)}\n\n[suikou]: # "{kind}.{data}"'


def read(text: str, kind: str) -> dict[str, Any] | None:
    """The last payload of `kind` in `text`, or None (absent, another kind, or not decodable)."""
    for match in reversed(list(_LINE.finditer(strip_think(text)))):
        if match.group("kind") != kind:
            continue
        data = match.group("data")
        if len(data) > MAX_ENCODED_CHARS:
            return None
        try:
            decoded = json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
        except (binascii.Error, ValueError):
            return None
        return decoded if isinstance(decoded, dict) else None
    return None


def strip_think(text: str) -> str:
    """`text` without a leading think block: stage lines are neither the answer nor its record."""
    return _LEADING_THINK.sub("", text, count=1)


def strip(text: str) -> str:
    """`text` without a leading think block or carried lines: what a person (or a model reading
    history) should see."""
    return _LINE.sub("", strip_think(text)).rstrip()
