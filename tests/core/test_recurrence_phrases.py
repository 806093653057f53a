"""core.recurrence.phrases.read_repeat: the repetition phrase of a chat sentence, per phrase family.

The clock is fixed: Monday 2026-11-30 10:00 in Shanghai (support.harness.NOW)."""

from __future__ import annotations

import re
import time
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.recurrence import RepeatPhrase, make, read_repeat
from support.harness import NOW, TZ


def _read(text: str) -> RepeatPhrase:
    found = read_repeat(text, now=NOW)
    assert found is not None, text
    return found


# (sentence, words as said, rule, rest)
FAMILIES = [
    # every day
    ("每天给绿萝浇水", "每天", "FREQ=DAILY", "给绿萝浇水"),
    ("天天背二十个单词", "天天", "FREQ=DAILY", "背二十个单词"),
    ("每天晚上十点关灯", "每天", "FREQ=DAILY", "晚上十点关灯"),  # the time of day stays for the time reader
    # weekly
    ("每周一上午9点交周计划", "每周一", "FREQ=WEEKLY;BYDAY=MO", "上午9点交周计划"),
    ("每星期五大扫除", "每星期五", "FREQ=WEEKLY;BYDAY=FR", "大扫除"),
    ("每礼拜天去教堂", "每礼拜天", "FREQ=WEEKLY;BYDAY=SU", "去教堂"),
    ("每周二四六去游泳", "每周二四六", "FREQ=WEEKLY;BYDAY=TU,TH,SA", "去游泳"),
    ("每周一、三、五练钢琴", "每周一、三、五", "FREQ=WEEKLY;BYDAY=MO,WE,FR", "练钢琴"),
    ("每周一和周三上日语课", "每周一和周三", "FREQ=WEEKLY;BYDAY=MO,WE", "上日语课"),
    ("每逢周五和同事聚餐", "每逢周五", "FREQ=WEEKLY;BYDAY=FR", "和同事聚餐"),
    ("每周一到周五晨读", "每周一到周五", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "晨读"),
    ("周一到周五每天慢跑", "周一到周五每天", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "慢跑"),
    ("每周一次打扫储物间", "每周一次", "FREQ=WEEKLY", "打扫储物间"),  # once a week, not Monday
    ("每个周末陪孩子踢球", "每个周末", "FREQ=WEEKLY;BYDAY=SA,SU", "陪孩子踢球"),
    ("每周末给阳台的花施肥", "每周末", "FREQ=WEEKLY;BYDAY=SA,SU", "给阳台的花施肥"),
    # every other week / every N weeks
    ("每隔一周的周三交考勤表", "每隔一周的周三", "FREQ=WEEKLY;INTERVAL=2;BYDAY=WE", "交考勤表"),
    ("隔周周四开组会", "隔周周四", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TH", "开组会"),
    ("每两周给猫剪指甲", "每两周", "FREQ=WEEKLY;INTERVAL=2", "给猫剪指甲"),
    ("每隔3周的周日洗车", "每隔3周的周日", "FREQ=WEEKLY;INTERVAL=4;BYDAY=SU", "洗车"),  # 每隔N = every N+1
    # every N days
    ("每3天给鱼缸换水", "每3天", "FREQ=DAILY;INTERVAL=3", "给鱼缸换水"),
    ("每隔两天喂乌龟", "每隔两天", "FREQ=DAILY;INTERVAL=3", "喂乌龟"),
    # monthly
    ("每月15号交物业费", "每月15号", "FREQ=MONTHLY;BYMONTHDAY=15", "交物业费"),
    ("每月十五交宽带费", "每月十五", "FREQ=MONTHLY;BYMONTHDAY=15", "交宽带费"),  # no 号, no 初/农历: the Gregorian day
    ("每月十二点抄电表", "每月", "FREQ=MONTHLY", "十二点抄电表"),  # 十二点 is a time of day, not the 10th
    ("每个月20日发工资条", "每个月20日", "FREQ=MONTHLY;BYMONTHDAY=20", "发工资条"),
    ("每月1号和15号交水费", "每月1号和15号", "FREQ=MONTHLY;BYMONTHDAY=1,15", "交水费"),
    ("每两个月的10号缴燃气费", "每两个月的10号", "FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=10", "缴燃气费"),
    ("每月31号还信用卡", "每月31号", "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1", "还信用卡"),
    ("每月最后一天核对报销单", "每月最后一天", "FREQ=MONTHLY;BYMONTHDAY=-1", "核对报销单"),
    ("每月底提交月度总结", "每月底", "FREQ=MONTHLY;BYMONTHDAY=-1", "提交月度总结"),
    ("每月的倒数第二天汇报进度", "每月的倒数第二天", "FREQ=MONTHLY;BYMONTHDAY=-2", "汇报进度"),
    ("每个月初整理账单", "每个月初", "FREQ=MONTHLY;BYMONTHDAY=1", "整理账单"),
    ("每月第一个周一开部门例会", "每月第一个周一", "FREQ=MONTHLY;BYDAY=1MO", "开部门例会"),
    ("每个月最后一个周五团建", "每个月最后一个周五", "FREQ=MONTHLY;BYDAY=-1FR", "团建"),
    # quarterly, half-yearly, yearly
    ("每季度末盘点库存", "每季度末", "FREQ=YEARLY;BYMONTH=3,6,9,12;BYMONTHDAY=-1", "盘点库存"),
    ("每季度第一天交季度计划", "每季度第一天", "FREQ=YEARLY;BYMONTH=1,4,7,10;BYMONTHDAY=1", "交季度计划"),
    ("每半年换一次净水器滤芯", "每半年", "FREQ=MONTHLY;INTERVAL=6", "换一次净水器滤芯"),
    ("每年3月8日给妈妈订花", "每年3月8日", "FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=8", "给妈妈订花"),
    ("每年的12月1日续保车险", "每年的12月1日", "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=1", "续保车险"),
    ("每两年体检一次", "每两年", "FREQ=YEARLY;INTERVAL=2", "体检一次"),
    ("每年年底写年终总结", "每年年底", "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=-1", "写年终总结"),
    ("每年11月最后一个周四聚餐", "每年11月最后一个周四", "FREQ=YEARLY;BYMONTH=11;BYDAY=-1TH", "聚餐"),
    # English
    ("stretch every day at 7am", "every day", "FREQ=DAILY", "stretch at 7am"),
    ("take the vitamins daily", "daily", "FREQ=DAILY", "take the vitamins"),
    ("check the mailbox every weekday", "every weekday", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "check the mailbox"),
    ("email the landlord every other Friday", "every other Friday", "FREQ=WEEKLY;INTERVAL=2;BYDAY=FR", "email the landlord"),
    ("water the cactus every 3 days", "every 3 days", "FREQ=DAILY;INTERVAL=3", "water the cactus"),
    ("back up the laptop every two weeks", "every two weeks", "FREQ=WEEKLY;INTERVAL=2", "back up the laptop"),
    ("mow the lawn every Saturday and Sunday", "every Saturday and Sunday", "FREQ=WEEKLY;BYDAY=SA,SU", "mow the lawn"),
    ("pay the gym on the 1st of every month", "on the 1st of every month", "FREQ=MONTHLY;BYMONTHDAY=1", "pay the gym"),
    ("review goals on the last day of every month", "on the last day of every month", "FREQ=MONTHLY;BYMONTHDAY=-1", "review goals"),
    ("book club on the first Thursday of each month", "on the first Thursday of each month", "FREQ=MONTHLY;BYDAY=1TH", "book club"),
    ("send Anna a card every year on May 4", "every year on May 4", "FREQ=YEARLY;BYMONTH=5;BYMONTHDAY=4", "send Anna a card"),
    ("sync with design weekly on Mondays", "weekly on Mondays", "FREQ=WEEKLY;BYDAY=MO", "sync with design"),
    ("gym on Mondays and Wednesdays", "on Mondays and Wednesdays", "FREQ=WEEKLY;BYDAY=MO,WE", "gym"),
    ("water the ferns every second Tuesday", "every second Tuesday", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", "water the ferns"),
    ("rotate the keys every 2nd week", "every 2nd week", "FREQ=WEEKLY;INTERVAL=2", "rotate the keys"),
    ("board games every last Friday of the month", "every last Friday of the month", "FREQ=MONTHLY;BYDAY=-1FR", "board games"),
    ("floss every single day", "every single day", "FREQ=DAILY", "floss"),
    ("pay the nanny on the 1st and 15th of every month", "on the 1st and 15th of every month", "FREQ=MONTHLY;BYMONTHDAY=1,15", "pay the nanny"),
    ("audit the books on the last day of every quarter", "on the last day of every quarter", "FREQ=YEARLY;BYMONTH=3,6,9,12;BYMONTHDAY=-1", "audit the books"),
]  # fmt: skip

CHINESE_CALENDAR = [
    ("每个工作日早上八点半打卡", "每个工作日", "FREQ=DAILY;X-DAYS=CN-WORKDAY", "早上八点半打卡"),
    ("工作日每天九点开站会", "工作日每天", "FREQ=DAILY;X-DAYS=CN-WORKDAY", "九点开站会"),
    ("每个休息日去爬山", "每个休息日", "FREQ=DAILY;X-DAYS=CN-RESTDAY", "去爬山"),
    ("每逢节假日安排值班", "每逢节假日", "FREQ=DAILY;X-DAYS=CN-RESTDAY", "安排值班"),
    ("每次节后第一个工作日清理邮箱", "每次节后第一个工作日", "FREQ=DAILY;X-DAYS=CN-AFTER-HOLIDAY", "清理邮箱"),
    ("每逢假期后的第一个工作日开复盘会", "每逢假期后的第一个工作日", "FREQ=DAILY;X-DAYS=CN-AFTER-HOLIDAY", "开复盘会"),
    ("每月农历初一去庙里上香", "每月农历初一", "RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=1", "去庙里上香"),
    ("每逢农历十五给奶奶打电话", "每逢农历十五", "RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=15", "给奶奶打电话"),
    ("每月初一十五吃素", "每月初一十五", "RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=1,15", "吃素"),
    ("每年除夕贴春联", "每年除夕", "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=-1", "贴春联"),
    ("每年春节给长辈拜年", "每年春节", "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1", "给长辈拜年"),
    ("每年中秋给客户寄月饼", "每年中秋", "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=8;BYMONTHDAY=15", "给客户寄月饼"),
    ("每年端午包粽子", "每年端午", "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=5;BYMONTHDAY=5", "包粽子"),
    ("每逢端午节看赛龙舟", "每逢端午节", "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=5;BYMONTHDAY=5", "看赛龙舟"),
    ("每年腊八熬粥", "每年腊八", "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=8", "熬粥"),
    ("每年农历八月十二给爸爸过生日", "每年农历八月十二", "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=8;BYMONTHDAY=12", "给爸爸过生日"),
    ("每年农历正月十五挂灯笼", "每年农历正月十五", "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=15", "挂灯笼"),
    ("每年冬至吃饺子", "每年冬至", "FREQ=YEARLY;X-TERM=DONGZHI", "吃饺子"),
    ("每年清明回乡扫墓", "每年清明", "FREQ=YEARLY;X-TERM=QINGMING", "回乡扫墓"),
    # Gregorian festivals were read as a bare 每年 (every year on today's date).
    ("每年国庆节带爸妈旅游", "每年国庆节", "FREQ=YEARLY;BYMONTH=10;BYMONTHDAY=1", "带爸妈旅游"),
    ("每年三八节给妈妈买花", "每年三八节", "FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=8", "给妈妈买花"),
    ("每年圣诞节寄贺卡", "每年圣诞节", "FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=25", "寄贺卡"),
    ("每年母亲节订蛋糕", "每年母亲节", "FREQ=YEARLY;BYMONTH=5;BYDAY=2SU", "订蛋糕"),
    ("每逢感恩节给导师打电话", "每逢感恩节", "FREQ=YEARLY;BYMONTH=11;BYDAY=4TH", "给导师打电话"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "words", "rule", "rest"), FAMILIES + CHINESE_CALENDAR)
def test_phrase_families(text: str, words: str, rule: str, rest: str) -> None:
    found = _read(text)
    assert (found.words, found.rule, found.rest) == (words, rule, rest)
    assert found.first_day is None
    # The spans are where the words were: cutting them out of the sentence leaves the rest.
    assert text[found.spans[0][0] : found.spans[0][1]].startswith(words[:2])


@pytest.mark.parametrize(("text", "words", "rule", "rest"), FAMILIES + CHINESE_CALENDAR)
def test_every_rule_read_is_one_make_keeps(text: str, words: str, rule: str, rest: str) -> None:
    assert make(_read(text).rule or "", start=NOW, tz=TZ).rule == rule


REPETITION_WORDS = re.compile(r"每|天天|隔周|隔天|\b(?:every|each|daily|weekly|monthly|yearly|weekdays?)\b", re.I)


@pytest.mark.parametrize("text", [t for t, *_ in FAMILIES + CHINESE_CALENDAR])
def test_the_rest_never_keeps_repetition_words(text: str) -> None:
    assert not REPETITION_WORDS.search(_read(text).rest)


# --- bounds: UNTIL, COUNT, first day -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rule", "rest"),
    [
        ("每周三练瑜伽到年底为止", "FREQ=WEEKLY;BYDAY=WE;UNTIL=20261231T235959", "练瑜伽"),
        ("每天晨跑一直到12月31日", "FREQ=DAILY;UNTIL=20261231T235959", "晨跑"),
        ("每周二练书法，到3月底为止", "FREQ=WEEKLY;BYDAY=TU;UNTIL=20270331T235959", "练书法"),  # next March
        ("每月15号交房租，截止到6月30日", "FREQ=MONTHLY;BYMONTHDAY=15;UNTIL=20270630T235959", "交房租"),
        (
            "team lunch every Tuesday until the end of the year",
            "FREQ=WEEKLY;BYDAY=TU;UNTIL=20261231T235959",
            "team lunch",
        ),
        ("每周五交项目周报连续三周", "FREQ=WEEKLY;BYDAY=FR;COUNT=3", "交项目周报"),
        ("每天吃维生素共10次", "FREQ=DAILY;COUNT=10", "吃维生素"),
        ("call dad every Sunday 5 times", "FREQ=WEEKLY;BYDAY=SU;COUNT=5", "call dad"),
        # A span in another unit than the rule's is an UNTIL covering it (three weeks from today).
        ("每天练口语连续三周", "FREQ=DAILY;UNTIL=20261220T235959", "练口语"),
        ("practice scales every day for three weeks", "FREQ=DAILY;UNTIL=20261220T235959", "practice scales"),
        ("做完后每3天擦一次窗户", "FREQ=DAILY;INTERVAL=3;X-FROM=COMPLETION", "擦一次窗户"),
        # 持续 / 坚持 bound a rule as 连续 does; "for a month" as "for one month".
        ("每周日给狗洗澡，持续两个月", "FREQ=WEEKLY;BYDAY=SU;UNTIL=20270128T235959", "给狗洗澡"),
        ("每天做平板支撑，坚持30天", "FREQ=DAILY;COUNT=30", "做平板支撑"),
        ("meditate every day for a month", "FREQ=DAILY;UNTIL=20261229T235959", "meditate"),
    ],
)
def test_bounds_are_read_and_cut(text: str, rule: str, rest: str) -> None:
    found = _read(text)
    assert (found.rule, found.rest) == (rule, rest)
    make(rule, start=NOW, tz=TZ)  # and the rule with its bound is one make keeps


@pytest.mark.parametrize(
    ("text", "first", "rule", "rest"),
    [
        ("从下周开始每天早上背单词", date(2026, 12, 7), "FREQ=DAILY", "早上背单词"),  # the Monday of next week
        ("从下周三开始每周三五跳绳", date(2026, 12, 9), "FREQ=WEEKLY;BYDAY=WE,FR", "跳绳"),
        ("从明天起每天记账", date(2026, 12, 1), "FREQ=DAILY", "记账"),
        ("从下个月开始每月1号交房租", date(2026, 12, 1), "FREQ=MONTHLY;BYMONTHDAY=1", "交房租"),
        ("从12月15日开始每天打卡", date(2026, 12, 15), "FREQ=DAILY", "打卡"),
        ("starting next Monday, jog every Wednesday", date(2026, 12, 7), "FREQ=WEEKLY;BYDAY=WE", "jog"),
        ("stretch every day starting tomorrow", date(2026, 12, 1), "FREQ=DAILY", "stretch"),
    ],
)
def test_the_first_day_is_read(text: str, first: date, rule: str, rest: str) -> None:
    found = _read(text)
    assert (found.first_day, found.rule, found.rest) == (first, rule, rest)


@pytest.mark.parametrize(
    ("text", "rule", "rest"),
    [
        # 每过N = every N, as 每N.
        ("每过两周交一次作业", "FREQ=WEEKLY;INTERVAL=2", "交一次作业"),
        ("每过三天给仙人掌浇水", "FREQ=DAILY;INTERVAL=3", "给仙人掌浇水"),
        ("每过两个月理发", "FREQ=MONTHLY;INTERVAL=2", "理发"),
        # 逢 before a day of the month.
        ("每个月逢8号交水电费", "FREQ=MONTHLY;BYMONTHDAY=8", "交水电费"),
        ("每月逢5号和20号核对工资", "FREQ=MONTHLY;BYMONTHDAY=5,20", "核对工资"),
        # Weekdays said apart from a bare 每周 are its days; 下周二 is one date and stays.
        ("周二周四上午九点去健身房，每周都去", "FREQ=WEEKLY;BYDAY=TU,TH", "上午九点去健身房，都去"),
        ("周一和周三晚上练琴，每周如此", "FREQ=WEEKLY;BYDAY=MO,WE", "晚上练琴，如此"),
        ("下周二开会，以后每周都开", "FREQ=WEEKLY", "下周二开会，以后都开"),
        ("biweekly team retro on wednesdays", "FREQ=WEEKLY;INTERVAL=2;BYDAY=WE", "team retro"),
        ("weekly review, on fridays", "FREQ=WEEKLY;BYDAY=FR", "review"),
    ],
)
def test_other_ways_of_saying_a_period(text: str, rule: str, rest: str) -> None:
    found = _read(text)
    assert (found.rule, found.rest) == (rule, rest)


# --- not repetition, and unreadable repetition ---------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "每个人都要交述职报告",
        "每位同事填一下满意度问卷",
        "每次开会前把投影仪调好",
        "every time the build fails ping Sam",
        "everyone should sign the card",
        "买两盒鸡蛋",
        "明天下午三点和供应商通电话",
        "写每周周报",  # the report's name, not a schedule
        "节后第一个工作日交报销单",  # one day (the time reader's), not every break
    ],
)
def test_sentences_without_repetition_give_none(text: str) -> None:
    assert read_repeat(text, now=NOW) is None


