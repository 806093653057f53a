"""The sentences each action declares as its own: the router's training corpus (docs/fdr/0026).

An action's package keeps a ``corpus.py`` with one :class:`CorpusSpec`: templates whose ``{slot}``
names are filled from the spec's own lexicons or the shared ones below, plus plain sentences. The
expansion is deterministic (seeded by the template's text), and each sentence may get a style the
way people type in a chat box (no punctuation, an emoji, a polite word, a typo-like doubled letter),
so the corpus is large while what the team writes stays small and readable.

The held-out split is by template, not by sentence: a template's whole expansion is either train
or test, so the reported accuracy is on wording the model did not see, not on new slot fillers in
wording it did.
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

__all__ = ["SHARED_SLOTS", "TASK_TITLES", "TASK_TITLES_EN", "CorpusSpec", "Example", "held_out", "is_english"]

_SLOT = re.compile(r"\{(\w+)\}")
_CJK = re.compile(r"[\u3400-\u9fff]")


def is_english(text: str) -> bool:
    return not _CJK.search(text)


# Fillers any action may use; an action's own ``slots`` override a name here.
# fmt: off
SHARED_SLOTS: dict[str, tuple[str, ...]] = {
    "time": (
        # days, weeks
        "明天", "今天", "今晚", "后天", "大后天", "明早", "明晚", "明天一早", "明天中午", "明天下班后", "后天上午",
        "后天晚上8点", "大后天下午", "下周一", "下周三", "周五", "这周四", "这周六", "本周五之前",
        "下周二下午三点", "周一上午九点", "周二早上", "周三晚上", "周日下午两点", "星期三下午",
        "周六上午", "下周四晚上7点", "下周末", "下下周", "下下周三", "下礼拜", "本周内", "这个周末", "周末",
        # colloquial, dialect
        "明儿", "明儿个", "明儿一早", "明儿晌午", "明儿后晌", "后儿", "后儿个", "今儿晚上", "今儿后晌", "晌午",
        "礼拜一", "礼拜三上午", "礼拜五下午", "礼拜六晚上", "礼拜天", "下礼拜二", "下个礼拜四",
        # months, dates, holidays
        "下个月", "月初", "月中", "月底", "本月底前", "下个月初", "下个月15号", "这个月20号前", "3号", "28号",
        "12月8号", "1月3日", "3月15日", "年前", "年底", "年后", "元旦前", "春节前", "节前", "国庆前",
        "五一之前", "中秋节前", "开学前",
        # durations
        "3天后", "2小时后", "半小时后", "十分钟后", "四十分钟后", "待会儿", "等会儿", "过两天", "这两天", "一周后",
        "两周后", "十天后",
        # clock, part of day
        "明早8点", "今天下午3点", "明天上午十点", "晚上九点", "下午2点半", "晚上8点",
        "早上", "今天下午", "今天傍晚", "今晚睡前", "午饭后", "晚饭前", "睡觉前", "下班后",
    ),
    "time_en": (
        # days
        "tomorrow", "tmrw", "tmr", "today", "tonight", "tomorrow morning", "tomorrow afternoon", "tomorrow night",
        "tomorrow at noon", "first thing tomorrow", "later today", "this morning", "this afternoon", "this evening",
        "tonight at 8", "before bed", "after lunch", "after dinner", "after work", "on my way home",
        # weekdays, weeks
        "next monday", "on friday", "on wednesday", "saturday", "thu", "next thu", "next thurs", "next fri",
        "this saturday", "next saturday", "wednesday morning", "monday at 10", "friday afternoon", "sunday night",
        "sunday morning", "next tuesday at 9", "first thing monday", "by monday", "before friday",
        "by next thursday", "by tuesday at noon", "this weekend", "next weekend", "next week", "early next week",
        "later this week", "sometime this week", "the week after next", "by the end of the week",
        # dates, months, holidays
        "the 28th", "on the 28th", "by the 28th", "on the 1st", "by the 3rd", "on the 15th", "on the 3rd at 2pm",
        "on dec 8", "on march 3rd", "on jan 15", "on 6/12", "next month", "early next month", "by mid-month",
        "by the end of the month", "by the end of the quarter", "on payday", "before christmas",
        "before thanksgiving", "before the holidays", "before new year's", "on new year's eve",
        # durations
        "in 30 minutes", "in 45 minutes", "in 15 min", "in an hour", "in 2 hours", "in a couple of hours",
        "in three days", "in a few days", "in a week", "in 10 days", "in two weeks", "in a month",
        # clock, end of day
        "at 3pm", "at 7:30", "at 8am", "at noon", "at 5:30pm", "around 4", "at half past six", "by noon",
        "by 5pm", "before 6", "first thing in the morning", "EOD", "by EOD", "EOD friday", "by end of day",
        "by COB thursday",
    ),
    "task": (
        # errands
        "买牛奶", "买菜", "取快递", "取包裹", "寄快递", "去邮局寄包裹", "拿干洗的衣服", "还书", "去银行", "买卫生纸",
        "去超市买鸡蛋", "去菜市场买排骨", "去药店买感冒药", "买电池", "买猫砂", "给猫买粮", "配钥匙", "修手机",
        "修自行车", "换灯泡", "洗车", "给车加油", "去营业厅办宽带", "买高铁票", "订机票", "订酒店", "取蛋糕",
        "买生日礼物", "去打印店打印材料", "打印文件",
        # chores
        "收衣服", "洗衣服", "晒被子", "拖地", "打扫卫生间", "换床单", "擦窗户", "给花浇水", "清理冰箱", "洗碗",
        "倒垃圾", "收拾书房", "整理衣柜", "铲猫砂", "遛狗", "给鱼缸换水", "刷马桶", "洗窗帘", "清洗空调滤网",
        # work
        "交报告", "交周报", "写周报", "准备PPT", "开组会", "提交报销单", "回复王总邮件", "回客户邮件", "给客户发报价",
        "写项目方案", "改设计稿", "做季度总结", "给老板发日报", "约客户开会", "准备面试", "整理会议纪要", "提交代码",
        "跟进合同进度", "填工时表", "订会议室", "审合同", "签合同", "续签合同", "对账", "做月度报表", "联系供应商",
        "给团队发通知", "发会议邀请", "发工资条", "整理发票", "更新简历",
        # study
        "交作业", "复习英语", "背单词", "交论文初稿", "复习高数", "预习明天的课", "看网课", "写读书笔记", "报名考试",
        "练钢琴", "刷题", "交实验报告", "查考试成绩", "找导师签字", "练口语",
        # health
        "吃药", "吃维生素", "去体检", "看医生", "预约牙医", "去医院复查", "量血压", "去打疫苗", "挂号", "去健身房",
        "跑步五公里", "做瑜伽", "去游泳", "去拔牙", "配眼镜", "拿体检报告",
        # family
        "给妈妈打电话", "给奶奶打视频电话", "接孩子", "接孩子放学", "送孩子上学", "给爸妈转钱", "陪老妈逛街",
        "给女儿买文具", "去开家长会", "带爸妈去体检", "给老公买生日礼物", "带孩子打疫苗", "回老家看爷爷",
        "给宝宝买奶粉",
        # money
        "交房租", "给房东转房租", "交水费", "缴电费", "缴燃气费", "交物业费", "交网费", "充话费", "还信用卡",
        "还花呗", "交车险", "交学费", "交停车费", "报销打车费", "核对工资条", "存钱", "交医保",
        # admin
        "续签证", "办护照", "补办身份证", "去车管所换驾照", "交社保", "办居住证", "续租房合同", "给车年检",
        "去派出所开证明", "办港澳通行证", "盖公章", "开发票", "申报个税",
    ),
    "task_en": (
        # errands
        "buy milk", "buy groceries", "pick up the package", "pick up the dry cleaning", "buy stamps",
        "drop off the package at the post office", "return the amazon package", "pick up my prescription",
        "grab coffee beans", "buy dog food", "mail the birthday card", "drop off the donations", "get a haircut",
        "get a spare key cut", "pick up the cake", "buy a new phone charger", "return the rental car",
        "get the tires rotated", "get gas", "buy a birthday gift", "return the library books", "book flights",
        "print the boarding passes",
        # chores
        "take out the trash", "water the plants", "do the laundry", "fold the laundry", "vacuum the living room",
        "clean the bathroom", "change the sheets", "do the dishes", "mow the lawn", "clean out the fridge",
        "take the recycling out", "defrost the freezer", "replace the air filter", "wipe down the counters",
        "tidy up the garage", "feed the fish", "clean the litter box", "fix the leaky faucet", "wash the car",
        "get the car washed", "change the smoke detector batteries", "fix the squeaky door", "assemble the bookshelf",
        "hang the pictures", "clean my desk", "walk the dog",
        # work
        "submit the report", "finish the deck", "finish the slides", "print the slides", "send the invoice",
        "file the expense report", "prep for the interview", "update my resume", "email the landlord",
        "reply to the client", "send the weekly update", "review the pull request", "prep the agenda",
        "book a meeting room", "follow up with the recruiter", "update the project tracker", "draft the proposal",
        "fill out my timesheet", "send the contract to legal", "set up a 1:1 with my manager",
        "write the quarterly review", "sign the NDA", "submit my PTO request", "clean up my inbox",
        "back up my laptop",
        # study
        "study for the chem exam", "finish my essay", "read chapter five", "review my flashcards",
        "submit the assignment", "register for classes", "email my advisor", "practice piano",
        "do the practice problems", "sign up for the SAT", "renew my library card", "watch the lecture recording",
        # health
        "go to the gym", "schedule a dentist appointment", "take my meds", "refill my prescription",
        "book a physical", "go for a run", "get a flu shot", "call the dentist", "stretch", "pick up my contacts",
        "make an eye doctor appointment", "log my workout", "meal prep for the week", "do my physio exercises",
        # family
        "call mom", "call grandma", "pick up the kids", "pick the kids up from school",
        "drop the kids at soccer practice", "sign the permission slip", "buy mom a birthday card",
        "video call my parents", "plan dad's birthday dinner", "take the dog to the vet", "pack the kids' lunches",
        "visit grandpa", "send flowers to my sister", "cook dinner for the family", "call the plumber",
        # money
        "pay rent", "pay the electric bill", "pay the water bill", "pay the phone bill", "pay the credit card bill",
        "pay the car insurance", "pay the parking ticket", "move money into savings", "do my taxes",
        "check my bank statement", "venmo Jake for dinner", "set up autopay for the mortgage", "go over the budget",
        # admin
        "renew my passport", "renew my driver's license", "renew the car registration",
        "update my address with the bank", "get a passport photo", "fill out the insurance claim", "sign the lease",
        "RSVP to the wedding", "book the hotel", "apply for the visa", "schedule the car service",
        "make a copy of my ID", "get the documents notarized", "call the insurance company", "pack for the trip",
        "check in for my flight", "get the bike tuned up",
    ),
    "n": ("1", "2", "3", "5", "两", "三", "五", "一"),
    "n_en": ("1", "2", "3", "5", "two", "three", "five", "one"),
    # lists and labels (issue 27): names people give them, and short items a list holds
    "list_name": (
        "购物清单", "家务清单", "工作清单", "旅行清单", "书单", "采购清单", "装修清单", "年货清单", "待买清单", "学习清单",
        "项目A清单", "周末清单", "搬家清单", "备考清单", "读书清单", "健身清单",
    ),
    "list_bare": ("家务", "工作", "旅行", "装修", "采购", "学习", "周末", "搬家", "生活", "公司", "家里", "项目A"),
    "label_name": ("工作", "紧急", "家里", "客户A", "报销", "学校", "孩子", "健康", "财务", "周报", "出差", "生活"),
    "list_en": ("shopping", "groceries", "work", "travel", "home", "packing", "reading", "errands", "chores"),
    "label_en": ("urgent", "work", "home", "health", "finance", "kids", "errand", "waiting"),
    "items": (
        "牛奶、鸡蛋、洗衣液", "面包、黄油", "酱油、醋、料酒", "抹布、垃圾袋", "充电线、插头", "纸巾、牙膏、洗发水",
        "苹果、香蕉", "订酒店、买机票", "猫粮、猫砂", "电池、灯泡",
    ),
    "items_en": ("milk, eggs and bread", "batteries and light bulbs", "paper towels, soap", "coffee and tea"),
}
# fmt: on

# Titles of existing tasks, as people name them when they ask about, finish or change one: the same
# list for task_query, task_complete and task_update, so a title is no cue to which of the three a
# message is for.
# fmt: off
TASK_TITLES: tuple[str, ...] = (
    "交报告", "买牛奶", "收衣服", "给妈妈打电话", "交房租", "打印文件", "取快递", "交周报", "还书", "去健身房",
    "缴电费", "预约牙医", "写周报", "回复王总邮件", "订机票", "买生日礼物", "交水费", "洗车", "遛狗", "准备PPT",
    "开组会", "提交报销单", "去银行", "看医生", "接孩子", "拿干洗的衣服", "续签合同", "复习英语", "买菜", "倒垃圾",
    "给猫买粮", "修自行车", "交作业", "整理发票", "充话费", "同学聚会", "体检", "签合同", "发工资条", "更新简历",
    "给客户发报价", "洗碗", "拖地", "换床单", "交物业费", "交燃气费", "买猫砂", "给花浇水", "给车加油", "车辆年检",
    "交车险", "办护照", "续签证", "还信用卡", "交学费", "练钢琴", "背单词", "写论文", "投简历", "准备面试", "写方案",
    "做预算", "对账", "报个税", "整理衣柜", "收拾书桌", "去超市", "寄快递", "退那双鞋", "买药", "去医院复查",
    "打疫苗", "约理发", "修空调", "换灯泡", "通下水道", "交宽带费", "订酒店", "买火车票", "打扫卫生", "洗衣服",
    "晒被子", "给奶奶打电话", "回客户消息", "发会议纪要", "写测试用例", "提交代码", "做代码评审", "备份照片",
    "清理电脑", "买打印纸", "订会议室", "发邀请函", "写感谢卡", "准备年终总结", "开发票", "寄合同", "盖章",
    "交社保", "办居住证", "接爸妈", "送孩子上学", "给孩子报兴趣班", "检查作业", "买尿不湿", "带狗打疫苗", "给鱼换水",
    "跑步五公里", "做瑜伽", "上游泳课", "读完那本书", "看网课", "交读书笔记", "预约体检", "挂号", "取体检报告",
    "收拾行李", "换外币", "买保险", "交房贷", "还花呗", "转账给老王", "订蛋糕", "买花", "准备周会材料", "约客户吃饭",
    "催款", "核对合同", "做月报", "复盘项目", "整理会议记录", "交论文初稿", "找导师签字", "交开题报告", "给植物换盆",
    "擦窗户", "缴停车费", "办银行卡", "取现金", "更新驾照", "拿体检报告", "交实验报告", "写年度计划", "预约保洁",
)
TASK_TITLES_EN: tuple[str, ...] = (
    "submit the report", "buy milk", "call mom", "pay rent", "pick up the package", "book flights",
    "renew my passport", "email the landlord", "take out the trash", "water the plants", "go to the gym",
    "print the slides", "pay the electric bill", "schedule a dentist appointment", "finish the deck",
    "pick up the kids", "buy a birthday gift", "walk the dog", "send the invoice", "update my resume",
    "return the library books", "call the plumber", "file the expense report", "prep for the interview",
    "do the laundry", "wash the dishes", "vacuum the living room", "change the sheets", "clean the fridge",
    "mow the lawn", "get groceries", "buy cat food", "refill my prescription", "book a haircut",
    "get the oil changed", "renew the car registration", "pay the credit card bill", "pay the water bill",
    "send the contract", "sign the lease", "file my taxes", "back up my laptop", "update the budget spreadsheet",
    "reply to Sarah's email", "text the babysitter", "call grandma", "pick up the dry cleaning",
    "drop off the donations", "return the shoes", "mail the birthday card", "write the cover letter",
    "apply for the job", "prep the team meeting", "draft the proposal", "review the pull request",
    "fix the leaky faucet", "replace the smoke detector battery", "clean the gutters", "get a flu shot",
    "book the vet", "give the dog his meds", "feed the fish", "clean the litter box", "pack for the trip",
    "check in for the flight", "book the hotel", "RSVP to the wedding", "plan the birthday party",
    "bake cookies for the bake sale", "study for the exam", "finish chapter 3", "read the contract",
    "practice piano", "go for a run", "do my physio exercises", "meal prep for the week",
    "call the insurance company", "set up the new router", "clean out the garage", "sort the mail",
    "shred old documents", "pay the parking ticket", "renew the library card", "sign the permission slip",
    "pick up the cake", "write thank-you notes", "send the meeting notes", "prepare the quarterly review",
    "submit my timesheet", "finish the code review", "update the website", "publish the blog post",
    "confirm the venue", "get the car washed", "pay the nanny", "buy printer ink", "call the bank",
    "transfer money to savings", "plan the team lunch", "repot the fern", "clean the bathroom",
    "defrost the freezer", "hang the picture frames", "charge the camera batteries", "email my advisor",
)
# fmt: on

_EMOJI = ("😂", "🙏", "✅", "👍", "🍻", "😅", "~", "！！", "哈", "")
_ZH_WRAP = (("", ""), ("麻烦", ""), ("", "哈"), ("", "呀"), ("嗯", ""), ("", "啊"), ("那个", ""), ("", "一下"))
_EN_WRAP = (("", ""), ("hey ", ""), ("", " please"), ("pls ", ""), ("ok ", ""), ("", " thx"), ("um ", ""))


@dataclass(frozen=True)
class Example:
    text: str
    template: str  # the template (or plain sentence) it came from: the unit of the held-out split


@dataclass(frozen=True)
class CorpusSpec:
    """An action's training sentences: ``templates`` × lexicons, and ``plain`` sentences as written."""

    templates: tuple[str, ...] = ()
    slots: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    plain: tuple[str, ...] = ()
    per_template: int = 8

    def fillers(self, name: str) -> tuple[str, ...]:
        found = self.slots.get(name) or SHARED_SLOTS.get(name)
        if not found:
            raise KeyError(f"corpus slot {{{name}}} has no fillers")
        return found

    def _fill(self, template: str, rng: random.Random) -> str:
        return _SLOT.sub(lambda m: rng.choice(self.fillers(m.group(1))), template)

    def examples(self) -> Iterator[Example]:
        for template in self.templates:
            rng = random.Random(zlib.crc32(template.encode()))
            seen: set[str] = set()
            for _ in range(self.per_template * 2):
                text = _style(self._fill(template, rng), rng)
                if text not in seen:
                    seen.add(text)
                    yield Example(text, template)
                if len(seen) >= self.per_template:
                    break
        for sentence in self.plain:
            yield Example(sentence, sentence)


def held_out(template: str) -> bool:
    """Whether a template's sentences belong to the held-out test split (one in five, by its text)."""
    return zlib.crc32(template.encode()) % 5 == 0


def _style(text: str, rng: random.Random) -> str:
    """One way people type the sentence; most sentences stay as written."""
    roll = rng.random()
    english = is_english(text)
    if roll < 0.55:
        return text
    if roll < 0.68:  # no final punctuation
        return text.rstrip("。.!！?？~ ")
    if roll < 0.78:
        return text + rng.choice(_EMOJI)
    if roll < 0.9:
        head, tail = rng.choice(_EN_WRAP if english else _ZH_WRAP)
        return head + text + tail
    if english:
        return text.lower() if roll < 0.96 else text.capitalize()
    return text.replace("，", " ").replace(",", " ")
