"""The write side of `revetly check --repair`: doubled criteria sections folded, last list kept."""

from __future__ import annotations

from typing import Any

import yaml

from revetly_core.answers.maintenance import RepairAnswer, RepairedFile
from revetly_core.writes.answers import wrote_nothing
from revetly_core.writes.context import WriteContext
from revetly_core.writes.git_commit import identity
from revetly_core.writes.journal import write_lock
from revetly_core.writes.principal import Principal
from revetly_core.writes.reviews import utc_now
from revetly_core.writes.story_body import repair_doubled


def _amend_front(front_text: str, entry: dict[str, Any]) -> str:
    """Add the amended entry to review_log; a file without one gets the key appended."""
    data = yaml.safe_load(front_text) or {}
    if "review_log" not in data:
        tail = yaml.safe_dump({"review_log": [entry]}, sort_keys=False, allow_unicode=True)
        return front_text.rstrip("\n") + "\n" + tail
    log = data["review_log"] if isinstance(data["review_log"], list) else []
    data["review_log"] = [*log, entry]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


@wrote_nothing
def repair_doubled_sections(ctx: WriteContext, paths: list[str],
                            principal: Principal | None = None) -> RepairAnswer:
    """Fold each named file's doubled section (last list kept), log it, commit them together."""
    who = ctx.principal(principal)
    repaired: list[RepairedFile] = []
    with write_lock(ctx.paths.state, ctx.root, "repair") as batch:
        for rel in sorted(set(paths)):
            path = ctx.root / rel
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines(keepends=True)
            end = next(i for i in range(1, len(lines)) if lines[i].rstrip("\r\n") in ("---", "..."))
            front_text, body = "".join(lines[1:end]), "".join(lines[end + 1:])
            fixed = repair_doubled(body)
            if fixed == body:
                continue
            entry = {"at": utc_now(), "action": "amended", "by": who.name,
                     "detail": "folded a doubled acceptance-criteria section, keeping the last list"}
            new = "---\n" + _amend_front(front_text, entry) + lines[end] + fixed
            batch.write(path, new.encode("utf-8"))
            repaired.append({"path": rel})
        if not repaired:
            return {"repaired": [], "wrote": False}
        commit = batch.commit(
            f"check --repair: fold {len(repaired)} doubled criteria section(s)", identity(who))
    return {"repaired": repaired, "wrote": True, "commit": commit,
            "capture": ctx.captures.file(commit)}