@pytest.mark.parametrize(
    ("text", "words", "rest"),
    [
        ("每逢双数日给多肉浇水", "每逢双数日", "给多肉浇水"),
        ("每月第二和第四个周六加班", "每月第二和第四个周六", "加班"),
        ("每月15号和30号交保洁费", "每月15号和30号", "交保洁费"),  # no 30th in February: unreadable, not wrong
        ("每周五到周一值班", "每周五到周一", "值班"),
        ("pay on the 15th and 30th of every month", "on the 15th and 30th of every month", "pay"),
        ("clean the gutters every full moon", "every full moon", "clean the gutters"),
        # A position or a list the readers don't take was read as a bare period ("每月" = today's day).
        ("每月最后一个工作日交考勤", "每月最后一个工作日", "交考勤"),
        ("每周最后一个工作日写周报", "每周最后一个工作日", "写周报"),
        ("每月中旬给车保养", "每月中旬", "给车保养"),
        ("每年年初定读书计划", "每年年初", "定读书计划"),
        ("每个月的15号和月底对账", "每个月的15号和月底", "对账"),
        ("每年春节和中秋回老家", "每年春节和中秋", "回老家"),
        ("每年开斋节去清真寺", "每年开斋节", "去清真寺"),  # a festival the tables don't know
        ("每年5月体检", "每年5月", "体检"),  # which day of May? was read as today's date
        ("file the taxes every year in March", "every year in March", "file the taxes"),
        ("take the pills three times a day", "three times a day", "take the pills"),
        ("every hour sip water", "every hour sip water", ""),  # finer than a day: said, not kept
        ("每小时起来活动一下", "每小时", "起来活动一下"),  # was no repetition at all (a one-off task)
        ("每隔两小时量一次体温", "每隔两小时", "量一次体温"),
        ("每30分钟看一眼烤箱", "每30分钟", "看一眼烤箱"),
    ],
)
def test_unreadable_repetition_gives_no_rule_but_its_words(text: str, words: str, rest: str) -> None:
    found = _read(text)
    assert (found.rule, found.words, found.rest) == (None, words, rest)


