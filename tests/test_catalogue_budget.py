"""A catalogue that stays small: built-ins always, outside tools while they fit, the rest found
with find_tools and offered to the next model call of the turn."""

from __future__ import annotations

from collections.abc import Mapping

from agent_fixtures import ME, build_rig
from fakehttp import fake_server
from llm_fixtures import call, chat_reply

from assistant.mcp import RemoteTool
from assistant.mcp.names import MAX_NAME, exposed_name, offered
from assistant.servers import ServerSettings
from assistant.tools import Registry, Tool
from assistant.tools.builtin import builtin_tools
from assistant.tools.finder import Finder, words
from assistant.tools.outside import outside_tool
from assistant.tools.services import Services

TOPICS = [
    ("weather_now", "Current weather and temperature for a city"),
    ("send_email", "Send an email message to a contact"),
    ("create_issue", "Create an issue in a GitHub repository"),
    ("list_events", "List calendar events of a day"),
    ("read_file", "Read a text file from the notes folder"),
    ("stock_price", "The latest price of a stock ticker"),
]


class Source:
    """Outside tools as a server would give them (no server needed to budget them)."""

    def __init__(self, count: int) -> None:
        settings = ServerSettings(command=("x",))
        self._tools: dict[str, Tool] = {}
        for index in range(count):
            name, text = TOPICS[index % len(TOPICS)]
            remote = RemoteTool(
                "srv",
                f"{name}_{index}",
                exposed_name("srv", f"{name}_{index}"),
                f"{text} (variant {index}).",
                {"type": "object", "properties": {"q": {"type": "string"}}},
                True,
            )
            made = outside_tool(remote, settings, hub=None)  # type: ignore[arg-type]
            self._tools[made.name] = made

    def tools(self) -> Mapping[str, Tool]:
        return self._tools


def test_built_ins_always_then_outside_tools_while_they_fit_then_the_finder():
    registry = Registry(builtin_tools(), sources=[Source(60)], catalogue_tokens=3000)
    names = [spec.name for spec in registry.offered()]
    built_in = [t.name for t in builtin_tools() if t.name != "find_tools"]
    assert names[: len(built_in)] == built_in
    outside = [n for n in names if n.startswith("srv__")]
    assert 0 < len(outside) < 60 and outside == [f"srv__{n}" for n in _order(len(outside))]
    assert names[-1] == "find_tools"


def _order(count: int) -> list[str]:
    return [f"{TOPICS[i % len(TOPICS)][0]}_{i}" for i in range(count)]


def test_no_finder_when_everything_fits():
    registry = Registry(builtin_tools(), sources=[Source(3)], catalogue_tokens=100_000)
    names = [spec.name for spec in registry.offered()]
    assert "find_tools" not in names and sum(n.startswith("srv__") for n in names) == 3


def test_found_tools_join_the_offer_beyond_the_budget():
    registry = Registry(builtin_tools(), sources=[Source(60)], catalogue_tokens=2000)
    assert "srv__stock_price_59" not in [s.name for s in registry.offered()]
    assert "srv__stock_price_59" in [s.name for s in registry.offered({"srv__stock_price_59"})]


def test_the_finder_ranks_by_name_and_description_in_english_and_russian():
    finder = Finder(Source(12).tools().values())
    assert finder.search("what's the weather in Paris", 3)[0].tool.name.startswith("srv__weather")
    assert finder.search("какая погода в Москве", 3)[0].tool.name.startswith("srv__weather")
    assert finder.search("отправь письмо Анне", 3)[0].tool.name.startswith("srv__send_email")
    assert finder.search("open a github issue", 3)[0].tool.name.startswith("srv__create_issue")
    assert finder.search("zzz qqq", 3) == []


def test_words_split_names_and_stem_both_languages():
    assert words("readFile send_emails") == ["read", "file", "send", "email"]
    assert words("погоды")[:2] == ["погод", "weather"]


async def test_find_tools_adds_what_it_found_to_the_next_model_call(conn, clock):
    registry = Registry(builtin_tools(), sources=[Source(60)], catalogue_tokens=2000)
    async with fake_server() as server:
        rig = await build_rig(server, conn, clock, registry=registry)
        rig.agent._services = Services(registry=registry)  # what the app gives find_tools
        server.script(
            chat_reply(None, (call("c1", "find_tools", {"query": "stock price"}),)),
            chat_reply("Found it."),
        )
        await rig.agent.reply(ME, "what is ACME trading at?")
        await rig.inner.close()
    first, second = ([t["function"]["name"] for t in r.json()["tools"]] for r in server.requests)
    added = set(second) - set(first)
    assert "find_tools" in first and added  # the best three, less any already offered
    assert all(name.startswith("srv__stock_price_") for name in added)


def test_names_are_cut_cleaned_and_stay_unique_and_stable():
    assert exposed_name("github", "create_issue") == "github__create_issue"
    odd = exposed_name("fs", "read.file/v2")
    assert odd.startswith("fs__read_file_v2_") and len(odd) == len("fs__read_file_v2_") + 6
    long_a = exposed_name("server", "a" * 80 + "1")
    long_b = exposed_name("server", "a" * 80 + "2")
    assert len(long_a) == MAX_NAME and long_a != long_b
    assert exposed_name("server", "a" * 80 + "1") == long_a
    assert exposed_name("s", "x.y") != exposed_name("s", "x_y")


def test_server_globs_pick_and_deny_tools():
    assert offered("read_file", ("read_*",), ())
    assert not offered("write_file", ("read_*",), ())
    assert not offered("read_secret", (), ("*secret*",))
    assert offered("anything", (), ())
