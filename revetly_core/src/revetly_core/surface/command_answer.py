"""What a CLI twin's command answers: its values made the tool's arguments, then one engine
call. The generated `revetly` commands call this inside the command, so the engine loads only
when a command runs, never for --help."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from revetly_core.engine import Engine
from revetly_core.surface.catalogue import command_call
from revetly_core.surface.twins import CliTwin, local_paths, tool_arguments


def answer_command(instance: str | Path | None, tool: str, twin: CliTwin,
                   values: Mapping[str, Any]) -> Mapping[str, Any]:
    """Open the instance and answer the command: a write's read pass runs in a detached process
    (it outlives the command), and a file named from here is resolved against the declared
    repositories before the call."""
    engine = Engine.open(instance)
    if twin.write:
        engine.capture_mode = "process"
    arguments = tool_arguments(tool, twin, values)
    for name in local_paths(tool, twin):
        if arguments.get(name) is not None:
            arguments[name] = engine.repository_path(arguments[name])
    return command_call(tool, twin.command)(engine, **arguments)


def refused_by_status(twin: CliTwin, payload: Mapping[str, Any]) -> bool:
    """A write command whose answer has status 'refused' (a review refused, a flip refused)
    exits as a refusal does."""
    return twin.write and payload.get("status") == "refused"
