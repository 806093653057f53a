"""Words every action reads the same way: priority words (negation-aware), the verbs of getting a
task done, and the shapes of a follow-up to a list ("再来两个", "5 more", "what about next week?").

Written once here so that the router, the query rules and the note rules agree; each feature
package builds its own rules on top.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.countlock import EN_NUMBERS
from core.estimates import minutes_of

# ---------------------------------------------------------------------------------------------
# Priority words (shared with the quick-note rules)

_NEGATIONS = (
    "不",
    "不那么",
    "不是那么",
    "不太",
    "不怎么",
    "不是很",
    "不算",
    "不算太",
    "没那么",
    "没有那么",
    "并不",
    "没",
    "没有",
    "不用",
    "不必",
    "别",
    "无需",
    "不着",
    "不用着",
    "别着",
)


def _occurrences(text: str, word: str) -> list[int]:
    return [m.start() for m in re.finditer(re.escape(word), text)]


def _negated_at(text: str, start: int) -> bool:
    before = text[max(0, start - 4) : start]
    if before.endswith(("有没有", "是不是", "要不要", "会不会", "有没", "是否")):
        return False  # a yes/no question, not a negation ("有没有容易的")
    return any(before.endswith(n) for n in _NEGATIONS)


def _has_plain(text: str, word: str) -> bool:
    """``word`` occurs at least once without a negation in front of it."""
    return any(not _negated_at(text, i) for i in _occurrences(text, word))


def _has_negated(text: str, word: str) -> bool:
    return any(_negated_at(text, i) for i in _occurrences(text, word))


_UNIMPORTANT_RE = re.compile(
    r"无关紧要|不要紧|次要|无所谓|可有可无|优先级(?:比较|较|很|最)?低|低优先级|优先级不(?:太)?高|不关键|不急不重要|"
    r"可(?:以)?做可(?:以)?不做|做不做都(?:行|可以|成|无所谓)|不做也(?:行|可以|没(?:关系|事|啥)|无所谓)|无关痛痒|"
    r"意义不大|用处不大|"
    # "没用/没意义" only about the task itself ("麻烦又没用的任务"), not in a title ("删掉没用的文件").
    r"(?:没(?:啥|什么)?|无)(?:用|意义|价值)(?:的)?(?=任务|事情?|活儿?|待办|$|[，,。？?！!])"
)
_IMPORTANT_RE = re.compile(
    r"重点|优先级(?:比较|较|很|最)?高|高优先级|务必|必须|一定要|千万|非做不可|核心|(?<!得)要命|头等大事|重中之重|"
    r"优先(?:处理|做|办|完成|搞定)|首要"
)
_URGENT_RE = re.compile(r"马上|尽快|立刻|立即|赶紧|火速|加急|刻不容缓|迫在眉睫|火烧眉毛|asap|ASAP|十万火急|当务之急")
_NOT_URGENT_RE = re.compile(
    r"慢慢来|慢慢做|有空再|不赶时间|不赶|缓(?:一)?缓|可以缓|往后(?:推|放|拖|挪)|(?:可以|能)(?:往后)?(?:拖|推迟|延后)|"
    r"拖一拖|不紧不慢|不慌"
)
_EASY_RE = re.compile(
    r"轻松|省事|不费劲|不难|小事|琐事|杂事|顺手|随手|顺便|举手之劳|几分钟|简简单单|不费脑|不(?:用|需要)?动脑|不烧脑|"
    r"无脑|没(?:啥|什么|有)?难度|难度(?:不大|很低|低)|鸡毛蒜皮|分分钟|小活|杂活|零活|零碎|碎片时间|小任务|"
    r"[一二两三四五十几\d]+分钟(?:就|能|可以|内)?(?:就能|能|可以)?(?:搞定|做完|完成|弄完|干完|解决)"
)
_HARD_RE = re.compile(r"复杂|麻烦|费劲|费时|棘手|有难度|困难|难搞|难做|难办|比较难|很难|烦人|耗时|烧脑|费脑(?!子)")
# "难" on its own ("难但不重要", "有点难的"), not inside another word (难道, 难过, 难度, 为难, 灾难…).
_HARD_CHAR_RE = re.compile(r"(?<![为灾苦艰患危责非困刁])难(?![道过免得受怪忘看听吃闻堪度题以住倒民])")
_FREE_RE = re.compile(
    r"很闲|好闲|挺闲|闲着|闲下来|闲得|有空|有点空|空下来|无聊|没事做|没事干|没事可做|给我点事|找点事|打发时间|"
    r"摸鱼|空闲|有时间"
)
# "后天我有空吗" asks what is scheduled, not for something easy to do.
FREE_TIME_QUESTION_RE = re.compile(r"(?:有空|有时间|闲|空)(?:吗|么|嘛|没|不)[?？]?$|有没有(?:空|时间)|忙不忙|忙吗")
_QUADRANT_RE = re.compile(r"第\s*([1-4一二三四])\s*象限|象限\s*([1-4一二三四])")
_CN_SMALL = {"一": 1, "二": 2, "三": 3, "四": 4}


def _urgent_plain(text: str) -> bool:
    """Whether "急"/"紧急"/"着急"/"紧迫" occurs without a negation in front of the whole word."""
    for i in _occurrences(text, "急"):
        if text[i + 1 : i + 2] in ("诊", "性", "救"):
            continue
        start = i - 1 if i > 0 and text[i - 1] in "紧着" else i
        if not _negated_at(text, start):
            return True
    return _has_plain(text, "紧迫")


def _urgent_negated(text: str) -> bool:
    for i in _occurrences(text, "急"):
        start = i - 1 if i > 0 and text[i - 1] in "紧着" else i
        if _negated_at(text, start):
            return True
    return _has_negated(text, "紧迫")


@dataclass(frozen=True)
class PrioritySignals:
    """Negation-aware priority words found in a sentence."""

    important: bool
    unimportant: bool
    urgent: bool
    not_urgent: bool
    easy: bool
    hard: bool
    free_time: bool
    explicit_group: int | None = None


def priority_signals(text: str) -> PrioritySignals:
    t = text or ""
    unimportant = bool(_UNIMPORTANT_RE.search(t)) or _has_negated(t, "重要") or _has_negated(t, "关键")
    important = (_has_plain(t, "重要") or _has_plain(t, "关键") or bool(_IMPORTANT_RE.search(t))) and not bool(
        re.search(r"优先级(?:比较|较|很|最)?低|低优先级|优先级不(?:太)?高", t)
    )
    # "要紧" counts as important unless negated ("不要紧" is unimportant above).
    if (_has_plain(t, "要紧") or _has_plain(t, "紧要")) and "无关紧要" not in t:
        important = True
    if unimportant and not (_has_plain(t, "重要") or _has_plain(t, "关键")):
        important = False
    urgent = _urgent_plain(t) or bool(_URGENT_RE.search(t))
    not_urgent = _urgent_negated(t) or bool(_NOT_URGENT_RE.search(t))
    easy = _has_plain(t, "简单") or (_has_plain(t, "容易") and not _has_negated(t, "容易")) or bool(_EASY_RE.search(t))
    hard = (
        _has_negated(t, "简单")
        or _has_negated(t, "容易")
        or bool(_HARD_RE.search(t))
        or any(not _negated_at(t, m.start()) for m in _HARD_CHAR_RE.finditer(t))
    )
    if _has_negated(t, "简单") and not _has_plain(t, "简单"):
        easy = bool(_EASY_RE.search(t))
    if "不难" in t or "不费劲" in t or "不费脑" in t:
        rest = t.replace("不难", "").replace("不费劲", "").replace("不费脑", "")
        hard = bool(_HARD_RE.search(rest)) or bool(_HARD_CHAR_RE.search(rest)) or _has_negated(t, "简单")
    explicit: int | None = None
    m = _QUADRANT_RE.search(t)
    if m:
        tok = m.group(1) or m.group(2)
        explicit = int(tok) if tok.isdigit() else _CN_SMALL[tok]
    return PrioritySignals(
        important=important,
        unimportant=unimportant,
        urgent=urgent,
        not_urgent=not_urgent,
        easy=easy,
        hard=hard,
        free_time=bool(_FREE_RE.search(t)),
        explicit_group=explicit,
    )


# Verbs of getting a task done; the router asks "X交了没" with the same list.
DONE_VERBS = r"(?:提交|完成|处理|交|写|做|签|办|弄|搞|发|寄|付|缴|还|干|订|买|报|填|改|回|打|联系|预约|约|确认)"

# "did I pay rent?", "is the report done?", "has the invoice been sent yet?": was it done? The
# thing asked about is group kw (or kw2, kw3), what a title would contain.
_EN_DONE_PARTICIPLE = r"(?:done|finished|completed|submitted|sent|paid|handled|booked|ordered|returned|filed)"
EN_DONE_CHECK_RE = re.compile(
    r"^(?:did|have|has) (?:i|we) (?:already |ever |actually )?"
    r"(?:finish(?:ed)?|complete(?:d)?|do|done|submit(?:ted)?|send|sent|pay|paid|call(?:ed)?|buy|bought|"
    r"email(?:ed)?|book(?:ed)?|order(?:ed)?|return(?:ed)?|file[d]?|renew(?:ed)?|reply|replied)\b"
    r" ?(?:the |my |a |an )?(?P<kw>.*?)(?: yet| already)?\s*\??$|"
    rf"^(?:is|are|was|were) (?:the |my |a |an )?(?P<kw2>.+?) (?:already )?{_EN_DONE_PARTICIPLE}(?: yet| already)?\s*\??$|"
    rf"^(?:has|have) (?:the |my |a |an )?(?P<kw3>.+?) been {_EN_DONE_PARTICIPLE}(?: yet| already)?\s*\??$",
    re.IGNORECASE,
)


def english_done_subject(sentence: str) -> str | None:
    """What an English "was it done?" question asks about ("rent" in "did I pay rent?"), or None."""
    m = EN_DONE_CHECK_RE.match(re.sub(r"\s+", " ", sentence.replace("\u2019", "'")).strip())
    if m is None:
        return None
    return (m.group("kw") or m.group("kw2") or m.group("kw3") or "").strip(" ?.!") or None


# Follow-ups that continue after what was listed (the next page). Chinese anywhere in the sentence;
# English as the whole message, after an optional lead-in ("ok, 5 more please", "show me more",
# "next page", "any more?", "anything else?", "the rest"); "5 more minutes" is no such message.
_MORE_EN_NUM = (
    rf"(?:[0-9]{{1,3}}|{'|'.join(sorted(EN_NUMBERS, key=len, reverse=True))}|a few|a couple(?: of)?|some|any)"
)
_MORE_EN_WHAT = r"(?:\s+(?:tasks?|items?|todos?|to-dos?|ones?|of (?:them|those|these)))?"
_MORE_EN_BODY = (
    rf"(?:another\s+)?(?:{_MORE_EN_NUM}\s+)?more{_MORE_EN_WHAT}|another\s+{_MORE_EN_NUM}{_MORE_EN_WHAT}|another one"
    r"|(?:the\s+)?next(?:\s+(?:page|one|ones|batch|few|tasks?))?"
    r"|(?:anything|something|what|any)\s+(?:else|more)|any others?|(?:the\s+)?others|other ones"
    r"|(?:the\s+)?rest(?:\s+of\s+(?:them|those|these|my tasks|the (?:tasks|list)))?|keep going|go on|continue"
)
_MORE_EN = (
    r"^\s*(?:(?:ok(?:ay)?|so|and|then|yes|yeah|yep|sure|great|thanks|thank you|cool|alright|now|hmm|well|please|pls)"
    r"[\s,.!]+)*(?:(?:can|could|would) you\s+)?(?:(?:show|give|list|get|send|tell)(?:\s+me)?\s+|let me see\s+|"
    rf"i (?:want|need|'d like)\s+)?(?:{_MORE_EN_BODY})(?:[\s,]+(?:please|pls|plz|thanks|thank you|then|too))*[\s.!?]*$"
)
MORE_RE = re.compile(
    r"再来|还有吗|还有呢|还有没有|还有别的|还有其他|更多|下一页|继续|换一批|换几个|换一个|其他的呢|别的呢"
    rf"|(?i:{_MORE_EN})"
)


# English follow-ups besides the ones that continue the list (those are in MORE_RE): the whole
# message, lower-cased, after an optional lead-in ("ok, …", "so …").
_EN_LEAD = r"^\W*(?:(?:ok(?:ay)?|so|but|then|yes|yeah|sure|great|thanks|cool|alright|hmm|well|now)[\s,.!]+)*"
_EN_FOLLOWUP_SHAPES: tuple[str, ...] = (
    r"(?:what|how)\s+about\b",  # "what about next week?", "how about the important ones?"
    r"(?:and|also|plus|or)\s+[^.!?]{1,40}\?\s*$",  # "and tomorrow?", "and the urgent ones?"
    r"(?:(?:just|only)\s+)?(?:the|those)\s+[a-z ,&-]{1,30}\s+ones\s*\??\s*$",  # "the important ones?"
    # "all", "show all", "all of them", "show me all of them", "list them all", "everything"
    r"(?:(?:show|give|list|get|tell)(?:\s+me)?\s+)?(?:them\s+)?(?:all|everything)"
    r"(?:\s+of\s+(?:them|those|these|it)|\s+(?:the\s+)?tasks)?(?:[\s,]+please)?\W*$",
    r"(?:show|give|list)(?:\s+me)?\s+them\s+all\W*$",
)
_EN_FOLLOWUP_RE = re.compile(_EN_LEAD + "(?:" + "|".join(_EN_FOLLOWUP_SHAPES) + ")", re.IGNORECASE)
# Longer English messages are questions of their own, not follow-ups.
EN_FOLLOWUP_MAX_CHARS = 60


def english_words(sentence: str) -> str:
    return " ".join(sentence.replace("\u2019", "'").split())


def looks_like_english_followup(sentence: str) -> bool:
    """ "5 more", "more", "next page", "anything else?", "the rest", "all", "what about next week?"."""
    text = english_words(sentence)
    if not text or len(text) > EN_FOLLOWUP_MAX_CHARS:
        return False
    return bool(_EN_FOLLOWUP_RE.search(text) or MORE_RE.search(text))


# ---------------------------------------------------------------------------------------------
# A marker before a colon at the start of a note ("待办：", "随手记：", "备忘录:", "todo：", "记："): the
# router reads it as a capture, the note rules cut it from the title.

COLON_MARKERS: tuple[str, ...] = (
    "待办事项",
    "待办",
    "代办",
    "任务",
    "todo",
    "to-do",
    "备忘录",
    "备忘",
    "提醒事项",
    "提醒",
    "随手记",
    "随口记",
    "小记",
    "速记",
    "记一笔",
    "记",
    "笔记",
)


# ---------------------------------------------------------------------------------------------
# Calendar phrases (festivals, solar terms, lunar dates, holiday periods, workdays). The time
# resolver is being taught these; until it reads them all, the router still needs to know "a time
# was said", so a question shaped "<calendar phrase> + 那天/前/假期 + 有什么/的安排/要V的" is a query.

FESTIVALS: tuple[str, ...] = (
    "春节",
    "除夕",
    "大年三十",
    "大年初一",
    "元宵节",
    "清明节",
    "端午节",
    "七夕节",
    "中元节",
    "中秋节",
    "重阳节",
    "腊八节",
    "小年",
    "元旦",
    "劳动节",
    "国庆节",
    "情人节",
    "妇女节",
    "母亲节",
    "父亲节",
    "儿童节",
    "教师节",
    "圣诞节",
    "平安夜",
    "万圣节",
    "感恩节",
    "植树节",
    "青年节",
    "建军节",
    "双十一",
    "双十二",
)
# Festival names that are also food or greetings ("吃元宵", "腊八粥", "圣诞礼物", "国庆快乐"): a time
# only with 节 or a calendar anchor after them ("元宵节", "腊八那天", "国庆假期", "中秋前").
FESTIVAL_STEMS: tuple[str, ...] = ("元宵", "腊八", "圣诞", "中秋", "端午", "重阳", "清明", "国庆", "七夕", "五一")
# Solar terms; several are also weather words ("大雪", "雨水"), so they need a calendar anchor after.
SOLAR_TERMS: tuple[str, ...] = (
    "立春",
    "雨水",
    "惊蛰",
    "春分",
    "谷雨",
    "立夏",
    "小满",
    "芒种",
    "夏至",
    "小暑",
    "大暑",
    "立秋",
    "处暑",
    "白露",
    "秋分",
    "寒露",
    "霜降",
    "立冬",
    "小雪",
    "大雪",
    "冬至",
    "小寒",
    "大寒",
)
# What may follow a calendar phrase and belongs to it ("那天", "前", "假期").
CALENDAR_ANCHORS: tuple[str, ...] = (
    "那一天",
    "那天",
    "当天",
    "这天",
    "当日",
    "假期",
    "长假",
    "小长假",
    "期间",
    "之前",
    "以前",
    "前",
)


def _alternation(words: tuple[str, ...]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_CN_DAY = r"(?:初[一二三四五六七八九十]|廿[一二三四五六七八九]?|[二三]?十[一二三四五六七八九]?)"
_ANCHOR = rf"(?:节)?(?:{_alternation(CALENDAR_ANCHORS)})"
CALENDAR_HINT_RE = re.compile(
    rf"(?:{_alternation(FESTIVALS)}){_ANCHOR}?|"
    rf"(?:{_alternation(FESTIVAL_STEMS)})(?:节{_ANCHOR}?|{_ANCHOR})|"
    rf"(?:{_alternation(SOLAR_TERMS)}){_ANCHOR}|"
    rf"(?:正|腊|冬|[一二三四五六七八九十]|十[一二])月{_CN_DAY}{_ANCHOR}?|"
    rf"(?:(?:下|上|这|本)(?:一)?(?:个)?)?工作日{_ANCHOR}?|"
    rf"(?:寒假|暑假|黄金周|小长假|长假)(?:{_alternation(CALENDAR_ANCHORS)})?"
)


# ---------------------------------------------------------------------------------------------
# Count-only requests ("三个就行", "最多五条就够了", "不要超过三个", "先给我整两个"): what may
# surround the count phrase ``core.countlock.extract_count`` found, when the count is the point.

COUNT_ONLY_WORDS: tuple[str, ...] = (
    "就好了",
    "就好",
    "就行了",
    "就行",
    "就够了",
    "就够",
    "够了",
    "即可",
    "就可以了",
    "就可以",
    "最多只",
    "最多",
    "至多",
    "顶多",
    "不要超过",
    "不能超过",
    "不超过",
    "别超过",
    "以内",
    "之内",
    "只要",
    "先给我",
    "随便",
    "随机",
    "就",
    "给我",
    "先",
    "只",
    "列出来",
    "列出",
    "列",
    "看看",
    "看",
    "取",
    "拿",
    "挑",
    "选",
    "整",
    "来",
    "派",
    "显示",
    "出来",
    "条",
    "个",
    "件",
    "任务",
    "下",  # "一个都别落下": the lock reads "一个都别落"
    "掉",
)
COUNT_ONLY_FILLER_RE = re.compile(_alternation(COUNT_ONLY_WORDS))
_PARTICLES_RE = re.compile(r"[帮我你给的呗吧吗呢啊呀嘛一下，,。.!！?？~～\s]")


# The set a count picks from ("前十个里挑一个", "这五条中来两个"): words around a count too.
_AMONG_RE = re.compile(
    r"(?:前|这|那)?[一二两三四五六七八九十百\d]{1,3}[个条件项](?:任务|待办)?(?:里面|里头|里|当中|之中|中)"
)


def count_leftover(text: str, phrase: str) -> str:
    """What is left of ``text`` besides the count ``phrase`` and the words around a count."""
    rest = _AMONG_RE.sub("", text.replace(phrase, "", 1))
    return COUNT_ONLY_FILLER_RE.sub("", _PARTICLES_RE.sub("", rest))


# ---------------------------------------------------------------------------------------------
# Tasks without a deadline ("没有截止时间的任务", "undated tasks"): read by the query rules (the
# filter) and the router (it is a task question), so both agree on the words.

_DEADLINE_NOUN = r"(?:(?:截止|截至|到期|完成)(?:时间|日期|日子|日|期限)|期限|ddl|deadline|due ?date)"
_SET_VERB = r"(?:设置?|设定|定下?|写|填|加|给|安排|标|规定|指定|约定)(?:好|上|过)?"
# A negation before the deadline noun (but not "有没有截止时间快到的": asking whether one exists),
# or the noun before a negated setting verb ("截止日期还没定"). The noun must not go on to say
# when ("没有截止时间在今天的"), and a bare "截止/到期" is left out: "还没截止的" means not yet due.
_NO_DEADLINE_ZH = (
    rf"(?<!有)(?:没有|没|无|未|尚未|还没有?|不带|缺少?)(?:{_SET_VERB})?{_DEADLINE_NOUN}"
    r"(?![快就将马临到在是])|"
    rf"无截止|{_DEADLINE_NOUN}(?:都|也|还)?(?:没有?|未)(?:{_SET_VERB})"
)
_EN_DEADLINE = r"(?:deadlines?|due[ -]dates?|dates?)"
_NO_DEADLINE_EN = (
    rf"\b(?:without|with no|w/o|no|missing|lacking)\s+(?:an?\s+|any\s+)?(?:set\s+)?{_EN_DEADLINE}\b|"
    rf"\b(?:don'?t|doesn'?t|do not|does not)\s+have\s+(?:an?\s+|any\s+)?{_EN_DEADLINE}\b|"
    r"\bundated\b|\bdeadline-?less\b"
)
NO_DEADLINE_RE = re.compile(f"{_NO_DEADLINE_ZH}|{_NO_DEADLINE_EN}", re.IGNORECASE)


# ---------------------------------------------------------------------------------------------
# Answering an offer. An empty task answer may end with a follow-up it offers, on its own line
# ("要看看逾期的吗？", "Want to see the overdue ones?"; the texts: taskquery.rendering.EMPTY_OFFERS,
# whose tests keep them matching this pattern). The router recognises such a line here, as it may
# not import an action; the query action maps the exact text to the question it stands for.
OFFER_LINE_RE = re.compile(r"^\s*(?:要看看[^\n？?]{1,20}吗[？?]|Want to see the [^\n?]{1,40}\?)\s*$", re.M)

_YES_ZH = (
    r"(?:要|要的|要啊|要呀|要吧|要看|想看|是|是的|对|好|好的|好啊|好呀|好吧|嗯|嗯嗯|行|行啊|可以|可以啊|当然|"
    r"来吧|来|看看|看一下|看下|看|给我看看|列出来|麻烦了)"
)
_YES_EN = (
    r"(?:yes|yeah|yep|yup|sure|ok|okay|please|yes please|sure thing|go ahead|show me|show them|"
    r"let'?s see|why not|of course|please do)"
)
_THANKS = r"(?:[，,。.!！\s]*(?:谢谢|多谢|thanks|thank you))?"  # "好的，谢谢": thanks alone is no yes


def assent_re(words: str, *, separated: bool = False, thanks: bool = False) -> re.Pattern[str]:
    """A message of nothing but assent: one or more of ``words`` (an alternation), joined by
    punctuation or spaces (required between them when ``separated``), a final particle, and, with
    ``thanks``, a closing "谢谢". Each context that asks a yes/no question has its own words."""
    joiner = r"\s*[，,。.!！~～\s]+\s*" if separated else r"\s*[，,。.!！~～\s]*\s*"
    return re.compile(
        rf"^\s*(?:{words})(?:{joiner}(?:{words}))*(?:吧|啊|呀|哈|的)?{_THANKS if thanks else ''}\s*[。.!！~～]*\s*$",
        re.IGNORECASE,
    )


_YES_RE = assent_re(f"{_YES_ZH}|{_YES_EN}", thanks=True)


def accepts_offer(text: str) -> bool:
    """A bare yes ("要", "好啊，看看", "yes please"): nothing but words of assent. "不用了", "no",
    and a yes with something more to it ("好的，帮我记一下…") are not."""
    return bool(_YES_RE.match(text or ""))


def accepted_offer_line(text: str, history_texts: list[tuple[str, str]]) -> str | None:
    """The offer line a bare yes answers: in the latest message, which must be the assistant's."""
    if not history_texts or history_texts[-1][0] != "assistant" or not accepts_offer(text):
        return None
    lines = OFFER_LINE_RE.findall(history_texts[-1][1])
    return lines[-1].strip() if lines else None


