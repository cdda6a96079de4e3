"""A tool result of the protocol read into an ``Outcome``: text, pictures, resources, errors."""

from __future__ import annotations

import base64
import binascii
import json

import mcp_types as types

from assistant.mcp.remote import Image, Outcome

MAX_IMAGE_BYTES = 10_000_000


def outcome(result: types.CallToolResult) -> Outcome:
    """Every part of the result as text the model can read, and the pictures beside it."""
    texts: list[str] = []
    images: list[Image] = []
    for part in result.content:
        text, image = _part(part)
        if text:
            texts.append(text)
        if image is not None:
            images.append(image)
    if not texts and result.structured_content is not None:
        texts.append(json.dumps(result.structured_content, ensure_ascii=False, default=str))
    return Outcome("\n".join(texts), tuple(images), bool(result.is_error))


def _part(part: object) -> tuple[str, Image | None]:
    if isinstance(part, types.ImageContent):
        return _image(part.data, part.mime_type)
    return _text(part), None


def _text(part: object) -> str:
    match part:
        case types.TextContent(text=text):
            return text
        case types.AudioContent(mime_type=mime):
            return f"[audio ({mime}): not shown]"
        case types.EmbeddedResource(resource=types.TextResourceContents(uri=uri, text=text)):
            return f"[resource {uri}]\n{text}"
        case types.EmbeddedResource(resource=types.BlobResourceContents(uri=uri, mime_type=mime)):
            return f"[resource {uri} ({mime or 'binary'}): not shown]"
        case types.ResourceLink(uri=uri, name=name):
            return f"[link {name}: {uri}]"
    return f"[{type(part).__name__}: not shown]"


def _image(data: str, mime: str) -> tuple[str, Image | None]:
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return f"[a picture ({mime}) that was not valid base64]", None
    if len(raw) > MAX_IMAGE_BYTES:
        return f"[a picture ({mime}) of {len(raw):,} bytes: too large to send]", None
    return f"[a picture ({mime}, {len(raw):,} bytes), sent to the user]", Image(raw, mime)
