"""The `task_repeat` corpus: skipping one occurrence of a repeating task, ending it, changing its rule.

These sentences are about a task that already repeats ("这周的…不用…了", "…以后不用…了", "…改成每…"):
a new repetition ("每周一交周报") is a capture, a completion ("周报交了") is task_complete, and cancelling
a one-off ("取消周三的会议") is task_delete.
"""

from __future__ import annotations

from core.corpus import CorpusSpec

__all__ = ["CORPUS"]

# fmt: off
_SLOTS: dict[str, tuple[str, ...]] = {
    "series": (
        "周报", "晨会", "打卡", "健身", "例会", "倒垃圾", "浇花", "喂猫", "遛狗", "交房租", "背单词", "跑步",
        "站会", "周会", "复盘", "对账", "读书会", "钢琴课", "游泳", "瑜伽", "体检提醒", "还信用卡", "给爸妈打电话",
        "交水电费", "整理桌面", "写日报", "值班", "查邮件", "吃药", "练字",
    ),
    "series_en": (
        "weekly report", "standup", "gym", "team sync", "trash", "watering the plants", "rent", "piano lesson",
        "yoga", "daily log", "check-in", "one-on-one", "laundry", "budget review", "run",
    ),
    "this": ("这周", "这次", "本周", "今天", "这个月", "本月", "这回", "下周", "这期"),
    "not_needed": ("不用交了", "不用开了", "不用去了", "不用做了", "不需要了", "先不做了", "免了", "不用弄了", "不用打了"),
    "ended": ("以后不用交了", "以后不用做了", "以后都不用了", "今后不用了", "以后不用再弄了", "不再重复", "不用再重复了", "别再重复了"),
    "stop": ("停止重复", "取消重复", "结束重复", "关掉重复"),
    "rule": (
        "每两周", "每周一三五", "每周二四", "每个工作日", "每月1号", "每月15号", "每天", "每三天", "每周六",
        "每月最后一天", "每隔一周", "每周末", "每季度", "每年", "每两天",
    ),
    "change": ("改成", "改为", "换成", "调成", "变成"),
    "rule_en": (
        "every other week", "every weekday", "every Monday", "every day", "every 2 weeks", "every month",
        "every Tuesday and Thursday", "every 3 days", "every Friday", "every weekend", "every other day",
    ),
    "unit": ("天", "周", "月", "个工作日", "周一"),
    "period_en": ("week", "time", "month", "Monday", "round"),
}

_TEMPLATES: tuple[str, ...] = (
    # skip one
    "{this}的{series}{not_needed}",
    "{this}的{series}跳过",
    "{this}的{series}先跳过吧",
    "跳过{this}的{series}",
    "{series}{this}跳过一次",
    "{this}{series}暂停一次",
    "{series}{this}就不搞了，跳过",
    "{this}的{series}取消一次，下次照常",
    # end the series
    "{series}{ended}",
    "{series}的重复取消掉",
    "{stop}{series}",
    "取消{series}的重复",
    "{series}别再每{unit}提醒了",
    "{series}不用每{unit}都做了",
    # change the rule
    "{series}{change}{rule}",
    "把{series}{change}{rule}",
    "{series}的频率{change}{rule}",
    "{series}从每{unit}{change}{rule}",
    "{series}以后{change}{rule}吧",
    "{series}的提醒{change}{rule}",
    "{series}改成{rule}一次",
    "{series}改成{rule}提醒",
    "{series}不用重复了，就这一次",
    # English: skip one
    "skip this week's {series_en}",
    "skip the {series_en} today",
    "skip {series_en} this time",
    "let's skip the {series_en} this {period_en}",
    "no {series_en} this {period_en}, skip it",
    "skip the next {series_en}",
    # English: end
    "stop repeating the {series_en}",
    "the {series_en} no longer repeats",
    "don't repeat the {series_en} anymore",
    "end the {series_en} series",
    "the {series_en} doesn't need to repeat anymore",
    "make the {series_en} a one-time thing",
    # English: change the rule
    "change the {series_en} to {rule_en}",
    "make the {series_en} repeat {rule_en}",
    "move the {series_en} to {rule_en} instead",
    "set the {series_en} to repeat {rule_en}",
    "switch the {series_en} to {rule_en}",
    "have the {series_en} repeat {rule_en} from now on",
    "make {series_en} repeat {rule_en}",
    "{series_en} doesn't need to repeat anymore",
)

_PLAIN: tuple[str, ...] = (
    "跳过这次", "这次跳过", "不再重复", "不用再重复了", "这次就跳过吧", "改成每两周", "改成每周一次", "skip this one",
    "stop repeating it", "don't repeat it any more", "make that one repeat every monday", "change it to weekly",
    "make it a one-off", "make that a one-time thing",
)
# fmt: on

CORPUS = CorpusSpec(templates=_TEMPLATES, slots=_SLOTS, plain=_PLAIN, per_template=26)
