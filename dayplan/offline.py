"""Offline reading of the day plan: "今天怎么安排", "plan my day", "这周哪天最闲", and "换一个" after a plan.

Mine (a :class:`PlanRequest`, 0.9 — phrases no other action uses):

* a day's plan — "今天怎么安排", "今天先做什么", "帮我把今天的任务排个时间", "今天的计划", "帮我安排一下明天",
  "帮我制定一个明天的计划"; "plan my day", "what should I do today", "plan tomorrow", "today's plan";
* the week's lightest day — "这周哪天最闲", "下周哪天比较空", "which day this week is least busy";
* another plan, right after a plan answer — "换一个", "再排一个", "换个顺序", "another plan", "shuffle it".

Not mine: what is due ("今天有什么任务", "今天要做什么", "what do I have today" — the task query lists
them), a note that mentions a plan ("记一下今天安排体检", "我明天的计划是去爬山"), whether something was
done ("今天的任务完成了吗"), "what first" without a day ("我该先做哪个": the query's most pressing).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from core.turn import HistoryTurn, OfflineSignal

__all__ = ["PLAN_ANSWER_RE", "PlanRequest", "follows_plan", "offline_signal", "read_request"]

CONFIDENCE = 0.9
MAX_CHARS = 40
Kind = Literal["day", "week", "again"]


@dataclass(frozen=True)
class PlanRequest:
    """What was asked: a day's plan (``days_ahead`` 0 today, 1 tomorrow), the week's lightest day
    (``days_ahead`` 0 this week, 7 the next), or another plan for the day just planned."""

    kind: Kind
    days_ahead: int = 0
    reason: str = ""


# A plan answer as the history shows it (records already stripped): its lead, or a time-slot line
# (dayplan.rendering writes both; tests/dayplan checks they are recognised).
PLAN_ANSWER_RE = re.compile(
    r"^(?:今天|明天|\d{1,2}月\d{1,2}日)（[^）\n]{2,16}）\d{2}:\d{2}–\d{2}:\d{2} 可排|"
    r"^(?:今天|明天)没有要排的|^今天的工作时间（\d{2}:\d{2}–\d{2}:\d{2}）已经过了|"
    r"^(?:Today|Tomorrow|\w{3} \w{3} \d{1,2}) \([^)\n]{2,16}\), \d{2}:\d{2}–\d{2}:\d{2}: |"
    r"^Nothing to plan (?:today|tomorrow)|^Today's working hours \(\d{2}:\d{2}–\d{2}:\d{2}\) are over|"
    r"^- \d{2}:\d{2}–\d{2}:\d{2} ",
    re.M,
)

_CJK = re.compile(r"[\u3400-\u9fff]")
_ZH_LEAD = re.compile(r"^(?:那|那么|好的?|嗯|哦|请|麻烦你?|小助手)+[，,]?")
_ZH_TAIL = re.compile(r"[吧呢啊呀嘛哈哦？?。.!！~～…，,\s]+$")
_DAY = r"(?P<day>今天|今日|今儿个?|明天|明日|明儿个?)"
_WHO = r"(?:帮我|给我|替我|帮忙|你帮我|你给我)?"
_NOUN = r"(?:任务|事情?|事儿|待办|工作|活儿?|时间|日程)"
_ZH_DAY_FORMS: tuple[re.Pattern[str], ...] = (
    # "今天怎么安排", "明天该怎么安排", "今天的任务怎么排", "今天时间如何安排比较好"
    re.compile(
        rf"^{_WHO}(?:看看|想想)?{_DAY}的?{_NOUN}?(?:我)?(?:该|要|应该|可以|得)?(?:怎么|如何|咋)"
        r"(?:安排|排|规划|计划|分配)(?:一下|下)?(?:比较好|好|才好|合适|最好)?$"
    ),
    # "今天先做什么", "明天先干啥", "今天我该先做哪个"
    re.compile(
        rf"^{_DAY}(?:我)?(?:该|应该|要|可以)?先(?:做|干|弄|搞|处理|忙)(?:点)?(?:什么|啥|哪个|哪件|哪一件|哪一个|哪些)(?:好|比较好)?$"
    ),
    # "帮我把今天的任务排个时间", "把明天排一下", "今天的事排个顺序" (not the noun "今天的安排")
    re.compile(
        rf"^{_WHO}(?:把)?{_DAY}(?:的?{_NOUN})?(?:都)?(?:排|安排|规划)"
        r"(?:(?:一下|下|个|一个)(?:时间|时间表|顺序|先后|计划|日程)?|时间|时间表|顺序|先后)$"
    ),
    # "帮我安排一下明天", "排一下今天的任务", "规划一下今天"
    re.compile(rf"^{_WHO}(?:排|安排|规划)(?:一下|下)?{_DAY}的?(?:{_NOUN}|计划|安排)?$"),
    # "帮我制定一个明天的计划", "给我排个今天的计划", "做个今天的安排"
    re.compile(
        rf"^{_WHO}(?:做|制定|定|排|列|出|写|弄)(?:个|一个|一份|一下|下)?{_DAY}的?(?:工作)?(?:计划|安排|日程|时间表)$"
    ),
    # "今天的计划", "今日计划", "明天的工作计划" (a bare "今天的安排" / "明天的日程" lists that day: the query's)
    re.compile(rf"^{_DAY}的?(?:工作)?(?:计划|时间表)$"),
)
_WEEK = r"(?P<week>这周|本周|这个?星期|这个?礼拜|这一周|下周|下个?星期|下个?礼拜|下一周)"
_ZH_WEEK_FORM = re.compile(
    rf"^(?:我)?{_WEEK}?(?:里|内|中)?(?:我)?的?(?:哪天|哪一天|星期几|周几|礼拜几)(?:我)?(?:最|比较|更|相对|会)?"
    r"(?:闲|空|空闲|清闲|轻松|有空|不忙|最不忙|(?:任务|事情?|事儿|活儿?|安排)(?:最|比较)?少)(?:一点|一些|些)?$"
)
_AGAIN_ZH = re.compile(
    r"^(?:换一个|换个|换一种|换种|换个排法|换种排法|换一个排法|换个顺序|换一下顺序|换一下|再换一个|再换一种|再换个|"
    r"再排一个|再排一次|再排一下|重新排(?:一下|一个|一次)?|重排(?:一下|一个|一次)?|换(?:一)?个方案|再来一个|再来一个方案|"
    r"(?:还有|有没有)别的排法(?:吗|没有)?|不喜欢[，,]?换一个)$"
)

_EN_LEAD = re.compile(r"^(?:(?:please|pls|ok|okay|hey|so|can you|could you|would you|help me|let's)[\s,]+)+", re.I)
_EN_TAIL = re.compile(r"(?:[\s,]+(?:please|pls|for me|thanks|thank you))+$|[\s?.!]+$", re.I)
_EN_DAY = r"(?:today|tomorrow|tmrw|tmr)"
_EN_TOMORROW = re.compile(r"\b(?:tomorrow|tmrw|tmr)\b", re.I)
_EN_DAY_FORMS: tuple[re.Pattern[str], ...] = (
    re.compile(r"^plan (?:out )?(?:my|the) day(?: for me)?(?: " + _EN_DAY + r")?$", re.I),
    re.compile(rf"^plan (?:out )?(?:my )?{_EN_DAY}(?: for me)?$", re.I),
    re.compile(
        rf"^(?:make|build|give|draw up|put together|write)(?: me)? (?:a |my )?(?:day )?plan for {_EN_DAY}$", re.I
    ),
    re.compile(rf"^(?:{_EN_DAY}'s plan|my plan for {_EN_DAY}|(?:a |my )?day plan(?: for {_EN_DAY})?)$", re.I),
    re.compile(
        rf"^what should i (?:do|work on|tackle|start with|focus on)(?: first)? {_EN_DAY}(?: first)?$",
        re.I,
    ),
    re.compile(
        rf"^how should i (?:plan|organi[sz]e|schedule|spend|arrange) (?:my (?:day|time)(?: {_EN_DAY})?|(?:my )?{_EN_DAY})$",
        re.I,
    ),
    re.compile(rf"^(?:schedule|organi[sz]e|arrange) (?:my|the) day(?: {_EN_DAY})?$", re.I),
    re.compile(rf"^(?:schedule|organi[sz]e|arrange) my tasks (?:for )?{_EN_DAY}$", re.I),
)
_EN_BUSY = r"(?:least busy|lightest|quietest|freest|most free|emptiest|least (?:work|to do)|free)"
_EN_WEEK = r"(?P<week>this|next) week"
_EN_WEEK_FORMS: tuple[re.Pattern[str], ...] = (
    re.compile(
        rf"^(?:which|what) day (?:of )?{_EN_WEEK} (?:is|am i|will i be|looks|is my)(?: the)? {_EN_BUSY}(?: day)?$", re.I
    ),
    re.compile(rf"^(?:which|what) day is (?:the |my )?{_EN_BUSY}(?: day)?(?: (?:of |in )?{_EN_WEEK})?$", re.I),
    re.compile(rf"^(?:what'?s|what is|when is|which is) my {_EN_BUSY} day(?: (?:of |in )?{_EN_WEEK})?$", re.I),
    re.compile(rf"^when am i {_EN_BUSY} {_EN_WEEK}$", re.I),
)
_AGAIN_EN = re.compile(
    r"^(?:another(?: one| plan| order| way)?|a different (?:plan|order|one|way)|(?:give me |try |show me )?(?:another|a different)"
    r"(?: one| plan| order| way)?|try again|shuffle(?: it)?|re-?plan(?: it)?|mix it up|switch it up|"
    r"something else|different order|(?:a )?new plan|one more)$",
    re.I,
)


def follows_plan(history: Sequence[HistoryTurn]) -> bool:
    """The message right before this one is a plan answer."""
    return bool(history) and history[-1].role == "assistant" and PLAN_ANSWER_RE.search(history[-1].text) is not None


def _days_ahead(day: str | None) -> int:
    return 1 if day and day.startswith("明") else 0


def _weeks_ahead(week: str | None) -> int:
    return 7 if week and (week.startswith("下") or week.lower() == "next") else 0


def read_request(text: str, history: Sequence[HistoryTurn] = ()) -> PlanRequest | None:
    """The plan ``text`` asks for, or None (see the module docstring)."""
    said = " ".join((text or "").split())
    if not said or len(said) > MAX_CHARS:
        return None
    if _CJK.search(said):
        t = _ZH_TAIL.sub("", _ZH_LEAD.sub("", said.replace(" ", "")))
        if follows_plan(history) and _AGAIN_ZH.match(t):
            return PlanRequest("again", reason="换一个排法")
        for form in _ZH_DAY_FORMS:
            if (m := form.match(t)) is not None:
                ahead = _days_ahead(m.group("day"))
                return PlanRequest("day", ahead, "排一下明天的时间" if ahead else "排一下今天的时间")
        if (m := _ZH_WEEK_FORM.match(t)) is not None:
            return PlanRequest("week", _weeks_ahead(m.group("week")), "看哪天最闲")
        return None
    t = _EN_TAIL.sub("", _EN_LEAD.sub("", said.replace("\u2019", "'")))
    if follows_plan(history) and _AGAIN_EN.match(t):
        return PlanRequest("again", reason="another plan")
    if any(form.match(t) for form in _EN_DAY_FORMS):
        ahead = 1 if _EN_TOMORROW.search(t) else 0
        return PlanRequest("day", ahead, "plan tomorrow" if ahead else "plan the day")
    for form in _EN_WEEK_FORMS:
        if (m := form.match(t)) is not None:
            return PlanRequest("week", _weeks_ahead(m.group("week")), "the week's least busy day")
    return None


def offline_signal(text: str, history: Sequence[HistoryTurn] = ()) -> OfflineSignal | None:
    """ "This message asks for a day plan (or the week's lightest day, or another plan)", or None."""
    request = read_request(text, history)
    return OfflineSignal(CONFIDENCE, request.reason, request) if request is not None else None
