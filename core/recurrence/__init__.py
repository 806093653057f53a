"""Repeating tasks: a rule (RFC 5545 RRULE, with RFC 7529 RSCALE=CHINESE for lunar dates and a
few documented extensions for the Chinese statutory calendar), its expansion and its reading.

The public face (see docs/fdr/0037):

- :class:`Recurrence` — a rule with its DTSTART in a zone; ``to_ical``/``from_ical`` is how a task
  stores it (``tasks.recurrence``); :func:`make` validates a client's rule (:class:`RuleError`).
- :func:`occurrences` / :func:`next_after` — bounded expansion (never more than ``MAX_STEPS``
  candidate steps and a horizon of years per call, whatever the rule). A rule without COUNT is
  fast-forwarded to the asked moment, so an old DTSTART costs nothing; a rule with COUNT is counted
  from DTSTART (COUNT ≤ MAX_COUNT keeps that cheap; a rare X-DAYS filter may end it early).
- :func:`describe` — the rule in words ("每周一 09:00", "every Monday at 09:00").
- :func:`read_repeat` — the repetition phrase of a sentence ("每周一", "every other Friday").

Rule text (what REST's ``recurrence.rule`` holds): an RRULE value, e.g. ``FREQ=WEEKLY;BYDAY=MO``.
FREQ is DAILY, WEEKLY, MONTHLY or YEARLY; INTERVAL 1..MAX_INTERVAL; COUNT 1..MAX_COUNT; UNTIL;
BYDAY, BYMONTHDAY, BYMONTH, BYSETPOS, BYYEARDAY, BYWEEKNO, WKST as RFC 5545 has them. Extensions:

- ``RSCALE=CHINESE`` (RFC 7529): FREQ=MONTHLY or YEARLY with lunar BYMONTH (1..12) / BYMONTHDAY
  (1..30, ``-1`` the month's last day, e.g. 除夕 = ``RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=-1``).
  A MONTHLY rule without BYMONTH includes leap months (闰月); BYMONTH=N is the ordinary month N.
  ``SKIP`` (OMIT/BACKWARD/FORWARD) says what day 30 of a 29-day month is; without it, BACKWARD
  (the month's last day — RFC 7529's default is OMIT).
- ``X-DAYS=CN-WORKDAY`` / ``CN-RESTDAY`` / ``CN-AFTER-HOLIDAY``: of the days the rule gives, only
  statutory workdays (调休 included) / days off / the first workday after each statutory break.
  COUNT counts the days kept ("每个工作日，共10次" is ten workdays).
- ``X-TERM=<solar term in pinyin, e.g. DONGZHI>`` with FREQ=YEARLY (and no BY… parts): that solar term's day.
- ``X-FROM=COMPLETION``: counted from the completion, not the schedule ("做完后每3天").
"""

from core.recurrence.describe import describe
from core.recurrence.expand import MAX_STEPS, next_after, occurrences
from core.recurrence.phrases import RepeatPhrase, read_repeat
from core.recurrence.rule import MAX_COUNT, MAX_INTERVAL, MAX_RULE_CHARS, Recurrence, RuleError, make

__all__ = [
    "MAX_COUNT",
    "MAX_INTERVAL",
    "MAX_RULE_CHARS",
    "MAX_STEPS",
    "Recurrence",
    "RepeatPhrase",
    "RuleError",
    "describe",
    "make",
    "next_after",
    "occurrences",
    "read_repeat",
]
