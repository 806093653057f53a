"""Task-query scenarios: a seeded database, a fixed `now`, one message → the whole answer.

Every scenario snapshots the answer and its stage stream (``answer.snapshot()``) *and* checks what
the answer must mean — list length, titles present or absent, the true total, the locked count,
the time window — so a snapshot that is merely stable can't hide a wrong answer.

NOW is Monday 2026-11-30 10:00 Asia/Shanghai. This week runs Mon 11-30 .. Sun 12-06, next week
Mon 12-07 .. Sun 12-13; 下周三 is 12-09, 礼拜五 is 12-04. Alice owns the list below. Bob owns
look-alike tasks whose titles all start with 鲍勃; they must never reach Alice's answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from core.llm import ModelHub
from support.harness import make_harness

# ---------------------------------------------------------------------------------------------
# the seeded data

DEFAULT_CREATED = "2026-11-16 09:00"

# (title, group, deadline, extra keyword arguments for Harness.add)
ALICE_TASKS: list[tuple[str, int, str | None, dict[str, str]]] = [
    # group 1 · 重要且紧急
    ("修复线上支付故障", 1, "2026-11-30 18:00", {}),  # today
    ("交季度报告", 1, "2026-12-01 15:00", {}),  # tomorrow afternoon
    ("续签租房合同", 1, "2026-12-04 12:00", {}),  # Friday
    ("准备董事会材料", 1, "2026-11-28 17:00", {}),  # overdue
    ("提交年度预算", 1, "2026-12-09 18:00", {}),  # next Wednesday
    # group 2 · 重要不紧急
    ("审阅供应商合同", 2, "2026-12-10 17:00", {"threshold": "2026-11-29 09:00"}),  # promoted → 1
    ("准备年终述职", 2, "2026-12-20 10:00", {"threshold": "2026-12-15 09:00"}),  # not yet promoted
    ("学习新框架", 2, "2026-12-15 20:00", {}),
    ("预约年度体检", 2, "2026-12-31 09:00", {}),
    ("规划明年目标", 2, None, {}),  # no deadline
    ("团队一对一沟通", 2, "2026-12-02 14:00", {}),  # the day after tomorrow
    # group 3 · 简单不重要
    ("回复客户邮件", 3, "2026-11-30 21:00", {}),  # tonight
    ("给绿植浇水", 3, "2026-12-01 09:00", {}),  # tomorrow morning
    ("买咖啡豆", 3, "2026-12-03 19:00", {}),  # 大后天
    ("整理书桌", 3, "2026-12-05 10:00", {}),  # Saturday
    ("订周末电影票", 3, "2026-12-06 20:00", {}),  # Sunday
    ("取快递", 3, "2026-11-29 18:00", {}),  # overdue
    # group 4 · 不简单不重要
    ("整理旅行相册", 4, "2026-12-12 10:00", {"threshold": "2026-11-30 08:00"}),  # promoted → 3
    ("研究新咖啡机", 4, "2026-12-18 20:00", {}),
    ("重装家里电脑", 4, "2026-12-07 20:00", {}),  # next Monday
    ("清理旧合同扫描件", 4, "2027-01-05 10:00", {}),  # next year
    # completed
    ("提交报销单", 1, "2026-11-25 18:00", {"completed_at": "2026-11-24 16:00"}),  # last week
    ("签署劳动合同", 2, "2026-11-27 12:00", {"completed_at": "2026-11-26 10:00"}),  # last week
    ("洗车", 3, None, {"completed_at": "2026-11-28 11:00"}),  # last week
    ("预订机票", 1, "2026-12-02 12:00", {"completed_at": "2026-11-30 09:00"}),  # this morning
    # created recently (everything else was created on 11-16)
    ("写读书笔记", 3, "2026-12-08 21:00", {"created_at": "2026-11-29 20:00"}),
    ("准备周会议程", 2, "2026-12-07 09:00", {"created_at": "2026-11-30 09:30"}),
    ("修理自行车", 4, None, {"created_at": "2026-10-15 10:00"}),
]

BOB_TASKS: list[tuple[str, int, str | None, dict[str, str]]] = [
    ("鲍勃交季度报告", 1, "2026-12-01 15:00", {}),
    ("鲍勃续签合同", 1, "2026-12-04 12:00", {}),
    ("鲍勃整理书桌", 3, "2026-12-05 10:00", {}),
    ("鲍勃回复邮件", 3, "2026-11-30 21:00", {}),
    ("鲍勃逾期的报销", 2, "2026-11-20 10:00", {}),
    ("鲍勃上周完成的周报", 2, "2026-11-27 10:00", {"completed_at": "2026-11-26 15:00"}),
    ("鲍勃新建的任务", 3, "2026-12-02 10:00", {"created_at": "2026-11-30 09:00"}),
]
BOB = "鲍勃"

# Dora has nothing important: her open tasks are easy ones, 2 overdue, 3 without a deadline and one
# due next Wednesday; she finished one easy task two weeks ago. Her important questions find
# nothing even after broadening, so the answer explains itself with these facts.
DORA_TASKS: list[tuple[str, int, str | None, dict[str, str]]] = [
    ("浇花", 3, "2026-11-27 09:00", {}),  # overdue
    ("还图书馆的书", 3, "2026-11-28 18:00", {}),  # overdue
    ("整理照片", 3, None, {}),
    ("学做面包", 3, None, {}),
    ("清理邮箱", 3, None, {}),
    ("买新拖鞋", 3, "2026-12-09 20:00", {}),  # next Wednesday: the next deadline after this week
    ("寄明信片", 3, "2026-11-16 12:00", {"completed_at": "2026-11-15 10:00"}),  # two weeks ago
]


def seed(h: Any) -> Any:
    """Alice's tasks with one of Bob's after every fourth, so the two users' ids interleave."""

    def add(task: tuple[str, int, str | None, dict[str, str]], user: str) -> None:
        title, group, deadline, extra = task
        h.add(title, group, deadline, user=user, **{"created_at": DEFAULT_CREATED, **extra})

    bob = iter(BOB_TASKS)
    for i, task in enumerate(ALICE_TASKS, start=1):
        add(task, "alice")
        if i % 4 == 0 and (other := next(bob, None)) is not None:
            add(other, "bob")
    for other in bob:
        add(other, "bob")
    for task in DORA_TASKS:
        add(task, "dora")
    return h


# ---------------------------------------------------------------------------------------------
# reading an answer

_LINE = re.compile(r"^(\d+)\. (.+?)（(.+)）$")
_ITEM = re.compile(r"^\d+\. ", re.M)
_TOTAL = re.compile(r"（共 (\d+) 条(?:匹配)?）：$|\((\d+) (?:matches|tasks)\):$", re.M)


@dataclass(frozen=True)
class Line:
    number: int
    title: str
    facts: str


def list_lines(content: str) -> list[Line]:
    out = []
    for raw in content.splitlines():
        m = _LINE.match(raw)
        if m:
            out.append(Line(int(m.group(1)), m.group(2), m.group(3)))
    return out


