"""Open WebUI's follow-up request gets what Suikou understands next, and each suggestion, sent as the
user's next message, lands on the action it offers (offline router, full pipeline).

The request is Open WebUI's own follow-up template (tests/data/aux_prompts_more.jsonl,
`ow-followups-new-note`) quoting a real conversation with this service, answers as the client keeps
them (carried record line included)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.turn import ChatText
from route.aux import AuxKind, classify_aux
from route.aux_followups import offline_follow_ups
from route.aux_reply import offline_aux_reply
from support.harness import Harness

DATA = Path(__file__).resolve().parents[1] / "data"


def _open_webui_template() -> str:
    with (DATA / "aux_prompts_more.jsonl").open(encoding="utf-8") as fh:
        examples = [json.loads(line) for line in fh if line.strip()]
    [example] = [e for e in examples if e["id"] == "ow-followups-new-note"]
    return str(example["messages"][0]["content"])


TEMPLATE = _open_webui_template()


def follow_up_request(history: list[tuple[str, str]]) -> list[ChatText]:
    """Open WebUI's request: its template with the conversation as `<chat_history>` lines."""
    transcript = "\n".join(f"{role.upper()}: {text}" for role, text in history)
    content = re.sub(
        r"<chat_history>\n.*\n</chat_history>",
        lambda _: f"<chat_history>\n{transcript}\n</chat_history>",
        TEMPLATE,
        flags=re.S,
    )
    assert transcript in content
    return [ChatText("user", content)]


@dataclass(frozen=True)
class Scenario:
    name: str
    said: tuple[str, ...]  # the user's turns before the follow-up request
    suggestions: tuple[str, ...]
    actions: tuple[str, ...]  # where each suggestion lands
    outcomes: tuple[str, ...]  # a piece of each suggestion's answer ("" = any)


SCENARIOS = [
    Scenario(
        "zh-list-with-more",
        ("这周有什么要做的",),
        ("再来 5 个", "全部", "只看紧急的"),
        ("task_query", "task_query", "task_query"),
        ("6. ", "（共 11 条）：", "write report"),
    ),
    Scenario(
        "zh-note",
        ("帮我记一下明天下午三点交报告",),
        ("撤销", "改到后天", "交报告标记完成", "今天还有什么要做的？"),
        ("undo", "task_update", "task_complete", "task_query"),
        (
            "已撤销：新建「交报告」",
            "已改好：「交报告」截止 12月1日 周二 15:00 → 12月2日 周三 15:00",
            "已完成：「交报告」",
            "",
        ),
    ),
    Scenario(
        "zh-note-without-deadline",
        ("帮我记一下取快递",),
        ("撤销", "改到明天下午", "取快递标记完成", "今天还有什么要做的？"),
        ("undo", "task_update", "task_complete", "task_query"),
        ("已撤销：新建「取快递」", "已改好：「取快递」截止 无 → 12月1日 周二 17:59", "已完成：「取快递」", ""),
    ),
    Scenario(
        "zh-finish",
        ("帮我记一下明天下午三点交报告", "交报告做完了"),
        ("撤销", "今天还有什么要做的？", "这周有什么要交的"),
        ("undo", "task_query", "task_query"),
        ("已撤销：把「交报告」标记为完成", "", ""),
    ),
    Scenario(
        "en-list-with-more",
        ("what's due this week?",),
        ("5 more", "all", "only the urgent ones"),
        ("task_query", "task_query", "task_query"),
        ("6. ", "(11 tasks):", "write report"),
    ),
    Scenario(
        "en-note",
        ("remind me to call mom at 8am tomorrow",),
        ("undo", "push it to the day after tomorrow", 'mark "call mom" done', "what's on my list today?"),
        ("undo", "task_update", "task_complete", "task_query"),
        (
            'Undone: created "call mom"',
            'Updated: "call mom" due Tue Dec 1, 08:00 → Wed Dec 2, 08:00',
            'Done: "call mom"',
            "",
        ),
    ),
    Scenario(
        "en-finish",
        ("remind me to call mom at 8am tomorrow", 'mark "call mom" done'),
        ("undo", "what's on my list today?", "what's due this week?"),
        ("undo", "task_query", "task_query"),
        ('Undone: marked "call mom" as done', "", ""),
    ),
]


