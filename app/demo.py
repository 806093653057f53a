"""Demo data: about thirty realistic tasks around the current date, across all four groups."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlmodel import Session, col, func, select

from core import writes
from core.models import Task, TaskCreate

# (title, group, deadline offset in days or None, hour, urgency lead in hours or None, completed)
DEMO_TASKS: list[tuple[str, int, int | None, int, int | None, bool]] = [
    ("准备季度复盘会", 1, 1, 15, None, False),
    ("修复线上支付故障", 1, 0, 18, None, False),
    ("准备周三客户演示", 1, 2, 10, None, False),
    ("续签房屋合同", 2, 12, 18, 72, False),
    ("回复合同审核意见", 1, -1, 17, None, False),
    ("体检预约", 2, 9, 9, 48, False),
    ("写年度总结", 2, 25, 18, 72, False),
    ("学习 PostgreSQL 索引", 2, None, 0, None, False),
    ("整理读书笔记", 2, 6, 21, 24, False),
    ("规划明年旅行", 2, 40, 20, None, False),
    ("给妈妈打电话", 2, 3, 20, 24, False),
    ("更新简历", 2, 18, 22, None, False),
    ("买猫粮", 3, 1, 19, None, False),
    ("取快递", 3, 0, 20, None, False),
    ("给绿植浇水", 3, 2, 9, None, False),
    ("退订无用邮件", 3, None, 0, None, False),
    ("整理桌面", 3, 4, 18, None, False),
    ("洗车", 3, 5, 11, None, False),
    ("换手机壳", 3, None, 0, None, False),
    ("报销打车票", 4, 7, 18, 48, False),
    ("整理家庭相册", 4, 20, 21, None, False),
    ("研究新的记账软件", 4, None, 0, None, False),
    ("清理云盘旧文件", 4, 10, 22, 72, False),
    ("填写社区问卷", 4, -3, 12, None, False),
    ("修自行车", 4, 8, 10, None, False),
    ("提交周报", 1, -2, 18, None, True),
    ("交水电费", 1, -5, 12, None, True),
    ("买生日礼物", 2, -4, 20, None, True),
    ("倒垃圾", 3, -1, 21, None, True),
    ("备份照片", 4, -6, 22, None, True),
]


def seed_demo(sessions: Callable[[], Session], user_id: int, *, now: datetime, tz: str) -> int:
    """Adds the demo tasks unless the user already has tasks; returns how many were added. Through the
    write path, as an import: each task created (and completed) at its own moment, and logged."""
    with sessions() as session:
        existing = session.exec(select(func.count()).select_from(Task).where(col(Task.user_id) == user_id)).one()
    if existing:
        return 0
    local_now = now.astimezone(ZoneInfo(tz))
    today = local_now.replace(hour=0, minute=0, second=0, microsecond=0)
    for index, (title, group, days, hour, lead, completed) in enumerate(DEMO_TASKS):
        deadline = today + timedelta(days=days, hours=hour) if days is not None else None
        threshold = deadline - timedelta(hours=lead) if deadline is not None and lead else None
        created_at = local_now - timedelta(days=(index % 9) + 1, hours=index)
        data = TaskCreate(title=title, priority_group=group, deadline_at=deadline, urgency_threshold_at=threshold)
        with writes.writing(sessions, writes.author(user_id, created_at, "import")) as w:
            task = w.create(data)
        if completed:
            assert task.id is not None and deadline is not None
            with writes.writing(sessions, writes.author(user_id, deadline - timedelta(hours=2), "import")) as w:
                done = w.lock(task.id)
                assert done is not None
                w.complete(done)
    return len(DEMO_TASKS)
