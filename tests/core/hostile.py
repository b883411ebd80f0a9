"""A hostile corpus: files that must each fail alone, beside good files that must all land.

Used by the hostile-pass tests (tests/core/ingest/test_ingest_hostile.py, tests/cli) and by
the peak-RSS benchmark (bench/bench_hostile.py). Every case is a function that plants one
hostile file (committed, or only in the work tree) in an instance's git repository and says
which path ``revetly check`` must name and with which code.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.core.gitrepo import GitRepo, md

SECRET = "zanzibarsecretword"
"""A word only the files outside the instance hold: found by search means a link was followed."""


@dataclass(frozen=True)
class Case:
    """One hostile file: how to plant it, the path check names, the codes it may name it with."""

    name: str
    path: str
    codes: frozenset[str]
    plant: Callable[[GitRepo, Path], None]
    """plant(repo, outside): write the file into the repo's work tree (``outside`` is a folder
    beside the instance for link targets)."""
    committed: bool = True


def front(path: str, block: str, body: str = "body\n") -> Callable[[GitRepo, Path], None]:
    """A case planting a markdown file whose frontmatter block is ``block``."""
    def plant(repo: GitRepo, outside: Path) -> None:
        repo.write(path, f"---\n{block}---\n{body}")
    return plant


def raw(path: str, data: bytes) -> Callable[[GitRepo, Path], None]:
    def plant(repo: GitRepo, outside: Path) -> None:
        repo.write(path, data)
    return plant


def link(path: str, target: Callable[[Path], str]) -> Callable[[GitRepo, Path], None]:
    """A case planting a symlink at ``path`` to ``target(outside)``."""
    def plant(repo: GitRepo, outside: Path) -> None:
        where = repo.root / path
        where.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target(outside), where)
    return plant


def _secret_file(outside: Path) -> str:
    outside.mkdir(parents=True, exist_ok=True)
    secret = outside / "secret.md"
    secret.write_text(f"---\nid: STORY-0900\ntitle: {SECRET}\ntype: story\n---\n{SECRET}\n")
    return str(secret)


def _fifo_outside(outside: Path) -> str:
    outside.mkdir(parents=True, exist_ok=True)
    fifo = outside / "pipe"
    if not fifo.exists():
        os.mkfifo(fifo)
    return str(fifo)


def _fifo_inside(repo: GitRepo, outside: Path) -> None:
    """A committed file replaced in the work tree by a FIFO (git never lists a lone FIFO)."""
    where = repo.root / "backlog" / "pipe.md"
    if where.exists():
        where.unlink()
    os.mkfifo(where)


def _sparse_huge(repo: GitRepo, outside: Path) -> None:
    """A 3 GB file that takes no disk: a read of it would take 3 GB of memory."""
    where = repo.root / "backlog" / "huge-untracked.md"
    where.parent.mkdir(parents=True, exist_ok=True)
    with open(where, "wb") as fh:
        fh.truncate(3 * 1024**3)


def _billion_laughs() -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        refs = ",".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "id: STORY-0101\ntitle: laughs\ntype: story\n" + "\n".join(lines) + "\n"


def _deep() -> str:
    return "id: STORY-0102\ntitle: deep\ntype: story\nx: " + "[" * 60 + "]" * 60 + "\n"


HEAD = "type: story\n"


def cases() -> list[Case]:
    """Every hostile case, each planting one file the pass must skip and check must name."""
    fm = front
    bad_value = frozenset({"bad-value"})
    return [
        Case("date 2025-02-30", "backlog/bad-date.md", bad_value,
             fm("backlog/bad-date.md", f"id: STORY-0201\ntitle: t\n{HEAD}created: 2025-02-30\n")),
        Case(".nan", "backlog/nan.md", bad_value,
             fm("backlog/nan.md", f"id: STORY-0202\ntitle: t\n{HEAD}weight: .nan\n")),
        Case("-.inf", "backlog/inf.md", bad_value,
             fm("backlog/inf.md", f"id: STORY-0203\ntitle: t\n{HEAD}weight: -.inf\n")),
        Case("5,000-digit integer", "backlog/huge-int.md", bad_value,
             fm("backlog/huge-int.md", f"id: STORY-0204\ntitle: t\n{HEAD}n: {'7' * 5000}\n")),
        Case("integer past 2**53", "backlog/big-int.md", bad_value,
             fm("backlog/big-int.md", f"id: STORY-0205\ntitle: t\n{HEAD}n: {2**64}\n")),
        Case("non-text key", "backlog/int-key.md", bad_value,
             fm("backlog/int-key.md", f"id: STORY-0206\ntitle: t\n{HEAD}1: one\n")),
        Case("!!binary value", "backlog/binary-value.md", bad_value,
             fm("backlog/binary-value.md", f"id: STORY-0207\ntitle: t\n{HEAD}b: !!binary aGk=\n")),
        Case("!!set value", "backlog/set.md", bad_value,
             fm("backlog/set.md", f"id: STORY-0208\ntitle: t\n{HEAD}s: !!set {{a, b}}\n")),
        Case("lone surrogate", "backlog/surrogate.md", frozenset({"bad-value", "bad-yaml"}),
             fm("backlog/surrogate.md", f'id: STORY-0209\ntitle: "\\ud800"\n{HEAD}')),
        Case("billion laughs", "backlog/laughs.md", frozenset({"yaml-bounds"}),
             fm("backlog/laughs.md", _billion_laughs())),
        Case("nesting 60 deep", "backlog/deep.md", frozenset({"yaml-bounds", "bad-yaml"}),
             fm("backlog/deep.md", _deep())),
        Case("recursive alias", "backlog/recursive.md", frozenset({"yaml-bounds"}),
             fm("backlog/recursive.md", f"id: STORY-0210\ntitle: t\n{HEAD}a: &a [*a]\n")),
        Case("full-width id", "backlog/full-width.md", frozenset({"id-not-ascii"}),
             fm("backlog/full-width.md", f"id: STORY-\uff10\uff10\uff10\uff15\ntitle: t\n{HEAD}")),
        Case("not UTF-8 content", "backlog/latin1.md", frozenset({"not-utf8"}),
             raw("backlog/latin1.md", b"---\nid: STORY-0211\ntitle: caf\xe9\ntype: story\n---\n")),
        Case("NUL bytes", "backlog/nul.md", frozenset({"binary"}),
             raw("backlog/nul.md", b"---\nid: STORY-0212\ntitle: t\ntype: story\n---\n\x00\n")),
        Case("over the size limit", "backlog/big.md", frozenset({"too-large"}),
             raw("backlog/big.md", b"---\nid: STORY-0213\ntitle: t\ntype: story\n---\n"
                 + b"x" * 1_100_000)),
        Case("not UTF-8 name", "backlog/caf\\xe9.md", frozenset({"bad-name"}),
             raw(os.fsdecode(b"backlog/caf\xe9.md"), md("STORY-0214", "name"))),
        Case("symlink out of the instance", "backlog/leak.md", frozenset({"outside-instance"}),
             link("backlog/leak.md", _secret_file)),
        Case("symlink to /dev/zero", "backlog/zero.md", frozenset({"outside-instance"}),
             link("backlog/zero.md", lambda _o: "/dev/zero")),
        Case("symlink to a FIFO", "backlog/fifo-link.md", frozenset({"outside-instance"}),
             link("backlog/fifo-link.md", _fifo_outside)),
        Case("a committed file now a FIFO", "backlog/pipe.md", frozenset({"not-regular"}),
             _fifo_inside, committed=False),
        Case("3 GB untracked file", "backlog/huge-untracked.md", frozenset({"too-large"}),
             _sparse_huge, committed=False),
    ]


GOOD = 20
"""How many good files stand beside the hostile ones."""


def good_files(count: int = GOOD) -> dict[str, str]:
    """Good stories STORY-0001.. that must all land whatever the hostile files do."""
    return {f"backlog/STORY-{i:04d}.md": md(f"STORY-{i:04d}", f"Good story {i}", body=f"word{i}\n")
            for i in range(1, count + 1)}


def plant_corpus(repo: GitRepo, outside: Path, chosen: list[Case] | None = None,
                 good: int = GOOD) -> list[Case]:
    """Good files and every (or each chosen) hostile case: committed ones in one commit, then
    the work-tree-only ones. Returns the cases planted."""
    planted = cases() if chosen is None else chosen
    for rel, text in good_files(good).items():
        repo.write(rel, text)
    if any(c.plant is _fifo_inside for c in planted):
        repo.write("backlog/pipe.md", md("STORY-0300", "Soon a FIFO"))
    for case in planted:
        if case.committed:
            case.plant(repo, outside)
    repo.commit("a hostile corpus")
    for case in planted:
        if not case.committed:
            case.plant(repo, outside)
    return planted
