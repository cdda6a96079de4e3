"""The Telegram channel (python-telegram-bot v22)."""
