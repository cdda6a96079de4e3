"""Scheduled api_call, web_search and agent_task runs, as the scheduler's executors."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from agent_fixtures import build_rig, sample_tools
from fakehttp import Reply, fake_server
from llm_fixtures import call, chat_reply
from tasks_fixtures import ALICE, FakeOutbox

from assistant.agent import Agent, AgentSettings
from assistant.agent.dialog.scheduled import AgentTaskExecutor
from assistant.errors import RetryableRunError, RunError
from assistant.memory.audit import AuditLog
from assistant.net import AddressPolicy, GuardedClient
from assistant.net.search import SearchHit
from assistant.net.secrets import Secret, SecretBook
from assistant.scheduler import Scheduler
from assistant.schedules.recurring import parse_recurring
from assistant.tasks import Firing, NewTask, TaskStore
from assistant.tools import Executor, Registry
from assistant.tools.jobs import ApiCallExecutor, WebSearchExecutor


async def stored(conn, clock, kind: str, data: dict) -> Firing:
    store = TaskStore(conn, clock)
    parsed = parse_recurring("daily 9am", "Europe/Berlin", clock.now())
    task = await store.add(NewTask(ALICE, kind, f"the {kind}", parsed, data))
    return Firing(task, task.next_run)


@pytest.fixture
async def server():
    async with fake_server() as fake:
        yield fake


@pytest.fixture
async def client():
    guarded = GuardedClient(AddressPolicy.allowing(hosts=["localhost"]))
    yield guarded
    await guarded.close()


def url(server, path: str) -> str:
    return f"http://localhost:{server.url.rsplit(':', 1)[1]}{path}"


async def test_a_scheduled_api_call_reports_its_answer(conn, clock, server, client):
    server.script(Reply(raw=b'{"on": false}', headers={"content-type": "application/json"}))
    secrets = SecretBook(
        [Secret("HOME", "T_HOME", frozenset({"localhost"}))], {"T_HOME": "tok-12345"}
    )
    outbox = FakeOutbox()
    firing = await stored(
        conn,
        clock,
        "api_call",
        {"url": url(server, "/off"), "method": "POST", "headers": {"X-Key": "secret:HOME"}},
    )
    executor = ApiCallExecutor(client, secrets, outbox)
    delivery = await executor.run(firing)
    assert server.requests[0].headers["x-key"] == "tok-12345" and delivery.summary == "HTTP 200"
    (notice,) = outbox.notices
    assert (
        "POST" in notice.text and "→ 200" in notice.text and f"task {firing.task.id}" in notice.text
    )
    assert not executor.replayable(firing.task)


@pytest.mark.parametrize("status", [408, 429, 500, 503])
async def test_passing_server_trouble_is_retried(conn, clock, server, client, status):
    server.script(Reply(status, {"error": "x"}))
    firing = await stored(conn, clock, "api_call", {"url": url(server, "/x")})
    with pytest.raises(RetryableRunError, match=f"HTTP {status}"):
        await ApiCallExecutor(client, SecretBook(), FakeOutbox()).run(firing)


async def test_an_unreachable_server_is_retried(conn, clock, client):
    firing = await stored(conn, clock, "api_call", {"url": "http://localhost:9/x"})
    with pytest.raises(RetryableRunError, match="request failed"):
        await ApiCallExecutor(client, SecretBook(), FakeOutbox()).run(firing)


def redirect_loop(request):
    return Reply(302, headers={"location": request.path + "x"})


PERMANENT = {
    "refusal": (lambda s: s.script(Reply(404, {"error": "no such lamp"})), "/x", "HTTP 404"),
    "unauthorised": (lambda s: s.script(Reply(401, {"error": "bad key"})), "/x", "HTTP 401"),
    "content type": (
        lambda s: s.script(Reply(raw=b"\x89PNG", headers={"content-type": "image/png"})),
        "/x",
        "image/png content is not read",
    ),
    "redirects": (lambda s: setattr(s, "default", redirect_loop), "/r", "more than 5 redirects"),
}


@pytest.mark.parametrize("case", sorted(PERMANENT))
async def test_a_permanent_failure_is_one_final_error_and_no_other_message(
    conn, clock, server, client, case
):
    prepare, path, reason = PERMANENT[case]
    prepare(server)
    outbox = FakeOutbox()
    firing = await stored(conn, clock, "api_call", {"url": url(server, path)})
    with pytest.raises(RunError, match=reason) as caught:
        await ApiCallExecutor(client, SecretBook(), outbox).run(firing)
    assert not isinstance(caught.value, RetryableRunError)
    assert outbox.notices == []  # the scheduler's failure report is the one message


async def test_a_refused_call_tells_its_owner_once(tmp_path, conn, clock, server, client):
    server.script(Reply(404, {"error": "no such lamp"}))
    firing = await stored(conn, clock, "api_call", {"url": url(server, "/lamp")})
    outbox = FakeOutbox()
    executors = {"api_call": ApiCallExecutor(client, SecretBook(), outbox)}
    scheduler = Scheduler(tmp_path / "assistant.db", clock, executors, outbox)
    try:
        clock.advance(firing.scheduled_for - clock.now())
        assert await scheduler.fire_due() == 1
    finally:
        await scheduler.close()
    (notice,) = outbox.notices
    assert (
        notice.text.startswith("⚠️") and "HTTP 404" in notice.text and "no such lamp" in notice.text
    )
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("http://10.0.0.1/x", "not reachable"),
        ("http://[::1/x", "not a valid URL"),
    ],
)
async def test_a_refused_address_or_bad_url_is_final(conn, clock, client, target, reason):
    firing = await stored(conn, clock, "api_call", {"url": target})
    with pytest.raises(RunError, match=reason) as caught:
        await ApiCallExecutor(client, SecretBook(), FakeOutbox()).run(firing)
    assert not isinstance(caught.value, RetryableRunError)


async def test_stored_data_that_does_not_fit_its_model_fails_clearly(conn, clock, client):
    firing = await stored(conn, clock, "api_call", {"url": "http://localhost/x"})
    bad = replace(
        firing.task, execution_json=json.dumps({"url": "http://localhost/x", "method": "FETCH"})
    )
    executor = ApiCallExecutor(client, SecretBook(), FakeOutbox())
    with pytest.raises(RunError, match="stored settings are not valid .*method"):
        await executor.run(replace(firing, task=bad))
    assert not executor.replayable(bad)


class Search:
    async def search(self, query: str, max_results: int) -> list[SearchHit]:
        return [SearchHit(f"{query} news", "https://news.example/1", "…")]


async def test_a_scheduled_search_sends_the_results(conn, clock):
    outbox = FakeOutbox()
    firing = await stored(conn, clock, "web_search", {"query": "rust release"})
    await WebSearchExecutor(Search(), outbox).run(firing)
    assert "rust release news\n  https://news.example/1" in outbox.notices[0].text


async def test_an_agent_task_runs_with_its_read_only_tools_only(conn, clock, server):
    rig = await build_rig(server, conn, clock)
    tools = Registry(sample_tools(rig.effects))
    firing = await stored(
        conn,
        clock,
        "agent_task",
        {"prompt": "what time is it?", "tools": ["get_time", "save_note", "transfer"]},
    )
    outbox = FakeOutbox()

    agent = Agent(
        rig.agent._model,
        Executor(tools, AuditLog(conn, clock)),
        rig.conversations,
        clock,
        settings=AgentSettings(stream=False),
    )
    runner = AgentTaskExecutor(agent, tools, outbox)
    assert runner.tools_for(firing.task).names() == ["get_time"]
    server.script(
        chat_reply(None, (call("c1", "save_note", {"content": "x"}),)), chat_reply("It is 10:26.")
    )
    await runner.run(firing)
    offered = [t["function"]["name"] for t in server.requests[0].json()["tools"]]
    assert offered == ["get_time"] and rig.effects.notes == []
    assert "It is 10:26." in outbox.notices[0].text
    await rig.inner.close()
