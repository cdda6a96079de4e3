"""The guards of a turn: claimed actions, destructive calls, leaks, untrusted content."""