async def _conversation(harness: Harness, said: tuple[str, ...]) -> list[tuple[str, str]]:
    """Eleven open tasks this week, then the scenario's turns; the history as the client keeps it."""
    harness.add("write report", 1, "2026-12-01 15:00")
    for k in range(10):
        harness.add(f"任务{k}号", 2, f"2026-12-02 {10 + k}:00")
    history: list[tuple[str, str]] = []
    for answer, message in zip(await harness.converse(*said), said, strict=True):
        history += [("user", message), ("assistant", answer.content)]
    return history


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
async def test_follow_ups_offer_what_suikou_understands_next(harness: Harness, scenario: Scenario) -> None:
    request = follow_up_request(await _conversation(harness, scenario.said))
    assert classify_aux(request) is AuxKind.FOLLOW_UPS

    reply = json.loads(offline_aux_reply(AuxKind.FOLLOW_UPS, request))

    assert reply == {"follow_ups": list(scenario.suggestions)}
    assert 3 <= len(reply["follow_ups"]) <= 5


CASES = [(s, i) for s in SCENARIOS for i in range(len(s.suggestions))]


@pytest.mark.parametrize(("scenario", "index"), CASES, ids=[f"{s.name}-{s.suggestions[i]}" for s, i in CASES])
async def test_each_suggestion_lands_on_its_action(harness: Harness, scenario: Scenario, index: int) -> None:
    history = await _conversation(harness, scenario.said)
    suggestion = offline_follow_ups(follow_up_request(history))[index]
    assert suggestion == scenario.suggestions[index]

    answer = await harness.ask(suggestion, history=history)

    assert answer.action == scenario.actions[index], answer.visible
    assert scenario.outcomes[index] in answer.visible


def test_follow_ups_never_repeat_what_the_user_just_asked() -> None:
    request = follow_up_request([("user", "今天还有什么要做的？"), ("assistant", "没有符合条件的任务。")])
    suggestions = offline_follow_ups(request)
    assert "今天还有什么要做的？" not in suggestions
    assert len(suggestions) == 3


def test_follow_ups_read_the_real_turns_when_no_history_is_quoted() -> None:
    """A client that sends the conversation as messages and its instruction last."""
    messages = [
        ChatText("user", "remind me to buy milk"),
        ChatText("assistant", "OK, noted: buy milk (important, not urgent)"),
        ChatText("user", 'Suggest 3 follow-up questions. Respond with JSON {"follow_ups": [...]}.'),
    ]
    assert offline_follow_ups(messages) == [
        "undo",
        "move it to tomorrow afternoon",
        'mark "buy milk" done',
        "what's on my list today?",
    ]


@pytest.mark.parametrize(
    ("example_id", "expected"),
    [
        # The fixtures' own histories: a list (no more to show), then a note after a list.
        ("ow-followups-v06-query", ["只看紧急的", "明天有什么要做的？", "这周有什么要交的"]),
        ("ow-followups-new-note", ["撤销", "改到后天", "给妈妈打电话标记完成"]),
    ],
)
def test_open_webui_fixtures_get_suggestions(example_id: str, expected: list[str]) -> None:
    examples = []
    for name in ("aux_prompts.jsonl", "aux_prompts_more.jsonl"):
        with (DATA / name).open(encoding="utf-8") as fh:
            examples += [json.loads(line) for line in fh if line.strip()]
    [example] = [e for e in examples if e["id"] == example_id]
    messages = [ChatText(m["role"], m["content"]) for m in example["messages"]]
    assert json.loads(offline_aux_reply(AuxKind.FOLLOW_UPS, messages)) == {"follow_ups": expected}


@pytest.mark.parametrize(
    "stages",
    [
        '<details type="reasoning" done="true" duration="1">\n<summary>Thought for 1 seconds</summary>\n'
        "> 路由：quick_note_create\n</details>\n",
        "<think>\n路由：quick_note_create\n</think>\n\n",
    ],
    ids=["open-webui-reasoning-block", "think-mode"],
)
def test_follow_ups_read_the_answer_after_its_stage_lines(stages: str) -> None:
    answer = stages + "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"
    request = follow_up_request([("user", "帮我记一下明天下午三点交报告"), ("assistant", answer)])
    assert offline_follow_ups(request)[:3] == ["撤销", "改到后天", "交报告标记完成"]
