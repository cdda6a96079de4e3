"""Scheduled api_call, web_search and agent_task runs, as the scheduler's executors."""

from __future__ import annotations

import pytest
from agent_fixtures import build_rig, sample_tools
from fakehttp import Reply, fake_server
from llm_fixtures import call, chat_reply
from tasks_fixtures import ALICE, FakeOutbox

from assistant.agent import Agent, AgentSettings
from assistant.agent.scheduled import AgentTaskExecutor
from assistant.errors import RetryableRunError, RunError
from assistant.memory.audit import AuditLog
from assistant.net import AddressPolicy, GuardedClient
from assistant.net.search import SearchHit
from assistant.net.secrets import Secret, SecretBook
from assistant.tasks import Firing, NewTask, TaskStore
from assistant.tasks.recurring import parse_recurring
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


@pytest.mark.parametrize(("status", "error"), [(503, RetryableRunError), (404, RunError)])
async def test_server_trouble_is_retried_and_a_refusal_is_not(
    conn, clock, server, client, status, error
):
    server.script(Reply(status, {"error": "x"}))
    firing = await stored(conn, clock, "api_call", {"url": url(server, "/x")})
    with pytest.raises(error):
        await ApiCallExecutor(client, SecretBook(), FakeOutbox()).run(firing)


async def test_a_blocked_address_is_a_failure_that_is_not_retried(conn, clock, client):
    firing = await stored(conn, clock, "api_call", {"url": "http://10.0.0.1/x"})
    with pytest.raises(RunError, match="not reachable") as caught:
        await ApiCallExecutor(client, SecretBook(), FakeOutbox()).run(firing)
    assert not isinstance(caught.value, RetryableRunError)


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
