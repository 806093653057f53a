"""Asking instead of shrugging: a proposed action, carried to the user's yes (docs/fdr/0026).

When the router thinks a message is probably for an action but is not sure, the turn asks one
short question that proposes it ("要我记下「周二早上打印文件」（12月8日 周二 上午）吗？") and
writes nothing. The question carries a signed ``p1`` record (``core.carry``) of the action and the
message it would run on; a bare yes next turn runs exactly that, with the yes turn's own attempt
key (so a retried yes still writes once), and a bare no writes nothing. Anything else is a new
message and is routed as one.

The record is client input: unsigned, forged or another user's reads as absent (``core.carry``),
and its action must be a registered one other than the fallback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pydantic import BaseModel, Field, ValidationError

from core import carry
from core.lexicon import assent_re
from core.locale import Locale
from core.turn import ChatText, Turn
from route.registry import ActionRegistry

KIND = "p1"

_YES = assent_re(
    r"(?:是|是的|是啊|对|对的|对啊|嗯|嗯嗯|好|好的|好啊|行|可以|要|要的|没错|就是|对就是|记吧|记上|记下吧|删吧|改吧|查吧|"
    r"yes|yeah|yep|yup|sure|ok|okay|right|correct|please|yes please|go ahead|do it|please do)",
    separated=True,
)
# A yes that names what it agrees to ("是的，记下来", "好，删吧", "yes, save it"): the yes decides,
# the verb only repeats the question; a verb alone is a new message (it may not be this action's).
_AGREED_TO = re.compile(
    r"^(?P<yes>.+?)[，,。.!！~～\s]+(?:帮我|给我|就)?(?:记下来|记下|记上|记一下|记着|记吧|删掉|删了|删除|删吧|改吧|改一下|改掉|改了|"
    r"撤销|撤回|标记完成|标完成|完成吧|办吧|去办吧|save it|note it|add it|delete it|remove it|change it|undo it|"
    r"mark it done|do that)(?:吧|啊|呀|哈)?[。.!！~～\s]*$",
    re.IGNORECASE,
)
_SPACE_PUNCT = re.compile(r"[\s，,。.!！?？~～]+")
_NO = assent_re(
    r"(?:不|不是|不要|不用|不用了|算了|别|没有|没|不对|错了|no|nope|nah|no thanks|never mind|nevermind|cancel|don't)",
    separated=True,
)
HINT: dict[Locale, str] = {
    "zh": "回复「是」我就去办；说别的，我什么都不改。",
    "en": "Say yes and I'll do it; anything else changes nothing.",
}
DECLINED: dict[Locale, str] = {"zh": "好的，什么都没有改动。", "en": "OK, nothing was changed."}


class PendingProposal(BaseModel):
    action: str = Field(min_length=1, max_length=40)
    text: str = Field(min_length=1, max_length=4000)


@dataclass(frozen=True)
class Reply:
    """The user's answer to a proposal: ``action`` to run on ``turn`` (the original message), or a no."""

    action: str | None
    turn: Turn


def is_yes(said: str) -> bool:
    """A bare yes, or a yes followed by the verb it agrees to."""
    agreed = _AGREED_TO.match(said)
    return bool(_YES.match(said) or (agreed and _YES.match(agreed.group("yes"))))


def _same(said: str, proposed: str) -> bool:
    return _SPACE_PUNCT.sub("", said).casefold() == _SPACE_PUNCT.sub("", proposed).casefold()


def attach(question: str, action: str, turn: Turn) -> str:
    """The question with its hint and the signed record of what a yes runs."""
    text = f"{question}\n{HINT[turn.locale]}"
    return carry.attach(text, KIND, {"action": action, "text": turn.text}, turn.seal)


def answered(turn: Turn, registry: ActionRegistry) -> Reply | None:
    """A yes or no to the proposal the previous answer asked, or None (no proposal, or another message)."""
    turns = [m for m in turn.messages if m.role in ("user", "assistant")]
    if len(turns) < 2 or turns[-1].role != "user" or turns[-2].role != "assistant":
        return None
    payload = carry.read(turns[-2].text, KIND, turn.seal)
    try:
        pending = PendingProposal.model_validate(payload) if payload is not None else None
    except ValidationError:
        return None
    if pending is None or pending.action not in registry or pending.action == registry.fallback:
        return None
    said = turn.text.strip()
    if _NO.match(said):
        return Reply(None, turn)
    if _same(said, pending.text):
        return Reply(pending.action, turn)  # said again: the repetition is the answer, never a second question
    if not is_yes(said):
        return None
    # By identity: the same question may have been asked (and so appear, equal) earlier.
    asked_at = max(i for i, m in enumerate(turn.messages) if m is turns[-2])
    asked = turns[-3] if len(turns) >= 3 else None
    before = [m for m in turn.messages[:asked_at] if m is not asked]
    return Reply(pending.action, replace(turn, messages=[*before, ChatText("user", pending.text)]))