def header_counts(content: str) -> tuple[int, int] | None:
    """(shown, total) from the rendered list: its numbered lines and the total its header names."""
    shown = len(_ITEM.findall(content))
    if not shown:
        return None
    total = _TOTAL.search(content)
    return shown, int(total.group(1)) if total else shown


def event(answer: Any, stage: str, status: str = "end") -> Any:
    found = [e for e in answer.events if e.stage == stage and e.status == status]
    assert found, f"no {stage}:{status} event in {answer.stages}"
    return found[-1]


def flow(answer: Any) -> list[str]:
    """The node order, without start/end noise."""
    return [e.stage for e in answer.events if e.status in ("end", "info")]


def tz(text: str) -> str:
    """'2026-12-01T00:00:00' → the same local time with the scenario offset."""
    return f"{text}+08:00"


# ---------------------------------------------------------------------------------------------
# scenarios that run fully offline


@dataclass(frozen=True)
class Expect:
    lines: int  # list lines shown (0 = the no-result path)
    total: int | None = None  # true number of matches; defaults to `lines`
    has: tuple[str, ...] = ()
    lacks: tuple[str, ...] = ()
    first: str | None = None  # title on line 1
    lock: int | None = None  # explicit_limit in the plan event (None = nothing locked)
    wants_all: bool = False
    limit: int | None = None  # the limit the query used (time_anchor event)
    quadrants: list[int] | str | None = "any"
    groups: frozenset[str] | None = None  # every line's group label is one of these
    window: tuple[str | None, str | None] | str | None = "any"  # (after, before) or "overdue"
    time_field: str = "deadline"
    broadened: tuple[str, ...] = ()
    prefix: str | None = None  # exact first line of the content
    numbers_from: int = 1
    extra: Callable[[Any], None] | None = None


@dataclass(frozen=True)
class Scenario:
    message: str
    expect: Expect
    user: str = "alice"
    before: tuple[str, ...] = field(default=())  # earlier questions in the same conversation


URGENT = frozenset({"重要且紧急"})
SIMPLE = frozenset({"简单不重要"})
LOW = frozenset({"简单不重要", "不简单不重要"})
IMPORTANT = frozenset({"重要且紧急", "重要不紧急"})


def day(date: str) -> tuple[str, str]:
    return tz(f"{date}T00:00:00"), tz(f"{date}T23:59:59")


def completed_only(answer: Any) -> None:
    assert all("已完成" in line.facts for line in list_lines(answer.visible))


def tail_says(n: int, *, offers_all: bool = True) -> Callable[[Any], None]:
    def check(answer: Any) -> None:
        tail = answer.visible.splitlines()[-1]
        assert tail.startswith(f"还有 {n} 条没列出，说「再来 {min(n, 5)} 个」")
        # 「全部」 is only offered when it would show more than this page already does.
        assert ("「全部」" in tail) is offers_all

    return check


def no_tail(answer: Any) -> None:
    assert "没列出" not in answer.visible


def shows_year(answer: Any) -> None:
    assert "截止 2027年1月5日 周二 10:00" in answer.visible


def promoted_marked(title: str) -> Callable[[Any], None]:
    def check(answer: Any) -> None:
        (line,) = [x for x in list_lines(answer.visible) if x.title == title]
        assert "临近截止，由「" in line.facts and "」提前" in line.facts

    return check


# A lead line with the list's count folded in ("「今天」的任务在这里（共 4 条）："), as said without it.
_FOLDED = re.compile(r"(?:（共 \d+\+? 条(?:匹配)?）| \(\d+\+? (?:matches|tasks)\))?[：:]?$")


def lead_of(line: str) -> str:
    return _FOLDED.sub("", line)


def assert_second_line(answer: Any, line: str) -> None:
    assert lead_of(answer.visible.splitlines()[1]) == lead_of(line)


def only_bob(answer: Any) -> None:
    lines = list_lines(answer.visible)
    assert lines and all(line.title.startswith(BOB) for line in lines)


