"""The `day_plan` action (今天怎么安排): the rest of a day planned in time slots, and the week's lightest day."""
