"""改: the `task_update` action — correcting a task by chat (deadline, priority, title)."""
