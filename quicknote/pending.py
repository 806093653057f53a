"""A note held back by a near-duplicate warning, carried to the user's answer (`core.carry`, kind n1).

The warning ("已有「交电费」（明天 18:00 到期），还要再记一条吗？") carries what would have been
written, already extracted, anchored and prioritised, so a "要" / "yes, add it" next turn writes
exactly that with no model call. A client that drops the record still gets the note: the handler
then reads the message the warning answered again, without the duplicate check.

The record is client input (signed, `core.carry`): each note must pass what REST's create takes
(`core.models.TaskCreate`: a visible title, a group 1..4, RFC 3339 times within the years every
backend and timezone can show), or the record reads as absent and the message is read again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, Field, ValidationError

from core import carry
from core.lexicon import assent_re
from core.models import TaskCreate
from core.turn import ChatText

KIND = "n1"


class PendingCapture(BaseModel):
    # TaskCreate is REST's own create contract: what a record holds is checked as strictly.
    notes: list[TaskCreate] = Field(min_length=1, max_length=10)
    # The estimate each note said ("一个小时"), which the confirmation names as not saved; None when
    # no note said one (so a record without estimates reads as before).
    estimates: list[str | None] | None = Field(default=None, max_length=10)

    def task_data(self) -> list[TaskCreate]:
        return list(self.notes)

    def shown_estimates(self) -> list[str | None]:
        return [e[:40] if e else None for e in self.estimates or []]


def pending_of(notes: Sequence[TaskCreate], estimates: Sequence[str | None]) -> PendingCapture:
    """What a duplicate warning carries: the notes, and their estimates when any note said one."""
    return PendingCapture(notes=list(notes), estimates=list(estimates) if any(estimates) else None)


# What the warning looks like to a person (the router's history has carried records stripped).
WARNING_RE = re.compile(r"(?:还要再记一条吗|都再记下吗)？\s*$|Add (?:it|all \d+) anyway\?\s*$")

_ZH_YES = (
    r"(?:要|要的|要啊|要吧|是|是的|对|对的|好|好的|好啊|嗯|嗯嗯|可以|行|确定|确认|没错|记吧|记|记上|记下|记上吧|"
    r"再记一条|再记一个|再记|还要|需要|都记|都记上|全部记上|继续|继续记)"
)
_EN_YES = (
    r"(?:yes|yeah|yep|yup|sure|ok|okay|please|yes please|add it|add it anyway|add them|add them anyway|"
    r"go ahead|do it|please do|note it|save it|another one)"
)
_YES_RE = assent_re(f"{_ZH_YES}|{_EN_YES}", separated=True)


_NO_RE = assent_re(
    r"(?:不|不要|不用|不用了|不需要|不必|不记|不记了|别记|别记了|算了|算了吧|那算了|不了|先不了|先不用|取消|"
    r"no|nope|nah|no thanks|never mind|nevermind|don't|skip it|cancel)",
    separated=True,
)


def is_yes(text: str) -> bool:
    return bool(_YES_RE.match(text or ""))


def is_no(text: str) -> bool:
    """A no to the warning ("算了", "不用了", "no thanks"): nothing is added."""
    return bool(_NO_RE.match(text or ""))


def answers_warning(messages: Sequence[ChatText]) -> bool:
    """The latest user message answers a near-duplicate warning."""
    warning, _asked = _last_exchange(messages)
    return warning is not None and bool(WARNING_RE.search(carry.strip(warning.text)))


def attach_pending(answer: str, capture: PendingCapture, seal: carry.Seal) -> str:
    return carry.attach(answer, KIND, capture.model_dump(mode="json", exclude_none=True), seal)


def _last_exchange(messages: Sequence[ChatText]) -> tuple[ChatText | None, ChatText | None]:
    """The assistant message before the latest user message, and the user message it answered."""
    turns = [m for m in messages if m.role in ("user", "assistant")]
    if len(turns) < 2 or turns[-1].role != "user" or turns[-2].role != "assistant":
        return None, None
    before = turns[-3] if len(turns) >= 3 and turns[-3].role == "user" else None
    return turns[-2], before


def pending_capture(messages: Sequence[ChatText], seal: carry.Seal) -> tuple[PendingCapture | None, str | None]:
    """For a turn that answers a duplicate warning: the carried notes (None when the record is
    gone or damaged) and the user message the warning answered. (None, None): not such a turn."""
    warning, asked = _last_exchange(messages)
    if warning is None or not WARNING_RE.search(carry.strip(warning.text)):
        return None, None
    payload = carry.read(warning.text, KIND, seal)
    capture = None
    if payload is not None:
        try:
            capture = PendingCapture.model_validate(payload)
        except ValidationError:
            capture = None
    return capture, asked.text if asked is not None else None