SCENARIOS = [
    # --- fuzzy priorities ---------------------------------------------------------------------
    pytest.param(
        Scenario("来一个简单的任务", Expect(1, 8, first="取快递", lock=1, limit=1, quadrants=[3], groups=SIMPLE)),
        id="fuzzy-simple-one",
    ),
    pytest.param(
        Scenario("我很闲，给我点事做", Expect(5, 12, quadrants=[3, 4], groups=LOW, lacks=("交季度报告",))),
        id="fuzzy-free-time",
    ),
    pytest.param(
        Scenario("优先级低的任务有哪些", Expect(5, 12, quadrants=[3, 4], groups=LOW)),
        id="fuzzy-low-priority",
    ),
    pytest.param(
        Scenario("重要的任务有哪些", Expect(5, 12, quadrants=[1, 2], groups=IMPORTANT, first="准备董事会材料")),
        id="fuzzy-important",
    ),
    pytest.param(
        Scenario("有什么紧急的事", Expect(5, 6, quadrants=[1], groups=URGENT, lacks=("团队一对一沟通",))),
        id="fuzzy-urgent",
    ),
    pytest.param(
        Scenario(
            "重要不紧急的任务有哪些",
            # 审阅供应商合同 is stored in group 2 but promoted to 1 today: not "不紧急" any more.
            Expect(5, 6, quadrants=[2], groups=frozenset({"重要不紧急"}), lacks=("审阅供应商合同",)),
        ),
        id="fuzzy-important-not-urgent-promotion",
    ),
    pytest.param(
        Scenario(
            "最重要的三个任务",
            Expect(3, 12, lock=3, limit=3, quadrants=[1, 2], groups=URGENT, first="准备董事会材料"),
        ),
        id="fuzzy-most-important-three",
    ),
    # --- urgency promotion changes the answer ---------------------------------------------------
    pytest.param(
        Scenario(
            "不简单不重要的任务有哪些",
            Expect(
                4,
                quadrants=[4],
                groups=frozenset({"不简单不重要"}),
                lacks=("整理旅行相册",),  # stored 4, promoted to 3 this morning
                has=("清理旧合同扫描件", "修理自行车"),
                extra=shows_year,
            ),
        ),
        id="promotion-removes-from-hard-group",
    ),
    pytest.param(
        Scenario(
            "下周有哪些紧急的任务",
            Expect(
                2,
                quadrants=[1],
                groups=URGENT,
                has=("提交年度预算", "审阅供应商合同"),
                window=(tz("2026-12-07T00:00:00"), tz("2026-12-13T23:59:59")),
                extra=promoted_marked("审阅供应商合同"),
            ),
        ),
        id="promotion-adds-to-urgent-group",
    ),
    pytest.param(
        Scenario(
            "所有简单的任务",
            Expect(
                8,
                wants_all=True,
                limit=20,
                quadrants=[3],
                groups=SIMPLE,
                has=("整理旅行相册", "写读书笔记"),
                lacks=("洗车",),  # completed
                extra=promoted_marked("整理旅行相册"),
            ),
        ),
        id="all-simple-includes-promoted",
    ),
    # --- explicit counts --------------------------------------------------------------------------
    pytest.param(
        Scenario("给我两个重要的任务", Expect(2, 12, lock=2, limit=2, quadrants=[1, 2], groups=IMPORTANT)),
        id="count-two-important",
    ),
    pytest.param(
        Scenario("前3个紧急的任务", Expect(3, 6, lock=3, limit=3, quadrants=[1], groups=URGENT, extra=tail_says(3))),
        id="count-top3-digits-urgent",
    ),
    pytest.param(
        Scenario("前三个要做的任务", Expect(3, 24, lock=3, limit=3, quadrants=None, window=None)),
        id="count-top3-chinese",
    ),
    pytest.param(Scenario("top5", Expect(5, 24, lock=5, limit=5)), id="count-top5"),
    pytest.param(
        Scenario("仨简单的", Expect(3, 8, lock=3, limit=3, quadrants=[3], groups=SIMPLE)),
        id="count-sa-simple",
    ),
    pytest.param(
        Scenario(
            "给我30个任务",
            Expect(
                20,
                24,
                lock=30,
                limit=20,
                prefix="最多一次列 20 条，先给你前 20 条：",
                extra=tail_says(4, offers_all=False),
            ),
        ),
        id="count-above-max-clamped",
    ),
    pytest.param(
        Scenario(
            "前五十个任务",
            Expect(
                20,
                24,
                lock=50,
                limit=20,
                prefix="最多一次列 20 条，先给你前 20 条：",
                extra=tail_says(4, offers_all=False),
            ),
        ),
        id="count-clamp-50-to-20",
    ),
    # --- numbers that are not counts (must not lock) ---------------------------------------------
    pytest.param(
        Scenario(
            "前两天的任务有哪些",
            Expect(2, window=(tz("2026-11-28T00:00:00"), tz("2026-11-30T10:00:00")), has=("取快递",)),
        ),
        id="trap-qian-liang-tian",
    ),
    pytest.param(
        Scenario("3天内要做的", Expect(5, 6, limit=5, window=(tz("2026-11-30T10:00:00"), tz("2026-12-03T23:59:59")))),
        id="trap-3-tian-nei",
    ),
    pytest.param(
        Scenario("下周3有什么", Expect(1, first="提交年度预算", limit=5, window=day("2026-12-09"))),
        id="trap-xia-zhou-3",
    ),
    pytest.param(
        Scenario("12月5日有什么任务", Expect(1, first="整理书桌", limit=5, window=day("2026-12-05"))),
        id="trap-12-yue-5-ri",
    ),
    pytest.param(
        Scenario("给我一些任务", Expect(5, 24, limit=5, quadrants=None, window=None)),
        id="trap-gei-wo-yi-xie",
    ),
    # --- "all" ------------------------------------------------------------------------------------
    pytest.param(
        Scenario(
            "全部任务",
            Expect(
                20, 24, wants_all=True, limit=20, lacks=("洗车", "提交报销单"), extra=tail_says(4, offers_all=False)
            ),
        ),
        id="wants-all-page-max",
    ),
    # --- time phrases: days -----------------------------------------------------------------------
    pytest.param(
        # Today's, and before them what is overdue and still open (the window reported is today's).
        Scenario(
            "今天要做什么",
            Expect(
                4,
                has=("准备董事会材料", "取快递", "修复线上支付故障", "回复客户邮件"),
                first="准备董事会材料",
                window=day("2026-11-30"),
            ),
        ),
        id="time-today",
    ),
    pytest.param(
        Scenario("明天有什么任务", Expect(2, has=("给绿植浇水", "交季度报告"), window=day("2026-12-01"))),
        id="time-tomorrow",
    ),
    pytest.param(
        Scenario("后天要交什么", Expect(1, first="团队一对一沟通", window=day("2026-12-02"), prefix="只找到这一条：")),
        id="time-day-after-tomorrow",
    ),
    pytest.param(
        Scenario("大后天有什么事", Expect(1, first="买咖啡豆", window=day("2026-12-03"))),
        id="time-three-days-out",
    ),
    # --- time phrases: weeks ----------------------------------------------------------------------
    pytest.param(
        Scenario(
            "这周还有哪些任务",
            Expect(
                5,
                9,
                window=(tz("2026-11-30T00:00:00"), tz("2026-12-06T23:59:59")),
                lacks=("准备董事会材料", "预订机票"),
                extra=tail_says(4),
            ),
        ),
        id="time-this-week",
    ),
    pytest.param(
        Scenario(
            "下周有什么安排",
            Expect(5, 6, first="准备周会议程", window=(tz("2026-12-07T00:00:00"), tz("2026-12-13T23:59:59"))),
        ),
        id="time-next-week",
    ),
    pytest.param(
        Scenario(
            "下礼拜要做什么",
            Expect(5, 6, first="准备周会议程", window=(tz("2026-12-07T00:00:00"), tz("2026-12-13T23:59:59"))),
        ),
        id="time-next-week-libai",
    ),
    pytest.param(
        Scenario(
            "周末有什么事",
            Expect(2, has=("整理书桌", "订周末电影票"), window=(tz("2026-12-05T00:00:00"), tz("2026-12-06T23:59:59"))),
        ),
        id="time-weekend",
    ),
    pytest.param(
        Scenario("下周三有什么任务", Expect(1, first="提交年度预算", window=day("2026-12-09"))),
        id="time-next-wednesday",
    ),
    pytest.param(
        Scenario("礼拜五有什么任务", Expect(1, first="续签租房合同", window=day("2026-12-04"))),
        id="time-libai-friday",
    ),
    # --- time phrases: months ---------------------------------------------------------------------
    pytest.param(
        Scenario(
            "本月还剩哪些任务",
            Expect(
                4, has=("准备董事会材料", "回复客户邮件"), window=(tz("2026-11-01T00:00:00"), tz("2026-11-30T23:59:59"))
            ),
        ),
        id="time-this-month",
    ),
    pytest.param(
        Scenario(
            "下个月有什么任务",
            Expect(
                5,
                17,
                window=(tz("2026-12-01T00:00:00"), tz("2026-12-31T23:59:59")),
                lacks=("预订机票", "清理旧合同扫描件"),
                extra=tail_says(12),
            ),
        ),
        id="time-next-month-tail",
    ),
    pytest.param(
        Scenario(
            "月底要交什么",
            Expect(4, has=("修复线上支付故障",), window=(tz("2026-11-24T00:00:00"), tz("2026-11-30T23:59:59"))),
        ),
        id="time-month-end",
    ),
    pytest.param(
        Scenario(
            "下个月初有什么任务",
            Expect(5, 6, first="给绿植浇水", window=(tz("2026-12-01T00:00:00"), tz("2026-12-05T23:59:59"))),
        ),
        id="time-next-month-start",
    ),
    pytest.param(
        Scenario(
            "月初有什么任务",
            Expect(5, 6, first="给绿植浇水", window=(tz("2026-12-01T00:00:00"), tz("2026-12-05T23:59:59"))),
        ),
        id="time-month-start",
    ),
    # --- time phrases: spans ----------------------------------------------------------------------
    pytest.param(
        Scenario(
            "三天内要完成的任务",
            Expect(5, 6, window=(tz("2026-11-30T10:00:00"), tz("2026-12-03T23:59:59")), lacks=("取快递",)),
        ),
        id="time-within-three-days",
    ),
    pytest.param(
        Scenario("最近三天有什么任务", Expect(5, 6, window=(tz("2026-11-30T10:00:00"), tz("2026-12-03T23:59:59")))),
        id="time-recent-three-days",
    ),
    pytest.param(
        Scenario(
            "未来一周的任务",
            Expect(5, 10, window=(tz("2026-11-30T10:00:00"), tz("2026-12-07T10:00:00")), lacks=("准备董事会材料",)),
        ),
        id="time-next-seven-days",
    ),
    pytest.param(
        Scenario(
            "这两天要做什么",
            Expect(4, window=(tz("2026-11-30T00:00:00"), tz("2026-12-01T23:59:59")), lacks=("团队一对一沟通",)),
        ),
        id="time-these-two-days",
    ),
    # --- time phrases: parts of a day ---------------------------------------------------------------
    pytest.param(
        Scenario(
            "今晚有什么要做的",
            Expect(2, has=("回复客户邮件",), window=(tz("2026-11-30T18:00:00"), tz("2026-11-30T23:59:59"))),
        ),
        id="time-tonight",
    ),
    pytest.param(
        Scenario(
            "明天上午有什么事",
            Expect(
                1,
                first="给绿植浇水",
                lacks=("交季度报告",),
                window=(tz("2026-12-01T07:00:00"), tz("2026-12-01T11:59:59")),
            ),
        ),
        id="time-tomorrow-morning",
    ),
    # --- time phrases: before / after -------------------------------------------------------------
    pytest.param(
        Scenario(
            "周五之前要交什么",
            Expect(5, 7, window=(tz("2026-11-30T10:00:00"), tz("2026-12-04T23:59:59")), extra=tail_says(2)),
        ),
        id="time-before-friday",
    ),
    pytest.param(
        Scenario(
            "12月5号以后有哪些任务",
            Expect(5, 13, first="整理书桌", lock=None, window=(tz("2026-12-05T00:00:00"), None)),
        ),
        id="time-after-dec-5",
    ),
    pytest.param(
        Scenario(
            "下周三之前要做完什么",
            Expect(5, 13, window=(tz("2026-11-30T10:00:00"), tz("2026-12-09T23:59:59"))),
        ),
        id="time-before-next-wednesday",
    ),
    # --- time phrases: overdue ----------------------------------------------------------------------
    pytest.param(
        Scenario(
            "有哪些逾期的任务",
            Expect(2, has=("准备董事会材料", "取快递"), lacks=("提交报销单",), window="overdue"),
        ),
        id="time-overdue",
    ),
    pytest.param(
        Scenario("过期了的任务有哪些", Expect(2, has=("准备董事会材料", "取快递"), window="overdue")),
        id="time-expired",
    ),
    # --- time phrases: absolute dates -----------------------------------------------------------
    pytest.param(
        Scenario("2026-12-15有什么任务", Expect(1, first="学习新框架", window=day("2026-12-15"))),
        id="time-iso-date",
    ),
    # --- completed and created windows ------------------------------------------------------------
    pytest.param(
        Scenario(
            "上周完成了哪些",
            Expect(
                3,
                has=("提交报销单", "签署劳动合同", "洗车"),
                lacks=("预订机票",),
                time_field="completed",
                window=(tz("2026-11-23T00:00:00"), tz("2026-11-29T23:59:59")),
                extra=completed_only,
            ),
        ),
        id="completed-last-week",
    ),
    pytest.param(
        Scenario(
            "这周完成了哪些",
            Expect(1, first="预订机票", time_field="completed", extra=completed_only),
        ),
        id="completed-this-week",
    ),
    pytest.param(
        Scenario(
            "最近新建的任务",
            Expect(
                2,
                first="准备周会议程",  # newest first
                has=("写读书笔记",),
                lacks=("修理自行车", "交季度报告"),
                time_field="created",
                window=(tz("2026-11-23T10:00:00"), tz("2026-11-30T10:00:00")),
            ),
        ),
        id="created-recently",
    ),
    # --- keyword ----------------------------------------------------------------------------------
    pytest.param(
        Scenario(
            "和合同相关的任务",
            Expect(
                3,
                has=("续签租房合同", "审阅供应商合同", "清理旧合同扫描件"),
                lacks=("签署劳动合同",),  # completed
                extra=no_tail,
            ),
        ),
        id="keyword-contract",
    ),
    # --- empty result → automatic broadening ------------------------------------------------------
    pytest.param(
        Scenario(
            "明天有什么重要不紧急的任务",
            Expect(
                5,
                5,
                quadrants=[2],
                groups=frozenset({"重要不紧急"}),
                broadened=("nearest",),
                prefix="「明天」没有符合条件的任务。",
                extra=lambda answer: assert_second_line(answer, "这个时间之外，最近的是："),
            ),
        ),
        id="broaden-keeps-the-window-offers-the-nearest",
    ),
    pytest.param(
        Scenario(
            "和发票有关的重要任务",
            Expect(
                5,
                12,
                quadrants=[1, 2],
                groups=IMPORTANT,
                broadened=("keyword",),
                prefix="没有标题含「发票」的任务。",
                extra=lambda answer: assert_second_line(answer, "不限关键词，找到这些："),
            ),
        ),
        id="broaden-drops-keyword-keeps-quadrants",
    ),
    pytest.param(
        Scenario(
            "来一个明天的不简单不重要的任务",
            Expect(
                1,
                3,
                lock=1,
                limit=1,
                quadrants=[4],
                groups=frozenset({"不简单不重要"}),
                broadened=("nearest",),
            ),
        ),
        id="broaden-keeps-locked-limit",
    ),
    # --- no result at all ---------------------------------------------------------------------------
    pytest.param(
        Scenario(
            "今天要做什么",
            Expect(0, broadened=("nearest", "include_completed"), prefix="「今天」没有符合条件的任务。"),
            user="carol",
        ),
        id="no-result-new-user",
    ),
    # --- empty answers explain themselves from counts the store computed -------------------------
    pytest.param(
        Scenario(
            "这周有什么重要的要交",
            Expect(
                0,
                quadrants=[1, 2],
                broadened=("nearest", "include_completed"),
                prefix="「这周」没有符合条件的任务；你有 2 条逾期，3 条没有截止时间；下一个截止在 12月9日 周三。",
                extra=lambda answer: assert_second_line(answer, "要看看逾期的吗？"),
            ),
            user="dora",
        ),
        id="empty-week-with-overdue-and-undated",
    ),
    pytest.param(
        Scenario(
            "和发票有关的重要任务",
            Expect(
                0,
                quadrants=[1, 2],
                broadened=("keyword", "include_completed"),
                prefix="没有标题含「发票」的任务；你一共有 7 条任务。",
                extra=lambda answer: assert_second_line(answer, "可以换个说法，或者问问「全部任务」。"),
            ),
            user="dora",
        ),
        id="empty-keyword",
    ),
    pytest.param(
        Scenario(
            "我还有哪些任务",
            Expect(
                0,
                broadened=("include_completed",),
                prefix="没有找到符合条件的任务。",
                extra=lambda answer: assert_second_line(answer, "你还没有任何任务，说一句「帮我记一下…」就能加一条。"),
            ),
            user="erin",
        ),
        id="empty-no-tasks-at-all",
    ),
    pytest.param(
        Scenario(
            "上周完成了哪些重要的",
            Expect(
                0,
                quadrants=[1, 2],
                time_field="completed",
                broadened=("time_window",),
                prefix="「上周」没有符合条件的任务；你一共完成过 1 条任务。",
            ),
            user="dora",
        ),
        id="empty-completed-in-window",
    ),
    pytest.param(
        Scenario(
            "上周完成了哪些",
            Expect(
                1,
                first="寄明信片",
                time_field="completed",
                broadened=("time_window",),
                prefix="「上周」没有符合条件的任务。",
                extra=lambda answer: assert_second_line(answer, "不限时间，找到这些："),
            ),
            user="dora",
        ),
        id="broaden-completed-drops-the-window",
    ),
    pytest.param(
        Scenario(
            "any important tasks due this week?",
            Expect(
                0,
                quadrants=[1, 2],
                broadened=("nearest", "include_completed"),
                prefix='Nothing matches for "this week"; you have 2 overdue, 3 without a deadline; '
                "the next deadline is Wed Dec 9.",
                extra=lambda answer: assert_second_line(answer, "Want to see the overdue ones?"),
            ),
            user="dora",
        ),
        id="empty-english",
    ),
    # --- the offer an empty answer makes, answered with a bare yes ---------------------------------
    pytest.param(
        Scenario(
            "要",
            Expect(
                2,
                has=("浇花", "还图书馆的书"),
                lacks=("整理照片", "买新拖鞋"),
                window="overdue",
                prefix="「逾期」的任务在这里：",
            ),
            user="dora",
            before=("这周有什么重要的要交",),
        ),
        id="offer-yes-lists-the-overdue",
    ),
    # --- follow-ups -------------------------------------------------------------------------------
    pytest.param(
        Scenario(
            "再来两个",
            Expect(
                2,
                8,
                lock=2,
                limit=2,
                quadrants=[3],
                numbers_from=2,
                has=("回复客户邮件", "给绿植浇水"),
                lacks=("取快递",),  # already shown
                extra=tail_says(5),
            ),
            before=("来一个简单的任务",),
        ),
        id="followup-more-two",
    ),
    pytest.param(
        Scenario(
            "那下周的呢",
            Expect(
                3,
                quadrants=[1, 2],
                groups=IMPORTANT,
                window=(tz("2026-12-07T00:00:00"), tz("2026-12-13T23:59:59")),
            ),
            before=("重要的任务有哪些",),
        ),
        id="followup-switch-time",
    ),
    # --- a second user ------------------------------------------------------------------------------
    pytest.param(
        Scenario("这周有什么任务", Expect(5, has=("鲍勃交季度报告",), extra=only_bob), user="bob"),
        id="second-user-this-week",
    ),
    pytest.param(
        Scenario("有哪些逾期的任务", Expect(1, first="鲍勃逾期的报销", window="overdue", extra=only_bob), user="bob"),
        id="second-user-overdue",
    ),
]


