"""The write side of `revetly check`: write folders that leave the instance, interrupted writes,
write-backs that did not land on their tracker."""

from __future__ import annotations

from pathlib import Path

from revetly_core.answers.maintenance import CheckAnswer
from revetly_core.config import Config
from revetly_core.instance.layout import InstancePaths
from revetly_core.writeback.record import not_landed_problems
from revetly_core.writes.containment import WRITE_FOLDERS, write_target_problems
from revetly_core.writes.journal import pending_intent_problems


def write_folders(config: Config) -> tuple[str, ...]:
    """Every folder a write may create a file in: the defaults and each project's own paths."""
    folders = [*WRITE_FOLDERS]
    for project in config.projects.values():
        folders += [p.strip("/") for p in project.paths]
    return tuple(f for f in dict.fromkeys(folders) if f)


def add_write_problems(payload: CheckAnswer, root: Path, config: Config) -> CheckAnswer:
    """Add what the write side names to a check payload (and clear its ok when it names an
    error; a warning leaves it)."""
    found = write_target_problems(root, write_folders(config))
    found += pending_intent_problems(InstancePaths(root).state)
    found += not_landed_problems(InstancePaths(root).state)
    if not found:
        return payload
    problems = [*payload["problems"], *found]
    problems.sort(key=lambda p: (str(p.get("path")), p["code"], str(p.get("detail"))))
    out = payload.copy()
    out["problems"] = problems
    out["ok"] = payload["ok"] and all(p.get("severity") == "warning" for p in found)
    return out
