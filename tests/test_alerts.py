"""The owner told once when something stays broken, and once when it works again."""

from __future__ import annotations

import shutil
from datetime import timedelta

from assistant.app.alerts import Alerts, Condition, disk
from assistant.metrics import Streak
from assistant.scheduler import Notice
from assistant.tasks import Owner

OWNER = Owner(42, 42)


class Outbox:
    def __init__(self) -> None:
        self.sent: list[str] = []
        self.down = False

    async def deliver(self, notice: Notice) -> int:
        if self.down:
            raise ConnectionError("no network")
        assert notice.owner == OWNER
        self.sent.append(notice.text)
        return len(self.sent)


async def test_a_model_down_for_ten_minutes_is_told_once_then_its_recovery(clock):
    streak, outbox = Streak(), Outbox()
    condition = Condition(
        "the model", lambda now: streak.problem(now, "The model m has not answered")
    )
    alerts = Alerts(outbox, OWNER, clock, [condition])
    streak.failed(clock.now(), "connection refused")
    for _ in range(9):
        clock.advance(timedelta(minutes=1))
        streak.failed(clock.now(), "connection refused")  # retries: not a message each
        await alerts.check()
    assert outbox.sent == []
    clock.advance(timedelta(minutes=2))
    await alerts.check()
    await alerts.check()
    assert outbox.sent == ["⚠️ The model m has not answered for 11 minutes (connection refused)."]
    streak.ok()
    await alerts.check()
    await alerts.check()
    assert outbox.sent[1:] == ["✅ Fixed: the model works again."]


async def test_a_message_that_could_not_go_out_is_tried_again_next_time(clock):
    outbox = Outbox()
    outbox.down = True
    alerts = Alerts(outbox, OWNER, clock, [Condition("x", lambda now: "x is broken.")])
    await alerts.check()
    outbox.down = False
    await alerts.check()
    assert outbox.sent == ["⚠️ x is broken."]


async def test_a_nearly_full_disk_is_told(tmp_path, clock):
    full = shutil._ntuple_diskusage(10 * 2**30, 10 * 2**30 - 50 * 2**20, 50 * 2**20)  # type: ignore[attr-defined]
    roomy = shutil._ntuple_diskusage(10 * 2**30, 2**30, 9 * 2**30)  # type: ignore[attr-defined]
    outbox = Outbox()
    assert disk(tmp_path, lambda folder: roomy).problem(clock.now()) is None
    await Alerts(outbox, OWNER, clock, [disk(tmp_path, lambda folder: full)]).check()
    assert outbox.sent == [f"⚠️ The disk of {tmp_path} is nearly full: 50 MB free."]


async def test_an_mcp_server_down_is_told_once_with_its_reason(clock, tmp_path):
    from mcp_fixtures import running, stdio

    from assistant.app.alerts import servers
    from assistant.mcp import Backoff

    outbox = Outbox()
    async with running(stdio(tmp_path, "exit"), backoff=Backoff(60, 60)) as hub:
        alerts = Alerts(outbox, OWNER, clock, servers(hub))
        await alerts.check()
        await alerts.check()
    (said,) = outbox.sent
    assert said.startswith("⚠️ The MCP server test is down (the server exited: the test server")
    assert "its tools are left out" in said