def check(answer: Any, sc: Scenario) -> None:
    """The semantic assertions every offline scenario gets, from its `Expect`."""
    ex = sc.expect
    content = answer.visible
    assert answer.action == "task_query"
    assert (answer.requests, answer.offline_steps) == (0, 3), "offline: router, plan and reflect are rules"
    if sc.user != "bob":
        assert BOB not in content, "another user's task leaked"

    # the flow: every node in order, broadening only when something was broadened, no retries
    nodes = ["route", "plan", "quadrant", "time_anchor", "tool_query"]
    nodes += ["broaden"] if ex.broadened else []
    assert flow(answer) == [*nodes, "reflect"]

    # the plan: the count lock and "all"
    plan = event(answer, "plan").data
    assert plan["explicit_limit"] == ex.lock
    assert plan["wants_all"] is ex.wants_all
    anchor = event(answer, "time_anchor").data
    if ex.limit is not None:
        assert anchor["limit"] == ex.limit
    if ex.lock is None and not ex.wants_all:
        assert "limit" not in plan["plan"], "a number that is not a count locked something"
        assert anchor["limit"] == 5
    if ex.quadrants != "any":
        assert event(answer, "quadrant").data["quadrants"] == ex.quadrants
    assert anchor["time_field"] == ex.time_field
    if ex.window == "overdue":
        assert "逾期" in event(answer, "time_anchor").message
        assert anchor["time_before"] == tz("2026-11-30T10:00:00")
    elif ex.window != "any":
        assert (anchor["time_after"], anchor["time_before"]) == (ex.window or (None, None))
    if ex.broadened:
        assert event(answer, "broaden").data["broadened"] == list(ex.broadened)

    # the rendered list
    lines = list_lines(content)
    assert len(lines) == ex.lines, content
    assert [line.number for line in lines] == list(range(ex.numbers_from, ex.numbers_from + ex.lines))
    titles = [line.title for line in lines]
    if ex.lines:
        total = ex.total if ex.total is not None else ex.lines
        assert header_counts(content) == (ex.lines, total)
        if total > ex.lines:
            assert f"（共 {total} 条匹配）" in content
    else:
        assert header_counts(content) is None
    for title in ex.has:
        assert title in titles, f"{title} missing from {titles}"
    for title in ex.lacks:
        assert title not in titles, f"{title} should not be listed"
    if ex.first is not None:
        assert titles[0] == ex.first
    if ex.groups is not None:
        for line in lines:
            assert line.facts.split("（")[0].split("；")[0] in ex.groups, line
    if ex.prefix is not None:
        assert lead_of(content.splitlines()[0]) == lead_of(ex.prefix)
    if ex.extra is not None:
        ex.extra(answer)


