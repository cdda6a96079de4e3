"""The channels side by side: Telegram and the terminal; each renders a reply its way."""
