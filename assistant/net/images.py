"""Pictures from an OpenAI-compatible images endpoint the owner configured."""

from __future__ import annotations

import base64
import binascii
import logging
from dataclasses import dataclass
from typing import Any

import httpx

from assistant.errors import FetchError

log = logging.getLogger(__name__)
MAX_IMAGE_BYTES = 20_000_000


@dataclass(frozen=True)
class ImageRequest:
    """What to draw and how."""

    prompt: str
    width: int = 1024
    height: int = 1024
    steps: int = 20
    guidance_scale: float = 3.5


class ImageClient:
    """Calls ``POST {base_url}/images/generations`` and returns the picture's bytes."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str,
        *,
        sampling: bool = True,
        timeout: float = 120.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._url = base_url.rstrip("/") + "/images/generations"
        self._model = model
        self._sampling = sampling
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(
            headers=headers, timeout=timeout, trust_env=False, transport=transport
        )

    async def close(self) -> None:
        """Close the connections."""
        await self._client.aclose()

    async def generate(self, request: ImageRequest) -> bytes:
        """The picture as PNG (or whatever the endpoint makes) bytes."""
        body: dict[str, Any] = {
            "model": self._model,
            "prompt": request.prompt,
            "size": f"{request.width}x{request.height}",
            "n": 1,
            "response_format": "b64_json",
        }
        if self._sampling:  # local diffusion servers take these; OpenAI's own API does not
            body |= {"steps": request.steps, "guidance_scale": request.guidance_scale}
        try:
            response = await self._client.post(self._url, json=body)
        except httpx.HTTPError as exc:
            raise FetchError(
                f"the image endpoint cannot be reached ({type(exc).__name__})"
            ) from None
        if response.status_code >= 400:
            log.warning("image endpoint answered %d: %s", response.status_code, response.text[:300])
            raise FetchError(f"the image endpoint refused (HTTP {response.status_code})")
        return _picture(response)


def _picture(response: httpx.Response) -> bytes:
    try:
        encoded = response.json()["data"][0]["b64_json"]
        picture = base64.b64decode(encoded, validate=True)
    except (ValueError, KeyError, IndexError, TypeError, binascii.Error):
        raise FetchError("the image endpoint answered without a picture") from None
    if not picture or len(picture) > MAX_IMAGE_BYTES:
        raise FetchError("the image endpoint answered with an empty or oversized picture")
    return picture
