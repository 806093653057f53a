"""Router output shared by the model-backed router and the offline rules."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HistoryTurn:
    """One earlier message, already reduced to plain text."""

    role: str  # "user" | "assistant" | "system"
    text: str