# Things Suikou does not keep, so a change to one is never a task change: alarms and timers belong
# to the phone ("闹钟改到七点半", "cancel my 6am alarm" are chat; the chat answer says so).
DEVICE_THING_RE = re.compile(r"闹钟|闹铃|计时器|倒计时|秒表|\balarms?\b|\btimers?\b|\bstopwatch\b", re.IGNORECASE)


# Free time with an amount ("我下午有两个小时空", "有半小时，干点啥", "I have 30 minutes free"): only
# what fits in it. The amount is read by core.estimates; a time phrase beside it says when, not a deadline.
_FREE_AMOUNT_ZH = r"(?:\d+(?:\.\d+)?|[一二两三四五六七八九十半]{1,3})\s*(?:个)?(?:半)?\s*(?:个)?\s*(?:小时|钟头|分钟)"
_FREE_AMOUNT_EN = r"(?:\d+(?:\.\d+)?|an?|one|two|three|four|half an?)\s*(?:hours?|hrs?|h|minutes?|mins?)"
_FREE_DO_WHAT = r"(?:做|干|弄|搞|处理)(?:点|些|一下)?(?:什么|啥|哪些|嘛|哪个)"
_FREE_AMOUNT_RES: tuple[re.Pattern[str], ...] = (
    re.compile(
        rf"(?:有|还有|剩下?|空出|腾出|得空)(?:个)?(?P<amount>{_FREE_AMOUNT_ZH})(?:的)?(?:空闲|空档|闲工夫|空|时间|闲)"
    ),
    re.compile(rf"(?P<amount>{_FREE_AMOUNT_ZH})(?:的)?(?:空闲|空档|闲工夫)"),
    re.compile(
        rf"(?:有|还有|剩下?|空出|腾出)(?:个)?(?P<amount>{_FREE_AMOUNT_ZH})[，,\s]*(?:可以|能|该|我)?{_FREE_DO_WHAT}"
    ),
    re.compile(
        rf"\b(?:have|got|'ve got)\s+(?:about\s+|around\s+)?(?P<amount>{_FREE_AMOUNT_EN})\s+(?:free|spare|to kill|available)",
        re.IGNORECASE,
    ),
    re.compile(rf"\b(?P<amount>{_FREE_AMOUNT_EN})\s+(?:free|spare|to kill)\b", re.IGNORECASE),
)


