"""Import and export: Suikou's tasks as an iCalendar feed and files, and tasks from other apps' files
(TickTick's backup CSV, Todoist's CSV template). Depends only on core (docs/fdr/0039)."""