@pytest.mark.parametrize("sc", SCENARIOS)
async def test_scenario(seeded: Any, sc: Scenario, snapshot: Any) -> None:
    history: list[tuple[str, str]] = []
    for question in sc.before:
        previous = await seeded.ask(question, user=sc.user, history=history)
        history += [("user", question), ("assistant", previous.content)]
    answer = await seeded.ask(sc.message, user=sc.user, history=history)
    check(answer, sc)
    if not list_lines(answer.visible):
        # An empty answer is not satisfying, but nothing can fix it: the verdict says why, no retry.
        verdict = event(answer, "reflect")
        assert verdict.message.startswith("没有匹配：")
        assert (verdict.data["satisfied"], verdict.data["need_retry"]) == (False, False)
    assert answer.snapshot() == snapshot


def test_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 40


async def test_clamped_count_then_more_continues(seeded: Any, snapshot: Any) -> None:
    """ "前五十个" shows the page maximum and says so; "还有吗" shows the rest after it, uncut."""
    first = await seeded.ask("前五十个任务")
    assert event(first, "plan").data["explicit_limit"] == 50  # the count as said
    assert event(first, "time_anchor").data["limit"] == 20  # the page as it can be
    assert first.visible.splitlines()[0] == "最多一次列 20 条，先给你前 20 条（共 24 条匹配）："
    assert header_counts(first.visible) == (20, 24)
    more = await seeded.ask("还有吗", history=[("user", "前五十个任务"), ("assistant", first.content)])
    lines = list_lines(more.visible)
    assert [line.number for line in lines] == list(range(21, 25))
    assert not set(titles_of(more)) & set(titles_of(first))
    assert more.visible.splitlines()[0] == "按你的问题找到这些任务（共 24 条匹配）："  # nothing cut this time
    assert more.snapshot() == snapshot


