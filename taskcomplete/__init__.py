"""完成: the `task_complete` action — finishing and reopening tasks by chat."""
