"""Writing git history fast: one `git fast-import` stream per repository, commit by commit."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType


class GitMissing(RuntimeError):
    """git is not on PATH (the synthetic histories are written with `git fast-import`)."""


def git_environment(name: str, email: str) -> dict[str, str]:
    """An environment where no user or system git configuration changes what is written."""
    env = dict(os.environ)
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C",
                "GIT_TERMINAL_PROMPT": "0", "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
                "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email})
    return env


def run_git(repo: Path, env: dict[str, str], *args: str) -> str:
    """Run one git command in repo and return its output."""
    return subprocess.run(["git", "-C", str(repo), *args], env=env, check=True,
                          capture_output=True, text=True).stdout


def init_repository(repo: Path, env: dict[str, str]) -> None:
    """An empty repository on branch main, line ends left as written."""
    if shutil.which("git") is None:
        raise GitMissing("git is needed to write a synthetic history")
    repo.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], env=env, check=True)
    run_git(repo, env, "config", "core.autocrlf", "false")


Change = tuple[str, bytes | None]
"""(path, new content) or (path, None) for a deletion."""


class HistoryWriter:
    """Feeds commits to `git fast-import` on refs/heads/main; marks give the commit ids."""

    def __init__(self, repo: Path, env: dict[str, str]) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="revetly-synthetic-"))
        self._marks = self._dir / "marks"
        self.repo, self.count = repo, 0
        self._proc = subprocess.Popen(
            ["git", "-C", str(repo), "fast-import", "--quiet", "--done",
             f"--export-marks={self._marks}"],
            stdin=subprocess.PIPE, env=env, bufsize=1 << 20)

    def commit(self, who: tuple[str, str], when: int, message: str,
               changes: list[Change]) -> int:
        """Queue one commit; returns its mark (see `commit_ids`)."""
        self.count += 1
        ident = f"{who[0]} <{who[1]}> {when} +0000".encode()
        text = message.encode()
        parts = [b"commit refs/heads/main\nmark :%d\nauthor %s\ncommitter %s\ndata %d\n%s\n"
                 % (self.count, ident, ident, len(text), text)]
        for path, data in changes:
            if data is None:
                parts.append(b"D " + path.encode() + b"\n")
            else:
                parts.append(b"M 100644 inline " + path.encode() + b"\ndata %d\n" % len(data)
                             + data + b"\n")
        assert self._proc.stdin is not None
        self._proc.stdin.write(b"".join(parts))
        return self.count

    def close(self) -> dict[int, str]:
        """Finish the stream; returns every mark's commit id."""
        assert self._proc.stdin is not None
        self._proc.stdin.write(b"done\n")
        self._proc.stdin.close()
        if self._proc.wait() != 0:
            raise RuntimeError(f"git fast-import failed in {self.repo}")
        marks: dict[int, str] = {}
        for line in self._marks.read_text(encoding="ascii").splitlines():
            mark, sha = line.split()
            marks[int(mark[1:])] = sha
        shutil.rmtree(self._dir, ignore_errors=True)
        return marks

    def __enter__(self) -> HistoryWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is not None:
            self._proc.kill()
            self._proc.wait()
            shutil.rmtree(self._dir, ignore_errors=True)
