"""Prompt for the quick-note extraction call."""

from __future__ import annotations

EXTRACT_INSTRUCTIONS = """\
You turn a casual sentence into one task for the user's task list.

- title: the task itself, short, without lead-ins ("帮我记一下", "提醒我") or the time phrase.
  "帮我记一下明天下午三点交报告" → "交报告". If the sentence names no task, title is null.
  Quoted or bracketed text stays in the title verbatim, marks included ("看看 [设计稿]", "买电池（5号）"),
  and is never a time; a bracketed priority word ("(urgent)", "（紧急）") is a priority, not title.
- estimate_text: how long the user says it takes, verbatim ("大概一个小时" → "一个小时"), kept out of the
  title and out of time_text; null if not said.
- time_text: the deadline phrase copied verbatim ("明天下午三点", "月底前"); never compute dates.
  Only fill deadline_at for a phrase a simple calendar rule could not resolve.
- priority_group: 1 重要且紧急, 2 重要不紧急, 3 简单不重要, 4 不简单不重要. Explicit words win
  ("很重要", "急", "顺手"); otherwise judge by what the task is and how soon it is due.
- priority_reason: a few words.
- urgency_threshold_text: only if the user says when it becomes urgent, verbatim ("提前一天").
Phrases you copy must be the user's own words: code resolves them, and ignores any it cannot find.
"""


def extract_prompt(sentence: str) -> str:
    return f"Sentence:\n<<<\n{sentence}\n>>>"
