"""The 24 solar terms by the pinyin names ``X-TERM`` uses (data shared by the rule, its expansion
and its description)."""

from __future__ import annotations

__all__ = ["TERMS", "known_term"]

TERMS = {
    "XIAOHAN": "小寒", "DAHAN": "大寒", "LICHUN": "立春", "YUSHUI": "雨水", "JINGZHE": "惊蛰", "CHUNFEN": "春分",
    "QINGMING": "清明", "GUYU": "谷雨", "LIXIA": "立夏", "XIAOMAN": "小满", "MANGZHONG": "芒种", "XIAZHI": "夏至",
    "XIAOSHU": "小暑", "DASHU": "大暑", "LIQIU": "立秋", "CHUSHU": "处暑", "BAILU": "白露", "QIUFEN": "秋分",
    "HANLU": "寒露", "SHUANGJIANG": "霜降", "LIDONG": "立冬", "XIAOXUE": "小雪", "DAXUE": "大雪", "DONGZHI": "冬至",
}  # fmt: skip


def known_term(name: str) -> bool:
    return name in TERMS
