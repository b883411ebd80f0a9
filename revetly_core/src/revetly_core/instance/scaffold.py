"""`revetly init`: a new instance with its folders, configuration and agent-host wiring."""

from __future__ import annotations

import json
import os
from pathlib import Path

from revetly_core.answers.maintenance import InitAnswer
from revetly_core.refusal import Refusal

FOLDERS = ("backlog", "notes", "records")


def _toml_string(value: str) -> str:
    return json.dumps(value)


AUDIT_LOG = ".revetly/audit.jsonl"
"""Where `init --auth` points the served endpoint's audit lines (inside the instance)."""


def checked_issuer(issuer: str) -> str:
    """The issuer URL `init --auth` declares: https, or plain http only on a loopback host."""
    from urllib.parse import urlsplit

    parts = urlsplit(issuer.strip())
    loopback = parts.hostname in {"localhost", "127.0.0.1", "::1"}
    if not parts.hostname or parts.scheme not in {"http", "https"} or (
            parts.scheme == "http" and not loopback) or parts.query or parts.fragment:
        raise Refusal("invalid-argument", f"--auth {issuer!r} is not an issuer URL Revetly can "
                      "trust", "give the authorization server's https URL, e.g. --auth "
                      "https://login.example.com/realms/team (plain http only on localhost)")
    return issuer.strip().rstrip("/")


def auth_config_lines(issuer: str) -> list[str]:
    """The [auth] and [served] blocks `init --auth` adds: the jwt verifier at that issuer, an
    audit log inside the instance, the endpoint left on loopback until the operator opens it."""
    return [
        "",
        "# A served endpoint (`revetly serve --http`) checks every bearer token against this",
        "# issuer. See docs/serving.md for grants, introspection and running behind a proxy.",
        "[auth]",
        'verifier = "jwt"',
        f"issuer = {_toml_string(issuer)}",
        "scopes = []",
        f"audit_log = {_toml_string(AUDIT_LOG)}",
        "",
        "# Which projects a token's claim values reach; without this block a token reaches all.",
        "# [auth.grants]",
        '# claim = "groups"',
        "# [auth.grants.values]",
        '# "team" = ["PROJECT"]',
        "",
        "[served]",
        "# 127.0.0.1 serves this machine only; \"0.0.0.0\" serves others (the verifier allows it).",
        'host = "127.0.0.1"',
        "port = 8765",
        'path = "/mcp"',
        "# public_url = \"https://revetly.example.com/mcp\"   # when a proxy stands in front",
    ]


def default_config_text(name: str, commits: list[tuple[str, str]],
                        auth_issuer: str | None = None) -> str:
    """The revetly.toml `revetly init` writes: one project, the three folders, code repos,
    and with an issuer the [auth] and [served] blocks of a served endpoint."""
    lines = [
        "# Revetly instance configuration. See docs/configuration.md for every setting.",
        "",
        "[instance]",
        f"name = {_toml_string(name)}",
        f"default_project = {_toml_string(name)}",
        "",
        f"[projects.{_toml_string(name)}]",
        "imports = []",
        "",
        "[connectors.repository]",
        'paths = ["backlog", "notes", "records"]',
    ]
    for repo_name, path in commits:
        lines += [
            "",
            "[[connectors.commits]]",
            f"name = {_toml_string(repo_name)}",
            f"path = {_toml_string(path)}",
        ]
    if auth_issuer is not None:
        lines += auth_config_lines(auth_issuer)
    return "\n".join(lines) + "\n"


def gitignore_lines() -> tuple[str, ...]:
    """What an instance's .gitignore must hold: engine state, and the machine-local host files."""
    from revetly_core.instance.scaffold_hosts import MACHINE_LOCAL_FILES

    return (".revetly/", *(f"/{rel}" for rel in MACHINE_LOCAL_FILES))


def ensure_gitignore(root: Path) -> None:
    """Append each line of gitignore_lines() the instance's .gitignore lacks; keep the rest."""
    gitignore = root / ".gitignore"
    existing = gitignore.read_text() if gitignore.exists() else ""
    have = set(existing.splitlines())
    missing = [line for line in gitignore_lines() if line not in have]
    if not missing:
        return
    sep = "" if existing.endswith("\n") or not existing else "\n"
    gitignore.write_text(existing + sep + "".join(f"{line}\n" for line in missing))


