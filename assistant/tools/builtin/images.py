"""Drawing pictures, when an images endpoint is configured; the channel sends them."""

from __future__ import annotations

from assistant.errors import ToolError
from assistant.net.images import ImageRequest
from assistant.tools.services import need, services_of
from assistant.tools.tool import Attachment, ToolContext, tool


@tool(risk="low", timeout=180.0)
async def generate_image(  # noqa: PLR0917 (the model-facing signature of the seed)
    context: ToolContext,
    prompt: str,
    width: int = 1024,
    height: int = 1024,
    steps: int = 20,
    guidance_scale: float = 3.5,
) -> str:
    """Draw a picture from a description; it is sent to the user.

    Args:
        prompt: what the picture shows
        width: pixels, 256-2048, a multiple of 64
        height: pixels, 256-2048, a multiple of 64
        steps: sampling steps, 1-100
        guidance_scale: how closely to follow the prompt, 0-20
    """
    for name, value in (("width", width), ("height", height)):
        if not 256 <= value <= 2048 or value % 64:
            raise ToolError(f"{name} must be 256-2048 and a multiple of 64, got {value}")
    if not 1 <= steps <= 100 or not 0 <= guidance_scale <= 20:
        raise ToolError("steps must be 1-100 and guidance_scale 0-20")
    images = need(services_of(context).images, "image generation")
    picture = await images.generate(ImageRequest(prompt, width, height, steps, guidance_scale))
    context.attachments.append(Attachment("image", picture, prompt[:200]))
    return (
        f"Picture made ({width}x{height}, {len(picture) // 1024} KB); it is sent with the answer."
    )
