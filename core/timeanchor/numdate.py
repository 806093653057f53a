"""Numeric dates with the year last or in two digits: which field is the month.

The order rule (also in the package docstring):

* a 4-digit first field is a year: Y-M-D ("2021-06-26"; patterns' ``ymd``, not read here);
* year last (4 or 2 digits), and one of the other two fields is above 12: that one is the day
  ("27/1/2027", "06/26/2021", "13.5.2015");
* otherwise the user's convention, by form: dotted → day first (European "5.6.2027" = 5 June);
  English text → month first (US "1/2/2020" = 2 January, what Vikunja expects); Chinese text →
  month first ("3-7-2017" = 7 March);
* three two-digit fields where a year-first reading is also a valid date and gives another day
  ("12-11-10": 2010-12-11? 2012-11-10?) are truly ambiguous: a query takes the reading nearest
  now, a quick note asks (``ambiguous``);
* a two-digit year: ``numerals.two_digit_year`` (89 → 1989, 17 → 2017);
* an operator who set ``SUIKOU_DATE_ORDER=dmy`` (or ``mdy``) gets that order wherever no field decides,
  bare pairs included (``ORDER``).
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from datetime import date
from typing import Literal

from .caltools import valid_date
from .numerals import two_digit_year

DateOrder = Literal["auto", "mdy", "dmy"]
# The operator's convention for dates no field can order (SUIKOU_DATE_ORDER; a turn sets it for its own
# context, core.turn.new_turn): "auto" is the rule by form below, "mdy"/"dmy" override it for every form,
# and for a bare pair ("1/2": 2 January, or 1 February under "dmy").
ORDER: ContextVar[DateOrder] = ContextVar("suikou_date_order", default="auto")

_CJK = re.compile(r"[\u3400-\u9fff]")
# form → which of the first two fields is the month when neither is above 12
_MONTH_FIRST = {"dot": False, "english": True, "chinese": True}


def _form(sep: str, text: str) -> str:
    if sep == ".":
        return "dot"
    return "chinese" if _CJK.search(text) else "english"


def _ordered(a: int, b: int, sep: str, text: str) -> tuple[int, int] | None:
    """(month, day) of the two leading fields, by the rule above."""
    if a > 12 and b > 12:
        return None
    if a > 12:
        return b, a
    if b > 12:
        return a, b
    order = ORDER.get()
    month_first = _MONTH_FIRST[_form(sep, text)] if order == "auto" else order == "mdy"
    return (a, b) if month_first else (b, a)


def readings(a: str, b: str, y: str, sep: str, text: str, today: date) -> list[date]:
    """The valid readings of "a<sep>b<sep>y", the rule's own first."""
    out: list[date] = []
    md = _ordered(int(a), int(b), sep, text)
    year = int(y) if len(y) == 4 else two_digit_year(int(y), today.year)
    if md is not None and (d := valid_date(year, md[0], md[1])) is not None:
        out.append(d)
    if len(a) == 2 and len(y) == 2:  # "12-11-10" may also be Y-M-D
        first = valid_date(two_digit_year(int(a), today.year), int(b), int(y))
        if first is not None and first not in out:
            out.append(first)
    return out


def read(a: str, b: str, y: str, sep: str, text: str, today: date) -> date | None:
    """The date a query reads: the rule's reading, or the one nearest today when the form is ambiguous."""
    found = readings(a, b, y, sep, text, today)
    if not found:
        return None
    return min(found, key=lambda d: abs((d - today).days)) if len(found) > 1 else found[0]


_NUMERIC = re.compile(r"(?<![A-Za-z0-9_./:-])(\d{1,2})([-/.])(\d{1,2})\2(\d{4}|\d{2})(?![A-Za-z0-9_/:-]|\.\d)")


def ambiguous(phrase: str, today: date) -> bool:
    """True when the phrase holds a numeric date no rule can order ("12-11-10"): a quick note asks."""
    m = _NUMERIC.search(phrase)
    return m is not None and len(readings(m[1], m[3], m[4], m[2], phrase, today)) > 1
