"""The `undo` action (撤销): reverts the last write of this conversation (see :mod:`undo.handler`)."""
