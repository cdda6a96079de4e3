"""Outside tools from real MCP servers (the SDK's server side, in ``mcp_server.py``): listed,
called, checked, approved, framed, supervised and ended like our own."""

from __future__ import annotations

import sys

import psutil
import pytest
from agent_fixtures import ME, build_rig
from conftest import fetch
from fakehttp import fake_server
from llm_fixtures import call, chat_reply
from mcp_fixtures import (
    free_port,
    http_server,
    journal,
    outside_registry,
    running,
    stdio,
    until,
)

from assistant.app.outside import server_specs
from assistant.config import parse_config
from assistant.llm.types import ToolCall
from assistant.mcp import Backoff, ServerSpec
from assistant.memory.audit import AuditLog
from assistant.tools import Executor
from assistant.tools.services import Services

TOKEN = "Bearer s3cret"


@pytest.fixture
async def server():
    async with fake_server() as fake:
        yield fake


def up(hub) -> bool:  # type: ignore[no-untyped-def]
    return all(c.state == "up" for c in hub)


async def test_stdio_tools_are_listed_with_their_server_and_called(tmp_path, conn, clock, context):
    async with running(stdio(tmp_path)) as hub:
        registry = outside_registry(hub)
        assert {"test__add", "test__write_entry", "test__read_mail"} <= set(registry.names())
        assert registry.get("test__add").origin == "server test"  # type: ignore[union-attr]
        executor = Executor(registry, AuditLog(conn, clock))
        (result,) = await executor.run([ToolCall("c1", "test__add", {"a": 2, "b": 3})], context)
    assert (result.content, result.is_error) == ("5", False)
    assert journal(tmp_path) == ["add 2 3"]
    rows = await fetch(conn, "SELECT tool, outcome, arguments FROM audit")
    assert rows == [("test__add", "ok", '{"a": 2, "b": 3}')]


async def test_a_bad_argument_is_refused_before_the_server_sees_it(tmp_path, conn, clock, context):
    async with running(stdio(tmp_path)) as hub:
        executor = Executor(outside_registry(hub), AuditLog(conn, clock))
        bad = [ToolCall("c1", "test__add", {"a": "two", "b": 3}), ToolCall("c2", "test__add", {})]
        first, second = await executor.run(bad, context)
    assert first.is_error and "argument 'a'" in first.content and "integer" in first.content
    assert second.is_error and "argument 'a' is required" in second.content
    assert "test__add(a: integer, b: integer)" in first.content
    assert journal(tmp_path) == []
    assert await fetch(conn, "SELECT outcome FROM audit") == [("invalid",), ("invalid",)]


async def test_a_write_asks_for_approval_with_the_exact_call(server, tmp_path, conn, clock):
    async with running(stdio(tmp_path)) as hub:
        rig = await build_rig(server, conn, clock, registry=outside_registry(hub))
        server.script(chat_reply(None, (call("c1", "test__write_entry", {"text": "hello"}),)))
        answer = await rig.agent.reply(ME, "write hello in the journal")
        await rig.inner.close()
    assert answer.ending == "awaiting"
    (asked,) = rig.prompts.shown
    assert asked.tool == "test__write_entry" and "hello" in asked.text
    assert journal(tmp_path) == []


async def test_a_read_only_tool_runs_without_asking(server, tmp_path, conn, clock):
    async with running(stdio(tmp_path)) as hub:
        rig = await build_rig(server, conn, clock, registry=outside_registry(hub))
        server.script(
            chat_reply(None, (call("c1", "test__add", {"a": 1, "b": 1}),)), chat_reply("2")
        )
        answer = await rig.agent.reply(ME, "1+1 with the tool")
        await rig.inner.close()
    assert answer.ending == "answered" and rig.prompts.shown == []