async def test_clamped_count_in_english(seeded: Any, snapshot: Any) -> None:
    answer = await seeded.ask("give me 50 tasks")
    assert event(answer, "plan").data["explicit_limit"] == 50
    assert event(answer, "time_anchor").data["limit"] == 20
    lines = answer.visible.splitlines()
    assert lines[:2] == ["I can list at most 20 at a time; here are the first 20 (24 matches):", ""]
    assert lines[-1] == '4 more not listed — say "4 more" to see them.'
    assert answer.snapshot() == snapshot


async def test_count_within_the_page_says_nothing_about_a_maximum(seeded: Any) -> None:
    """Asking for more than a page holds matters only when more than a page matched."""
    answer = await seeded.ask("给我30个简单的任务")  # 8 simple tasks: all of them fit
    assert event(answer, "time_anchor").data["limit"] == 20
    assert header_counts(answer.visible) == (8, 8)
    assert "最多一次" not in answer.visible


# Probe tables: many wordings per family, asserting only what each must mean (no snapshots).

CLAMP_PROBES = [
    ("前五十个任务", 50, "zh"),
    ("给我100条", 100, "zh"),
    ("列出前30个任务", 30, "zh"),
    ("来25个任务看看", 25, "zh"),
    ("给我40条任务", 40, "zh"),
    ("top 50", 50, "zh"),
    ("give me 50 tasks", 50, "en"),
    ("show me 30 tasks", 30, "en"),
]


@pytest.mark.parametrize(("message", "said", "locale"), CLAMP_PROBES)
async def test_probe_clamped_counts(seeded: Any, message: str, said: int, locale: str) -> None:
    answer = await seeded.ask(message)
    assert answer.action == "task_query"
    assert event(answer, "plan").data["explicit_limit"] == said  # kept as said
    assert event(answer, "time_anchor").data["limit"] == 20  # the page maximum
    first = answer.visible.splitlines()[0]
    expected = {
        "zh": "最多一次列 20 条，先给你前 20 条：",
        "en": "I can list at most 20 at a time; here are the first 20:",
    }
    assert lead_of(first) == lead_of(expected[locale])


# Dora has nothing important (see DORA_TASKS): every important question about a deadline finds
# nothing, even broadened, and the answer says what she does have.
EMPTY_PROBES = [
    ("下周有什么重要的任务", "「下周」", "zh"),
    ("明天要交的重要任务", "「明天」", "zh"),
    ("本月有哪些重要的事", "「本月」", "zh"),
    ("今天有什么紧急的", "「今天」", "zh"),
    ("这周五之前重要的任务", "", "zh"),
    ("重要的任务有哪些", "", "zh"),
    ("important tasks for next week", "next week", "en"),
    ("any urgent tasks today?", "today", "en"),
]


@pytest.mark.parametrize(("message", "phrase", "locale"), EMPTY_PROBES)
async def test_probe_empty_answers_explain_themselves(seeded: Any, message: str, phrase: str, locale: str) -> None:
    answer = await seeded.ask(message, user="dora")
    assert answer.action == "task_query"
    assert list_lines(answer.visible) == [] and "Here " not in answer.visible
    first, offer = answer.visible.splitlines()
    assert phrase in first
    facts = {"zh": "你有 2 条逾期，3 条没有截止时间", "en": "you have 2 overdue, 3 without a deadline"}
    offers = {"zh": "要看看逾期的吗？", "en": "Want to see the overdue ones?"}
    assert facts[locale] in first
    assert offer == offers[locale]
    verdict = event(answer, "reflect")
    assert verdict.message.startswith("没有匹配：") and "逾期" in verdict.message
    assert verdict.data["facts"]["overdue"] == 2 and verdict.data["need_retry"] is False
    assert flow(answer).count("reflect") == 1  # no retry loop


# ---------------------------------------------------------------------------------------------
# fixtures


@pytest.fixture
def seeded(harness: Any) -> Any:
    return seed(harness)


@pytest.fixture
def seeded_with(database_url: str) -> Iterator[Callable[..., Any]]:
    """Seeded harnesses built with extra options, such as an injected ModelHub."""
    made: list[Any] = []

    def build(**kwargs: Any) -> Any:
        h = make_harness(database_url, **kwargs)
        made.append(h)
        return seed(h)

    yield build
    for h in made:
        h.state.engine.dispose()


# ---------------------------------------------------------------------------------------------
# scenarios with injected models: reflect retries, prefixes, failures, the call budget


def structured(answer: Callable[[int], dict[str, Any]], *, name: str) -> FunctionModel:
    """A model whose n-th call (1-based) answers through the agent's output tool with `answer(n)`."""
    calls = 0

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal calls
        calls += 1
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, answer(calls))])

    return FunctionModel(respond, model_name=name)


def failing(name: str) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ModelHTTPError(status_code=500, model_name=name)

    return FunctionModel(respond, model_name=name)


def reflect_says(prefix: str) -> FunctionModel:
    return structured(lambda n: {"satisfied": True, "need_retry": False, "prefix": prefix}, name="reflect-fake")


async def ask_with(seeded_with: Callable[..., Any], message: str, user: str = "alice", **models: Any) -> Any:
    h = seeded_with(hub=ModelHub(injected=models))
    return await h.ask(message, user=user)


def titles_of(answer: Any) -> list[str]:
    return [line.title for line in list_lines(answer.visible)]


