"""A personal assistant in Telegram with tools and a scheduler that never loses a reminder."""

__version__ = "0.1.0"
