"""Where a write may land: inside the instance, through no symbolic link, into no special file."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from revetly_core.refusal import Refusal

if TYPE_CHECKING:  # a typed dict only: recovering a write never loads the answers
    from revetly_core.answers.maintenance import CheckProblem

WRITE_FOLDERS = ("backlog", "notes", "records")
"""The folders the writes create files in (a project may declare its own beneath them)."""


def _outside(root: Path, rel: str, detail: str) -> Refusal:
    return Refusal("outside-instance", f"{rel}: {detail}; a write lands only inside the instance",
                   "replace the link with a real folder or file inside the instance "
                   "(`revetly check` names each one), then write again",
                   {"path": rel, "wrote": False})


def link_on_path(root: Path, rel: str, *, folder: bool = False) -> str | None:
    """The first component of rel (below root) that is a symlink, or not a folder where one is
    needed, or (the last, unless folder) not a regular file; None when the path is sound."""
    parts = Path(rel).parts
    here = root
    for i, part in enumerate(parts):
        here = here / part
        try:
            st = os.lstat(here)
        except FileNotFoundError:
            return None  # the rest does not exist yet: it will be made as real folders
        last = i == len(parts) - 1 and not folder
        if stat.S_ISLNK(st.st_mode):
            return "/".join(parts[: i + 1]) + " is a symbolic link"
        if not last and not stat.S_ISDIR(st.st_mode):
            return "/".join(parts[: i + 1]) + " is not a folder"
        if last and not stat.S_ISREG(st.st_mode):
            return "/".join(parts[: i + 1]) + " is not a regular file"
    return None


def contained(root: Path, path: Path) -> str:
    """The instance-relative path a write may use for path; anything leaving the instance is
    refused, checked on each component (no link followed) and on the resolved path."""
    real_root = Path(os.path.realpath(root))
    try:
        rel = Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(root))).as_posix()
    except ValueError:
        raise _outside(root, str(path), "the path is not under the instance") from None
    if rel in ("", ".") or ".." in Path(rel).parts:
        raise _outside(root, rel, "the path does not name a file in the instance")
    problem = link_on_path(root, rel)
    if problem is not None:
        raise _outside(root, rel, problem)
    resolved = Path(os.path.realpath(root / rel))
    if not resolved.is_relative_to(real_root):
        raise _outside(root, rel, f"it resolves to {resolved}")
    return rel


def write_target_problems(root: Path, folders: tuple[str, ...]) -> list[CheckProblem]:
    """What `check` names on the write side: a write folder that is a link or not a folder."""
    problems: list[CheckProblem] = []
    for folder in sorted({f.strip("/") for f in folders if f.strip("/")}):
        probe = link_on_path(root, folder, folder=True)
        if probe is None:
            continue
        problems.append({
            "path": folder, "code": "write-target-outside",
            "detail": f"{probe}: writes into {folder}/ are refused, since they could land "
                      "outside the instance",
            "fix": "replace the link with a real folder inside the instance",
        })
    return problems
