"""A fake Telegram Bot API on 127.0.0.1 that the real python-telegram-bot talks to."""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import default
from typing import Any
from urllib.parse import parse_qs

from fakehttp import FakeServer, Received, Reply

TOKEN = "123456:TEST-token-for-the-fake"
BOT = {"id": 123456, "is_bot": True, "first_name": "Assistant", "username": "test_assistant_bot"}


@dataclass
class Call:
    """One Bot API method call the bot made."""

    method: str
    params: dict[str, Any]


# One bot's update ids only grow, across its restarts as Telegram's do: a fake started again
# must not offer an id the inbox already holds.
_UPDATE_IDS = itertools.count(1)


@dataclass
class FakeTelegram:
    """Queues updates for getUpdates and records what the bot sends."""

    server: FakeServer
    calls: list[Call] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)
    failures: dict[str, list[tuple[int, str, dict[str, Any]]]] = field(default_factory=dict)
    refused: list[tuple[str, str]] = field(default_factory=list)  # by Telegram's own rules
    files: dict[str, bytes] = field(default_factory=dict)  # file_id: content, for getFile
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1000))
    update_ids: itertools.count[int] = field(default_factory=lambda: _UPDATE_IDS)
    language_code: str = ""  # the app's language the senders' messages say they use

    @property
    def base_url(self) -> str:
        return f"{self.server.url}/bot"

    def fail_next(self, method: str, status: int, description: str, **parameters: Any) -> None:
        """Make the next call of ``method`` fail as Telegram would."""
        self.failures.setdefault(method, []).append((status, description, parameters))

    def message(
        self, user: int, text: str, chat: int | None = None, chat_type: str = "private"
    ) -> None:
        """A user writes to the bot."""
        chat_id = chat if chat is not None else user
        entities = (
            [{"type": "bot_command", "offset": 0, "length": len(text.split(maxsplit=1)[0])}]
            if text.startswith("/")
            else []
        )
        self._push({"message": {
            "message_id": next(self.ids), "date": 1_700_000_000, "text": text, "entities": entities,
            "chat": {"id": chat_id, "type": chat_type, "first_name": "Ada"},
            "from": {"id": user, "is_bot": False, "first_name": "Ada",
                     **({"language_code": self.language_code} if self.language_code else {})},
        }})  # fmt: skip

    def location(self, user: int, latitude: float, longitude: float) -> None:
        """A user shares a location."""
        self._push({"message": {
            "message_id": next(self.ids), "date": 1_700_000_000,
            "location": {"latitude": latitude, "longitude": longitude},
            "chat": {"id": user, "type": "private", "first_name": "Ada"},
            "from": {"id": user, "is_bot": False, "first_name": "Ada"},
        }})  # fmt: skip

    def voice(self, user: int, audio: bytes, seconds: int = 3, kind: str = "voice") -> str:
        """A user sends a voice note (or, with ``kind="audio"``, an audio file); its file id."""
        file_id = f"{kind}-{next(self.ids)}"
        self.files[file_id] = audio
        sound = {"file_id": file_id, "file_unique_id": f"u{file_id}", "duration": seconds,
                 "mime_type": "audio/ogg", "file_size": len(audio)}  # fmt: skip
        if kind == "audio":
            sound["file_name"] = "memo.mp3"
        self._push({"message": {
            "message_id": next(self.ids), "date": 1_700_000_000, kind: sound,
            **_private(user),
        }})  # fmt: skip
        return file_id

    def document(
        self, user: int, data: bytes, name: str, mime: str, caption: str = "", size: int = 0
    ) -> str:
        """A user sends a file (``size`` claims a size other than its own); its file id."""
        file_id = f"document-{next(self.ids)}"
        self.files[file_id] = data
        document = {"file_id": file_id, "file_unique_id": f"u{file_id}", "file_name": name,
                    "mime_type": mime, "file_size": size or len(data)}  # fmt: skip
        message = {
            "message_id": next(self.ids), "date": 1_700_000_000, "document": document,
            **_private(user),
        }  # fmt: skip
        if caption:
            message["caption"] = caption
        self._push({"message": message})
        return file_id

    def photo(self, user: int, sizes: list[bytes], caption: str = "") -> None:
        """A user sends a photo; Telegram lists its sizes small first (each 800 px wider)."""
        listed = []
        for index, data in enumerate(sizes):
            file_id = f"photo-{next(self.ids)}"
            self.files[file_id] = data
            side = 320 + 800 * index
            listed.append({"file_id": file_id, "file_unique_id": f"u{file_id}", "width": side,
                           "height": side * 3 // 4, "file_size": len(data)})  # fmt: skip
        message = {
            "message_id": next(self.ids), "date": 1_700_000_000, "photo": listed,
            **_private(user),
        }  # fmt: skip
        if caption:
            message["caption"] = caption
        self._push({"message": message})

    def press(self, user: int, data: str, message_id: int = 1) -> None:
        """A user presses an inline button."""
        self._push({"callback_query": {
            "id": str(next(self.ids)), "chat_instance": "ci", "data": data,
            "from": {"id": user, "is_bot": False, "first_name": "Ada"},
            "message": {"message_id": message_id, "date": 1_700_000_000, "text": "x",
                        "chat": {"id": user, "type": "private"}},
        }})  # fmt: skip

    def _push(self, update: dict[str, Any]) -> None:
        self.updates.append({"update_id": next(self.update_ids), **update})
        self.arrived.set()

    def sent(self, method: str = "sendMessage") -> list[dict[str, Any]]:
        return [c.params for c in self.calls if c.method == method]

    def texts(self) -> list[str]:
        return [str(p.get("text", "")) for p in self.sent()] + [
            str(p.get("text", "")) for p in self.sent("editMessageText")
        ]

    async def handle(self, request: Received) -> Reply:
        if "/file/bot" in request.path:  # a download: /file/bot<token>/<file_path>
            self.calls.append(Call("download", {"path": request.path}))
            file_id = request.path.rsplit("/", 1)[-1].split(".")[0]
            if file_id not in self.files:
                return Reply(404, {"ok": False, "error_code": 404, "description": "Not Found"})
            return Reply(raw=self.files[file_id])
        method = request.path.rsplit("/", 1)[-1]
        params = _params(request)
        if method != "getUpdates":
            self.calls.append(Call(method, params))
        refused = _refusal(method, params)
        if refused:
            self.refused.append((method, refused))
            return Reply(400, {"ok": False, "error_code": 400, "description": refused})
        queued = self.failures.get(method)
        if queued:
            status, description, extra = queued.pop(0)
            return Reply(
                status,
                {
                    "ok": False,
                    "error_code": status,
                    "description": description,
                    "parameters": extra,
                },
            )
        return Reply(json={"ok": True, "result": await self._result(method, params)})

    async def _result(self, method: str, params: dict[str, Any]) -> Any:
        if method == "getMe":
            return BOT
        if method == "getFile":
            file_id = str(params["file_id"])
            return {"file_id": file_id, "file_unique_id": f"u{file_id}",
                    "file_size": len(self.files.get(file_id, b"")),
                    "file_path": f"voice/{file_id}.oga"}  # fmt: skip
        if method == "getUpdates":
            return await self._updates(int(params.get("offset", 0) or 0))
        if method in ("sendMessage", "editMessageText", "sendPhoto", "sendDocument"):
            chat = int(params.get("chat_id", 0))
            message_id = int(params.get("message_id") or next(self.ids))
            return {"message_id": message_id, "date": 1_700_000_000, "text": params.get("text", ""),
                    "chat": {"id": chat, "type": "private"}}  # fmt: skip
        return True

    async def _updates(self, offset: int) -> list[dict[str, Any]]:
        self.updates = [u for u in self.updates if u["update_id"] >= offset]
        if not self.updates:
            self.arrived.clear()
            try:  # a long poll, held briefly: the server waits, not the test
                await asyncio.wait_for(self.arrived.wait(), 0.5)
            except TimeoutError:
                return []
        return list(self.updates)


def _refusal(method: str, params: dict[str, Any]) -> str | None:
    """What Telegram says to a message it does not accept: empty, too long (in UTF-16 units),
    or entities outside the text, overlapping, or inside code."""
    if method not in ("sendMessage", "editMessageText"):
        return None
    text = str(params.get("text", ""))
    size = len(text.encode("utf-16-le")) // 2
    if not text.strip():
        return "Bad Request: message text is empty"
    if size > 4096:
        return "Bad Request: message is too long"
    entities = params.get("entities") or []
    if isinstance(entities, str):
        entities = json.loads(entities)
    spans = sorted((e["offset"], e["offset"] + e["length"], e["type"]) for e in entities)
    for index, (start, end, kind) in enumerate(spans):
        if start < 0 or end > size or end <= start:
            return "Bad Request: can't parse entities: entity is outside the text"
        for inner_start, inner_end, _ in spans[index + 1 :]:
            if inner_start >= end:
                break
            if inner_end > end or kind in ("code", "pre"):
                return "Bad Request: can't parse entities: entities overlap"
    return None


def _params(request: Received) -> dict[str, Any]:
    if not request.body:
        return {}
    content_type = request.headers.get("content-type", "")
    if content_type.startswith("multipart/form-data"):
        return _multipart(content_type, request.body)
    if content_type.startswith("application/json"):
        return dict(json.loads(request.body))
    params: dict[str, Any] = {}
    for key, values in parse_qs(request.body.decode(), keep_blank_values=True).items():
        value = values[0]
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return params


def _multipart(content_type: str, body: bytes) -> dict[str, Any]:
    """Form fields as text, files as bytes (under their field name, with ``<name>_filename``)."""
    message = BytesParser(policy=default).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    params: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True)
        if part.get_filename():
            params[name] = data
            params[f"{name}_filename"] = part.get_filename()
        else:
            params[name] = data.decode()
    return params


def _private(user: int) -> dict[str, Any]:
    """Where a message in the user's private chat with the bot comes from."""
    return {
        "chat": {"id": user, "type": "private", "first_name": "Ada"},
        "from": {"id": user, "is_bot": False, "first_name": "Ada"},
    }