def test_two_repetitions_in_one_sentence_are_unreadable() -> None:
    found = _read("每周一开例会，每月15号交报表")
    assert found.rule is None


def test_a_loose_date_joins_a_bare_yearly() -> None:
    found = _read("我妈农历八月十二生日，每年提醒我")
    assert found.rule == "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=8;BYMONTHDAY=12"
    assert "八月" not in found.rest and "每年" not in found.rest


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("每年2月30日交增值税", "每年2月30日"),  # never occurs
        ("每月32号交网费", "每月32号"),
        ("每月0号交网费", "每月0号"),  # was read as the 1st
        ("每0天擦桌子", "每0天"),  # was read as every day
        ("every 0 days dust the shelf", "every 0 days"),
        ("每500周复查一次", "每500周"),  # beyond MAX_INTERVAL
        ("每年13月1日盘点", "每年13月1日"),
        ("每月第六个周五聚餐", "每月第六个周五"),
        ("每天打卡共2000次", "每天"),  # beyond MAX_COUNT: not silently endless
    ],
)
def test_a_phrase_make_would_refuse_gives_no_rule(text: str, words: str) -> None:
    found = _read(text)
    assert (found.rule, found.words) == (None, words)


_FRAGMENTS = [  # pieces of repetition phrases, valid and not, joined at random
    "每", "每个", "每隔", "隔", "每逢", "周", "星期", "月", "年", "天", "日", "号", "农历", "初", "十", "廿", "三十", "一", "二", "三",
    "五", "七", "九", "0", "13", "31", "32", "400", "1000", "第", "最后一个", "倒数第", "到", "至", "连续", "共", "次", "为止",
    "从", "下周", "开始", "起", "除夕", "中秋", "冬至", "工作日", "休息日", "节后第一个工作日", "季度", "末", "底", "半", "和", "、", "，", "正",
    "腊", "做完后", "天天", "的", "every", "other", "day", "week", "month", "year", "on", "the", "1st", "of", "for",
    "times", "until", "May", "Friday", "weekday", "starting", "next", "Monday", "0th", "32nd", " ",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=8).map("".join))
