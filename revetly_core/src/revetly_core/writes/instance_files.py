"""Reading and writing instance markdown files: frontmatter kept, body verbatim, ids allocated."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from revetly_core.ids import id_key
from revetly_core.markdown.frontmatter import FrontmatterError, join_frontmatter, split_frontmatter
from revetly_core.refusal import Refusal
from revetly_core.writes.journal import WriteBatch

FOLDER_OF_TYPE = {
    "epic": "backlog", "feature": "backlog", "story": "backlog", "task": "backlog",
    "bug": "backlog", "decision": "notes", "constraint": "notes", "assumption": "notes",
    "conversation": "notes", "reference": "notes", "delivery": "records",
}


def render_markdown(front: dict[str, Any], body: str) -> str:
    """A markdown instance file: the YAML frontmatter block, a blank line, the body; frontmatter
    the read schema would refuse is never written (the engine's own bug: refused as internal)."""
    try:
        return join_frontmatter(front, body)
    except FrontmatterError as exc:
        raise Refusal("internal", str(exc), "report this; nothing was written") from None


def read_markdown(path: Path, batch: WriteBatch | None = None) -> tuple[dict[str, Any], str]:
    """(frontmatter, body) of an instance file (as this write's batch leaves it, when given);
    a broken file is refused naming it."""
    try:
        if batch is not None:
            data = batch.read_bytes(path)
            if data is None:
                raise OSError("no such file")
            return split_frontmatter(data.decode("utf-8"))
        return split_frontmatter(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, FrontmatterError) as exc:
        raise Refusal("unreadable-file", f"{path.name} cannot be read: {exc}",
                      "fix the file (see `revetly check`), then write again") from None


def write_markdown(path: Path, front: dict[str, Any], body: str, batch: WriteBatch) -> None:
    """Plan an instance file as part of one write's batch (applied through its intent)."""
    batch.write(path, render_markdown(front, body).encode("utf-8"))


def next_id(root: Path, folder: str, family: str, width: int = 4,
            batch: WriteBatch | None = None) -> str:
    """The next free FAMILY-NNNN in a folder (by file name and the padding already in use),
    counting the files this write's batch already plans there."""
    highest = 0
    used_width = 0
    pattern = re.compile(rf"^{re.escape(family)}-(\d+)\.md$", re.IGNORECASE)
    target = root / folder
    names = set(batch.names_in(target)) if batch is not None else set()
    if target.is_dir() and not target.is_symlink():
        names |= {entry.name for entry in target.iterdir()}
    for name in names:
        m = pattern.match(name)
        if m:
            highest = max(highest, int(m.group(1)))
            used_width = max(used_width, len(m.group(1)))
    return f"{family}-{highest + 1:0{used_width or width}d}"


def locate_file(
    root: Path, artifact_id: str, hint: str | None, folders: tuple[str, ...], *, scan: bool = True
) -> Path | None:
    """The file declaring an id: the stored path first, then FAMILY-N.md, then (scan) every file."""
    key = id_key(artifact_id)
    if key is None:
        return None

    def declares(path: Path) -> bool:
        try:
            front, _ = split_frontmatter(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, FrontmatterError):
            return False
        return id_key(str(front.get("id", ""))) == key

    if hint and ".." not in Path(hint).parts and not Path(hint).is_absolute():
        p = root / hint
        if p.is_file() and declares(p):
            return p
    for folder in folders:
        for p in sorted((root / folder).rglob(f"{key.family}-*.md")):
            m = re.search(r"-(\d+)\.md$", p.name)
            if m and int(m.group(1)) == key.number and declares(p):
                return p
    for folder in folders if scan else ():
        for p in sorted((root / folder).rglob("*.md")):
            if declares(p):
                return p
    return None
