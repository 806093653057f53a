"""The previous query, as a task-list answer carries it for follow-ups (format: `core.carry`, kind q1).

Follow-ups ("再来两个", 「全部」, "那下周的呢", "换成重要的", "5 more", and chains of them) are resolved
from this record of what was asked and shown, not from the rendered prose or a truncated history:
the settled plan (every filter in force), the words it rests on, and the page that was shown.
Absent or unreadable, follow-ups fall back to reading the prose (`taskquery.followup`).

The record is client input: unsigned or badly signed it reads as absent (`core.carry`), and a signed
one is still held to the contract of every input — times RFC 3339 with an offset within the years
REST accepts, text without NUL or lone surrogates and of bounded length, bounded counts — so that
no carried value can reach the store or a renderer unchecked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field, Strict, ValidationError

from core import carry, listnames
from core.models import TITLE_MAX, ClientDateTime, ClientText
from core.turn import ChatText
from taskquery.plan import Group, QueryPlan

KIND = "q1"
MAX_WORDS = 200  # the user's words a plan rests on, kept for grounding follow-ups
MAX_COUNT = 2**31 - 1  # offsets and totals: 32-bit, like every count the store takes

Count = Annotated[int, Strict(), Field(ge=0, le=MAX_COUNT)]


def _scope(value: str) -> str:
    listnames.clean_name(value)  # raises ValueError for what no list or label can be called
    return value


class CarriedPlan(QueryPlan):
    """A plan as a record carries it back: the same fields, under the input contract."""

    quadrants: list[Group] | None = Field(default=None, max_length=4)
    time_text: Annotated[ClientText, Field(max_length=MAX_WORDS)] | None = None
    time_after: ClientDateTime | None = None
    time_before: ClientDateTime | None = None
    keyword: Annotated[ClientText, Field(max_length=TITLE_MAX)] | None = None
    # "#工作" (a label) or "购物清单": the name must be one a list or label can have (core.listnames).
    scope: Annotated[ClientText, Field(max_length=listnames.NAME_MAX + 1), AfterValidator(_scope)] | None = None
    limit: Annotated[int, Strict(), Field(ge=0, le=10_000)] | None = None


class CarriedQuery(BaseModel):
    plan: CarriedPlan  # the settled plan, `limit` = the count the page used when the user set one
    words: Annotated[ClientText, Field(max_length=MAX_WORDS)]
    offset: Count  # how many tasks came before this page
    shown: Count  # how many this page listed
    total: Count

    @property
    def next_offset(self) -> int:
        return self.offset + self.shown


def attach_query(answer: str, query: CarriedQuery, seal: carry.Seal) -> str:
    payload = query.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    payload.setdefault("plan", {})
    payload.setdefault("offset", 0)
    payload.setdefault("shown", 0)
    payload.setdefault("total", 0)
    return carry.attach(answer, KIND, payload, seal)


def carried_query(messages: Sequence[ChatText], seal: carry.Seal, *, within: int = 6) -> CarriedQuery | None:
    """The query the latest task-list answer carries, among the `within` messages before the last
    user message (the same reach as the router's history: an old list is not continued)."""
    turns = [m for m in messages if m.role in ("user", "assistant")]
    last_user = max((i for i, m in enumerate(turns) if m.role == "user"), default=-1)
    for message in reversed(turns[max(0, last_user - within) : max(0, last_user)]):
        if message.role != "assistant":
            continue
        payload = carry.read(message.text, KIND, seal)
        if payload is None:
            continue
        try:
            return CarriedQuery.model_validate(payload)
        except ValidationError:
            return None  # a damaged record: read the prose instead
    return None