def test_any_sentence_gives_none_or_a_rule_make_keeps(text: str) -> None:
    found = read_repeat(text, now=NOW)
    if found is not None and found.rule is not None:
        make(found.rule, start=NOW, tz=TZ)  # raises RuleError if read_repeat let a bad rule through


def test_a_long_pasted_text_is_read_quickly_and_without_recursion() -> None:
    began = time.perf_counter()
    found = read_repeat("每周一" * 1500 + "开会", now=NOW)  # was a RecursionError after seconds
    assert found is not None and found.rule is None  # many repetitions: unreadable
    assert time.perf_counter() - began < 1.0


@pytest.mark.parametrize(
    ("text", "rule", "rest"),
    [
        ("每两周一次去超市大采购", "FREQ=WEEKLY;INTERVAL=2", "去超市大采购"),  # "一次" goes with the period
        ("每3天一次给鱼缸换水", "FREQ=DAILY;INTERVAL=3", "给鱼缸换水"),
        ("每两个月一次去理发", "FREQ=MONTHLY;INTERVAL=2", "去理发"),
        ("每逢周末去看外婆", "FREQ=WEEKLY;BYDAY=SA,SU", "去看外婆"),  # not "每逢周" + "末…"
    ],
)
def test_once_per_period_and_every_weekend(text: str, rule: str, rest: str) -> None:
    said = read_repeat(text, now=NOW)
    assert said is not None and (said.rule, said.rest) == (rule, rest)