def first_commit(root: Path, paths: list[str]) -> str:
    """The new repository's first commit: the files init wrote (host JSON files excepted)."""
    import time

    from revetly_core.writes.git_commit import commit_bytes, identity
    from revetly_core.writes.principal import resolve_local_principal

    who = identity(resolve_local_principal(root))
    files: dict[str, bytes | None] = {rel: (root / rel).read_bytes() for rel in sorted(set(paths))}
    return commit_bytes(root, files, "revetly init: a new instance", who, who, int(time.time()))


def _safe_name(path: Path, fallback: str = "revetly") -> str:
    """A configuration name from a folder name: ASCII letters, digits, '.', '_', '-'."""
    import re
    import unicodedata

    ascii_name = unicodedata.normalize("NFKD", path.name).encode("ascii", "ignore").decode()
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", ascii_name)
    name = re.sub(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "", name)
    return name or fallback


def scaffold_instance(path: Path, commits: list[str] | None = None, *,
                      commit: bool = True, auth_issuer: str | None = None) -> InitAnswer:
    """Create an instance at path: git repo, revetly.toml, folders, .gitignore, host files;
    a repository it creates gets its first commit unless ``commit`` is False; ``auth_issuer``
    also declares a served endpoint that checks tokens from that issuer."""
    import pygit2

    issuer = None if auth_issuer is None else checked_issuer(auth_issuer)

    root = path.expanduser().resolve()
    if (root / "revetly.toml").exists():
        raise Refusal(
            "refused", f"{root} already holds an instance (revetly.toml exists)",
            "choose another folder, or edit its revetly.toml",
        )
    if root.exists() and not root.is_dir():
        raise Refusal("refused", f"{root} exists and is not a folder", "choose another path")
    declared: list[tuple[str, str]] = []
    seen: set[str] = set()
    for given in commits or []:
        repo_path = Path(given).expanduser().resolve()
        if pygit2.discover_repository(str(repo_path)) is None:
            raise Refusal(
                "refused", f"--commits {given}: not a git repository",
                "pass the folder of a git repository holding your code",
            )
        name = _safe_name(repo_path, fallback="code")
        while name in seen:
            name += "-2"
        seen.add(name)
        try:
            rel = os.path.relpath(repo_path, root)
        except ValueError:
            rel = str(repo_path)
        declared.append((name, rel))
    root.mkdir(parents=True, exist_ok=True)
    for folder in FOLDERS:
        (root / folder).mkdir(exist_ok=True)
        keep = root / folder / ".gitkeep"
        if not any((root / folder).iterdir()):
            keep.write_text("")
    (root / "revetly.toml").write_text(default_config_text(_safe_name(root), declared, issuer))
    ensure_gitignore(root)
    from revetly_core.instance.scaffold_hosts import all_host_files, write_host_files

    hosts = write_host_files(root, all_host_files(root))
    created_repo = not (root / ".git").exists()
    payload: InitAnswer = {
        "instance": str(root),
        "created_repository": created_repo,
        "config": "revetly.toml",
        "folders": list(FOLDERS),
        "commits": [{"name": n, "path": p} for n, p in declared],
        "host_files": hosts["written"],
        "host_files_kept": hosts["kept"],
        "next": "add markdown files under backlog/, notes/ or records/, then run `revetly sync`",
    }
    if issuer is not None:
        payload["auth"] = {"verifier": "jwt", "issuer": issuer, "audit_log": AUDIT_LOG}
    if created_repo:
        pygit2.init_repository(str(root), initial_head="main")
        payload["first_commit"] = None
        if commit:
            commit_scaffold(payload)
    return payload


def commit_scaffold(payload: InitAnswer) -> InitAnswer:
    """Give a repository init created its first commit (config, folders, portable host files)."""
    from revetly_core.instance.scaffold_hosts import MACHINE_LOCAL_FILES

    if not payload.get("created_repository"):
        return payload
    root = Path(payload["instance"])
    files = ["revetly.toml", ".gitignore",
             *(f"{f}/.gitkeep" for f in FOLDERS if (root / f / ".gitkeep").exists()),
             *(rel for rel in payload["host_files"] if rel not in MACHINE_LOCAL_FILES)]
    payload["first_commit"] = first_commit(root, files)
    return payload
