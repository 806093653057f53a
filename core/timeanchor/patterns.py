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
# Right after an English word a dotted or dashed pair is a version, section, room or score ("Python
# 3.12", "the 1.2 formula", "chapters 10-12", "room 12.11"), unless the word introduces a date ("due
# 12.25", "on 12-05"); English writes a bare month/day with a slash ("Submit form 06/26").
_AFTER_WORD = (
    r"(?!(?<=[A-Za-z]\s)(?<!\bon\s)(?<!\bby\s)(?<!\bdue\s)(?<!\bbefore\s)(?<!\buntil\s)(?<!\btill\s)"
    r"\d{1,2}[.-]\d)"
)
# A weekday word used as a noun's attribute is no day: an abbreviation before a plain word ("sun cream",
# "sat down", "wed a friend"), a full name after an article before a word ("the Monday report", "a Friday
# meeting"). Words that go on a time ("fri at 3pm", "sat morning", "mon 10am", "the Friday after next")
# and calendar words keep it a day.
_TIME_FOLLOWERS = (
    r"(?:at|by|on|in|and|or|to|thru|through|till|until|before|after|next|this|week|morning|afternoon|evening"
    r"|night|noon|midnight|am|pm|eod|" + _CALENDAR_WORDS + r")\b"
)
_NOT_BEFORE_WORD = r"(?!\s+(?!" + _TIME_FOLLOWERS + r")[a-z]{2,})"
_AFTER_ARTICLE = "|".join(rf"(?<=\b{art}\s\w{{{n}}})" for art in ("the", "a") for n in (6, 7, 8, 9))
_NOT_ATTRIBUTE = r"(?!(?:" + _AFTER_ARTICLE + r")\s+(?!" + _TIME_FOLLOWERS + r")[a-z]{2,})"
# A bare ordinal day is no day after a possessive ("Anna's 30th", "my 5th attempt").
_NOT_OWNED = r"(?<!'s\s)(?<!\bmy\s)(?<!\bhis\s)(?<!\bher\s)(?<!\bour\s)(?<!\byour\s)(?<!\btheir\s)"


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
_LDAY = r"初[一二三四五六七八九十]|十[一二三四五六七八九]|二十[一二三四五六七八九]?|廿[一二三四五六七八九]|三十|卅|十|[一二三四五六七八九]"
_ON_THAT_DAY = r"(?:那一?天|那日)?"
# The literary day words 今日/明日/昨日 right before a noun that cannot be the task said on that day
# begin a name ("今日头条的稿子", "明日方舟的活动", "昨日青空"), not a day; a verb after them is a day
# ("今日开会", "明日交报告"). Telling a noun from a verb needs words, so these are the nouns, kept few.
_NOUN_AFTER_DAY = r"(?!头条|方舟|青空|说法)"
# A zero-led or digit-by-digit two-digit number before 年 is a year, not a count: "07年以后" is 2007 on,
# "零八年以后" 2008 on (but "三五年以后", "二三年后" are rough counts, "10年以后" ten years later).
_NOT_A_YEAR = (
    r"(?!(?:0\d|[零〇][零〇一二三四五六七八九]|(?!一二|二三|三四|四五|五六|六七|七八|八九|三五)"
    r"[一二三四五六七八九][零〇一二三四五六七八九])\s*年)"
)
_LUNAR_MD = (
    # after 农历 a year is a lunar year ("农历2015年十月初一"); 初一..初十 are only lunar days, so any month
    # before one makes a lunar date ("三月初一"), while "三月初" alone stays early March.
    r"(?:(?P<lm_p>农历|阴历|旧历)\s*(?:(?P<lm_y>(?:19|20)\d{2}|[零〇一二三四五六七八九]{4})\s*年\s*)?"
    r"(?P<lm_m>正|冬|腊|十[一二]?|[一二三四五六七八九]|1[0-2]|0?[1-9])|(?P<lm_m2>正|冬|腊)"
    r"|(?<![\d零〇一二两三四五六七八九十个第])(?P<lm_m3>十[一二]?|[一二三四五六七八九]|1[0-2]|0?[1-9])"
    r"(?=\s*月\s*初[一二三四五六七八九十](?![一二三四五六七八九十])))"
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

# Where a counted span (下三天, 后1年) may start: not after a CJK character, except a pronoun or a
# function word ("我上两周", "在之后5分钟", "那下三天").
_SNEXT_AT = r"(?:(?<![\u4e00-\u9fff])|(?<=[我你他她们咱俺在就再那这的要和或及是对、]))"

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
    # before spast: "最后一个星期五" is a day, not the last week (absorb._nth_weekday)
    (
        "nth_wday",
        r"(?:第(?P<nx_n>[一二三四五1-5])|(?P<nx_last>最后一|倒数第一))个?(?:周|星期|礼拜)(?P<nx_d>[一二三四五六日天1-7])",
    ),
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
    ("reloff", _NOT_A_YEAR + _qty("ro", True) + r"\s*(?P<ro_dir>之后|以后|后|之前|以前|前|以来)"),
    ("nth_day", rf"第(?P<nd_n>{DAY})天"),
    ("nth_week", r"第(?P<nw_n>[一二三四五六七八九十]{1,3}|[1-5]?\d)(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天末1-7])"),
    # 十月第一个星期一 / 本月最后一个周五 / 明年第九个月 / 第一季度的第一个月 (only after a month, year or
    # quarter: absorb._nth_weekday / _nth_month; "第一个月的工资" alone is no time)
    ("nth_month", r"第(?P<nm_n>十[一二]?|[一二三四五六七八九]|1[0-2]|[1-9])个月(?!内|里|以内|之内)"),
    (
        "ymd",
        r"(?<![\d./])(?P<ymd_y>(?:1[89]|20)\d{2})\s*[-/.]\s*(?P<ymd_m>\d{1,2})\s*[-/.]\s*(?P<ymd_d>\d{1,2})(?![\d/])"
        r"|(?<!\d)(?P<ymd_y8>(?:19|20)\d{2})(?P<ymd_m8>0[1-9]|1[0-2])(?P<ymd_d8>0[1-9]|[12]\d|3[01])(?!\d)",
    ),
    # The year last ("06/26/2021", "13.5.2015", "3-7-2017", "05/05/89"): numdate.py orders the fields.
    # A dotted one needs a 4-digit year ("1.2.10" is a version).
    (
        "dmy",
        r"(?<![A-Za-z0-9_./:-])(?P<dmy_a>\d{1,2})(?P<dmy_s>[-/.])(?P<dmy_b>\d{1,2})(?P=dmy_s)"
        r"(?P<dmy_y>\d{4}|(?<!\.)\d{2})(?![A-Za-z0-9_/:-]|\.\d)",
    ),
    ("lunar_md", _LUNAR_MD),
    ("period", _PERIOD),
    ("ym", r"(?<![A-Za-z0-9_./])(?P<ym_y>(?:19|20)\d{2})[-/.](?P<ym_m>1[0-2]|0?[1-9])(?![\d:/])"),
    (
        "mdn",
        r"(?<![\d.:/-])" + _AFTER_WORD + r"(?P<mdn_m>0[1-9]|1[0-2])-(?P<mdn_d>0[1-9]|[12]\d|3[01])(?![\d:])"
        r"|(?<![\d.])(?P<mdn_m2>1[0-2]|0?[1-9])·(?P<mdn_d2>[12]\d|3[01]|0?[1-9])(?!\d)"
        # "12.25" / "8/1": a month.day pair standing alone (not a decimal, version, score or fraction,
        # not a count of something, "打印4/5页", "3/4 cup", nor part of a name, "The 9/11 Report")
        r"|(?<![A-Za-z0-9_.·/:-])"
        + _IN_NAME
        + _AFTER_WORD
        + r"(?P<mdn_m3>1[0-2]|0?[1-9])[./](?P<mdn_d3>3[01]|[12]\d|0?[1-9])(?![A-Za-z0-9_.·/:%-])"
        rf"(?!\s*(?:{_PAIR_UNITS_ZH}))(?!\s*(?i:{_PAIR_UNITS_EN})\b)"
        # "27/1", "20/12": day first when the first number cannot be a month
        r"|(?<![A-Za-z0-9_.·/:-])(?P<mdn_d4>1[3-9]|2\d|3[01])/(?P<mdn_m4>1[0-2]|0?[1-9])(?![A-Za-z0-9_.·/:%-])"
        rf"(?!\s*(?:{_PAIR_UNITS_ZH}))(?!\s*(?i:{_PAIR_UNITS_EN})\b)",
    ),
    (
        "year",
        # Years 1800-2200 as digits: a year said outright is kept as said, within what a task list
        # can mean; a larger one is not read (a quick note then asks).
        r"(?P<y_abs>(?<!\d)(?:(?:1[89]|2[01])\d{2}|2200)(?!\d)|[零〇一二三四五六七八九]{4}"
        r"|(?<![\d零〇一二三四五六七八九十])(?:\d{2}|[零〇一二三四五六七八九]{2}))\s*年(?!代|级|龄|纪|轻|薪|假|会|货)度?"
        r"(?P<y_edge>年?(?:(?:初|底|末|尾)(?!的?[一二两三四五六1-6]个月)|中(?![秋元])|终|伊始)|[上下前后]半年)?",
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
        r"(?P<yr_w>大前|大后|今|本|明|来|去|前|后|次|上一?|下一?|同|当|(?<![新怀念])旧)年(?!级|龄|纪|轻|代)度?"
        r"(?P<yr_edge>年?(?:(?:初|底|末|尾)(?!的?[一二两三四五六1-6]个月)|中(?![秋元])|终|伊始)|[上下前后]半年)?",
    ),
    (
        "mrel",
        r"(?P<mr_w>本|这一?个?|呢个|当|今个?|同|下下个?|下一?个?|上上个?|上一?个?|次)月份?"
        r"(?P<mr_edge>月?(?:初|底|末|尾|中旬|上旬|下旬|中))?",
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
        rf"|大大后天|大后天|后天|大大前天|大前天|前天|今天|今日{_NOUN_AFTER_DAY}|本日|当天|当日|今儿个|今儿"
        rf"|明天|明日{_NOUN_AFTER_DAY}|明儿个|明儿|昨天|昨日{_NOUN_AFTER_DAY}"
        r"|昨儿个|昨儿|次日|翌日|第二天|隔天|全天|今明两天|今明两日|今明两年|明后两天|明后天|明后两日"
        # Cantonese (and literary) day words, folded from 聽日/後日/尋日: not "听日语", "后日谈", "最后日期",
        # "提前日期", "前日本首相", "钢琴日记"
        r"|(?<![收打偷])听日(?![语文本剧韩记志])|大后日|(?<![之以然最今往日落而随其背身事过])后日(?![谈期本语文常子])"
        r"|(?<![找追搜])寻日(?!常)|(?<![钢提古胡])琴日(?!记)"
        r"|(?<![提之以事日从此向目当眼跟面门])前日(?![本元语文期子军]))",
    ),
    (
        "daypod",
        # Cantonese first: 听朝/听晚 (tomorrow morning/evening), 今朝, 琴晚/寻晚 (last night), 今晚黑; not
        # "今朝有酒今朝醉", "钢琴晚会", and 今晚会议 is still 今晚 (the second form)
        r"(?P<dp_c>听|(?<![钢提古胡风口竖电])琴|寻|今)(?P<dp_cp>朝早(?!上)|朝|晚黑|晚)(?!有酒|醉|会|宴|霞|饭|餐)"
        r"|(?P<dp_d>今|明|昨|当|前|次)(?P<dp_p>晚|早|晨|夜)(?![饭餐安点])",
    ),
    (
        "dabs",
        rf"(?<![\d零〇一二两三四五六七八九十第])(?P<da_d>{DAY})\s*(?:日|号)"
        # a numbered thing or a size, not a day: "5号楼", "3号线", "5号电池"
        r"(?!子|本|语|文|记|报|楼|线|码|床|房|机|位|门|店|馆|球|字|元|币|坑|车|站|口|志|历|电池|干电池)",
    ),
    (
        "week",
        r"(?P<wk_w>下下|下一?|上上|上一?|这|本|今|同|呢)\s*(?:个|一)?\s*(?:周|星期|礼拜|週)(?P<wk_d>[一二三四五六日天末1-7])?",
    ),
    (
        "wday",
        r"(?:周|星期|礼拜|週)(?P<wd_d>[一二三四五六日天末1-7])(?!年|岁|刊|报)"
        # the bare end of a weekday range: "周一至五", "星期一到五", "礼拜二~四"
        r"|(?:(?<=[周週][一二三四五六日天][到至~～\-－])|(?<=星期[一二三四五六日天][到至~～\-－])"
        r"|(?<=礼拜[一二三四五六日天][到至~～\-－]))(?P<wd_e>[一二三四五六日天])(?![\d零一二两三四五六七八九十]|[点时号日月年个天])",
    ),
    (
        "quarter",
        r"(?:(?:第)?(?P<q_n>[一二三四1-4])季度|(?P<q_first>首)季度|(?P<q_w>本|这一?个?|上一?个?|下一?个?|当)季度)"
        r"(?P<q_edge>末|底|初)?|(?P<q_bare>季度|季)(?P<q_edge2>末|底|初)|(?<![A-Za-z0-9_])(?i:Q(?P<q_n2>[1-4]))(?![A-Za-z0-9_])",
    ),
    # 下三天 / 上两周 / 后1年 / 之后5分钟 / 下个小时 / 还剩3小时 (relative.adjacent_span). After week/mrel/
    # yrel/quarter so "下一周三", "下个月", "下一年" keep their own reading. Only at the start of a
    # phrase: "记下三天的开销", "晚上两小时", "国庆节后2天" (a picked day) are not it; 下半年 is an edge.
    (
        "snext",
        _SNEXT_AT
        + r"(?P<sn_kw>下|上|之后|后)(?!半)的?\s*(?:"
        + _qty("sn", True)
        + r"|(?P<sn_one>一?个)\s*(?:小时|钟头))(?![班课雨雪])|(?P<sn_left>还剩|只剩|仅剩)\s*"
        + _qty("sl", True),
    ),
    (
        "holiday",
        r"(?P<hd>元旦|劳动节|五一|国庆节|国庆|圣诞节|圣诞|平安夜|情人节|妇女节|儿童节|六一|教师节|植树节|建军节|万圣节"
        r"|感恩节|母亲节|父亲节|双十一|双11|双十二|双12"
        # Duckling's fixed-date festivals; 新年 = 1/1, not a greeting ("新年快乐") or a new-year plan,
        # 三一五 only before a calendar word (not "三一五室")
        r"|愚人节|光棍节|护士节|(?:七一)?建党节|(?:五四)?青年节(?!目)|消费者权益日"
        r"|(?<![\d〇零一二两三四五六七八九十百])三一五(?=晚会|那天|当天|之前|以前|前|之后|以后|后|期间|的|[\s,，。.!！?？]|$)"
        r"|(?<![拜贺迎])新年(?!快乐|好|贺|愿望|计划|目标|献词|致辞|伊始|新气象|音乐会|第一)"
        # English fixed-date holidays (point.HOLIDAYS), not as a noun's attribute ("Christmas cards")
        r"|(?i:\b(?:christmas(?:\s+(?:eve|day))?|new\s+year['\u2019]?s\s+(?:eve|day)|valentine['\u2019]?s\s+day"
        r"|halloween)\b" + _NOT_BEFORE_WORD + "))",
    ),
    ("festival", _FESTIVAL),
    ("term", _TERM),
    ("post_hol", _POST_HOLIDAY),
    # 年初三个月 / 年底两个月: the first / last N months of the year (the year said before it, or this one)
    (
        "edge_months",
        r"(?:年|(?<=年))(?P<em_w>初|底|末|尾)的?(?P<em_n>[一二两三四五六1-6])个月(?!内|里|以内|之内|后|以后|之后)",
    ),
    (
        "edge",
        r"(?P<eg>年初|年底|年末|年终|年尾|年中|年内|月初|月底|月末|月尾|月中|月内|上半年|下半年|上旬|中旬|下旬"
        r"|上半个?月|下半个?月)",
    ),
    ("workday", r"(?P<wkd>工作日)(?!内|以内|之内)"),
    # Spring Festival: 春节/过年 as a day; 年前 = before it, 年后/过完年 = after it
    (
        "lunar_ny",
        r"(?<![多两几\d一二三四五六七八九十百千今明去前后上下本同当])(?P<ln>春节|过年|除夕|大年三十|大年初一|过完年|过了年|年后|年前|新春(?![联快大佳贺祝团晚]))(?!天|\d|[一二两三四五六七八九十几]|年)",
    ),
    ("rest", r"剩下的?几天|剩下的?日子|剩下的?时间|剩余的?几天|剩余的?时间|剩下的|剩余的|余下的"),
    (
        "pod",
        r"(?P<pd>凌晨|清晨|早晨|早上|早间|上午|中午|正午|午间|午后|下午|傍晚|晚上|晚间|夜里|夜间|深夜|半夜|午夜|夜晚|白天|白日"
        r"|朝早|上昼|下昼|晏昼|晚黑"  # Cantonese (absorb._POD_WORDS), folded from 上晝/下晝/晏晝
        rf"|早(?=\s*{HOUR}\s*[点时])|晚(?=\s*{HOUR}\s*[点时])|(?:午饭|晚饭)(?=之前|以前|前)"
        # a bare 晚 right after a day ("七月五号晚", "周四晚"): that evening ("住一晚", "生日晚会" are not)
        r"|(?:(?<=[日号])|(?<=周[一二三四五六日天])|(?<=星期[一二三四五六日天])|(?<=礼拜[一二三四五六日天]))"
        r"晚(?![点些饭餐安会宴了上间黑])"
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
        rf"(?<![这那第有哪几\d零〇一二两三四五六七八九十])(?P<ck_h>{HOUR})\s*(?:点|时|點)(?!多个|个|意见|建议|要求|原因|想法|看法|内容|好处|不足|理由|问题|注意|需要|钟?方向)"
        # a decimal before a unit is a quantity, not a clock: "五点五公斤", "一点五个小时", "3点5倍"
        r"(?!\s*(?:\d+|[零〇一二两三四五六七八九]+)\s*(?:公斤|千克|克|斤|公里|千米|厘米|毫米|公分|米|毫升|升|元|块|倍|度|亿|万|%|％|个?小时|天))"
        r"(?:钟)?(?:\s*(?P<ck_min>半|一刻|1刻|三刻|3刻|整|(?:\d{1,2}|[零〇一二三四五六七八九十]{1,3})(?:\s*分(?!钟))?)"
        r"|(?P<ck_more>多钟?))?(?:钟)?(?:\s*(?i:(?P<ck_ap>am|pm|a\.m\.|p\.m\.)(?![A-Za-z])))?",
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
        r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})\s*(?:点|时|日|号|月))"
        r"|(?<!\d)(?P<nr_y>(?:1[89]|20)\d{2})(?=\s*(?:到|至|~|～|—+|–|-|－)\s*(?:1[89]|20)\d{2}\s*年)",
    ),
    # 到/至/-: a range; 和/与/或 (between two points: "周三和周五之间", "明天或后天"): the window covering
    # both; "X或之前" / "X或以后" are suffixes, not alternatives.
    (
        "sep",
        rf"(?P<sp>{_SEP})|(?P<sp_alt>或(?:者|是)?(?!者?(?:[之以][前后]|[前后](?![天年])))|和|与)"
        r"|(?i:\b(?P<sp_en>to|through|thru|and|or)\b)",
    ),
    ("win", r"之内|以内|内"),
    ("between", r"之间|中间"),
    ("before", r"(?:或者?|及)?(?:之前|以前)|为止|前(?!天|年|[\d零一二两三四五六七八九十几])"),
    # 国庆节后第一个工作日 / 春节假期后第一天: the first workday after X (after X's break)
    ("post_first", rf"之?后的?(?:{_FIRST_WORKDAY})"),
    # 本周最后一个工作日 / 下周第一个工作日 / 月底最后一个工作日
    ("edge_wd", r"的?(?:第一|头一|首|(?P<ew_last>最后一|末))个?工作日"),
    ("after", r"(?P<af>之后|以后|往后|过后|(?:或者?|及)(?:之后|以后)|后(?!天|年)|起|开始|以来)"),
    # English (simple forms; month-name dates go through dateparser).
    (
        "en_day",
        r"(?i:\b(?P<ed>(?:the\s+)?day\s+after\s+tomorrow|(?:the\s+)?day\s+before\s+yesterday|today|tonight"
        r"|tomorrow|tomm?or+o?w|tmrw|tmr|2mor+ow|2moro|yesterday)\b)",
    ),
    # "later this week": the rest of it, from now
    (
        "en_week",
        r"(?i:\b(?P<ew_later>later\s+(?=this\b|next\b))?(?P<ew_w>this|next|last|coming|past)\s+(?P<ew_u>week|weekend|month|year)\b"
        r"|\b(?:the\s+)?(?P<ew_an>week|weekend|month|year)\s+after\s+next\b)",
    ),
    (
        "en_wd",
        r"(?i:\b(?:(?P<ewd_w>this|next|last|coming)\s+)?(?:(?P<ewd>monday|tuesday|wednesday|thursday|friday|saturday"
        r"|sunday)\b"
        + _NOT_ATTRIBUTE
        + r"|(?P<ewd_ab>mon|tues|tue|wed|thurs|thu|fri|sat|sun)\b"
        + _NOT_BEFORE_WORD
        + "))",
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
    # A bare ordinal day ("Dentist 14th", "on the 3rd", "17th at 10:00"): the next such day of a month;
    # only last, before punctuation or before a time word ("the 3rd floor", "21st century" are no days).
    (
        "en_ord",
        r"(?i:" + _NOT_OWNED + r"\b(?:the\s+)?(?P<eo_d>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)\b"
        r"(?=\s*(?:$|[,.;!?)@]|\d|(?:at|by|before|in\s+the|morning|afternoon|evening|night|noon)\b"
        r"|(?:to|through|thru|until|till|and|or)\s+(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b)))",
    ),
    ("en_before", r"(?i:\b(?:before|by|until|till|due\s+by)\b)"),
    # "at 8pm", "on Dec 5": a preposition that joins a point ("tomorrow at 8pm") or starts one.
    ("en_at", r"(?i:\b(?:at|on)\b)|@"),
    ("en_after", r"(?i:\b(?:after|since|from)\b)"),
    ("en_between", r"(?i:\bbetween\b)"),
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
