"""Group labels and deadline formatting in both locales."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from core.display import format_when, group_label

TZ = "Asia/Shanghai"
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo(TZ))  # Monday
SAME_YEAR = datetime(2026, 12, 1, 15, 0, tzinfo=ZoneInfo(TZ))  # Tuesday
NEXT_YEAR = datetime(2027, 1, 5, 15, 0, tzinfo=ZoneInfo(TZ))  # Tuesday


@pytest.mark.parametrize(
    ("group", "zh", "en"),
    [
        (1, "重要且紧急", "important & urgent"),
        (2, "重要不紧急", "important, not urgent"),
        (3, "简单不重要", "easy, not important"),
        (4, "不简单不重要", "not easy, not important"),
        (7, "第 7 组", "group 7"),
    ],
)
def test_group_label(group: int, zh: str, en: str) -> None:
    assert group_label(group) == zh
    assert group_label(group, "zh") == zh
    assert group_label(group, "en") == en


def test_format_when_chinese_is_unchanged() -> None:
    assert format_when(SAME_YEAR, TZ) == "12月1日 周二 15:00"
    assert format_when(SAME_YEAR, TZ, NOW) == "12月1日 周二 15:00"
    assert format_when(NEXT_YEAR, TZ, NOW) == "2027年1月5日 周二 15:00"
    assert format_when(NEXT_YEAR, TZ) == "1月5日 周二 15:00"  # no `now`: never a year


def test_format_when_english() -> None:
    assert format_when(SAME_YEAR, TZ, NOW, "en") == "Tue Dec 1, 15:00"
    assert format_when(NEXT_YEAR, TZ, NOW, "en") == "Tue Jan 5 2027, 15:00"
    assert format_when(NEXT_YEAR, TZ, locale="en") == "Tue Jan 5, 15:00"


def test_format_when_uses_the_users_timezone() -> None:
    stored = datetime(2026, 12, 31, 17, 30, tzinfo=UTC)  # already 2027-01-01 in Shanghai
    assert format_when(stored, TZ, NOW, "en") == "Fri Jan 1 2027, 01:30"
    assert format_when(stored, TZ, NOW) == "2027年1月1日 周五 01:30"
