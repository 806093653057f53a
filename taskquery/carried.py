"""The previous query, as a task-list answer carries it for follow-ups (format: `core.carry`, kind q1).

Follow-ups ("再来两个", 「全部」, "那下周的呢", "换成重要的", "5 more", and chains of them) are resolved
from this record of what was asked and shown, not from the rendered prose or a truncated history:
the settled plan (every filter in force), the words it rests on, and the page that was shown.
Absent or unreadable, follow-ups fall back to reading the prose (`taskquery.followup`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field, ValidationError

from core import carry
from core.turn import ChatText
from taskquery.plan import QueryPlan

KIND = "q1"
MAX_WORDS = 200  # the user's words a plan rests on, kept for grounding follow-ups


class CarriedQuery(BaseModel):
    plan: QueryPlan  # the settled plan, `limit` = the count the page used when the user set one
    words: str = Field(max_length=MAX_WORDS)
    offset: int = Field(ge=0)  # how many tasks came before this page
    shown: int = Field(ge=0)  # how many this page listed
    total: int = Field(ge=0)

    @property
    def next_offset(self) -> int:
        return self.offset + self.shown


def attach_query(answer: str, query: CarriedQuery) -> str:
    payload = query.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    payload.setdefault("plan", {})
    payload.setdefault("offset", 0)
    payload.setdefault("shown", 0)
    payload.setdefault("total", 0)
    return carry.attach(answer, KIND, payload)


def carried_query(messages: Sequence[ChatText], *, within: int = 6) -> CarriedQuery | None:
    """The query the latest task-list answer carries, among the `within` messages before the last
    user message (the same reach as the router's history: an old list is not continued)."""
    turns = [m for m in messages if m.role in ("user", "assistant")]
    last_user = max((i for i, m in enumerate(turns) if m.role == "user"), default=-1)
    for message in reversed(turns[max(0, last_user - within) : max(0, last_user)]):
        if message.role != "assistant":
            continue
        payload = carry.read(message.text, KIND)
        if payload is None:
            continue
        try:
            return CarriedQuery.model_validate(payload)
        except ValidationError:
            return None  # a damaged record: read the prose instead
    return None
