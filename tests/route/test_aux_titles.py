"""Offline chat titles end where a phrase ends: never inside a word, Latin or Chinese.

Open WebUI used to show "后天上午十点去银行办" (the sentence cut at 10 characters)."""

from __future__ import annotations

import json
import re

import pytest

from core.turn import ChatText
from route.aux import AuxKind
from route.aux_reply import offline_aux_reply, offline_title

OPEN_WEBUI_TITLE = (
    "### Task:\nGenerate a concise title summarizing the chat history.\n"
    '### Output:\nJSON format: { "title": "your concise title here" }\n'
    "### Chat History:\n<chat_history>\nUSER: {said}\n</chat_history>"
)


def title_of(sentence: str) -> str:
    return offline_title([ChatText("user", OPEN_WEBUI_TITLE.replace("{said}", sentence))])


@pytest.mark.parametrize(
    ("sentence", "title"),
    [
        # A whole task sentence up to 20 characters is kept whole.
        ("后天上午十点去银行办理信用卡业务", "后天上午十点去银行办理信用卡业务"),
        ("帮我记一下明天下午三点交报告", "明天下午三点交报告"),
        # Clauses are kept while they fit; the one that does not is left out, not cut.
        ("帮我记一下后天上午十点去银行办理信用卡业务，顺便取钱", "后天上午十点去银行办理信用卡业务"),
        ("周五前把发票寄给财务，记得附上报销单和出租车票据", "周五前把发票寄给财务"),
        # A longer clause is cut before the phrase that starts past the limit.
        ("下周一上午十点和王经理在三楼会议室讨论明年的预算方案和人员安排", "下周一上午十点和王经理"),
        # A Latin word inside Chinese is never split.
        ("提醒我review一下Q3 roadmap和budget proposal然后发给老板", "review一下Q3 roadmap"),
    ],
)
def test_chinese_titles_end_at_a_phrase(sentence: str, title: str) -> None:
    assert title_of(sentence) == title
    assert len(title) <= 20


@pytest.mark.parametrize(
    ("sentence", "title"),
    [
        ("Remind me to call mom at 8am tomorrow", "Call mom at 8am tomorrow"),
        ("please remind me to submit the quarterly report by Friday", "Submit the quarterly report"),
        ("What's on my list today? Give me the top 3 only.", "Whats on my list today"),
        ("iPhone screen repair appointment next week", "iPhone screen repair appointment next"),
    ],
)
def test_english_titles_keep_whole_words(sentence: str, title: str) -> None:
    got = title_of(sentence)
    assert got == title
    whole_words = {w.lower() for w in re.findall(r"[A-Za-z0-9]+", sentence.replace("'", ""))}
    assert all(word.lower() in whole_words for word in got.split())


def test_a_long_confirmed_title_is_cut_at_a_phrase_too() -> None:
    history = (
        "USER: 记一下整理下载文件夹里面所有的截图照片视频文档压缩包安装包\n"
        "ASSISTANT: 好，已记下：整理下载文件夹里面所有的截图照片视频文档压缩包安装包（重要不紧急）"
    )
    request = [ChatText("user", OPEN_WEBUI_TITLE.replace("USER: {said}", history))]
    assert json.loads(offline_aux_reply(AuxKind.TITLE, request)) == {"title": "整理下载文件夹里面所有"}