async def test_reflect_retry_cannot_change_locked_limit(seeded_with: Callable[..., Any], snapshot: Any) -> None:
    """Reflect asks for 10 urgent tasks after "来一个任务": the retry runs, the count stays 1."""

    def reflect(n: int) -> dict[str, Any]:
        if n == 1:
            return {"satisfied": False, "need_retry": True, "patch": {"limit": 10, "quadrants": [1]}, "prefix": ""}
        return {"satisfied": True, "need_retry": False, "prefix": "先把这件最要紧的做了"}

    answer = await ask_with(seeded_with, "来一个任务", reflect=structured(reflect, name="reflect-fake"))
    assert flow(answer) == [
        "route", "plan", "quadrant", "time_anchor", "tool_query", "reflect", "retry", "tool_query", "reflect"
    ]  # fmt: skip
    retry = event(answer, "retry", "info")
    assert retry.data["limit"] == 1
    assert any("忽略了把条数改成 10" in note for note in retry.data["changes"])
    assert event(answer, "plan").data["explicit_limit"] == 1
    assert titles_of(answer) == ["准备董事会材料"]
    assert header_counts(answer.visible) == (1, 6)  # the patch's quadrants [1] did apply
    assert lead_of(answer.visible.splitlines()[0]) == "先把这件最要紧的做了"
    assert answer.requests == 2  # reflect 2; router and plan ran offline
    assert answer.snapshot() == snapshot


async def test_reflect_patch_cannot_change_priorities_the_user_said(seeded_with: Callable[..., Any]) -> None:
    """After "来一个重要的任务" a patch to group 1 only is refused: 重要 means 1-2, so nothing retries."""

    def reflect(n: int) -> dict[str, Any]:
        return {"satisfied": False, "need_retry": True, "patch": {"limit": 10, "quadrants": [1]}, "prefix": ""}

    answer = await ask_with(seeded_with, "来一个重要的任务", reflect=structured(reflect, name="reflect-fake"))
    assert "tool_query" in flow(answer) and flow(answer).count("reflect") == 1
    refused = event(answer, "retry", "info")
    assert "不重试" in refused.message
    assert event(answer, "quadrant").data["quadrants"] == [1, 2]
    assert len(list_lines(answer.visible)) == 1
    assert answer.requests == 1


async def test_reflect_retries_stop_at_the_cap(seeded_with: Callable[..., Any], snapshot: Any) -> None:
    """A reflect model that is never satisfied: 2 retries, then the answer — the worst-case budget."""

    def reflect(n: int) -> dict[str, Any]:
        # A different order each time, so every retry changes the query (an unchanged one is not run).
        patch = {"limit": 9, "sort_by": "priority" if n % 2 else "deadline"}
        return {"satisfied": False, "need_retry": True, "patch": patch, "prefix": ""}

    # No count or rank in the words, so the model may choose the order (a ranked query keeps the code's).
    answer = await ask_with(seeded_with, "有哪些简单的任务", reflect=structured(reflect, name="reflect-fake"))
    assert [e.data["retry"] for e in answer.events if e.stage == "retry"] == [1, 2]
    assert flow(answer).count("reflect") == 3
    assert answer.requests == 3, "reflect 3 (2 retries) is the cap; router and plan ran offline"
    assert list_lines(answer.visible)
    assert all(line.facts.startswith("简单不重要") for line in list_lines(answer.visible))
    assert answer.snapshot() == snapshot


async def test_a_ranked_query_keeps_the_codes_order_whatever_reflect_patches(seeded_with: Callable[..., Any]) -> None:
    """ "两个" is a count: the order and the page are the code's, so a reorder patch changes nothing
    and is not run (one reflect request, no retry)."""

    def reflect(n: int) -> dict[str, Any]:
        return {"satisfied": False, "need_retry": True, "patch": {"sort_by": "priority", "order": "desc"}, "prefix": ""}

    answer = await ask_with(seeded_with, "给我两个简单的任务", reflect=structured(reflect, name="reflect-fake"))
    assert [e.data for e in answer.events if e.stage == "retry" and "retry" in e.data] == []
    assert answer.requests == 1
    assert [line.title for line in list_lines(answer.visible)] == ["取快递", "回复客户邮件"]  # overdue first
    assert len(list_lines(answer.visible)) == 2


async def test_broadening_counts_as_a_retry(seeded_with: Callable[..., Any], snapshot: Any) -> None:
    """Broadening uses one of the two retries, so a never-satisfied reflect gets only one more."""

    def reflect(n: int) -> dict[str, Any]:
        patch = {"sort_by": "priority" if n % 2 else "deadline", "include_completed": True}
        return {"satisfied": False, "need_retry": True, "patch": patch, "prefix": ""}

    answer = await ask_with(seeded_with, "和发票有关的重要任务", reflect=structured(reflect, name="reflect-fake"))
    assert flow(answer).count("broaden") == 1
    assert flow(answer).count("retry") == 1
    assert answer.requests == 2  # reflect twice: broadening took one of the two retries
    # The retry builds on the broadened query (no keyword). Which tasks count is the rules' call:
    # the patch's include_completed is refused, its order is taken.
    retry = event(answer, "retry", "info")
    assert retry.data["limit"] == 5
    assert header_counts(answer.visible) == (5, 12)
    assert all(line.facts.split("；")[0].split("（")[0] in IMPORTANT for line in list_lines(answer.visible))
    assert BOB not in answer.visible
    assert answer.snapshot() == snapshot


# "今天要做什么" on the seeded data: the two overdue open tasks, then today's two.
TODAY_WITH_OVERDUE = ["准备董事会材料", "取快递", "修复线上支付故障", "回复客户邮件"]

PREFIX_REJECTED = [
    pytest.param("1. 交季度报告", id="prefix-numbered-list"),
    pytest.param("1、先做这个", id="prefix-chinese-numbered"),
    pytest.param("- 先看看这些", id="prefix-dash"),
    pytest.param("• 重点在这里", id="prefix-bullet"),
    pytest.param("# 今日任务", id="prefix-heading"),
    pytest.param("以下是你的任务：", id="prefix-yixia-shi"),
    pytest.param("先把修复线上支付故障搞定", id="prefix-names-a-task"),
    pytest.param("好的！\n看看这些", id="prefix-two-lines"),
    pytest.param(
        "这是一个非常非常长的开场白，它远远超过了三十个字符的限制，所以必须被丢弃掉才对", id="prefix-too-long"
    ),
]


@pytest.mark.parametrize("prefix", PREFIX_REJECTED)
async def test_model_prefix_that_looks_like_a_list_is_discarded(
    seeded_with: Callable[..., Any], prefix: str, snapshot: Any
) -> None:
    answer = await ask_with(seeded_with, "今天要做什么", reflect=reflect_says(prefix))
    first, *rest = answer.visible.splitlines()
    assert first == "「今天」的任务在这里（共 4 条）："  # the deterministic prefix, the one header
    assert prefix.splitlines()[0] not in answer.visible
    assert titles_of(answer) == TODAY_WITH_OVERDUE
    assert rest[0] == ""
    assert answer.snapshot() == snapshot


async def test_model_prefix_that_is_one_short_line_is_kept(seeded_with: Callable[..., Any], snapshot: Any) -> None:
    answer = await ask_with(seeded_with, "今天要做什么", reflect=reflect_says("今天有两件事，晚上前搞定"))
    assert answer.visible.splitlines()[0] == "今天有两件事，晚上前搞定（共 4 条）："
    assert titles_of(answer) == TODAY_WITH_OVERDUE
    assert answer.snapshot() == snapshot