async def test_an_instruction_in_a_result_cannot_act(server, tmp_path, conn, clock):
    """Even with approve = "never", a write after outside content in the turn asks first."""
    async with running(stdio(tmp_path)) as hub:
        registry = outside_registry(hub, approve="never")
        rig = await build_rig(server, conn, clock, registry=registry)
        server.script(
            chat_reply(None, (call("c1", "test__read_mail", {}),)),
            chat_reply(None, (call("c2", "test__write_entry", {"text": "pwned"}),)),
        )
        answer = await rig.agent.reply(ME, "read my mail")
        await rig.inner.close()
    sent = server.requests[1].json()["messages"][-1]["content"]
    assert sent.startswith("<<untrusted data from test__read_mail")
    assert answer.ending == "awaiting" and "holds outside content" in rig.prompts.shown[0].text
    assert journal(tmp_path) == ["read_mail"]


async def test_an_error_from_the_server_is_outside_content_too(server, tmp_path, conn, clock):
    async with running(stdio(tmp_path)) as hub:
        rig = await build_rig(server, conn, clock, registry=outside_registry(hub, "never"))
        server.script(
            chat_reply(None, (call("c1", "test__fail", {}),)),
            chat_reply(None, (call("c2", "test__write_entry", {"text": "pwned"}),)),
        )
        answer = await rig.agent.reply(ME, "try it")
        await rig.inner.close()
    sent = server.requests[1].json()["messages"][-1]["content"]
    assert sent.startswith("ERROR: <<untrusted data from test__fail") and "fail" in sent
    assert answer.ending == "awaiting" and journal(tmp_path) == []


async def test_pictures_go_to_the_user(tmp_path, conn, clock, context):
    async with running(stdio(tmp_path)) as hub:
        executor = Executor(outside_registry(hub), AuditLog(conn, clock))
        (result,) = await executor.run([ToolCall("c1", "test__picture", {})], context)
    assert "one pixel" in result.content and "sent to the user" in result.content
    (attachment,) = context.attachments
    assert attachment.data.startswith(b"\x89PNG")


async def test_a_server_that_exits_at_start_is_down_with_its_reason(tmp_path):
    async with running(stdio(tmp_path, "exit"), backoff=Backoff(60, 60)) as hub:
        (connection,) = hub
        assert connection.state == "down"
        assert "refuses to start" in connection.reason
        assert outside_registry(hub).names() == []


async def test_a_server_that_never_answers_is_given_up_after_the_timeout(tmp_path):
    async with running(stdio(tmp_path, "hang", timeout=1), backoff=Backoff(60, 60)) as hub:
        (connection,) = hub
        assert (connection.state, connection.reason) == ("down", "no answer within 1 s")


async def test_a_program_that_does_not_exist_is_named(tmp_path):
    spec = ServerSpec("gone", command=(str(tmp_path / "nothing-here"),))
    async with running(spec, backoff=Backoff(60, 60)) as hub:
        (connection,) = hub
        assert "cannot start" in connection.reason and "nothing-here" in connection.reason


async def test_a_server_that_crashes_mid_session_comes_back(tmp_path, conn, clock, context):
    async with running(stdio(tmp_path), backoff=Backoff(0.0, 0.0)) as hub:
        executor = Executor(outside_registry(hub), AuditLog(conn, clock))
        version = hub.version
        (crashed,) = await executor.run([ToolCall("c1", "test__crash", {})], context)
        assert crashed.is_error and "went away" in crashed.content
        await until(hub, lambda h: h.version >= version + 2 and up(h))  # down, then up again
        (result,) = await executor.run([ToolCall("c2", "test__add", {"a": 1, "b": 2})], context)
    assert result.content == "3"


async def test_a_stdio_server_sees_only_the_variables_it_is_given(tmp_path, monkeypatch, context):
    monkeypatch.setenv("ASSISTANT_TELEGRAM_TOKEN", "123:secret-token")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("MCP_TEST_LOG", str(tmp_path / "journal.txt"))
    config = parse_config(
        {"mcp": {"servers": {"test": {"command": [sys.executable, "x"], "env": ["MCP_TEST_LOG"]}}}}
    )
    (spec,) = server_specs(config, tmp_path, tmp_path)
    assert spec.env == {"MCP_TEST_LOG": str(tmp_path / "journal.txt")}
    real = stdio(tmp_path)
    async with running(ServerSpec("test", real.command, env=spec.env)) as hub:
        outcome = await hub.call("test", "environment", {})
    names = set(outcome.text.split())
    assert "MCP_TEST_LOG" in names
    assert not names & {"ASSISTANT_TELEGRAM_TOKEN", "OPENAI_API_KEY"}
    assert names <= {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "MCP_TEST_LOG", "LC_CTYPE"}


