"""An example of your own tools: copy it into the folder named by ``[tools] folder``.

Each ``@tool`` function becomes a tool the model may call: its docstring is the model's guide
(the first line what it does, ``Args:`` what each argument means), its type hints the schema
its arguments are checked against. ``async def`` runs in the assistant's loop; a plain ``def``
runs in a worker thread. ``ToolError`` refuses a call with words the model can act on.
``read_only=True`` says it changes nothing: it may run in scheduled
agent tasks; any other tool may be held for approval when the turn read outside content.
"""

from __future__ import annotations

import random

from assistant.tools import ToolError, tool


@tool(read_only=True)
def roll_dice(sides: int = 6, count: int = 1) -> list[int]:
    """Roll dice and give each result.

    Args:
        sides: faces of each die, 2 to 1000
        count: how many dice, 1 to 100
    """
    if not 2 <= sides <= 1000 or not 1 <= count <= 100:
        raise ToolError("sides must be 2..1000 and count 1..100")
    return [random.randint(1, sides) for _ in range(count)]


@tool(read_only=True)
async def pick_one(choices: list[str]) -> str:
    """Pick one of the choices at random.

    Args:
        choices: what to choose from
    """
    if not choices:
        raise ToolError("give at least one choice")
    return random.choice(choices)