async def test_no_result_path_filters_the_prefix_too(seeded_with: Callable[..., Any], snapshot: Any) -> None:
    answer = await ask_with(
        seeded_with, "今天要做什么", user="carol", reflect=reflect_says("以下是：\n1. 交季度报告\n2. 回复客户邮件")
    )
    assert answer.visible == "「今天」没有符合条件的任务。\n你还没有任何任务，说一句「帮我记一下…」就能加一条。"
    assert list_lines(answer.visible) == []
    assert answer.snapshot() == snapshot


async def test_plan_model_failure_falls_back_to_the_offline_plan(
    seeded_with: Callable[..., Any], snapshot: Any
) -> None:
    answer = await ask_with(seeded_with, "来一个简单的任务", plan=failing("plan-fake"))
    fallback = event(answer, "fallback", "info")
    assert fallback.data["node"] == "plan"
    assert fallback.data["error"] == "ModelHTTPError"
    assert titles_of(answer) == ["取快递"]
    assert header_counts(answer.visible) == (1, 8)
    assert event(answer, "plan").data["explicit_limit"] == 1
    assert answer.requests == 1  # the failed plan call is counted
    assert answer.offline_steps == 3  # router, the plan's fallback, reflect
    assert answer.snapshot() == snapshot


async def test_plan_model_invalid_output_falls_back(seeded_with: Callable[..., Any], snapshot: Any) -> None:
    plan = structured(lambda n: {"quadrants": "the simple ones", "sort_by": "whatever"}, name="plan-fake")
    answer = await ask_with(seeded_with, "明天有什么任务", plan=plan)
    assert event(answer, "fallback", "info").data["node"] == "plan"
    assert titles_of(answer) == ["给绿植浇水", "交季度报告"]
    assert answer.snapshot() == snapshot


async def test_reflect_model_failure_still_gives_the_list(seeded_with: Callable[..., Any], snapshot: Any) -> None:
    answer = await ask_with(seeded_with, "这周还有哪些任务", reflect=failing("reflect-fake"))
    assert event(answer, "fallback", "info").data["node"] == "reflect"
    assert header_counts(answer.visible) == (5, 9)
    assert answer.visible.splitlines()[0] == "「这周」的任务在这里（共 9 条匹配）："
    assert "retry" not in flow(answer)
    assert answer.requests == 1
    assert answer.snapshot() == snapshot


async def test_plan_and_reflect_both_failing(seeded_with: Callable[..., Any], snapshot: Any) -> None:
    answer = await ask_with(seeded_with, "前3个紧急的任务", plan=failing("plan-fake"), reflect=failing("reflect-fake"))
    assert [e.data["node"] for e in answer.events if e.stage == "fallback"] == ["plan", "reflect"]
    assert titles_of(answer) == ["准备董事会材料", "修复线上支付故障", "交季度报告"]
    assert answer.requests == 2
    assert answer.snapshot() == snapshot


async def test_plan_model_cannot_change_a_locked_count(seeded_with: Callable[..., Any], snapshot: Any) -> None:
    plan = structured(lambda n: {"quadrants": [3], "limit": 10}, name="plan-fake")
    answer = await ask_with(seeded_with, "来一个简单的任务", plan=plan)
    assert event(answer, "time_anchor").data["limit"] == 1
    assert titles_of(answer) == ["取快递"]
    assert answer.snapshot() == snapshot


async def test_plan_model_quadrants_out_of_range_are_refused(seeded_with: Callable[..., Any], snapshot: Any) -> None:
    # [0, 9] fails the schema (groups are 1..4): the model is asked again, then the rules answer.
    plan = structured(lambda n: {"quadrants": [0, 3, 3, 9]}, name="plan-fake")
    answer = await ask_with(seeded_with, "有什么简单的事", plan=plan)
    fallback = event(answer, "fallback", "info")
    assert (fallback.data["node"], fallback.data["error"]) == ("plan", "UnexpectedModelBehavior")
    assert answer.requests == 2  # the invalid answer and its one validation retry
    assert event(answer, "quadrant").data["quadrants"] == [3]
    assert {line.facts.split("；")[0].split("（")[0] for line in list_lines(answer.visible)} == {"简单不重要"}
    assert answer.snapshot() == snapshot


async def test_time_phrase_beats_the_models_weekday_arithmetic(seeded_with: Callable[..., Any], snapshot: Any) -> None:
    """The model copies "下周三之前" but computes the wrong Wednesday; code anchors it."""
    plan = structured(
        lambda n: {
            "time_text": "下周三之前",
            "time_after": "2026-11-30T10:00:00+08:00",
            "time_before": "2026-12-02T23:59:59+08:00",  # this Wednesday: wrong
        },
        name="plan-fake",
    )
    answer = await ask_with(seeded_with, "下周三之前要做完什么", plan=plan)
    anchor = event(answer, "time_anchor").data
    assert anchor["time_before"] == tz("2026-12-09T23:59:59")
    assert header_counts(answer.visible) == (5, 13)
    assert answer.snapshot() == snapshot


async def test_unresolvable_phrase_uses_the_models_bounds(seeded_with: Callable[..., Any], snapshot: Any) -> None:
    """Model-given absolute bounds are the fallback when the phrase cannot be resolved."""
    plan = structured(
        lambda n: {
            "time_text": "发薪日前后",
            "time_after": "2026-12-04T00:00:00+08:00",
            "time_before": "2026-12-05T23:59:59+08:00",
        },
        name="plan-fake",
    )
    answer = await ask_with(seeded_with, "发薪日前后有什么要做的", plan=plan)
    assert "采用模型给出的时间" in event(answer, "time_anchor").message
    assert titles_of(answer) == ["续签租房合同", "整理书桌"]
    assert answer.snapshot() == snapshot


@pytest.mark.parametrize("message", ["top5", "前三个任务", "最急的两个", "show me the top 3"])
async def test_a_plan_model_cannot_reverse_what_top_means(seeded_with: Callable[..., Any], message: str) -> None:
    """Order and page are the code's for a ranked query: a plan sorted latest-first is refused, so
    the overdue tasks and the ones due soonest make the page (deadline order, soonest first)."""
    plan = structured(lambda n: {"sort_by": "deadline", "order": "desc"}, name="plan-fake")
    answer = await ask_with(seeded_with, message, plan=plan)
    flt = answer.data["filter"]
    assert flt["order"] == "asc" and flt["sort_by"] in ("deadline", "priority"), flt  # 最急: priority first
    [plan_end] = [e for e in answer.events if e.stage == "plan" and e.status == "end"]
    assert any("排序按你的话" in note for note in plan_end.data["overridden"]), plan_end.data
    first = answer.visible.split("\n")[2]
    assert "已逾期" in first or "overdue" in first, answer.visible