async def test_a_variable_that_is_not_set_keeps_the_server_down_and_says_which(tmp_path):
    config = parse_config(
        {
            "mcp": {
                "servers": {
                    "gh": {
                        "url": "http://127.0.0.1:9/mcp",
                        "headers_env": {"Authorization": "NO_SUCH_VARIABLE_SET"},
                    }
                }
            }
        }
    )
    specs = server_specs(config, tmp_path, tmp_path)
    async with running(*specs, backoff=Backoff(60, 60)) as hub:
        (connection,) = hub
        assert "$NO_SUCH_VARIABLE_SET not set" in connection.reason


async def test_shutdown_ends_every_server_and_its_children(tmp_path):
    pidfile = tmp_path / "child.pid"
    async with running(stdio(tmp_path, "spawn", str(pidfile))) as hub:
        assert up(hub)
        child = psutil.Process(int(pidfile.read_text()))
        server = child.parent()
        assert server is not None and server.is_running()
    for process in (server, child):
        gone = not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
        assert gone, f"{process.pid} still runs"


async def test_http_behind_a_bearer_header_from_the_environment(tmp_path, monkeypatch, context):
    port = free_port()
    monkeypatch.setenv("TEST_MCP_AUTH", "Bearer s3cret")
    config = parse_config(
        {
            "mcp": {
                "servers": {
                    "web": {
                        "url": f"http://127.0.0.1:{port}/mcp",
                        "headers_env": {"Authorization": "TEST_MCP_AUTH"},
                    }
                }
            }
        }
    )
    with http_server(port, "s3cret"):
        async with running(*server_specs(config, tmp_path, tmp_path)) as hub:
            assert up(hub)
            outcome = await hub.call("web", "add", {"a": 20, "b": 22})
    assert outcome.text == "42"


async def test_http_with_a_wrong_token_is_down_and_says_so(tmp_path, monkeypatch):
    port = free_port()
    spec = ServerSpec("web", url=f"http://127.0.0.1:{port}/mcp", headers={"Authorization": "no"})
    with http_server(port, "s3cret"):
        async with running(spec, backoff=Backoff(60, 60)) as hub:
            (connection,) = hub
    assert connection.state == "down" and connection.reason


async def test_http_server_restarted_its_tools_come_back(tmp_path, conn, clock, context):
    """The new server does not know our session: it is renewed, with no restart of ours."""
    port = free_port()
    spec = ServerSpec("web", url=f"http://127.0.0.1:{port}/mcp", headers={"Authorization": TOKEN})
    first = http_server(port, "s3cret")
    first.__enter__()
    async with running(spec) as hub:
        executor = Executor(outside_registry(hub), AuditLog(conn, clock))
        version = hub.version
        first.__exit__(None, None, None)
        with http_server(port, "s3cret"):
            add = ToolCall("c1", "web__add", {"a": 1, "b": 2})
            (lost,) = await executor.run([add], context)
            assert lost.is_error
            await until(hub, lambda h: h.version >= version + 2 and up(h))
            (result,) = await executor.run([add], context)
    assert result.content == "3"


async def test_scheduled_agent_tasks_get_the_read_only_outside_tools(tmp_path):
    async with running(stdio(tmp_path)) as hub:
        registry = outside_registry(hub)
        services = Services(
            registry=registry,
            read_only_tools=lambda: frozenset(t.name for t in registry if t.read_only),
        )
        given = services.read_only_tools()
    assert {"test__add", "test__read_mail"} <= given and "test__write_entry" not in given
