"""How much conversation each model call may carry (docs/fdr/0029).

A history capped only in messages still overflows a small model: ten long turns outgrew a 4k-token
context and chat fell back. Every node that sends history bounds it here, in characters: the
newest messages first, whole, until the node's budget is spent; the newest one is always kept, and
shortened in the middle when it alone is too long (a client's template keeps its instruction at
the start and its question at the end). The budgets assume ~1.5 characters a token (CJK, the
expensive case) and leave room for the node's instructions and its answer in 4,096 tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol, TypeVar

# Characters of history per node (the README's "Context sent to models" table).
HISTORY_CHARS: dict[str, int] = {
    "chat": 3000,  # the conversation itself; instructions ~0.5k chars, the reply up to ~1k tokens
    "aux": 6000,  # a client's own prompt (its system templates kept whole), no instructions of ours
    "route": 1800,  # its instructions list every action (~2.4k chars) plus the output schema
    "plan": 1800,  # instructions ~1.6k chars plus the plan schema
    "reflect": 800,  # only the user's earlier questions; the page of results comes after
}
GAP = " … "
MIN_NEWEST = 600  # what the newest message keeps even when pinned templates fill the budget  # where a message too long on its own was shortened

T = TypeVar("T")


class _HasText(Protocol):
    @property
    def text(self) -> str: ...


M = TypeVar("M", bound=_HasText)


def shorten(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters: its start and its end, the middle dropped."""
    if len(text) <= limit:
        return text
    if limit <= len(GAP):
        return text[-limit:] if limit > 0 else ""
    keep = limit - len(GAP)
    head = keep // 2
    return text[:head] + GAP + text[len(text) - (keep - head) :]


def bound(
    items: Sequence[T],
    limit: int,
    *,
    text: Callable[[T], str],
    trim: Callable[[T, str], T],
    pinned: Callable[[T], bool] = lambda _item: False,
) -> list[T]:
    """The newest ``items`` whose texts fit in ``limit`` characters, in their order.

    Whole items only, counted from the newest; the newest is always kept (shortened by ``trim``
    when it alone is over what is left), so a call never goes out without the message it answers.
    ``pinned`` items (a client's own template in a system message) are kept whole and counted first.
    """
    keep = {i for i, item in enumerate(items) if pinned(item)}
    left = limit - sum(len(text(items[i])) for i in keep)
    newest = True
    out: dict[int, T] = {i: items[i] for i in keep}
    for i in range(len(items) - 1, -1, -1):
        if i in keep:
            continue
        item, size = items[i], len(text(items[i]))
        if newest:
            newest = False
            room = max(left, MIN_NEWEST)
            if size > room:
                item = trim(item, shorten(text(item), room))
                size = len(text(item))
        elif size > left:
            break
        out[i] = item
        left -= size
    return [out[i] for i in sorted(out)]


def bound_messages(messages: Sequence[M], node: str, *, pinned: Callable[[M], bool] | None = None) -> list[M]:
    """Dataclass messages with a ``text`` field (ChatText, HistoryTurn) within ``node``'s budget."""
    return bound(
        messages, HISTORY_CHARS[node], text=lambda m: m.text, trim=_with_text, pinned=pinned or (lambda _m: False)
    )


def bound_texts(texts: Sequence[str], node: str) -> list[str]:
    """Plain strings (earlier questions) within ``node``'s budget."""
    return bound(texts, HISTORY_CHARS[node], text=lambda t: t, trim=lambda _t, short: short)


def _with_text(message: Any, text: str) -> Any:
    return replace(message, text=text)
