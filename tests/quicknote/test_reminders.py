"""Reminders said with a note: each phrase family becomes the reminder it says, the answer says when it
fires (or why it was not set), the words stay out of the title, and a user without a channel is told
reminders can't reach them yet. Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core import remindwords
from core.models import Webhook
from core.reminderspec import Spec, specs_of
from support.harness import NOW, Harness, local


@pytest.mark.parametrize(
    ("text", "kind", "lead", "at_text"),
    [
        ("明天下午三点开会，提前半小时提醒我", "lead", timedelta(minutes=30), None),
        ("开会前十分钟叫我一声", "lead", timedelta(minutes=10), None),
        ("截止前一天通知我", "lead", timedelta(days=1), None),
        ("周五交方案，两个小时前提醒我", "lead", timedelta(hours=2), None),
        ("remind me an hour before the call", "lead", timedelta(hours=1), None),
        ("call the bank friday 3pm, 15 minutes before", None, None, None),  # no "remind": not a reminder
        ("remind me to call the bank friday 3pm, 15 minutes before", "lead", timedelta(minutes=15), None),
        ("下午四点取快递，到点提醒我", "due", timedelta(0), None),
        ("remind me when it's due", "due", timedelta(0), None),
        ("周五交报告，周四晚上八点提醒我", "at", None, "周四晚上八点"),
        ("send the deck friday, remind me thursday at 6pm", "at", None, "thursday at 6pm"),
        ("提醒我明天买菜", "implicit", None, None),
        ("明天买菜", None, None, None),
    ],
)
def test_reminder_words(text: str, kind: str | None, lead: timedelta | None, at_text: str | None) -> None:
    said = remindwords.read(text)
    if kind is None:
        assert said is None or said.kind != "lead"
        return
    assert said is not None and said.kind == kind, said
    assert (said.lead, said.at_text) == (lead, at_text)


def _only(h: Harness) -> tuple[str, list[Spec]]:
    [task] = h.tasks()
    return task.title, specs_of(task.reminders)


@pytest.mark.parametrize(
    ("message", "title", "specs", "said"),
    [
        ("明天下午三点开会，提前半小时提醒我", "开会", [Spec(before=timedelta(minutes=30))], "会在 12月1日 周二 14:30 提醒你"),
        ("明天下午3点开会，开会前半小时提醒我", "开会", [Spec(before=timedelta(minutes=30))], "会在 12月1日 周二 14:30 提醒你"),
        ("周三下午四点交材料，到点提醒我", "交材料", [Spec(before=timedelta(0))], "会在 12月2日 周三 16:00 提醒你"),
        ("下周五交报告，周四晚上8点提醒我", "交报告", [Spec(at=local("2026-12-10 20:00"))], "会在 12月10日 周四 20:00 提醒你"),
        ("提醒我明天下午五点去取快递", "去取快递", [Spec(before=timedelta(0))], "会在 12月1日 周二 17:00 提醒你"),
        # a day-only deadline is reminded of that morning, a lead counted from that morning
        ("提醒我周三交水费", "交水费", [Spec(before=timedelta(hours=14, minutes=59, seconds=59))], "12月2日 周三 09:00"),
        ("周四交房租，提前一天提醒我", "交房租", [Spec(before=timedelta(days=1, hours=14, minutes=59, seconds=59))], "12月2日 周三 09:00"),
        ("10分钟后提醒我关火", "关火", [Spec(before=timedelta(0))], "会在 11月30日 周一 10:10 提醒你"),
        ("每天早上8点吃药，提前10分钟提醒我", "吃药", [Spec(before=timedelta(minutes=10))], "每一次都会提醒你，下一次在 12月1日 周二 07:50"),
        ("remind me to call mom tomorrow at 5pm, 10 minutes before", "call mom", [Spec(before=timedelta(minutes=10))],
         "I'll remind you Tue Dec 1, 16:50"),
    ],
)  # fmt: skip
async def test_each_family_becomes_its_reminder(
    harness: Harness, message: str, title: str, specs: list[Spec], said: str
) -> None:
    answer = await harness.ask(message)
    assert answer.action == "quick_note_create"
    assert _only(harness) == (title, specs)
    assert said in answer.visible, answer.visible


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("买牛奶，提前一小时提醒我", "「提前一小时提醒我」没有设上：这条任务没有截止时间"),
        (
            "今天早上8点交报告，提前半小时提醒我",
            "「提前半小时提醒我」没有设上：那个时间（11月30日 周一 07:30）已经过了",
        ),
    ],
)
async def test_a_reminder_that_cant_be_set_is_said(harness: Harness, message: str, said: str) -> None:
    answer = await harness.ask(message)
    assert said in answer.visible, answer.visible
    assert _only(harness)[1] == []


async def test_with_a_channel_the_answer_does_not_warn(harness: Harness) -> None:
    with harness.state.session() as session:
        session.add(Webhook(user_id=harness.user(), url="https://example.com/h", kind="ntfy", events='["reminder.due"]',
                            timezone="Asia/Shanghai", created_at=NOW))  # fmt: skip
        session.commit()
    answer = await harness.ask("明天下午三点开会，提前半小时提醒我")
    assert answer.visible.endswith("会在 12月1日 周二 14:30 提醒你。"), answer.visible
    plain = await harness.ask("明天买菜")
    assert "提醒" not in plain.visible  # no reminder asked for: none said


async def test_undo_takes_the_reminder_with_the_task(harness: Harness) -> None:
    await harness.converse("明天下午三点开会，提前半小时提醒我", "撤销")
    assert harness.tasks() == []


# --- changed and removed by chat (task_update, task_delete), each undoable --------------------------


async def test_a_reminder_is_moved_added_and_removed_by_chat(harness: Harness) -> None:
    await harness.ask("周三下午三点开会，提前半小时提醒我")
    moved = await harness.ask("把开会的提醒提前一小时")
    assert moved.action == "task_update" and "提醒 → 12月2日 周三 14:00" in moved.visible, moved.visible
    assert _only(harness)[1] == [Spec(before=timedelta(hours=1))]
    noon = await harness.ask("开会的提醒改到中午12点")  # a clock alone: on the meeting's day
    assert "提醒 → 12月2日 周三 12:00" in noon.visible, noon.visible
    added = await harness.ask("给开会加个提醒，提前十分钟")
    assert added.action == "task_update"
    assert len(_only(harness)[1]) == 2
    off, again = await harness.converse("开会不用提醒了", "取消开会的提醒")
    assert off.action == "task_delete" and off.visible.startswith("好，「开会」不再提醒了；任务还在"), off.visible
    assert again.visible.startswith("「开会」没有设提醒")  # nothing to remove: said, nothing written
    assert _only(harness) == ("开会", [])
    await harness.converse("开会不用提醒了", "撤销")  # a retry of the removal (writes nothing), then undo it
    assert len(_only(harness)[1]) == 2


async def test_removing_a_reminder_keeps_the_task_and_stop_reminding_a_plain_task_deletes_it(harness: Harness) -> None:
    await harness.ask("明天下午五点交水费，到点提醒我")
    await harness.ask("别再提醒我交水费了")
    assert _only(harness) == ("交水费", [])  # it had a reminder: that goes, the task stays
    harness.add("浇花", 2, "2026-12-02 20:00")
    deleted = await harness.ask("别再提醒我浇花了")  # no reminder: the task is what is meant, as before
    assert deleted.visible.startswith("已删除：「浇花」")


async def test_a_reminder_needs_a_deadline_and_a_time_ahead(harness: Harness) -> None:
    harness.add("整理发票", 2)
    answer = await harness.ask("给整理发票加个提醒，提前一小时")
    assert "没有截止时间" in answer.visible and _only(harness)[1] == []


async def test_english_reminder_edits(harness: Harness) -> None:
    harness.add("Dentist", 2, "2026-12-03 15:00")
    changed = await harness.ask("set a reminder for the dentist 30 minutes before")
    assert changed.action == "task_update", changed.visible
    assert _only(harness)[1] == [Spec(before=timedelta(minutes=30))]
    removed = await harness.ask("remove the reminder for the dentist")
    assert removed.visible.startswith('OK, no more reminders for "Dentist"'), removed.visible
