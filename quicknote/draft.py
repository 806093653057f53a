"""The structured extraction a model (or the offline rules) produces for a quick note."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class NoteDraft(BaseModel):
    """A casual sentence read as a task, before time anchoring and persistence."""

    title: str | None = Field(
        default=None, description="Short task title without filler or the time phrase; null if none."
    )
    time_text: str | None = Field(
        default=None, description="The deadline phrase copied verbatim (e.g. '明天下午三点'); null if none."
    )
    deadline_at: datetime | None = Field(
        default=None, description="ISO 8601 with offset; only for a phrase no calendar rule resolves."
    )
    priority_group: int = Field(
        default=2,
        ge=1,
        le=4,
        description="Priority group, defined in the instructions.",
    )
    priority_reason: str = Field(default="", description="A few words on why this group.")
    urgency_threshold_text: str | None = Field(
        default=None, description="Verbatim phrase for when the task becomes urgent, if the user said one."
    )
    # Kept as minutes (core.estimates.minutes_of); one without an amount is said as not saved.
    estimate_text: str | None = Field(
        default=None,
        description="How long the user said it takes, verbatim ('大概一个小时' → '一个小时'); not a deadline.",
    )
