"""Files a user sends, read into their turn as text: plain text of any common kind, and the
text of a PDF. What is read is framed as untrusted data, like a fetched page, and cut to a cap.
"""

from __future__ import annotations

import asyncio
import io
import logging
from pathlib import PurePosixPath

from assistant.agent.guards.untrusted import frame
from assistant.errors import DocumentError

log = logging.getLogger(__name__)

MAX_BYTES = 5_000_000  # downloaded at most
MAX_CHARS = 20_000  # read into the turn at most; the context fitting may cut more
PDF_PAGES = 50
PDF_SECONDS = 20.0
TEXT_SUFFIXES = frozenset({
    ".txt", ".md", ".markdown", ".csv", ".tsv", ".json", ".jsonl", ".yaml", ".yml", ".toml",
    ".ini", ".cfg", ".log", ".xml", ".html", ".htm", ".py", ".js", ".ts", ".sh", ".sql", ".rst",
    ".tex", ".srt", ".vtt", ".ics", ".vcf",
})  # fmt: skip
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/x-yaml")
PDF = "application/pdf"


def readable(name: str, mime: str) -> bool:
    """Whether a file of this name and type can be read into a turn."""
    return _is_pdf(name, mime) or _is_text(name, mime)


def refusal(name: str, mime: str, size: int | None) -> str | None:
    """Why a file is not taken (asked before it is downloaded), or None to take it."""
    if not readable(name, mime):
        return (
            f"I can read text files (txt, md, csv, json and the like) and PDFs; "
            f"{name or 'this file'} is neither."
        )
    if size is not None and size > MAX_BYTES:
        return f"That file is {size / 1e6:.1f} MB; I read files up to {MAX_BYTES / 1e6:.0f} MB."
    return None


async def read_document(name: str, mime: str, data: bytes) -> str:
    """The file as text for the model: framed as untrusted data, at most ``MAX_CHARS``."""
    if _is_pdf(name, mime):
        text = await _pdf_text(data)
    elif _is_text(name, mime):
        text = data.decode("utf-8", errors="replace")
    else:
        raise DocumentError(refusal(name, mime, None) or "unreadable file")
    if not text.strip():
        raise DocumentError(f"{name or 'The file'} has no text I can read.")
    if len(text) > MAX_CHARS:
        text = f"{text[:MAX_CHARS]}\n[… cut: the first {MAX_CHARS:,} of {len(text):,} characters]"
    return frame(f"the file {name or 'sent'}", text)


def _is_pdf(name: str, mime: str) -> bool:
    return mime == PDF or PurePosixPath(name).suffix.lower() == ".pdf"


def _is_text(name: str, mime: str) -> bool:
    return mime.startswith(TEXT_TYPES) or PurePosixPath(name).suffix.lower() in TEXT_SUFFIXES


async def _pdf_text(data: bytes) -> str:
    try:
        async with asyncio.timeout(PDF_SECONDS):
            return await asyncio.to_thread(_pdf_pages, data)
    except TimeoutError:
        raise DocumentError(
            "That PDF took too long to read; is it mostly scanned images?"
        ) from None


def _pdf_pages(data: bytes) -> str:
    from pypdf import PdfReader  # imported when a PDF comes: it is a large import
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise DocumentError("That PDF is protected by a password; I cannot read it.")
        pages = reader.pages[:PDF_PAGES]
        return "\n\n".join(page.extract_text() or "" for page in pages)
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        log.info("a PDF could not be read: %s", type(exc).__name__)
        raise DocumentError("That PDF is damaged or in a form I cannot read.") from None
