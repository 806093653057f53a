"""core.timeanchor.numerals: the everyday Chinese numerals are read without cn2an, and exactly as
cn2an reads them; the warm-up loads what month names and unusual numerals need, from any thread."""

from __future__ import annotations

import itertools
import threading

import cn2an
import pytest

from core.timeanchor import warm_up
from core.timeanchor.english import month_day
from core.timeanchor.numerals import CN_NUM, plain_cn, to_int

ALPHABET = CN_NUM.strip("[]")  # every character a Chinese numeral in the patterns may contain


def _by_cn2an(text: str) -> int | None:
    try:
        value = cn2an.cn2an(text.replace("〇", "零"), "smart")
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return int(value) if isinstance(value, int | float) and value == int(value) else None


def test_every_form_read_without_cn2an_is_read_as_cn2an_reads_it() -> None:
    # The patterns allow up to five numeral characters: all 580k such strings are tried.
    read = 0
    for n in range(1, 6):
        for chars in itertools.product(ALPHABET, repeat=n):
            text = "".join(chars)
            value = plain_cn(text.replace("〇", "零"))
            if value is not None:
                read += 1
                assert value == _by_cn2an(text), text
    assert read > 1000  # 0..999 in their usual forms, and more


@pytest.mark.parametrize(
    ("text", "value"),
    [("五", 5), ("两", 2), ("〇", 0), ("十五", 15), ("二十", 20), ("两百", 200), ("一百五", 150), ("一百零五", 105)],
)
def test_everyday_forms(text: str, value: int) -> None:
    assert plain_cn(text.replace("〇", "零")) == value
    assert to_int(text) == value


@pytest.mark.parametrize(("text", "value"), [("一百十五", 115), ("两千", 2000), ("十十", None), ("百", None)])
def test_the_rest_goes_to_cn2an(text: str, value: int | None) -> None:
    assert plain_cn(text) is None
    assert to_int(text) == value


def test_warm_up_in_a_thread_while_month_names_are_read() -> None:
    expected = {"Dec 5": (None, 12, 5), "5th of December 2026": (2026, 12, 5), "March 3": (None, 3, 3)}
    month_day.cache_clear()
    warmer = threading.Thread(target=warm_up)
    warmer.start()
    try:
        assert {phrase: month_day(phrase) for phrase in expected} == expected
    finally:
        warmer.join()
    month_day.cache_clear()
    assert {phrase: month_day(phrase) for phrase in expected} == expected
