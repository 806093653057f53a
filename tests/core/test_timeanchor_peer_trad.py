"""Peer-style probes: traditional characters, Cantonese day words and Duckling-style holidays.

Users in Taiwan and Hong Kong write 禮拜一, 下個月, 後天, 兩天前, 聽日, 琴日, 今個禮拜 …: the resolver folds
traditional characters to simplified one for one (core.hanzi), and the day-word table knows the
Cantonese words the fold alone does not give. Holidays: the fixed-date ones Duckling's Chinese corpus
names (青年节, 愚人节, 光棍节, 三一五 …), the next occurrence unless a year is said.

Sentences written for this table (notation: tests/support/timeprobe.py). A small end-to-end test at
the bottom runs traditional questions and notes through the same path as ``suikou explain``.

Run: ``PYTHONPATH=tests .venv/bin/python tests/core/test_timeanchor_peer_trad.py``
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import pytest

from support.timeprobe import PAST, TRAP, P, Probe, params, probe_ok, report

T, C, H, X = "traditional", "cantonese", "holiday", "trap"

PROBES: list[Probe] = [
    # --- traditional characters: the fold gives the simplified grammar's reading -----------------
    P("禮拜一有什麼任務", "G", "07-20", "e07-20", kind=T),
    P("下個月要交什麼", "A", "12-01", "e12-31", kind=T),
    P("後天有哪些待辦", "C", "2027-01-02", "e2027-01-02", kind=T),
    PAST("兩天前完成了什麼", "A", "11-28", "e11-28", kind=T),
    P("這週有什麼要做的", "B", "11-30", "e12-06", kind=T),
    PAST("上上個週三完成了哪些", "A", "11-18", "e11-18", kind=T),
    P("三日後要交的報告", "A", "12-03", "e12-03", kind=T),
    P("下週五之前要完成的", "G", "now", "e07-24", kind=T),
    P("明天下午三點開會", "A", "12-01 15:00", "12-01 15:59:59", kind=T),
    P("下個禮拜二要做什麼", "A", "12-08", "e12-08", kind=T),
    PAST("上個月完成了什麼", "H", "02-01", "e02-28", kind=T),
    P("這個月底前要交的", "D", "now", "e02-29", kind=T),
    P("本週末有什麼安排", "G", "07-18", "e07-19", kind=T),
    P("大後天要交什麼", "C", "2027-01-03", "e2027-01-03", kind=T),
    P("明早八點提醒我", "A", "12-01 08:00", "12-01 08:59:59", kind=T),
    P("十二月二十號之前要交的", "A", "now", "e12-20", kind=T),
    P("三個月內要完成的", "A", "now", "e2027-02-28", kind=T),
    P("過兩天要做的", "A", "now", "e12-02", kind=T),
    P("一週內到期的", "F", "now", "e2027-02-27", kind=T),
    P("下個季度有什麼", "H", "04-01", "e06-30", kind=T),
    P("兩週後要交的", "A", "12-14", "e12-20", ("12-14", "e12-14"), kind=T),
    P("禮拜天之前要做完的", "A", "now", "e12-06", kind=T),
    P("後天晚上八點", "F", "2027-02-22 20:00", "2027-02-22 20:59:59", kind=T),
    P("下個工作日要做什麼", "B", "12-07", "e12-07", kind=T),
    P("國慶假期要做什麼", "G", "10-01", "e10-07", kind=T),
    P("中秋節前要買的", "G", "now", "e09-25", kind=T),
    P("農曆正月初八要還的書", "F", "2028-02-02", "e2028-02-02", kind=T),
    P("聖誕節之前要寄的卡片", "A", "now", "e12-25", kind=T),
    P("元宵節那天有什麼", "F", "2027-02-20", "e2027-02-20", kind=T),
    P("端午節那天要做什麼", "A", "2027-06-09", "e2027-06-09", kind=T),
    P("下個月初要交的", "A", "12-01", "e12-05", kind=T),
    P("今年剩下的日子還有什麼", "C", "now", "e12-31", kind=T),
    P("what's due 後天", "A", "12-02", "e12-02", kind=T),
    P("月底前記得繳費", "H", "now", "e03-31", kind=T),
    # --- Cantonese day words (and their simplified spellings) --------------------------------------
    P("聽日有咩要做", "A", "12-01", "e12-01", kind=C),
    P("听日要交乜嘢", "C", "2027-01-01", "e2027-01-01", kind=C),
    P("後日有什麼任務", "A", "12-02", "e12-02", kind=C),
    P("后日要交嘅嘢", "C", "2027-01-02", "e2027-01-02", kind=C),
    P("大後日交報告", "A", "12-03", "e12-03", kind=C),
    PAST("尋日完成咗咩", "A", "11-29", "e11-29", kind=C),
    PAST("琴日做完咗邊啲", "B", "12-05", "e12-05", kind=C),
    PAST("前日做咗咩", "D", "2028-02-25", "e2028-02-25", kind=C),
    P("今個禮拜有咩任務", "A", "11-30", "e12-06", kind=C),
    P("呢個禮拜要做乜", "B", "11-30", "e12-06", kind=C),
    P("下個禮拜有咩", "C", "2027-01-04", "e2027-01-10", kind=C),
    PAST("上個禮拜完成咗咩", "A", "11-23", "e11-29", kind=C),
    P("呢個月要交咩", "G", "07-01", "e07-31", kind=C),
    P("呢個月底之前要搞掂嘅", "G", "now", "e07-31", kind=C),
    P("聽朝九點開會", "A", "12-01 09:00", "12-01 09:59:59", kind=C),
    P("聽晚有咩安排", "A", "12-01 18:00", "e12-01", kind=C),
    PAST("今朝做咗咩", "A", "11-30 06:00", "11-30 09:59:59", kind=C),
    P("聽日下晝三點見客", "A", "12-01 15:00", "12-01 15:59:59", kind=C),
    P("今晚黑有咩要做", "B", "12-06 18:00", "e12-06", kind=C),
    P("聽日之前要交嘅", "C", "now", "e2027-01-01", kind=C),
    P("下個禮拜五之前", "A", "now", "e12-11", kind=C),
    PAST("琴晚做咗啲咩", "A", "11-29 18:00", "e11-29", kind=C),
    P("聽日朝早要做乜", "F", "2027-02-21 06:00", "2027-02-21 09:59:59", kind=C),
    P("聽晚八點食飯", "A", "12-01 20:00", "12-01 20:59:59", kind=C),
    P("月尾要交租", "G", "07-25", "e07-31", kind=C),
    P("年尾要搞掂嘅嘢", "C", "11-01", "e12-31", kind=C),
    P("聽日晏晝有咩要做", "A", "12-01 13:00", "12-01 17:59:59", kind=C),
    # --- holidays: the next occurrence unless a year is said --------------------------------------
    P("青年節有什麼活動要準備", "A", "2027-05-04", "e2027-05-04", kind=H),
    P("五四青年节之前要交的", "H", "now", "e05-04", kind=H),
    P("新年之前要做完的", "A", "now", "e2027-01-01", kind=H),
    P("新年那天有什么安排", "C", "2027-01-01", "e2027-01-01", kind=H),
    P("愚人節要交什麼", "H", "04-01", "e04-01", kind=H),
    PAST("去年的愚人節做了什麼", "A", "2025-04-01", "e2025-04-01", kind=H),
    P("明年的愚人节有什么", "A", "2027-04-01", "e2027-04-01", kind=H),
    P("光棍節前要買的", "A", "now", "e2027-11-11", kind=H),
    P("三一五之前要处理的投诉", "G", "now", "e2027-03-15", kind=H),
    P("消費者權益日那天", "A", "2027-03-15", "e2027-03-15", kind=H),
    P("新春前要做完的", "A", "now", "e2027-02-06", kind=H),
    P("建黨節要交的材料", "A", "2027-07-01", "e2027-07-01", kind=H),
    P("平安夜要做什么", "A", "12-24", "e12-24", kind=H),
    P("護士節有什麼安排", "A", "2027-05-12", "e2027-05-12", kind=H),
    P("母親節要買的花", "A", "2027-05-09", "e2027-05-09", kind=H),
    P("父親節之前", "G", "now", "e2027-06-20", kind=H),
    P("感恩節那天", "A", "2027-11-25", "e2027-11-25", kind=H),
    P("情人節要訂餐廳", "F", "2028-02-14", "e2028-02-14", kind=H),
    PAST("今年的青年节完成了什么", "A", "2026-05-04", "e2026-05-04", kind=H),
    P("愚人节", "D", "04-01", "e04-01", kind=H),
    P("七一建党节", "C", "2027-07-01", "e2027-07-01", kind=H),
    # --- traps: everyday words that are no time -----------------------------------------------------
    TRAP("把今日頭條的稿子改完", kind=X),
    TRAP("今日头条的推送要看", kind=X),
    TRAP("寫後日談的讀後感", kind=X),
    TRAP("日後再說吧", kind=X),
    TRAP("記得聽日語廣播", kind=X),
    TRAP("看前日本首相的傳記", kind=X),
    TRAP("祝大家新年快樂", kind=X),
    TRAP("青年節目的腳本要改", kind=X),
    TRAP("去三一五室開會", kind=X),
    TRAP("今朝有酒今朝醉", kind=X),
    TRAP("買新春聯", kind=X),
    TRAP("鋼琴晚會的票要買", kind=X),
    TRAP("最後日期是哪天", kind=X),
    TRAP("提前日期改一下", kind=X),
    TRAP("聽日本歌", kind=X),
    TRAP("寫新年計劃", kind=X),
    TRAP("然後日本那邊回覆", kind=X),
    TRAP("去超市尋日常用品", kind=X),
    P("今晚會議的材料", "A", "11-30 18:00", "e11-30", kind=T),
]


@pytest.mark.parametrize("probe", params(PROBES))
def test_probe(probe: Probe) -> None:
    ok, why = probe_ok(probe)
    assert ok, why


# --- end to end: traditional questions and notes route and resolve --------------------------------
NOW = "2026-11-30T10:00:00+08:00"  # a Monday


def _explain(sentence: str, now: str = NOW) -> dict[str, Any]:
    from app.actions import build_registry
    from app.explain import explain
    from core.llm import ModelHub
    from core.turn import TurnConfig
    from route.pipeline import Pipeline

    return asyncio.run(
        explain(
            Pipeline(build_registry()),
            ModelHub(),
            sentence,
            now=datetime.fromisoformat(now),
            tz="Asia/Shanghai",
            config=TurnConfig(),
        )
    )


QUESTIONS = [
    ("禮拜一有什麼任務", "2026-11-30", "2026-11-30"),
    ("下個月要交什麼", "2026-12-01", "2026-12-31"),
    ("聽日有咩要做", "2026-12-01", "2026-12-01"),
    ("今個禮拜有咩任務", "2026-11-30", "2026-12-06"),
    ("上上個週三完成了哪些", "2026-11-18", "2026-11-18"),
    ("後天有哪些待辦", "2026-12-02", "2026-12-02"),
]


@pytest.mark.parametrize(("sentence", "first", "last"), QUESTIONS)
def test_traditional_question_routes_and_resolves(sentence: str, first: str, last: str) -> None:
    out = _explain(sentence)
    assert out["action"] == "task_query", out
    plan = out["plan"]
    after, before = plan.get("time_after"), plan.get("time_before")
    assert after is not None and before is not None, plan
    assert (after[:10], before[:10]) == (first, last), plan


NOTES = [
    # (sentence, the title in the user's own characters, the deadline's day)
    ("記一下後天交報告", "交報告", "2026-12-02"),
    ("提醒我聽日交季度報表", "交季度報表", "2026-12-01"),
    ("記一下下個禮拜三開會討論預算", "開會討論預算", "2026-12-09"),
    ("記一下愚人節前準備節目", "準備節目", "2027-04-01"),
    ("記一下看後日談", "看後日談", None),
    ("記一下把今日頭條的稿子改完", "把今日頭條的稿子改完", None),
]


@pytest.mark.parametrize(("sentence", "title", "day"), NOTES)
def test_traditional_note_keeps_title_and_deadline(sentence: str, title: str, day: str | None) -> None:
    out = _explain(sentence)
    assert out["action"] == "quick_note_create", out
    note = out["note"]
    assert note["title"] == title, note
    deadline = note.get("deadline_at")
    assert (deadline or "")[:10] == (day or ""), note


if __name__ == "__main__":
    report(PROBES)
