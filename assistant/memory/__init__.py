"""What the assistant remembers: conversations, notes, and the audit trail of tool calls."""
