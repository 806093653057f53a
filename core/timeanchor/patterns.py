"""The token grammar: one compiled alternation of named token kinds, scanned left to right.

Order matters: at a given position the first kind that matches wins, so longer/more specific
forms come first ("前两天" before "前天", "60日内" before "30日").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from core.hanzi import fold

from .numerals import CN_NUM, DAY, HOUR

_N = rf"\d{{1,3}}(?!\d)|{CN_NUM}{{1,5}}|半|几|俩|仨"
_SEP = r"一直到|直到|到|至|~|～|—+|–|-|－"


# Units after a number pair that make it a count, a fraction or a size, not a month/day: "4/5页",
# "1/2杯", "3/4 cup", "2/3 of".
PAIR_UNITS_ZH: tuple[str, ...] = (
    "个", "天", "小时", "倍", "元", "块", "万", "亿", "分", "版", "米", "岁", "年", "月", "周", "以上", "以下",
    "左右", "折", "成", "斤", "公斤", "度", "寸", "页", "张", "本", "份", "次", "件", "条", "集", "章",
    "节", "层", "册", "卷", "题", "行", "期", "届", "杯", "瓶", "盒", "包", "箱", "袋", "粒", "片", "颗",
    "支", "双", "套", "台", "辆", "人", "名", "字", "篇", "段", "课", "讲", "勺", "碗", "升", "克", "斗",
    "码", "栋", "楼", "组", "道", "首", "部", "场", "轮", "格",
)  # fmt: skip
PAIR_UNITS_EN: tuple[str, ...] = (
    "pages?", "pp", "cups?", "tsp", "tbsp", "teaspoons?", "tablespoons?", "inch(?:es)?", "lbs?",
    "oz", "kg", "g", "miles?", "km", "slices?", "of", "pieces?", "times", "points?", "stars?",
)  # fmt: skip
_PAIR_UNITS_ZH = "|".join(sorted(PAIR_UNITS_ZH, key=len, reverse=True))
_PAIR_UNITS_EN = "|".join(PAIR_UNITS_EN)
# A number pair between a word and a capitalised word is part of a name ("The 9/11 Report", "Form
# 4/5 Draft"), unless that word is a calendar or time word ("Bob 4/5 Monday", "4/5 At noon").
_CALENDAR_WORDS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|"
    "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun|"
    "At|By|On|In|Due|Next|This|Before|After|Until|Till|Today|Tomorrow|Tonight|Noon|Midnight|"
    "Morning|Afternoon|Evening|Night|Eod|Am|Pm"
)
_IN_NAME = rf"(?!(?<=[A-Za-z]\s)\d{{1,2}}[./]\d{{1,2}}\s+(?!(?:{_CALENDAR_WORDS})\b)[A-Z][a-z])"


def _qty(p: str, strict_month: bool) -> str:
    """A quantity with a unit: "3天", "两个半月", "半小时", "48小时", "一周"."""
    month = rf"整?(?P<{p}_ge>个)\s*(?P<{p}_h1>半)?\s*多?\s*(?P<{p}_mu>月)"
    if not strict_month:
        month = rf"(?:{month}|(?P<{p}_bm>月))"
    other = (
        rf"整?(?:个)?\s*(?P<{p}_h2>半)?\s*多?\s*(?:个)?\s*"
        rf"(?P<{p}_u>天|日|周|星期|礼拜|年|小时|钟头|分钟|刻钟|季度|工作日|交易日)(?P<{p}_h3>半(?!年))?"
    )
    return rf"(?P<{p}_n>{_N})\s*(?:{month}|{other})"


# Chinese-calendar words (chinacal.py). Lunar days: 初一..初十, 十一..十九, 二十, 廿一..廿九, 三十/卅.
_LDAY = r"初[一二三四五六七八九十]|十[一二三四五六七八九]|二十[一二三四五六七八九]?|廿[一二三四五六七八九]|三十|卅|十"
_ON_THAT_DAY = r"(?:那一?天|那日)?"
_LUNAR_MD = (
    r"(?:(?P<lm_p>农历|阴历|旧历)\s*(?P<lm_m>正|冬|腊|十[一二]?|[一二三四五六七八九]|1[0-2]|0?[1-9])|(?P<lm_m2>正|冬|腊))"
    # A day never runs on into another numeral ("腊月三十一" is no lunar date, not 腊月三十).
    rf"\s*月\s*(?P<lm_d>(?:{_LDAY})(?![一二三四五六七八九十])|(?:30|[12]\d|0?[1-9])(?!\d))(?:日|号)?" + _ON_THAT_DAY
)
# Festivals that are not a statutory word ("吃元宵", "腊八粥", "小年轻" are not days).
_FESTIVAL = (
    r"(?P<fe>(?<![吃买煮包做送])元宵节?|端午节?|七夕节?|中元节|中秋节?|重阳节?|腊八节?(?![粥蒜])|小年(?![轻糕夜])"
    r"|龙抬头)" + _ON_THAT_DAY
)
# Solar terms. Those that are also everyday words (下大雪, 雨水, 小满 the name, 白露 the perfume…)
# count only with a calendar word after them (那天, 前, 节气 …); 清明 not after 头脑/政治.
_TERM_AFTER = r"(?=节气|那天|当天|那日|当日|之前|以前|之后|以后|前后|前|后|左右|时节)"
_TERM = (
    r"(?P<st>立春|春分|立夏|夏至|立秋|处暑|秋分|寒露|立冬|冬至|小寒|大寒(?!潮)|惊蛰|芒种|小暑|大暑|霜降|谷雨"
    r"|(?<![脑治志智])清明(?:节)?"
    rf"|(?<![下场飘的])(?:雨水|小满|小雪|大雪|白露){_TERM_AFTER})" + _ON_THAT_DAY
)
# Statutory breaks: 国庆假期, 十一长假, 五一小长假, 春节放假期间, 国庆黄金周.
_PERIOD = (
    r"(?<![\d零一二三四五六七八九十])(?P<pe>国庆节?|十一|五一|劳动节|春节|过年|端午节?|中秋节?|清明节?|元旦)\s*的?\s*"
    r"(?:小长假|长假|黄金周|假期|假日|放假期间|放假|期间)"
)
# 节后 / 节后第一天 / 节后第一个工作日 / 节前: only on its own ("季节后", "章节前" are not it).
_FIRST_WORKDAY = r"第一个?工作日|第一天|首个工作日|头一天|上班第一天|上班"
_POST_HOLIDAY = (
    r"(?:(?<![\u4e00-\u9fff])|(?<=[过等到在就我你他她们咱先再都也那]))节"
    rf"(?:(?P<ph_pre>前)(?![\d零一二两三四五六七八九十几])|后的?(?:{_FIRST_WORKDAY})?)"
)

_KINDS: list[tuple[str, str]] = [
    (
        "overdue",
        r"已?逾期|已经?过期|已?过期|超期|已?超时|过了截止(?:日期|时间)?|(?i:\boverdue\b|\bpast\s+due\b|\bwhat'?s\s+late\b|\bbehind\s+on\b|\bfallen\s+behind\b|"
        r"\bmiss(?:ed)?\s+(?:any\s+)?deadlines?\b|\banything\s+i(?:'ve)?\s+missed\b)",
    ),
    ("every", r"每个|每逢|每"),
    ("wd_next", r"(?P<wn_w>下下一?个|上上一?个|下一?个|次一?个|上一?个|前一?个)工作日"),
    ("until_now", r"至今|到现在|到目前为止|到目前|迄今|到今天为止|(?i:\buntil\s+now\b)"),
    ("fromw", r"自从|打从|从"),
    ("untilw", r"截止到|截止至|截至|截止"),
    ("sfut", r"(?:未来|接下来|今后|往后|此后)的?\s*" + _qty("sf", False) + r"(?P<sf_in>之内|以内|内|里)?"),
    (
        "spast",
        r"(?P<sp_kw>过去|最近|近|前|这|头|最后|末)的?\s*" + _qty("sp", False) + r"(?:以来|来|里|之内|以内|内)?",
    ),
    ("recent", r"最近|近期|近来|这段时间|这阵子|(?i:\brecently\b|\blately\b)"),
    # vague near future ("一会儿", "待会儿", "晚点", "稍后"): the rest of today, see relative.soon_span
    (
        "soon",
        r"(?:再过|过)\s*一会儿?|(?:(?<![\u4e00-\u9fff])|(?<=[我你他她它们咱俺就先再还]))一会儿?(?!儿|时间|工夫)"
        r"|(?<!多)待会儿?|等会儿?|等一会儿?|等一下(?![\s,，.。!！?？~～、]|$)"
        r"|等下(?![周个月次午班课雨雪星礼一二两三四五六七八九十\d])|稍后|稍晚(?:一点|些)?"
        r"|(?<![今明昨当前次航班车机火])晚(?:点儿?|些时候|些)(?![了的钟])",
    ),
    ("pass", r"(?<![超经度越跨通错不])(?:再过|过了|过)\s*" + _qty("ps", True)),
    ("within", _qty("wi", True) + r"\s*(?:的?时间)?\s*(?:之内|以内|内)"),
    ("reloff", _qty("ro", True) + r"\s*(?P<ro_dir>之后|以后|后|之前|以前|前|以来)"),
    ("nth_day", rf"第(?P<nd_n>{DAY})天"),
    ("nth_week", r"第(?P<nw_n>[一二三四五1-5])(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天末1-7])"),
    (
        "ymd",
        r"(?<![\d.])(?P<ymd_y>(?:1[89]|20)\d{2})\s*[-/.]\s*(?P<ymd_m>\d{1,2})\s*[-/.]\s*(?P<ymd_d>\d{1,2})(?!\d)"
        r"|(?<!\d)(?P<ymd_y8>(?:19|20)\d{2})(?P<ymd_m8>0[1-9]|1[0-2])(?P<ymd_d8>0[1-9]|[12]\d|3[01])(?!\d)",
    ),
    ("lunar_md", _LUNAR_MD),
    ("period", _PERIOD),
    ("ym", r"(?<![\d.])(?P<ym_y>(?:19|20)\d{2})[-/.](?P<ym_m>1[0-2]|0?[1-9])(?![\d:])"),
    (
        "mdn",
        r"(?<![\d.:/-])(?P<mdn_m>0[1-9]|1[0-2])-(?P<mdn_d>0[1-9]|[12]\d|3[01])(?![\d:])"
        r"|(?<![\d.])(?P<mdn_m2>1[0-2]|0?[1-9])·(?P<mdn_d2>[12]\d|3[01]|0?[1-9])(?!\d)"
        # "12.25" / "8/1": a month.day pair standing alone (not a decimal, version, score or fraction,
        # not a count of something, "打印4/5页", "3/4 cup", nor part of a name, "The 9/11 Report")
        r"|(?<![A-Za-z0-9_.·/:-])"
        + _IN_NAME
        + r"(?P<mdn_m3>1[0-2]|0?[1-9])[./](?P<mdn_d3>3[01]|[12]\d|0?[1-9])(?![A-Za-z0-9_.·/:%-])"
        rf"(?!\s*(?:{_PAIR_UNITS_ZH}))(?!\s*(?i:{_PAIR_UNITS_EN})\b)",
    ),
    (
        "year",
        # Years 1800-2200 as digits: a year said outright is kept as said, within what a task list
        # can mean; a larger one is not read (a quick note then asks).
        r"(?P<y_abs>(?<!\d)(?:(?:1[89]|2[01])\d{2}|2200)(?!\d)|[零〇一二三四五六七八九]{4}"
        r"|(?<![\d零〇一二三四五六七八九十])(?:\d{2}|[零〇一二三四五六七八九]{2}))\s*年(?!代|级|龄|纪|轻|薪|假|会|货)度?"
        r"(?P<y_edge>年?(?:初|底|末|中(?![秋元])|终|伊始)|上半年|下半年)?",
    ),
    # Seasons, only after a year or with 这个/今/明/去 ("今年夏天", "2027年春季", "这个冬天", "今夏"):
    # bare "夏天的衣服" is no time.
    (
        "season",
        r"(?P<se_w>这个|今|明|去)(?P<se1>[春夏秋冬])(?:天|季)?(?![节装衣令眠游假学运奥])"
        r"|(?<=年)(?P<se2>[春夏秋冬])(?:天|季)(?![节装衣令眠游假学运奥])",
    ),
    (
        "yrel",
        r"(?P<yr_w>大前|大后|今|本|明|来|去|前|后|次|上一?|下一?|同|当)年(?!级|龄|纪|轻|代)度?"
        r"(?P<yr_edge>年?(?:初|底|末|中(?![秋元])|终|伊始)|上半年|下半年)?",
    ),
    (
        "mrel",
        r"(?P<mr_w>本|这一?个?|当|今|同|下下个?|下一?个?|上上个?|上一?个?|次)月份?"
        r"(?P<mr_edge>月?(?:初|底|末|中旬|上旬|下旬|中))?",
    ),
    (
        "md",
        r"(?<![\d零〇一二两三四五六七八九十个第])(?P<md_m>1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s*月份?\s*"
        rf"(?:(?P<md_d>{DAY})\s*(?:日|号)|(?P<md_d2>\d{{1,2}}|[一二三四五六七八九十]{{1,3}})(?![\d点时:分个天周年月号日]))",
    ),
    (
        "mabs",
        r"(?<![\d零〇一二两三四五六七八九十个第])(?P<ma_m>1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s*月份?"
        r"(?P<ma_edge>月?(?:初|底|末|中旬|上旬|下旬|中))?",
    ),
    (
        "dayw",
        r"(?P<dw>大后儿个|大后儿|大前儿个|大前儿|(?<![跟眼门面以之往向朝])(?:后儿个|后儿|前儿个|前儿)(?![童子女])"
        r"|大大后天|大后天|后天|大大前天|大前天|前天|今天|今日|本日|当天|当日|今儿个|今儿|明天|明日|明儿个|明儿"
        r"|昨天|昨日|昨儿个|昨儿|次日|翌日|第二天|隔天|全天|今明两天|今明两日|今明两年|明后两天|明后天|明后两日)",
    ),
    ("daypod", r"(?P<dp_d>今|明|昨|当|前|次)(?P<dp_p>晚|早|晨|夜)(?![饭餐安点])"),
    (
        "dabs",
        rf"(?<![\d零〇一二两三四五六七八九十第])(?P<da_d>{DAY})\s*(?:日|号)"
        # a numbered thing or a size, not a day: "5号楼", "3号线", "5号电池"
        r"(?!子|本|语|文|记|报|楼|线|码|床|房|机|位|门|店|馆|球|字|元|币|坑|车|站|口|志|历|电池|干电池)",
    ),
    (
        "week",
        r"(?P<wk_w>下下|下一?|上上|上一?|这|本|今|同)\s*(?:个|一)?\s*(?:周|星期|礼拜|週)(?P<wk_d>[一二三四五六日天末1-7])?",
    ),
    ("wday", r"(?:周|星期|礼拜|週)(?P<wd_d>[一二三四五六日天末1-7])(?!年|岁|刊|报)"),
    (
        "quarter",
        r"(?:(?:第)?(?P<q_n>[一二三四1-4])季度|(?P<q_first>首)季度|(?P<q_w>本|这一?个?|上一?个?|下一?个?|当)季度)"
        r"(?P<q_edge>末|底|初)?|(?P<q_bare>季度|季)(?P<q_edge2>末|底|初)|(?<![A-Za-z0-9_])(?i:Q(?P<q_n2>[1-4]))(?![A-Za-z0-9_])",
    ),
    (
        "holiday",
        r"(?P<hd>元旦|劳动节|五一|国庆节|国庆|圣诞节|圣诞|平安夜|情人节|妇女节|儿童节|六一|教师节|植树节|建军节|万圣节"
        r"|感恩节|母亲节|父亲节|双十一|双11|双十二|双12)",
    ),
    ("festival", _FESTIVAL),
    ("term", _TERM),
    ("post_hol", _POST_HOLIDAY),
    (
        "edge",
        r"(?P<eg>年初|年底|年末|年终|年中|年内|月初|月底|月末|月中|月内|上半年|下半年|上旬|中旬|下旬"
        r"|上半个?月|下半个?月)",
    ),
    ("workday", r"(?P<wkd>工作日)(?!内|以内|之内)"),
    # Spring Festival: 春节/过年 as a day; 年前 = before it, 年后/过完年 = after it
    (
        "lunar_ny",
        r"(?<![多两几\d一二三四五六七八九十百千今明去前后上下本同当])(?P<ln>春节|过年|除夕|大年三十|大年初一|过完年|过了年|年后|年前)(?!天|\d|[一二两三四五六七八九十几]|年)",
    ),
    ("rest", r"剩下的?几天|剩下的?日子|剩下的?时间|剩余的?几天|剩余的?时间|剩下的|剩余的|余下的"),
    (
        "pod",
        r"(?P<pd>凌晨|清晨|早晨|早上|早间|上午|中午|正午|午间|午后|下午|傍晚|晚上|晚间|夜里|夜间|深夜|半夜|午夜|夜晚|白天|白日"
        rf"|早(?=\s*{HOUR}\s*[点时])|晚(?=\s*{HOUR}\s*[点时])|(?:午饭|晚饭)(?=之前|以前|前)"
        # moments of the working day, only with 前/后 right after them (point.MOMENTS)
        r"|(?:下班|上班)(?=\s*(?:之前|以前|前|之后|以后|后)(?![天年\d零一二两三四五六七八九十几]))"
        r"|(?:睡觉|(?<![午小])睡)(?=\s*(?:之前|以前|前)(?!故事|读物|牛奶|音乐|护肤|仪式|习惯|准备)))"
        r"(?![好安饭餐])",
    ),
    (
        "hm",
        r"(?<![\d:.])(?P<hm_h>[01]?\d|2[0-4])\s*[:：]\s*(?P<hm_m>[0-5]\d)(?:\s*[:：]\s*[0-5]\d)?(?![\d])"
        r"(?:\s*(?i:(?P<hm_ap>am|pm|a\.m\.|p\.m\.)))?",
    ),
    (
        "clock",
        rf"(?<![这那第有哪几\d零〇一二两三四五六七八九十])(?P<ck_h>{HOUR})\s*(?:点|时|點)(?!多个|个|意见|建议|要求|原因|想法|看法|内容|好处|不足|理由|问题|注意|需要)"
        r"(?:钟)?(?:\s*(?P<ck_min>半|一刻|1刻|三刻|3刻|整|(?:\d{1,2}|[零〇一二三四五六七八九十]{1,3})(?:\s*分(?!钟))?)"
        r"|(?P<ck_more>多钟?))?(?:钟)?",
    ),
    (
        "en_clock",
        r"(?i:\b(?P<ec_h>1[0-2]|0?[1-9])(?::(?P<ec_m>[0-5]\d))?\s*(?P<ec_ap>am|pm|a\.m\.|p\.m\.)|\b(?P<ec_w>noon|midnight)\b"
        # a bare hour after "at" / "@" ("at 9", "@ 15:00", "at 10 o'clock"), read as Chinese "9点" is
        r"|(?:\bat|@)\s*(?P<ec_bh>[01]?\d|2[0-3])(?::(?P<ec_bm>[0-5]\d))?(?:\s*o'?clock\b)?"
        r"(?!\d|[:.,/%-]\d|\s*(?:am|pm|a\.m|p\.m|%|st\b|nd\b|rd\b|th\b|days?\b|weeks?\b|months?\b|years?\b|hours?\b"
        r"|hrs?\b|minutes?\b|mins?\b|people\b|percent\b|items?\b|pages?\b|times?\b|dollars?\b|yuan\b|kg\b|km\b)))",
    ),
    (
        "numr",
        r"(?<![\d零〇一二两三四五六七八九十])(?P<nr_n>\d{1,2}|[一二三四五六七八九十]{1,3})(?=\s*(?:到|至|~|～|—+|–|-|－)\s*"
        r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})\s*(?:点|时|日|号|月))",
    ),
    ("sep", rf"(?P<sp>{_SEP})"),
    ("win", r"之内|以内|内"),
    ("before", r"之前|以前|为止|前(?!天|年|[\d零一二两三四五六七八九十几])"),
    # 国庆节后第一个工作日 / 春节假期后第一天: the first workday after X (after X's break)
    ("post_first", rf"之?后的?(?:{_FIRST_WORKDAY})"),
    # 本周最后一个工作日 / 下周第一个工作日 / 月底最后一个工作日
    ("edge_wd", r"的?(?:第一|头一|首|(?P<ew_last>最后一|末))个?工作日"),
    ("after", r"(?P<af>之后|以后|往后|过后|及以后|后(?!天|年)|起|开始|以来)"),
    # English (simple forms; month-name dates go through dateparser).
    (
        "en_day",
        r"(?i:\b(?P<ed>(?:the\s+)?day\s+after\s+tomorrow|(?:the\s+)?day\s+before\s+yesterday|today|tonight"
        r"|tomorrow|tmrw|tmr|yesterday)\b)",
    ),
    ("en_week", r"(?i:\b(?P<ew_w>this|next|last|coming|past)\s+(?P<ew_u>week|weekend|month|year)\b)"),
    (
        "en_wd",
        r"(?i:\b(?:(?P<ewd_w>this|next|last|coming)\s+)?(?P<ewd>monday|tuesday|wednesday|thursday|friday|saturday"
        r"|sunday|mon|tues|tue|wed|thurs|thu|fri|sat|sun)\b)",
    ),
    ("en_weekend", r"(?i:\bweekend\b)"),
    (
        "en_span",
        r"(?i:\b(?P<es_kw>in|within|next|past|last|coming|over\s+the\s+next|over\s+the\s+past|the\s+next"
        r"|the\s+past|the\s+last)\s+(?P<es_n>\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple\s+of"
        r"|few)\s+(?P<es_u>day|week|month|year|hour|minute)s?\b)",
    ),
    (
        "en_ago",
        r"(?i:\b(?P<ea_n>\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?P<ea_u>day|week"
        r"|month|year|hour|minute)s?\s+ago\b)",
    ),
    (
        "en_edge",
        r"(?i:\b(?:the\s+)?end\s+of\s+(?:the\s+)?(?P<ee_w>this\s+|next\s+)?(?P<ee_u>day|week|month|year)\b|\beod\b"
        r"|\beow\b|\beom\b)",
    ),
    (
        "en_date",
        r"(?i:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?"
        r"(?:,?\s+\d{4})?\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov"
        r"|dec)[a-z]*\.?(?:,?\s+\d{4})?\b)",
    ),
    ("en_before", r"(?i:\b(?:before|by|until|till|due\s+by)\b)"),
    # "at 8pm", "on Dec 5": a preposition that joins a point ("tomorrow at 8pm") or starts one.
    ("en_at", r"(?i:\b(?:at|on)\b)"),
    ("en_after", r"(?i:\b(?:after|since|from)\b)"),
    ("en_pod", r"(?i:\b(?P<ep>morning|afternoon|evening|night)\b)"),
]

KINDS = frozenset(k for k, _ in _KINDS)
MASTER = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _KINDS))

# Characters allowed between two tokens of one expression.
_GLUE = re.compile(r"[\s的T]{0,3}")

# Full-width → ASCII, one character for one so offsets map back to the input.
_FULLWIDTH = {i: i - 0xFEE0 for i in range(0xFF01, 0xFF5F)}
_FULLWIDTH.update({0x3000: 0x20, 0x3002: 0x3002})


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    start: int
    end: int
    groups: dict[str, str]

    def g(self, name: str) -> str | None:
        return self.groups.get(name)


def normalise(text: str) -> str:
    """Full-width → ASCII and traditional → simplified (core.hanzi), one character for one: token
    offsets in the result are offsets in `text`, so a phrase is sliced from the user's own text."""
    out = fold(text.translate(_FULLWIDTH))
    return out if len(out) == len(text) else text


def tokens(text: str) -> Iterator[Token]:
    for m in MASTER.finditer(text):
        kind = m.lastgroup
        if kind is None or kind not in KINDS:
            continue
        groups = {k: v for k, v in m.groupdict().items() if v is not None and k != kind and k not in KINDS}
        yield Token(kind, m.start(), m.end(), groups)


def glued(text: str, a: int, b: int) -> bool:
    """True when text[a:b] is only glue (spaces, 的), so tokens on either side form one expression."""
    if b < a:
        return False
    if b == a:
        return True
    m = _GLUE.fullmatch(text, a, b)
    return m is not None
