"""``assistant tools``: the catalogue the model reads, where each tool comes from, and what was
left out and why."""

from __future__ import annotations

from typing import TextIO

from assistant.app import CatalogueFormat, Setup, build_registry, catalogue
from assistant.app.outside import Outside, outside, own_tools


async def list_tools(setup: Setup, form: CatalogueFormat, out: TextIO) -> int:
    """Print the catalogue (servers started, each within the connect timeout), then, in text
    form, the origin of every tool that is not built in and every server's state."""
    data = setup.database_path().parent
    async with outside(setup.config, setup.base, data) as found:
        registry = build_registry(setup.config, own=found.own(), sources=[found.servers])
        out.write(catalogue(registry, form) + "\n")
        if form == "text":
            out.writelines(f"{line}\n" for line in origins(found))
    return 0


def origins(found: Outside) -> list[str]:
    """Lines on the folder's and the servers' tools, and on what is missing."""
    lines: list[str] = []
    if found.folder is not None:
        lines.append(f"\nfolder {found.folder.path}:")
        lines += [f"  {t.name}  ({t.origin})" for t in found.folder.tools]
        lines += [f"  left out: {problem}" for problem in found.folder.problems]
    for connection in found.hub:
        name = connection.spec.name
        if connection.state != "up":
            lines.append(f"\nserver {name}: {connection.state} ({connection.reason})")
            continue
        lines.append(f"\nserver {name}: up, {len(connection.tools)} tools")
        lines += [f"  {t.exposed}  ({name}: {t.name})" for t in connection.tools]
    return lines


def check_folder(setup: Setup, out: TextIO) -> int:
    """``assistant tools --check``: load the folder and say what is wrong, naming file and line."""
    folder = own_tools(setup.config, setup.base)
    if folder is None:
        out.write("no tools folder is configured ([tools] folder in config.toml)\n")
        return 0
    for item in folder.tools:
        out.write(f"ok  {item.name}  ({folder.path / item.origin})\n")
    for problem in folder.problems:
        out.write(f"error  {problem}\n")
    out.write(f"{len(folder.tools)} tools loaded, {len(folder.problems)} problems\n")
    return 1 if folder.problems else 0
