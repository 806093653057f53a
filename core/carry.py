"""State an answer carries for the next turn, inside the assistant message the client sends back.

The service is stateless: chat clients resend the whole conversation, so the place to keep what a
follow-up needs ("再来两个" after which list, with which filters) is the assistant message itself.
It rides as the last line, a CommonMark link reference definition:

    [suikou]: # "q1.eyJwbGFuIjp7Li4ufX0"

which every Markdown renderer (Open WebUI, LobeChat, Cherry Studio, NextChat) shows as nothing and
clients keep verbatim. `q1` names the kind and version of the payload; then comes compact JSON in
unpadded base64url, then a signature. A feature owns its payload's schema; this module owns only the
envelope.

The record comes back from the client, so it is input like any other (docs/fdr/0024). It is signed
with an HMAC of the deployment's own secret (`core.service_secrets`) over the kind, the payload and the user
it was written for (:class:`Seal`): a line without a valid signature — forged, edited, from another
user or another deployment, or written by a release before signing — reads as absent, and the
feature falls back to what the visible text says. Reading is bounded too (size, nesting depth), and
each feature still validates its payload against the same contract as REST input.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

TAG_CHARS = 22  # 16 bytes of HMAC-SHA256, unpadded base64url
_LINE = re.compile(
    r'\n*^\[suikou\]: # "(?P<kind>[a-z][a-z0-9]{0,7})\.(?P<data>[A-Za-z0-9_-]+)(?:\.(?P<tag>[A-Za-z0-9_-]+))?"[^\n]*$',
    re.M,
)  # text after the closing quote is a client's addition (an old "Continue" reply): not ours, ignored
MAX_ENCODED_CHARS = 4096  # far above a real payload; a bound on what a client can make us decode
MAX_DEPTH = 8  # of nested objects and lists in a payload; ours have at most 4
# A process's own secret, for turns made without a service (tests, a one-off script): records it
# signs are valid only within this process.
EPHEMERAL_SECRET = secrets.token_bytes(32)
# Stage lines an answer opened with (`<think>` display mode, docs/fdr/0021), as a client sends the
# message back; Open WebUI may keep them as a `<details type="reasoning">` block instead.
_LEADING_THINK = re.compile(r'\A\s*(?:<think>.*?</think>|<details type="reasoning"[^>]*>.*?</details>)\s*', re.S)


@dataclass(frozen=True)
class Seal:
    """Signs and checks the records of one user with one deployment's secret."""

    secret: bytes
    user_id: int

    def tag(self, kind: str, data: str) -> str:
        message = f"{self.user_id}\x1f{kind}\x1f{data}".encode()
        digest = hmac.new(self.secret, message, hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def fits(self, kind: str, data: str, tag: str | None) -> bool:
        return tag is not None and len(tag) == TAG_CHARS and hmac.compare_digest(self.tag(kind, data), tag)


def line(kind: str, payload: dict[str, Any], seal: Seal) -> str:
    """The record line alone: `[suikou]: # "<kind>.<data>.<tag>"`."""
    raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    data = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return f'[suikou]: # "{kind}.{data}.{seal.tag(kind, data)}"'


def _too_deep(value: Any) -> bool:
    """Nested deeper than :data:`MAX_DEPTH` (iterative: a client chooses the depth)."""
    level = [value]
    for _ in range(MAX_DEPTH):
        level = [
            child
            for node in level
            if isinstance(node, dict | list)
            for child in (node.values() if isinstance(node, dict) else node)
        ]
        if not level:
            return False
    return any(isinstance(node, dict | list) for node in level)


def attach(text: str, kind: str, payload: dict[str, Any], seal: Seal) -> str:
    """`text` with the payload appended as an invisible, signed last line (a blank line first, as
    Markdown needs)."""
    return f"{strip(text)}\n\n{line(kind, payload, seal)}"


def read(text: str, kind: str, seal: Seal) -> dict[str, Any] | None:
    """The last payload of `kind` in `text` signed with `seal`, or None (absent, another kind,
    unsigned or badly signed, not decodable, too large or too deep)."""
    for match in reversed(list(_LINE.finditer(strip_think(text)))):
        if match.group("kind") != kind:
            continue
        data = match.group("data")
        if len(data) > MAX_ENCODED_CHARS or not seal.fits(kind, data, match.group("tag")):
            return None
        try:
            decoded = json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
        except (binascii.Error, ValueError, RecursionError):
            return None
        return decoded if isinstance(decoded, dict) and not _too_deep(decoded) else None
    return None


def strip_think(text: str) -> str:
    """`text` without a leading think block: stage lines are neither the answer nor its record."""
    return _LEADING_THINK.sub("", text, count=1)


def strip(text: str) -> str:
    """`text` without a leading think block or carried lines: what a person (or a model reading
    history) should see."""
    return _LINE.sub("", strip_think(text)).rstrip()
