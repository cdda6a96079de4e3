"""The front door: commands, pending questions, the local step, buttons, per-chat queues."""
