"""The machine the assistant runs on: CPU, memory and disk use."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

from assistant.tools.tool import ToolContext, tool


@tool(read_only=True, timeout=5.0)
async def system_stats(context: ToolContext) -> dict[str, Any]:
    """Get CPU, memory and disk use of the machine the assistant runs on."""
    return await asyncio.to_thread(_stats)


def _stats() -> dict[str, Any]:
    import psutil  # imported when first asked: 60 ms of start-up otherwise

    memory = psutil.virtual_memory()
    disk = psutil.disk_usage(os.getcwd())
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "cpu_percent": psutil.cpu_percent(interval=0.2),
        "cpu_count": psutil.cpu_count(),
        "load_1_5_15": [round(x, 2) for x in load],
        "memory_used_percent": memory.percent,
        "memory_available_mb": memory.available // 2**20,
        "memory_total_mb": memory.total // 2**20,
        "disk_used_percent": disk.percent,
        "disk_free_gb": round(disk.free / 2**30, 1),
        "uptime_hours": round((time.time() - psutil.boot_time()) / 3600, 1),
    }
