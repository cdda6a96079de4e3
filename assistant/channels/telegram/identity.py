"""Who the bot is, by its token: the check ``assistant doctor`` makes."""

from __future__ import annotations

from telegram import Bot
from telegram.error import InvalidToken, NetworkError, TelegramError


async def whoami(token: str, base_url: str) -> tuple[bool, str]:
    """Call getMe; (True, "@name") when the token works, else (False, what to fix)."""
    try:
        async with Bot(token, base_url=base_url) as bot:
            me = await bot.get_me()
    except InvalidToken:
        return False, "the token was rejected; get a new one from @BotFather (/token)"
    except NetworkError as exc:
        return False, f"cannot reach the Bot API at {base_url} ({exc})"
    except TelegramError as exc:
        return False, f"the Bot API refused: {exc}"
    return True, f"@{me.username}"