def free_amount(text: str) -> tuple[int, str] | None:
    """Free time said with an amount: (its minutes, the words), or None."""
    for pattern in _FREE_AMOUNT_RES:
        m = pattern.search(text)
        if m and (minutes := minutes_of(m.group("amount"))) is not None:
            return minutes, m.group(0)
    return None


# "写周报大概要多久", "交报告要花多长时间", "how long will the report take": how long a named task takes (its
# estimate). Group "kw" is the task's words. A note about finding out ("记一下问问装修要多久") is a note.
HOW_LONG_RE = re.compile(
    r"^(?!记|帮我记|提醒|备忘|待办)(?P<kw>[^，,。？?！!]{1,20}?)(?:大概|大约|估计|一般|预计)?(?:要|需要|得|会)?(?:花|用)?"
    r"(?:多久|多长时间|多少时间|几个小时|几分钟)(?:[啊呀呢吗]|才能做完|能做完|能搞定)?[?？]?$"
    r"|^how\s+(?:long|much\s+time)\s+(?:will|does|would|should|do)\s+(?:it\s+take\s+(?:me\s+)?to\s+)?(?P<en>.+?)"
    r"(?:\s+take(?:\s+me)?)?\s*\??$",
    re.IGNORECASE,
)


def how_long_subject(text: str) -> str | None:
    """The task words of a how-long question ("写周报大概要多久" → "写周报"), or None."""
    m = HOW_LONG_RE.search((text or "").strip())
    if m is None:
        return None
    words = (m.group("kw") or m.group("en") or "").strip()
    words = re.sub(r"^(?:the|my|a|an)\s+", "", words, flags=re.IGNORECASE)
    return words if words and words.lower() not in _NOT_A_SUBJECT else None


# What a how-long question may start with that names no task ("这个要多久": which one is not said).
_NOT_A_SUBJECT = frozenset({"要", "需要", "得", "这个", "这", "那个", "它", "这件事", "it", "this", "that"})
