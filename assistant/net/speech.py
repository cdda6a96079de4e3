"""Speech to text through an OpenAI-compatible ``/audio/transcriptions`` endpoint (OpenAI, or
a local Whisper server) that the owner configured."""

from __future__ import annotations

import logging

import httpx

from assistant.errors import FetchError

log = logging.getLogger(__name__)
MAX_TRANSCRIPT = 20_000  # characters: more than an hour of speech


class SpeechClient:
    """Calls ``POST {base_url}/audio/transcriptions`` and returns what was said."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str,
        *,
        timeout: float = 120.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._url = base_url.rstrip("/") + "/audio/transcriptions"
        self._model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(
            headers=headers, timeout=timeout, trust_env=False, transport=transport
        )

    async def close(self) -> None:
        """Close the connections."""
        await self._client.aclose()

    async def transcribe(self, audio: bytes, filename: str) -> str:
        """The words in ``audio``; a clear ``FetchError`` when there are none to be had."""
        files = {"file": (filename, audio, "application/octet-stream")}
        data = {"model": self._model, "response_format": "json"}
        try:
            response = await self._client.post(self._url, data=data, files=files)
        except httpx.HTTPError as exc:
            raise FetchError(
                f"the speech endpoint cannot be reached ({type(exc).__name__})"
            ) from None
        if response.status_code >= 400:
            log.warning(
                "speech endpoint answered %d: %s", response.status_code, response.text[:300]
            )
            raise FetchError(f"the speech endpoint refused (HTTP {response.status_code})")
        return _words(response)


def _words(response: httpx.Response) -> str:
    try:
        text = response.json()["text"]
    except (ValueError, KeyError, TypeError):
        raise FetchError("the speech endpoint answered without a transcript") from None
    if not isinstance(text, str) or not text.strip():
        raise FetchError("no words were heard in it")
    return text.strip()[:MAX_TRANSCRIPT]
