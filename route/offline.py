"""Offline (rule-based) router: the latest message (+ a bounded history) → (action, confidence, reason).

Generic intents: ``capture`` (随口记), ``query`` (随口问), ``chat`` (闲聊), each answered by the
registered action that declares it (``Action.intent``). Rules, first match wins:

1. **Empty / client meta prompts** — an empty message, or one that carries a chat transcript or a
   meta-instruction ("### Task:", "<chat_history>", "USER:"-lines, "总结…对话", "标题…字以内", "translate",
   "summarize") → chat (0.95). Client auxiliary requests are normally caught before routing; this is a
   second line of defence so a quoted "帮我记一下…" never becomes a task.
2. **"How do I …" questions** ("怎么/如何/为什么/什么是/讲讲/介绍一下…" without "我的任务") → chat (0.85);
   so are questions about the capture feature itself ("怎么添加任务？", "你能帮我记待办吗", "你会提醒我吗",
   "新建任务要怎么操作"): a capture verb, a how/can cue, and nothing left once the words of such a
   question (``FEATURE_QUESTION_WORDS``) are gone. A polite request keeps its content and stays a note
   ("能帮我记一下明天交报告吗"); "记一下" names one act, so "能帮我记一下吗" is a (content-less) note.
1b. **English** (a message without CJK characters): "remind me to…", "add a task…", "note: …", "todo: …",
   "don't forget to…" → capture (0.9), unless it only asks whether / how the feature works ("can you
   remind me of things?", "do you support reminders?": nothing left besides such words → chat 0.85);
   general questions and requests ("how do I…", "what is a…", "tell me a joke", "write…", "recommend…")
   without "my" → chat (0.85); questions about one's tasks
   ("my tasks", "top 3 tasks", "give me 5 tasks", "what's due…", "anything due…", "tasks for tomorrow",
   "what did I finish…", "what do I have to do today", "show me my…", "list my…", "three tasks", a
   priority word before a task noun or after "something/anything" — "urgent tasks", "low priority
   tasks", "anything urgent?", "something quick", "quick wins") → query (0.85); a count with nothing else
   but request words ("pick one for me", "give me two please") → query (0.7, as the Chinese bare count);
   follow-up shapes ("5 more", "the rest", "what about next week?") → chat (0.7), which
   rule 4 turns into query after a task query. A quick-add line — a short title and a time, nothing
   else ("Dentist 14th", "Book hotel next monday", "Call Anna @ 15:00") — is a note (0.75), unless what
   is left opens like a question, a greeting, a statement or a change to an existing task ("see you
   tomorrow", "lunch was great today", "move the dentist to friday", "cancel my 6am alarm"; see
   ``_english_timed_title``). Anything else falls through to the rules below (and usually ends as chat).
3. **Note markers** — 帮我记一下/记一下/记个/记下/记住/提醒我/别忘了; a creation verb + optional count +
   task noun ("新建一个任务", "加一条待办", "帮我添个任务", "创建任务"; "安排一个任务" only before a
   separator and content, since "给我安排个任务" asks for one; "安排了哪些任务"/"新建的任务" are no such
   phrase); a marker + colon at the start, any wording (``COLON_MARKERS``: "待办：", "任务:", "随手记：",
   "备忘录:", "todo：", "记：", "提醒："…); "帮我记：…" (记 + a colon or comma), and a leading
   "(要/一定要)记得 + the task" that is not a question ("记得吗", "记得你说过…" and "你还记得…吗" stay
   chat) → capture (0.92), even with no content ("帮我记一下": the quick-note graph asks what to record).
   If the sentence is also plainly a question about tasks ("提醒我明天有什么任务") → query (0.7).
4. **Follow-ups** — "再来两个/还有吗/还有呢/换一批/那明天的呢/重要的呢", and in English "5 more/more/next
   page/any more?/anything else?/the rest/all/what about next week?/and tomorrow?/how about the
   important ones?" (``taskquery.followup.looks_like_english_followup``), when the history shows a task
   query (an earlier user turn that routes to query, or an assistant task list) → query (0.88).
   Without such history they stay chat (English ones as 0.7 from rule 1b, so the Chinese rules below never
   read "5 more" as a bare count request).
   **Answers to an offer** — a bare yes ("要", "好啊，看看", "yes please"; ``core.lexicon.accepts_offer``)
   right after an assistant message that offered a follow-up query on its own line ("要看看逾期的吗？",
   "Want to see the overdue ones?"; ``core.lexicon.OFFER_LINE_RE``) → query (0.9), before every other
   rule ("好的" alone is a greeting). "不用了" / "no" is no yes and stays chat; a yes with no offer right
   before it is read as before.
   **Tasks without a deadline** — a chat reading under 0.9 that asks for tasks with no deadline
   ("无截止时间的", "undated tasks", "tasks without a deadline"; ``core.lexicon.NO_DEADLINE_RE``) → query
   (0.8): what is left unsaid is which tasks, and only one's own tasks have deadlines here. So is free
   time said with an amount ("有半小时，干点啥"; ``core.lexicon.free_amount``): what fits in it. A
   how-long question about a named task ("写周报大概要多久", "how long will the report take";
   ``core.lexicon.how_long_subject``) read under 0.9 → query (0.85): its estimate.
5. **Task questions** — an explicit count or "全部/所有" with a task word, "来一个…任务", "给我点事做",
   "我很闲/有空…做什么", task nouns (任务/待办/安排/日程/事项/ddl) with a question or list word
   (有什么/有哪些/有啥/哪些/什么/几个/多少/吗/列出/看看/查一下/显示), time + "要交什么/要做什么/有什么/截止/
   到期", priority words + 的 + question ("重要不紧急的有哪些"), overdue/completed questions, or a noun
   phrase that ends in 任务/待办/事项 ("所有任务", "和合同相关的任务") → query (0.9; 0.75 for the
   weaker forms such as "明天有什么").
5b. **Colloquial task questions** (checked after the rules above, so their decisions are unchanged):
   status phrases — not done ("还有哪些没做完的", "还剩啥没做"), overdue in spoken form ("拖了很久",
   "超时", "过了截止日期"), due soon ("快到期", "即将截止", "快到deadline"), finished ("上礼拜完成的") —
   with a wh-word, a task noun or a noun-phrase ending ("…的", "…的那些", "…的事"); "is it busy then"
   with a time ("今天忙不忙", "这周的工作多吗", "明天上午有空吗"); one's meetings ("明天有会吗",
   "周三的会议是几点", "下午的会几点开"); "did I do X" ("周报交了没", "合同签了没有", "交没交"; not
   about you/him/her); "what first / next" ("我该先做哪个", "现在该干啥", "给我排一下今天的优先级");
   "安排/规划一下 + a time" ("帮我安排一下明天"); a time + an agenda noun ("12月10号之后的安排",
   "帮我查查下个月的计划", "明天的日程") unless it asks to make a plan ("帮我制定一个明天的计划");
   a time + a meeting noun phrase ("下周二下午三点的会") or "开什么会"; a time + "新建的/加的" ("上个月新建的");
   "等一下/待会儿要干嘛" (like "接下来做什么"); priority words before 急事/小事/难事 ("重要的急事");
   task-list nouns ("任务清单", "待办列表", "我的todo") → query (0.75–0.85).
   **Bare count requests** — an explicit count or a negated totality ("一个都别落下") read by
   ``core.countlock.extract_count``, with nothing else but count words (``core.lexicon.COUNT_ONLY_WORDS``:
   "最多", "不要超过", "就够了", "只要"…) and a time ("先列三个", "最多五条就够了", "不要超过三个",
   "今天的前三条", "给我5条，3天内的", "这周一个都别落下"; the count phrase is taken out before the time,
   so "这周一个" is no Monday) → query (0.7): in a task app
   "list / give me N" asks for tasks, and after a task list it is a follow-up. Anything else in the
   sentence keeps it chat ("来一个笑话", "讲三个故事"); "再来两个" without query history stays chat.
   Dates the time resolver rejects (e.g. "2月29日" in a non-leap year) and calendar phrases it may not
   know (``core.lexicon.CALENDAR_HINT_RE``: festivals, solar terms, lunar dates, holiday periods, workdays,
   with their "那天/前/假期") still count as "a time was said", so "重阳节那天有什么", "大寒那天的安排" are
   queries; after a time, a noun phrase "要V的" ("母亲节之前要买的", "七夕前要准备的") is a query too,
   while "明天要买牛奶" (a statement with its object) stays a note. A task noun about
   software or methods ("有什么好用的待办软件") and purpose questions ("…才能…") stay chat.
6. **Bare imperatives** — a time phrase plus an action verb and no question ("明天下午三点交报告") →
   capture (0.7); a leading priority label does not hide the verb and makes it more note-like
   ("紧急：今天下班前回复客户邮件" → 0.75); a trailing priority remark is set aside, so the sentence is
   not read as a noun phrase like "重要的" ("这周内把PPT做完，挺重要的", "月底前把合同签了，很急" → 0.7;
   a question word anywhere keeps it a query: "这周内要完成什么", "PPT做完了吗"); the same as a statement with a subject ("我明天要去医院") →
   0.62; a to-do-ish statement without a time ("我要买牛奶", "得交房租了") → 0.55, i.e. below the 0.6
   quick-note threshold, so the pipeline treats it as chat. A sentence with a question word (哪, 怎, 谁,
   几, 吗, ?, 要不要…) is never a bare imperative ("周末去哪玩好"). A labelled imperative without a time
   ("紧急：回复客户邮件") stays chat: an untimed imperative may be addressed to the assistant.
7. Greetings, identity questions and everything else → chat (0.9 for greetings, 0.7 otherwise).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from core.countlock import EN_NUMBERS, CountLock, extract_count
from core.display import TASK_LINE_RE
from core.hanzi import fold
from core.lexicon import (
    CALENDAR_ANCHORS,
    CALENDAR_HINT_RE,
    COLON_MARKERS,
    DONE_VERBS,
    EN_DONE_CHECK_RE,
    NO_DEADLINE_RE,
    accepted_offer_line,
    count_leftover,
    free_amount,
    how_long_subject,
    looks_like_english_followup,
    priority_signals,
)
from core.listnames import LISTS_QUESTION_RE, read_scope
from core.timeanchor import resolve_time
from core.turn import HistoryTurn

__all__ = ["offline_route"]

# The generic intents these rules read; each is answered by the registered action that declares
# it (`Action.intent`), so no action is named here.
CHAT = "chat"
NOTE = "capture"
QUERY = "query"

_META_RE = re.compile(
    r"###\s*Task|<chat_history>|<conversation>|<chatHistory>|<translate_input>|Follow Up Input|"
    r"(?m:^\s*(?:USER|ASSISTANT|User|Assistant|user|assistant|AI)\s*[:：])|"
    r"(?:总结|概括|归纳).{0,12}(?:对话|会话|聊天)|(?:对话|会话|聊天).{0,12}(?:总结|标题|主题|摘要)|"
    r"标题.{0,6}字以内|字以内的标题|简要主题|"
    r"\b(?:translate|summari[sz]e|summary|generate a (?:concise )?title|JSON format)\b|"
    r"\"role\"\s*:|\"mainText\"|^\s*\{[^{}]*\}\s*$|chat history|this conversation|your task is|"
    r"last assistant message|respond only|output only|"
    r"(?:^|\s)\d+[.、]\s*\S.*(?:\s)\d+[.、]\s*\S",
    re.IGNORECASE | re.DOTALL,
)
_HOWTO_RE = re.compile(
    r"怎么样?(?:才能|能|去|来|做|规划|安排|管理|提高|提升|写|用)|如何|为什么|为啥|(?<!有)什么是|是什么意思|讲讲|讲一讲|"
    r"才能|才可以|介绍一下|介绍下|解释一下|科普|有什么技巧|有什么方法|有什么建议|有什么好的方法|原理|区别"
)
_MY_TASKS_RE = re.compile(r"我的(?:任务|待办|安排|日程|事情|事项)|我(?:有|还有)(?:什么|哪些|啥|几个|多少)")
_GREETING_RE = re.compile(
    r"^(?:你好|您好|嗨|哈喽|哈啰|hello|hi|hey|早上好|早安|上午好|中午好|下午好|晚上好|晚安|在吗|在不在|谢谢|多谢|"
    r"感谢|好的|好|嗯|嗯嗯|哦|ok|okay|收到|拜拜|再见|辛苦了)[!！。.~～呀啊哈呢]*$",
    re.IGNORECASE,
)
_IDENTITY_RE = re.compile(r"你是谁|你叫什么|你的名字|你能做什么|你会什么|你是什么|介绍一下你自己|你几岁")

# "新建一个任务", "加一条待办", "帮我添个任务": a creation verb, an optional count, a task noun. "安排"
# only with a count and the task after a separator ("安排个任务，周日大扫除"): "给我安排个任务" asks
# for one. "安排了哪些任务", "新建的任务" are no creation phrases (了/的 in between).
_CREATE_VERB = "添加|新增|新建|创建|录入|加|建|添"
_CREATE_COUNT = r"(?:[一二两三四五六七八九十\d]{0,2}(?:个|条|件|项))"
_CREATE_NOUN = r"(?:待办事项|待办|任务|提醒|日程|todo)"
# A marker and a colon at the start ("待办：", "随手记：", "备忘录:", "todo：", "记："), any wording.
_COLON_MARKERS = "|".join(sorted(COLON_MARKERS, key=len, reverse=True))

# "别再提醒我…", "不用提醒我…": a reminder to drop, never one to write (lookbehinds are fixed-width).
_NOT_AGAIN = "".join(f"(?<!{w})" for w in ("别", "别再", "不要", "不要再", "不用", "不用再", "不必", "甭", "莫"))

_NOTE_MARKER_RE = re.compile(
    r"(?:帮我|帮忙|给我|请|麻烦你?|替我)?(?:记一下|记下来|记下|记个|记一个|记一条|记住|记录一下|记录下|(?<!的)记录(?!的)|记上|"
    r"备忘一下|备忘)|"
    r"(?:^|帮我|帮忙|给我|请|麻烦你?|替我)记(?=[:：，,]|$)|"
    rf"{_NOT_AGAIN}(?:提醒我|提醒一下我|提醒下我)|到时候提醒|记得提醒|"
    rf"(?<![参增追更附修组重])(?:{_CREATE_VERB})(?:上|一下|下)?{_CREATE_COUNT}?(?:新的?)?{_CREATE_NOUN}|"
    rf"安排{_CREATE_COUNT}(?:新的?)?{_CREATE_NOUN}(?=\s*[:：，,]\s*\S)|"
    r"别忘了|不要忘了|别让我忘了|"
    rf"^(?:{_COLON_MARKERS})\s*[:：]",
    re.IGNORECASE,
)
# "(要)记得 + the task" is a note; "记得吗", "你还记得…吗" are questions about memory, i.e. chat.
_REMEMBER_RE = re.compile(
    r"^(?:要|一定要|千万要?|务必|请|得|还要|你要)?记得(?!吗|么|嘛|不|没|住|我|你|他|她|它|那|这|当|以前|小时候|上次|之前)"
)
# Questions about the capture feature itself ("怎么添加任务", "你能帮我记待办吗", "你会提醒我吗"): a
# capture verb, a how / can cue, and nothing left that could be the task once the words of such a
# question are gone. A polite request with content ("能帮我记一下明天交报告吗") keeps its content;
# "记一下/记下来" name one act, not the feature, so they are not in the word list.
_FEATURE_VERB_RE = re.compile(r"记|提醒|添加|新建|创建|新增|加|建|备忘|录入|管理")
_FEATURE_CUE_RE = re.compile(r"怎么|怎样|如何|咋|能不能|能否|可不可以|可以|能|会不会|会|支持|方法|操作|步骤|教程|用法")
FEATURE_QUESTION_WORDS: tuple[str, ...] = (
    *("你", "您", "我们", "我", "帮我", "帮忙", "帮", "给我", "替我", "让", "用", "来", "在这里", "这里", "这儿"),
    *("能不能", "能否", "可不可以", "可以", "能", "会不会", "会", "支持", "是否"),
    *("怎么样", "怎么", "怎样", "如何", "咋", "要", "该", "应该", "才能", "得"),
    *("操作", "方法", "步骤", "教程", "用法", "功能", "设置", "使用", "是", "什么", "的"),
    *("一个", "一条", "个", "条", "新的"),
    *("新建", "添加", "创建", "新增", "录入", "加", "建", "记录", "记住", "记", "提醒", "备忘", "管理"),
    *("待办事项", "待办", "任务", "事情", "事项", "东西", "事儿", "事", "日程", "做事", "随口记", "随手记"),
)
_FEATURE_WORDS_RE = re.compile("|".join(sorted(FEATURE_QUESTION_WORDS, key=len, reverse=True)))
_FEATURE_PUNCT_RE = re.compile(r"[吗嘛呢呀啊吧？?。，,!！\s]")


def _is_feature_question(compact: str) -> bool:
    if not (_FEATURE_VERB_RE.search(compact) and _FEATURE_CUE_RE.search(compact)):
        return False
    return not _FEATURE_WORDS_RE.sub("", _FEATURE_PUNCT_RE.sub("", compact))


_NOTE_NOT_ACTION_RE = re.compile(
    r"怎么(?:读|念|写|说|拼|发音)[吗呢啊]?[?？]?$|(?:怎么|如何|能不能|会不会|可以)(?:用|设置)?(?:记录|提醒)功能|记录一下心情"
)
_QUESTION_RE = re.compile(
    r"有什么|有哪些|有啥|有没有|哪些|哪个|哪件|哪一个|哪[一二两三四五六七八九十\d]{1,2}[个件条项]|什么|是啥(?!意思)|几个|几件|几条|"
    r"多少|吗|呢|[?？]|列出|列一下|看看|查一下|查查"
)
_TASK_NOUN_RE = re.compile(r"任务|待办|安排|日程|事项|ddl|DDL|deadline|todo|to-do|要做的|要交的|要完成的")
_LIST_VERB_RE = re.compile(
    r"列出|列一下|列个|看看|看下|看一下|瞅瞅|查一下|查查|查询|显示|给我看|show|list|有什么|有哪些|有啥|哪些|还剩|剩下"
)
_DUE_RE = re.compile(
    r"要交|要做|要完成|要干|要办|要写|要准备|要提交|要搞定|要处理|截止|到期|ddl|DDL|deadline|过期|逾期|超期|该做|得做|要忙"
)
_FREE_ASK_RE = re.compile(
    r"给我点事|找点事|找点活|有(?:什么|啥|哪些)(?:能|可以|可)(?:做|干)|做点什么|干点什么|干点啥|做点啥|没事做|没事干"
)
_WH_TAIL_RE = re.compile(r"(?:有什么|有哪些|有啥|干什么|做什么|忙什么|要干嘛|是什么)[吗呢啊呀]?[?？]?$")
_NP_TASK_END_RE = re.compile(
    r"(?:任务|待办|待办事项|事项|ddl|的记录|日程表?|todo|TODO|to-do|(?:任务|待办|todo|TODO)(?:清单|列表|单子|list))"
    r"[吗呢啊呀吧]?[?？。!！]?$"
)
_COMPLETED_ASK_RE = re.compile(r"(?:完成了|做完了|搞定了|已完成|完成的|做完的)(?:哪些|什么|几个|多少|的任务|任务)")
_OVERDUE_ASK_RE = re.compile(r"(?:逾期|过期|超期)(?:的|没做|未完成|了)")
# Status phrases (not done / overdue / due soon / finished); a query when asked or said as a noun
# phrase ("还有哪些没做完的", "拖了好久的那些", "快到deadline的", "上礼拜完成的").
_STATUS_RE = re.compile(
    r"(?:没|未|还没|还没有|尚未)(?:做完|完成|干完|搞定|弄完|办完|处理|做|干|弄|办)(?![错对梦过])|"
    r"拖(?:延)?(?:了|得)?(?:很|好|太|挺|这么|那么)?久|拖了(?:好|很)?(?:几|多)(?:天|周|个星期|个月)|一直拖着|拖着没|"
    r"超时|过了(?:截止|deadline|ddl|期限)|错过了?(?:截止|deadline|ddl)|"
    r"(?:快要?|就要|即将|马上就?要?|将要|临近|接近)(?:到期|截止|过期|到deadline|到ddl|deadline|ddl)|"
    r"(?:完成|做完|搞定|干完|办完)的",
    re.IGNORECASE,
)
_STATUS_TAIL_RE = re.compile(r"(?:的|那些|那几个|那几件|哪些)[吗呢啊呀]?[?？]?$")
_WH_RE = re.compile(r"哪些|哪个|哪几|什么|啥|几个|几件|几条|多少|有没有")
# "Is it busy then?" about a time ("今天忙不忙", "这周的工作多吗", "明天上午有空吗").
_BUSY_ASK_RE = re.compile(
    r"忙不忙|忙吗|忙么|忙嘛|忙不过来|闲不闲|闲吗|有空吗|有没有空|有空没|空吗|有时间吗|有没有时间|"
    r"(?:工作|事情?|事儿|活儿?|任务|安排|待办|会|作业)(?:量)?(?:多吗|多不多|多么|多嘛|满吗|满了吗|满不满|排满)|"
    r"(?:满了吗|排满了吗|满不满)"
)
# Meetings on the user's calendar ("明天有会吗", "周三的会议是几点", "下午的会几点开").
_MEETING_ASK_RE = re.compile(
    r"有(?:没有)?(?:几个|几场)?(?:会|会议)(?:吗|么|嘛|没|不|没有)?[?？]?$|有(?:几个|几场)(?:会|会议)|"
    r"(?:会议|例会|周会|晨会|早会|(?:的|个|场)会).{0,4}(?:几点|什么时候|哪天|在哪|是哪)|几点(?:开会|的会)|什么时候开会|"
    r"(?:要不要|用不用|有没有|需不需要)开(?:个)?会|开不开会|开(?:什么|啥|哪个|哪些|几个|几场)(?:会|会议)"
)
# "What should I do first / next?"
_NEXT_ASK_RE = re.compile(
    r"先(?:做|干|弄|搞|处理|忙|办)(?:哪个|哪件|哪一个|哪一件|什么|啥|哪些)|"
    r"(?:接下来|下一步|然后|现在|目前|等一下|等一会儿?|等会儿?|待会儿?|一会儿?|回头|晚点|稍后)(?:我)?(?:该|要|应该|可以)?(?:先)?(?:做|干|弄|忙|搞)(?:点)?(?:什么|啥|哪个|嘛)|"
    r"(?:我)?(?:该|应该)(?:先)?(?:做|干|忙)(?:点)?(?:什么|啥|哪个)|"
    r"(?:排|排序|排列)(?:一下|下)?[^，,。]{0,6}优先级|按优先级排"
)
# "Did I do X?" ("周报交了没", "合同签了没有", "报告写完了吗", "房租交没交").
_DONE_CHECK_RE = re.compile(
    rf"^(?!你|您|他|她|它|人家|别人).{{1,12}}?{DONE_VERBS}(?:完|好|掉|定|出去|过)?了(?:没有?|吗|么|嘛)[?？]?$|"
    rf"^(?!你|您|他|她|它|人家|别人).{{1,12}}?(?P<v>{DONE_VERBS})没(?P=v)|"
    # a daily habit's verb after its object ("药吃了没", "花浇了吗"); a meal asked after is a greeting
    r"^(?!你|您|他|她|它|人家|别人|.*[饭餐])[\u4e00-\u9fff]{1,8}?(?:吃|喝|浇|喂|遛|倒|扔|背|练)(?:过|完)?了(?:没有?|吗|么)[?？]?$"
)
# "Arrange my tomorrow for me": show that day's tasks.
_ARRANGE_DAY_RE = re.compile(r"^(?:请|麻烦)?(?:帮我|给我|帮忙)?(?:安排|规划|看)(?:一下|下)?")
# Time + a noun for one's agenda ("12月10号之后的安排", "下个月的计划", "明天的日程").
_AGENDA_END_RE = re.compile(
    r"(?:安排|计划|日程|行程|工作|事|事情|事儿|活儿?|任务|待办)(?:表|清单|列表)?[吗呢啊呀吧]?[?？。]?$"
)
# Making a plan is a request to the assistant, not a question about tasks.
_MAKE_PLAN_RE = re.compile(
    r"(?:做|制定|定|写|规划|设计|想|出|列)(?:个|一个|一份|一下|份)?[^，,。]{0,8}(?:计划|安排|日程)"
)
# A task noun used about software or methods is a general question ("有什么好用的待办软件").
_TOOL_TOPIC_RE = re.compile(
    r"(?:待办|任务|日程|todo|清单)(?:管理)?(?:软件|app|App|APP|工具|应用|插件|小程序|模板|系统|方法|技巧)"
)
# "看下明天天气", "查查后天的航班动态": something the assistant is asked to look up now, not a task.
_LOOKUP_RE = re.compile(
    r"^(?:帮我)?(?:看|查|搜|瞧)(?:下|一下|看|查|搜)?.{0,8}?(?:天气|气温|下不下雨|新闻|热搜|股价|汇率|路况|航班动态)"
)
_IMPERATIVE_Q_RE = re.compile(r"哪|怎|谁|几|多少|吗|[?？]|好不好|行不行|可不可以|能不能|要不要|是不是")
_PRIORITY_ASK_RE = re.compile(
    r"(?:重要|紧急|简单|不重要|不紧急|不简单|优先级[高低]|低优先级|高优先级)[^，,。]{0,8}(?:有哪些|有什么|有啥|哪些|的呢|吗)"
)
_REQUEST_ONE_RE = re.compile(
    r"(?:来|给我|挑|选|推荐|随便挑|找|整|弄|搞|派|分|安排)(?:我|给我)?[一两三四五六七八九十\d]*(?:个|条|件|点)"
)

_FOLLOWUP_RE = re.compile(
    r"^(?:那|那么|好的?|嗯|ok|行)?[，, ]*(?:"
    r"再来|再给|再挑|还有吗|还有呢|还有没有|还有别的|还有其他|还有其它|更多|下一页|继续|换一批|换一个|换几个|换个|"
    r"其他的呢|别的呢|其它的呢|剩下的呢|"
    r".{1,12}的呢|.{1,12}呢[?？]?$|.{1,10}的[?？]$|全部|所有|都列出来|都给我"
    r")",
    re.IGNORECASE,
)
# The list header in either language (see taskquery.rendering.LIST_HEADER_RE), the English "that's all"
# after the last page, then Chinese wordings.
_QUERY_REPLY_RE = re.compile(
    TASK_LINE_RE.pattern + r"|给你整理了|^Here (?:are \d+ tasks|is 1 task)|^That's all: \d+ in total|"
    r"条任务|共\s*\d+\s*条|匹配|没有找到.*任务|没有符合|挑了\s*\d+\s*个",
    re.M,
)

_ACTION_VERB_RE = re.compile(
    r"^(?:把|去|到|给|跟|和|找|约|陪|"
    r"交|提交|上交|开会|开|买|取|还|打|发|寄|写|做|看|约|预约|缴|交费|续|签|报名|复习|准备|整理|打扫|收拾|洗|修|订|"
    r"回复|回|联系|参加|见|接|送|带|拿|办|改|完成|确认|安排|健身|跑步|体检|面试|汇报|填|申请|预订|报销|还款|充值|"
    r"备份|上传|下载|提醒|喂|遛|浇|扔|倒|取消|退|换|装|更新|检查|查|看望|拜访|参观|上课|上班|考试|考|练|学|读|背|"
    r"搬|充|挂号|理发|剪|缴纳|支付|付|转账|核对|审|批|签字|打印|复印|拍|录|剪辑|发布|部署|测试|上线|跟进|催|问|通知)"
)
_THING_RE = re.compile(r"事|活|东西|安排|任务|待办")
_REMAINING_RE = re.compile(
    r"(?:还有|剩下|剩|还剩)(?:几|多少)(?:件|个|条|项)?|(?:任务|事|活|工作|待办).{0,4}(?:做完|完成|搞定|干完|弄完)了(?:吗|没)"
)
_RELATED_RE = re.compile(
    r"相关|有关|关于|包含|含有|带有|标题里|标题中|名字里|名字中|名称里|名字带|标题带|带[“\"'「『]|两个字的|字样"
)
_YOU_RE = re.compile(r"你|您")
_DUE_NP_RE = re.compile(
    r"(?:(?:要|得|必须|该|需要|应该|待)(?:交|做|完成|办|干|搞定|处理|弄完|提交)|截止|到期)的[^，,。？?！!]{0,8}$"
)
# After a time phrase, a noun phrase "要V的(N)" ("母亲节之前要买的", "春节前要买的年货"): what is due then.
# "明天要买牛奶" has its object and is a statement, i.e. a note.
_MODAL_DE_NP_RE = re.compile(
    r"^(?:我|我们)?(?:要|得|需要|该|应该|必须|待)[^，,。的]{1,6}的[^，,。的]{0,4}[吗呢啊呀]?[?？]?$"
)
_DID_RE = re.compile(
    r"(?:做了|干了|忙了|完成了|办了|弄了|搞定了|做完了|干完了)(?:些|点)?(?:什么|哪些|啥|几件|多少)|"
    r"(?:得|要|该|需要|必须)(?:搞定|做完|完成|处理|交|弄完|干完)(?:哪些|什么|啥|几件|多少)"
)
_ENDS_DE_RE = re.compile(r"的[吗呢啊呀]?[?？]?$")
_PRIORITY_NP_RE = re.compile(
    r"的(?:急|难|小|大|正|要紧)?(?:事|事情|事儿|活|活儿|任务|东西|待办|那些|那几个|那几件)[吗呢啊呀]?[?？]?$"
)
_ASK_EVENT_RE = re.compile(
    r"(?:有什么|有啥|有哪些|有没有|有几个|还有)(?:.{0,2})(?:会议|会|计划|提醒|约会|约|活动|课|考试|面试|ddl|事)"
)
_ASK_THINGS_RE = re.compile(r"(?:有什么|有啥|有哪些|有没有|还有)(?:.{0,4})(?:事|活儿?)(?!情况)")
_FILLER_RE = re.compile(r"[帮我你给的呗吧吗呢啊呀嘛一下看，,。.!！?？\s]")
_SOFT_TIME_RE = re.compile(r"(?:下班|上班|睡前|睡觉|出门|吃饭|开会|放学|回家|周会|例会)(?:之前|以前|前|后|之后|以后)")
# A leading priority label ("紧急：", "很重要，", "不重要但很麻烦的事：") before the task itself.
_LABEL_HEAD_RE = re.compile(
    r"^(?:(?:很|非常|特别|超级|超|挺|比较|有点|不太)?(?:不重要|不紧急|不急|重要|紧急|着急|急|要紧|关键|简单|麻烦)"
    r"(?:(?:但是|但|而且|又|且|、)?(?:很|非常|特别|挺|比较|有点)?(?:不重要|不紧急|不急|重要|紧急|急|要紧|简单|麻烦))*"
    r"(?:的?(?:事情|事|任务|待办))?)[:：,，]"
)
# A time + "的会/的例会…" noun phrase ("下周二下午三点的会"): the user's meetings then.
_MEETING_NP_RE = re.compile(r"^的(?:会|会议|例会|周会|晨会|早会|约会|课|考试|面试)(?:呢|吗|啊|呀)?[?？]?$")
# Tasks created or noted in some period ("上个月新建的", "刚才记的那些"); not "谁新建的".
_CREATED_NP_RE = re.compile(
    r"(?:新建|新增|新加|创建|添加|加上|加|建|记下|记)(?:了)?的(?:任务|待办|事|事情|那些|那几个|那几条)?(?:呢|吗|啊|呀)?[?？]?$"
)
# Time-phrase fallback for dates the resolver rejects ("2月29日" in a non-leap year): enough to tell
# "a time was said".
_DATE_HINT_RE = re.compile(
    r"(?:\d{2,4}年)?\d{1,2}月\d{1,2}[日号]?|(?:\d{2,4}年)?[一二三四五六七八九十]{1,2}月[一二三四五六七八九十]{1,3}[日号]"
)
# A trailing priority remark after the task ("这周内把PPT做完，挺重要的", "…，很急"): about the task,
# not a noun phrase ("重要的" alone would read like "the important ones").
_REMARK_TAIL_RE = re.compile(
    r"[，,。；;]+(?:这|这个|这事|这件事)?(?:是|算是)?(?:很|非常|特别|超级|超|挺|比较|有点|相当)?"
    r"(?:重要|紧急|急|着急|要紧|关键|不急|不着急|不重要|简单|麻烦)(?:的|哦|啊|呀|吧|了)?[。.!！]*$"
)
_MODAL_RE = re.compile(r"^(?:我|咱|我们)?(?:要|得|需要|必须|该|应该|记得|准备|打算|计划)")


# --- a small English layer (messages without CJK characters) ------------------------------------
_CJK_RE = re.compile(r"[\u3400-\u9fff]")
_EN_NOTE_RE = re.compile(
    # not "don't / no need to / stop reminding me": a reminder to drop (taskdelete reads those)
    r"(?<!don't )(?<!dont )(?<!do not )(?<!no need to )(?<!never )\bremind me (?:to|about|that|at|on|tomorrow|tonight|next|this)\b|"
    r"^(?:please |pls |can you |could you )?(?:add|create|make|new|set(?: up)?)(?: me)? (?:a |an |one )?(?:new )?"
    r"(?:task|todo|to-do|reminder|note)\b|"
    r"^(?:note|todo|to-do|task|reminder)\s*[:：]|"
    r"^(?:please )?(?:note down|jot down|write down|remember to|make a note)\b|"
    r"^don'?t (?:let me )?forget (?:to|about)\b"
)
_EN_NUMBER_WORDS = "|".join(EN_NUMBERS)
_EN_TASK_NOUN = r"(?:tasks?|todos?|to-dos?|to do list|to-do list|deadlines?|assignments?|agenda|schedule|reminders)"
_EN_TIME = (
    r"(?:today|tonight|tomorrow|yesterday|this (?:week|weekend|month|morning|afternoon|evening)|"
    r"next (?:week|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|last (?:week|month)|"
    r"(?:on |by |before |this |next )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|weekend|"
    r"end of (?:the )?(?:week|month)|overdue|now)"
)
# Priority words as English task questions say them ("urgent", "low priority", "quick wins").
_EN_PRIORITY = (
    r"(?:urgent|important|easy|quick|simple|small|pressing|critical|(?:low|high|top)[- ]priority|"
    r"not (?:very |that |so )?(?:urgent|important))"
)
# "something quick", "anything urgent?", "something easy to do"; not "some simple recipes".
_EN_PRIORITY_END = (
    r"(?= ?(?:to do|to work on|for (?:today|tomorrow|tonight|now|me)|today|tonight|tomorrow|this week|"
    r"tasks?|ones|wins?|\?|\.|!|$))"
)
_EN_QUERY_RE = re.compile(
    rf"\bmy (?:[\w-]+ ){{0,3}}{_EN_TASK_NOUN}\b|"
    rf"\b{_EN_PRIORITY}(?: (?:and|but|or|&) {_EN_PRIORITY})? (?:items|{_EN_TASK_NOUN})\b|"
    rf"\b(?:anything|something|stuff|any|some|what'?s|what is)(?: \w+)? {_EN_PRIORITY}{_EN_PRIORITY_END}|"
    r"\bquick wins?\b|"
    rf"\b(?:top|first)\s*\d+\b.*\b{_EN_TASK_NOUN}\b|\b(?:give|show|list|get) me\b.*\b{_EN_TASK_NOUN}\b|"
    rf"\b(?:\d+|{_EN_NUMBER_WORDS}|a few|some|all|any|which|what|how many|overdue|urgent|important|easy|open|pending) "
    rf"{_EN_TASK_NOUN}\b|"
    rf"^{_EN_TASK_NOUN} (?:for|due|on|this|next|today|tomorrow|by|before|from|between|after|until)\b|"
    rf"\b(?:what'?s|what is|what are|anything|something|is anything|what do i have) (?:\w+ )?due\b|"
    rf"\bdue (?:today|tomorrow|tonight|this|next|by|before|on|soon)\b|"
    rf"\bwhat (?:did|have) (?:i|we) (?:do|finish|finished|complete|completed|accomplish|accomplished|get done|got done)\b|"
    rf"\bwhat (?:did|have) i (?:do|done) {_EN_TIME}\b|"
    rf"\bwhat (?:do|should|must) i (?:still )?(?:have to |need to )?(?:do|work on|finish)(?: {_EN_TIME}| first| next)?\s*\??$|"
    rf"\bwhat'?s (?:on )?my (?:plate|agenda|schedule|list)\b|\bam i (?:busy|free) {_EN_TIME}\b|"
    rf"\b(?:show|list|give) me (?:my |what|everything|all|\d+)\b|\blist my\b|"
    rf"\b(?:show|list) (?:\w+ )?{_EN_TIME}\b"
)


# General questions and requests to the assistant ("how do I…", "what is…", "tell me a joke").
_EN_GENERAL = (
    r"^(?:how (?:do|can|should|to|does|is|are)|why|what (?:is|are) (?:a|an|the)\b|what'?s (?:a|an)\b|explain|"
    r"tell me (?:a|an|about|something)|write|recommend|suggest|translate|define)\b"
)


# Questions about the capture feature ("can you remind me of things?", "how do I add a task?"): an
# ability / how-to opening and nothing left that could be the task.
_EN_FEATURE_OPEN_RE = re.compile(
    r"^(?:how (?:do|can|should|would) (?:i|you|we)|how to|can (?:you|i)|could you|do you|will you|"
    r"are you able to|is it possible to)\b"
)
_EN_FEATURE_WORDS_RE = re.compile(
    r"\b(?:how|do|does|can|could|should|would|will|i|you|we|to|are|able|is|it|possible|support|supports|"
    r"add|create|make|set|up|remind|note|notes|remember|track|save|keep|store|record|write|down|"
    r"a|an|the|new|tasks?|todos?|to-dos?|reminders?|things?|stuff|me|my|of|for|here|in|with|this|app|please|"
    r"lists?)\b"
    r"|[?.!,]"
)
# A count with nothing else but request words ("pick one for me", "just give me two please").
_EN_COUNT_FILLER_RE = re.compile(
    r"\b(?:for me|please|pls|just|only|me|tasks?|ones?|items?|then|now|ok(?:ay)?|at random|randomly|so|"
    r"show|give|list|get|find|pick|choose|send|the)\b|[?.!,]"
)


def _english_count_only(low: str) -> bool:
    lock = extract_count(low)
    if lock.explicit is None or not lock.phrase:
        return False
    return not _EN_COUNT_FILLER_RE.sub("", low.replace(lock.phrase.lower(), "", 1)).strip()


# An English quick-add line: a short task title and a time ("Dentist 14th", "Book hotel next monday",
# "Water plants tmr", "Call Anna @ 15:00"). Not when what is left opens like a question, a statement
# about oneself or someone, or a greeting ("how are you today", "see you tomorrow", "good morning",
# "happy friday"), talks to "you", or only names a kind of day ("busy day tomorrow").
_EN_NOT_TITLE_HEAD = re.compile(
    r"^(?:what|when|where|who|whom|whose|why|how|which|is|are|am|was|were|do|does|did|can|could|will|would|"
    r"should|shall|may|might|i|i'm|im|i'll|i've|i'd|me|we|we're|they|he|she|it|it's|its|that|that's|this|there|"
    r"here|any|anything|nothing|everything|show|list|tell|give|see|good|happy|have|had|has|enjoy|thanks|thank|"
    r"thx|bye|goodbye|hello|hi|hey|sorry|nice|great|cool|ok|okay|lol|welcome|merry|congrats|congratulations|"
    r"talk|catch|sleep|sweet|let's|lets|let|no|yes|yeah|yep|nope|not|so|well|oh|wow|maybe|just|really|very|"
    r"too|the weather|weather|busy|long|lazy|rainy|sunny|hot|cold|tired|same|again|my|whats|got|"
    # what is done to a task or a device, not a new task ("cancel my 6am alarm", "wake me up at 6:15")
    r"cancel|delete|remove|clear|erase|undo|uncheck|snooze|reschedule|postpone|wake|remind)\b"
    # a past tense first: a report ("booked the hotel today"), not a plan
    r"|^(?!(?:need|feed|weed|seed|shred|bleed|speed)\b)[a-z]+ed\b"
)
_EN_NOT_TITLE = re.compile(
    r"(?<!-)\byou\b|\byour\b|\bu\b|\b(?:is|was|were|are|am|been|being)\b"  # "lunch was great today": a statement
    r"|\b(?:tasks?|reminders?|todos?|to-dos?|alarms?|ones|list)\b"  # about the list itself
    r"|\bthat i\b|\bsaying\b"  # a message to send
    r"|\b(?:to|instead(?: of \w+)?)\s*$"  # "move the dentist to friday": a change
    r"|\b(?:day|days|week|night|weekend|morning|evening|afternoon|time)\s*[!.]*$"
)
_EN_TITLE_MAX_WORDS = 8


def _english_timed_title(text: str) -> bool:
    """A short task title plus a time, the way a quick-add line is typed (rule 1b's last case)."""
    if "?" in text:
        return False
    rest, timed = _strip_resolved_time(text, _clock())
    rest = re.sub(r"(?i)(?:^|\s)(?:at|on|by|@|due)\s*$", "", rest).strip(" ,.;:!-")
    words = rest.split()
    if not timed or not words or len(words) > _EN_TITLE_MAX_WORDS or not re.search(r"[A-Za-z]{2}", rest):
        return False
    low = rest.lower().replace("\u2019", "'")
    return not _EN_NOT_TITLE_HEAD.match(low) and not _EN_NOT_TITLE.search(low)


def _route_english(text: str) -> tuple[str, float, str] | None:
    """English messages: notes ("remind me to…", "todo: …") and questions about one's tasks; None = chat."""
    low = re.sub(r"\s+", " ", text.lower().replace("\u2019", "'")).strip()
    if _EN_FEATURE_OPEN_RE.match(low) and not _EN_FEATURE_WORDS_RE.sub("", low).strip():
        return CHAT, 0.85, "英文：问的是怎么用随口记，不是要记下什么"
    if _EN_NOTE_RE.search(low) and not re.match(r"^(?:how|why|what is|what's a)\b", low):
        return NOTE, 0.9, "英文：明确要求记下/提醒"
    if re.match(_EN_GENERAL, low) and not re.search(r"\bmy\b", low):
        return CHAT, 0.85, "英文：一般性的提问或请求"
    if EN_DONE_CHECK_RE.match(low):
        return QUERY, 0.85, "英文：问某件事做了没有"
    if _EN_QUERY_RE.search(low) and not re.match(r"^(?:how (?:do|can|should|to)|why)\b", low):
        return QUERY, 0.85, "英文：询问自己的任务"
    if looks_like_english_followup(low):
        # "5 more", "the rest", "what about next week?": a follow-up only after a task query (rule 4).
        return CHAT, 0.7, "英文：像追问，但前面没有任务查询"
    if _english_count_only(low):
        return QUERY, 0.7, "只说了条数，按要任务处理"  # the same rule as the Chinese one below
    if _english_timed_title(text):
        return NOTE, 0.75, "英文：一个简短的事项加时间，像是要记下"
    return None


# What is left of a time phrase right after it: "前", "的时候", and a calendar anchor the resolver did not
# take with the day ("母亲节|那天", "春节|假期").
_TIME_TAIL_RE = re.compile(rf"^[\s，,。]*(?:{'|'.join(sorted(CALENDAR_ANCHORS, key=len, reverse=True))}|的时候|时)?")


def _strip_time(text: str, now: datetime) -> tuple[str, bool]:
    """The text without its time phrase, and whether there was one. The resolver reads first (it
    knows "中秋节前一天" as a whole); a calendar phrase it left unread still counts as a time."""
    rest, timed = _strip_resolved_time(text, now)
    calendar = CALENDAR_HINT_RE.search(rest)
    if calendar is None:
        return rest, timed
    return (rest[: calendar.start()] + rest[calendar.end() :]).strip(" ，,。"), True


def _strip_resolved_time(text: str, now: datetime) -> tuple[str, bool]:
    try:
        win = resolve_time(text, now, "Asia/Shanghai")
    except Exception:
        win = None
    if win is None or not win.phrase or win.phrase not in text:
        hint = _DATE_HINT_RE.search(text)
        if hint is None:
            return text, False
        rest = text[: hint.start()] + text[hint.end() :]
        return rest.strip(" ，,。"), True
    rest = text.replace(win.phrase, "", 1)
    rest = _TIME_TAIL_RE.sub("", rest)
    return rest.strip(" ，,。"), True


def _is_timed_imperative(head: str, compact: str) -> bool:
    """The part before a trailing remark, time already removed, reads as an imperative: no question
    word anywhere, an action verb (optionally after a modal) at its start."""
    if _IMPERATIVE_Q_RE.search(compact) or _QUESTION_RE.search(compact) or _YOU_RE.search(compact):
        return False
    body = _MODAL_RE.sub("", head.strip("，,。 "))
    return bool(body) and not body.endswith("的") and bool(_ACTION_VERB_RE.match(body))


def _is_bare_count(compact: str, lock: CountLock, now: datetime) -> bool:
    """A bare count request ("先列三个", "今天的前三条", "最多五条就够了", "这周一个都别落下"): in a task
    app "list / give me N" asks for tasks; after a task list it refines the list before. "再来两个"
    is a follow-up only (rule 4)."""
    # Of the "all" phrases only the negated totality ("一个都别落下") is a request on its own; a bare
    # "全部" continues a list (rule 4).
    negated_total = lock.wants_all and bool(lock.phrase and re.search(r"[不别没]", lock.phrase))
    if not lock.phrase or (lock.explicit is None and not negated_total) or re.match(r"^(?:再|还)", compact):
        return False
    # The count phrase goes first, so a time phrase cannot swallow part of it ("这周一个…" is not
    # "this Monday").
    rest, _ = _strip_time(compact.replace(lock.phrase, "", 1), now)
    return not count_leftover(rest, "")


def _history_has_query(history: Sequence[HistoryTurn]) -> bool:
    """True when the latest earlier exchange was a task query (user question or assistant task list)."""
    for h in reversed(list(history)[-6:]):
        if h.role == "assistant" and _QUERY_REPLY_RE.search(h.text or ""):
            return True
        if h.role == "user":
            action, _, _ = _route_single(fold(h.text or ""), now=_clock())
            return action == QUERY
    return False


def _clock() -> datetime:
    # Routing only needs "is there a time phrase", not the exact window, so any fixed clock works.
    return datetime(2026, 1, 5, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


def _route_single(message: str, *, now: datetime) -> tuple[str, float, str]:
    text = (message or "").strip()
    compact = re.sub(r"\s+", "", text)
    if not compact:
        return CHAT, 0.95, "空消息"
    if len(text) > 400 or _META_RE.search(text):
        return CHAT, 0.95, "客户端的辅助指令或长文本，按闲聊处理"
    if _GREETING_RE.match(compact):
        return CHAT, 0.95, "问候或寒暄"
    if _IDENTITY_RE.search(compact):
        return CHAT, 0.92, "关于助手本身的问题"

    if not _CJK_RE.search(text):
        english = _route_english(text)
        if english is not None:
            return english

    howto = bool(_HOWTO_RE.search(compact)) and not _MY_TASKS_RE.search(compact)
    note_marker = (
        bool(_NOTE_MARKER_RE.search(compact))
        or (bool(_REMEMBER_RE.search(compact)) and not _IMPERATIVE_Q_RE.search(compact))
    ) and not _NOTE_NOT_ACTION_RE.search(compact)
    lock = extract_count(compact)
    has_task_noun = bool(_TASK_NOUN_RE.search(compact))
    has_list_verb = bool(_LIST_VERB_RE.search(compact))
    has_question = bool(_QUESTION_RE.search(compact))

    if _is_feature_question(compact):
        return CHAT, 0.85, "问的是怎么用随口记，不是要记下什么"
    if howto and not note_marker:
        return CHAT, 0.85, "一般性的提问，不是查自己的任务"
    if _TOOL_TOPIC_RE.search(compact) and not _MY_TASKS_RE.search(compact):
        return CHAT, 0.8, "问的是工具或方法，不是自己的任务"

    if note_marker:
        if (has_task_noun or _DUE_RE.search(compact)) and re.search(r"有什么|有哪些|有啥|哪些|几个|多少", compact):
            return QUERY, 0.7, "提到提醒，但其实在问有哪些任务"
        return NOTE, 0.92, "明确要求记下/提醒"

    # --- task questions ---
    signals = priority_signals(compact)
    priority_word = any(
        (
            signals.important,
            signals.unimportant,
            signals.urgent,
            signals.not_urgent,
            signals.easy,
            signals.hard,
        )
    )
    rest, has_time = _strip_time(compact, now)
    remark = _REMARK_TAIL_RE.search(rest) if has_time else None
    # A timed imperative with a priority remark ("周五前把报告交了，很急") is a note, not a noun phrase.
    remarked_imperative = remark is not None and _is_timed_imperative(rest[: remark.start()], compact)
    if (lock.explicit is not None or lock.wants_all) and (has_task_noun or priority_word or has_list_verb):
        return QUERY, 0.92, "要求列出若干条任务"
    if _REQUEST_ONE_RE.search(compact) and (has_task_noun or priority_word or _THING_RE.search(compact)):
        return QUERY, 0.9, "要一条/几条任务"
    if _FREE_ASK_RE.search(compact) or (signals.free_time and _THING_RE.search(compact)):
        return QUERY, 0.85, "有空，想找点事做"
    if (
        _COMPLETED_ASK_RE.search(compact)
        or _OVERDUE_ASK_RE.search(compact)
        or _REMAINING_RE.search(compact)
        or _DID_RE.search(compact)
    ):
        return QUERY, 0.9, "问完成、逾期或剩下的任务"
    if has_task_noun and (has_question or has_list_verb):
        return QUERY, 0.9, "询问自己的任务"
    if _MY_TASKS_RE.search(compact):
        return QUERY, 0.88, "询问自己的任务"
    if _RELATED_RE.search(compact) and (
        has_list_verb
        or has_question
        or _NP_TASK_END_RE.search(compact)
        or _ENDS_DE_RE.search(compact)
        or _PRIORITY_NP_RE.search(compact)
    ):
        return QUERY, 0.85, "按关键词查任务"
    if _NP_TASK_END_RE.search(compact) and not re.search(r"^(?:我|我们)?(?:要|得|想|需要)", compact):
        return QUERY, 0.85, "任务名词短语，按查询处理"
    if (_PRIORITY_ASK_RE.search(compact) or (priority_word and has_question)) and not _YOU_RE.search(compact):
        return QUERY, 0.85, "按优先级问任务"
    if (
        priority_word
        and not remarked_imperative
        and (_PRIORITY_NP_RE.search(compact) or _ENDS_DE_RE.search(compact))
        and not _YOU_RE.search(compact)
    ):
        return QUERY, 0.8, "按优先级的任务名词短语"
    if has_time and len(_FILLER_RE.sub("", rest)) == 0:
        return QUERY, 0.65, "只有一个时间，按查这个时间的任务处理"
    if has_time and (_DUE_RE.search(compact) and has_question):
        return QUERY, 0.88, "问某个时间要交/要做的事"
    if _DUE_NP_RE.search(compact) or (has_time and _MODAL_DE_NP_RE.search(rest)):
        return QUERY, 0.8, "要交/要做/到期的东西"
    if has_time and _WH_TAIL_RE.search(compact) and not _YOU_RE.search(compact):
        return QUERY, 0.75, "问某个时间的安排"
    if _DUE_RE.search(compact) and re.search(r"什么|哪些|啥", compact):
        return QUERY, 0.8, "问要交/要做的事"
    if (_ASK_THINGS_RE.search(compact) or _ASK_EVENT_RE.search(compact)) and not _YOU_RE.search(compact):
        return QUERY, 0.75, "问手头有什么事"
    if has_time and has_list_verb and len(_FILLER_RE.sub("", _LIST_VERB_RE.sub("", rest))) <= 1:
        return QUERY, 0.75, "想看某个时间的任务"
    if has_time and has_question and _THING_RE.search(rest) and not _YOU_RE.search(compact):
        return QUERY, 0.75, "问某个时间的事"
    if signals.free_time and not has_question and not re.search(r"哪|怎|谁", compact):
        return QUERY, 0.7, "有空，可能想找点事做"
    if _STATUS_RE.search(compact) and (
        _WH_RE.search(compact) or _STATUS_TAIL_RE.search(compact) or _PRIORITY_NP_RE.search(compact) or has_task_noun
    ):
        return QUERY, 0.85, "问没做完、逾期、快到期或已完成的任务"
    if not _YOU_RE.search(compact):
        if has_time and _BUSY_ASK_RE.search(compact):
            return QUERY, 0.8, "问某个时间忙不忙，查那时的任务"
        if _MEETING_ASK_RE.search(compact):
            return QUERY, 0.8, "问自己的会议"
        # "这周周报交了没": a time naming the occurrence, with the thing still said without it.
        if _DONE_CHECK_RE.search(compact) and (not has_time or _DONE_CHECK_RE.search(rest)):
            return QUERY, 0.75, "问某件事做了没有"
    if _NEXT_ASK_RE.search(compact) and not re.search(r"你(?:该|要|应该)", compact):
        return QUERY, 0.8, "问该先做哪件事"
    if has_time and _ARRANGE_DAY_RE.match(compact):
        leftover = _ARRANGE_DAY_RE.sub("", compact, count=1)
        if len(_FILLER_RE.sub("", _strip_time(leftover, now)[0])) == 0:
            return QUERY, 0.7, "让我安排某一天：先列出那天的任务"
    if (
        has_time
        and _AGENDA_END_RE.search(rest)
        and not _MAKE_PLAN_RE.search(compact)
        and not _YOU_RE.search(compact)
        and (has_list_verb or len(_FILLER_RE.sub("", _AGENDA_END_RE.sub("", rest))) <= 2)
    ):
        return QUERY, 0.75, "某个时间的安排/计划"
    if has_time and (_MEETING_NP_RE.search(rest) or _CREATED_NP_RE.search(rest)) and not _YOU_RE.search(compact):
        return QUERY, 0.8, "某个时间的会议或新建的任务"
    if _is_bare_count(compact, lock, now):
        return QUERY, 0.7, "只说了条数，按要任务处理"

    # --- bare imperatives (note-ish) ---
    if not has_question and not howto and not _IMPERATIVE_Q_RE.search(compact):
        soft_time = bool(_SOFT_TIME_RE.search(compact))
        body = _SOFT_TIME_RE.sub("", rest if has_time else compact)
        labelled = _LABEL_HEAD_RE.match(body)
        if labelled:
            body = body[labelled.end() :].lstrip("，,：:")
        if remarked_imperative:
            tail = _REMARK_TAIL_RE.search(body)
            if tail is not None:
                body = body[: tail.start()]
        body_wo_modal = _MODAL_RE.sub("", body)
        has_modal = body_wo_modal != body
        timed = has_time or soft_time
        if body.endswith("的"):
            return CHAT, 0.65, "像名词短语，不是要记下的事"
        if _LOOKUP_RE.match(body_wo_modal):
            return CHAT, 0.7, "请助手查一下（天气、新闻…），不是要记下的事"
        if timed and body_wo_modal and _ACTION_VERB_RE.match(body_wo_modal):
            if re.match(r"^(?:我|咱|我们)", body):
                return NOTE, 0.62, "带时间的待办陈述（有主语），较可能是要记下"
            if labelled:
                return NOTE, 0.75, "带时间和优先级标注的祈使句，像是要记下"
            return NOTE, 0.7, "带时间和动作的祈使句，像是要记下"
        if has_modal and body_wo_modal and _ACTION_VERB_RE.match(body_wo_modal):
            return NOTE, 0.55, "像是待办，但没有明确要求记下"
    return CHAT, 0.7, "普通对话"


def offline_route(message: str, history: Sequence[HistoryTurn]) -> tuple[str, float, str]:
    """Routes the latest user message; ``history`` is only used to understand follow-ups."""
    message = fold(message or "")  # the rules are written in simplified characters: 禮拜一有什麼任務
    now = _clock()
    if accepted_offer_line(message or "", [(h.role, h.text or "") for h in history]) is not None:
        return QUERY, 0.9, "接受上一轮提议的查询"
    action, confidence, reason = _route_single(message, now=now)
    if confidence < 0.9 and how_long_subject(message or "") is not None:
        return QUERY, 0.85, "问一件任务要多久：看它的预计用时"
    if action == CHAT and confidence < 0.9 and NO_DEADLINE_RE.search(message or ""):
        return QUERY, 0.8, "询问没有截止时间的任务"
    if action == CHAT and confidence < 0.9 and free_amount(message or "") is not None:
        return QUERY, 0.8, "说了有多少空闲时间：找做得完的任务"
    if action == CHAT and confidence < 0.9 and (read_scope(message or "") or LISTS_QUESTION_RE.search(message or "")):
        return QUERY, 0.8, "问某个清单或标签（或有哪些清单）"
    if action == CHAT and confidence < 0.9:
        compact = re.sub(r"\s+", "", message or "")
        short_followup = len(compact) <= 20 and _FOLLOWUP_RE.search(compact)
        english_followup = not _CJK_RE.search(message or "") and looks_like_english_followup(message or "")
        if compact and (short_followup or english_followup) and _history_has_query(history):
            return QUERY, 0.88, "承接上一轮的任务查询（追问）"
    return action, confidence, reason
