"""`revetly doctor`: does each source read, is the index current, and how each client connects."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from revetly_core.answers.health import HealthAnswer, SourceHealth
from revetly_core.answers.operate import (
    DoctorAnswer,
    DoctorIndex,
    DoctorServed,
    DoctorSource,
    DoctorWarning,
    Held,
    Probe,
)
from revetly_core.config import Config
from revetly_core.operate.clients import CLIENT_TABLE, Declared, connect_line

PROBE_TIMEOUT_S = 2.0
"""How long doctor waits for a served endpoint to answer before it says it does not."""


def probe_source(connector: Any) -> Probe:
    """Whether one declared source can be read now, and a line saying what was found."""
    import pygit2

    from revetly_core.connectors.commits import CommitsConnector
    from revetly_core.connectors.gitfolder import FolderSource, GitFolder
    from revetly_core.connectors.repository import RepositoryConnector

    try:
        if isinstance(connector, RepositoryConnector):
            files = connector.list_files()
            return {"reads": True, "detail": f"{len(files)} files under "
                    f"{', '.join(connector.folders)}"}
        if isinstance(connector, CommitsConnector):
            repo = pygit2.Repository(str(connector.path))
            if repo.head_is_unborn:
                return {"reads": True, "detail": f"{connector.path}: no commits yet"}
            return {"reads": True, "detail": f"{connector.path} at {str(repo.head.target)[:12]}"}
        if isinstance(connector, FolderSource):
            folder = connector.find_folder()
            if folder is None:
                return {"reads": False, "detail": connector.missing_folder()}
            count = len(GitFolder(connector.path, folder).blobs())
            return {"reads": True, "detail": f"{count} files under {connector.path}/{folder}"}
    except (RuntimeError, OSError, pygit2.GitError) as exc:
        return {"reads": False, "detail": str(exc)}
    return {"reads": True, "detail": type(connector).__name__}


def held_by_source(store: Any) -> dict[str, Held]:
    """source -> what CONTEXT holds of it: live artifacts by type, deleted, problems."""
    out: dict[str, Held] = {}
    for source, typ, deleted, n in store.artifact_counts():
        entry = out.setdefault(source, {"artifacts": 0, "by_type": {}, "deleted": 0, "problems": 0})
        if deleted:
            entry["deleted"] += n
        else:
            entry["artifacts"] += n
            entry["by_type"][typ] = entry["by_type"].get(typ, 0) + n
    from revetly_core.reads.check import problem_severity

    for source, code, severity, n in store.problem_counts():
        entry = out.setdefault(source, {"artifacts": 0, "by_type": {}, "deleted": 0,
                                        "problems": 0})
        entry["problems"] += n
        if problem_severity({"code": code, "severity": severity}) == "error":
            entry["errors"] = entry.get("errors", 0) + n
    return out


def outside_by_source(store: Any) -> dict[str, dict[str, int]]:
    """source -> its untyped and unmapped item counts, for the sources holding any (the set
    list_backlog's outside_backlog counts)."""
    from revetly_core.reads.outside import why_counts

    rows = store.outside_counts()
    return {source: why_counts([r for r in rows if r[0] == source])
            for source in sorted({r[0] for r in rows})}


def declared_of(config: Config, root: Path) -> Declared:
    """What the instance declares about being reached: the stdio command, and where a served
    endpoint is ([served] public_url and bind address, [auth] registration_hosts) once the
    configuration declares one."""
    from revetly_core.instance.scaffold_hosts import server_command

    command, args = server_command(root)
    served = getattr(config, "served", None)
    auth = getattr(config, "auth", None)
    hosts = tuple(getattr(auth, "registration_hosts", None) or ())
    verifier = getattr(auth, "verifier", None)
    return Declared(
        stdio_command=[command, *args],
        public_url=getattr(served, "public_url", None),
        bind_url=getattr(served, "bind_url", None),
        auth=bool(verifier),
        registration_hosts=hosts,
    )


def proxy_warning(declared: Declared) -> DoctorWarning | None:
    """A public_url that is not the bind address means something in front carries clients in."""
    if declared.public_url is None or declared.public_url == declared.bind_url:
        return None
    return {"code": "behind-proxy",
            "detail": f"[served] public_url {declared.public_url} is not the address the engine "
                      f"binds ({declared.bind_url or 'unstated'}): a proxy carries callers to it, "
                      "and doctor cannot see what that proxy lets through",
            "fix": "make sure the proxy forwards only to the loopback bind and passes "
                   "Authorization through unchanged"}


def served_of(root: Path, config: Config) -> tuple[DoctorServed, DoctorWarning | None]:
    """The endpoint's page callers: the origins [served] declares and, where [auth] audit_log is
    declared, the undeclared ones its newest lines show refused (with a warning when the log
    cannot be read)."""
    from revetly_core.auth.audit import AuditLog, audit_log_path
    from revetly_core.auth.origins import refused_origins

    declared = list(config.served.allowed_origins)
    block: DoctorServed = {"public_url": config.served.public_url, "allowed_origins": declared,
                           "audit_log": None, "origins_refused": None}
    if not config.auth.audit_log:
        return block, None
    path = audit_log_path(root, config.auth.audit_log)
    block["audit_log"] = str(path)
    try:
        lines = AuditLog(path).lines()
    except OSError as exc:
        return block, {"code": "audit-log-unreadable",
                       "detail": f"the audit log {path} cannot be read ({exc.strerror}): doctor "
                                 "cannot tell which page origins the endpoint refused",
                       "fix": "let the user running doctor read the file [auth] audit_log names"}
    block["origins_refused"] = refused_origins(lines, declared)
    return block, None


def endpoint_answers(url: str, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether anything answers HTTP at url (any status counts: a 401 is an answer)."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    conn_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = conn_type(parts.hostname or "localhost", parts.port, timeout=timeout)
    try:
        conn.request("GET", parts.path or "/")
        conn.getresponse().read(0)
        return True
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


def endpoint_warning(url: str | None, answering: bool) -> DoctorWarning | None:
    """A declared served endpoint that does not answer is a warning naming it."""
    if url is None or answering:
        return None
    return {"code": "endpoint-not-answering",
            "detail": f"the served endpoint {url} did not answer within {PROBE_TIMEOUT_S:g}s",
            "fix": "start it (`revetly serve --http`, or `revetly supervise` on an instance "
                   "that declares [auth]) and run `revetly doctor` again"}


def problems_warning(source: str, problems: int) -> DoctorWarning | None:
    """Files a source holds that the last pass skipped for breaking the schema (errors only:
    warnings and notes, such as a second copy of an id, are named by check, not here)."""
    if not problems:
        return None
    return {"code": "source-problems",
            "detail": f"{source}: {problems} files break the schema and were skipped",
            "fix": "run `revetly check` to name each one and what is wrong with it"}


def label_warning(source: str, repo: str, label: str, exists: bool | None) -> DoctorWarning | None:
    """A GitHub source whose in-progress label is not in the repository (or could not be
    looked up): set_status in-progress needs it, so it is named until it exists."""
    if exists:
        return None
    if exists is None:
        return {"code": "in-progress-label-unchecked",
                "detail": f"{source}: could not ask {repo} whether its in-progress label "
                          f"{label!r} exists", "fix": "check the token and api_url, then run "
                          "`revetly doctor` again"}
    return {"code": "in-progress-label-missing",
            "detail": f"{source}: {repo} has no label {label!r}; set_status in-progress puts "
                      "it on the issue", "fix": f"create the label {label!r} in {repo} (or set "
                      "in_progress_label to one it has)"}


def label_warnings(config: Config) -> list[DoctorWarning]:
    """The in-progress label line of each declared GitHub source (one request each)."""
    from revetly_core.connectors.github import github_source_id
    from revetly_core.writeback.github import label_exists

    out: list[DoctorWarning] = []
    for settings in config.connectors.github:
        found = label_warning(github_source_id(settings.name), settings.repo,
                              settings.in_progress_label, label_exists(settings))
        if found is not None:
            out.append(found)
    return out


def state_warnings(health: HealthAnswer | None) -> list[DoctorWarning]:
    """What the store's own state says is wrong: never read, last pass failed, index behind."""
    if health is None:
        return [{"code": "not-synced", "detail": "this instance has not been read yet",
                 "fix": "run `revetly sync`"}]
    out: list[DoctorWarning] = []
    if "context_health" in health:
        out.append({"code": "last-pass-failed", "detail": str(health["context_health"]["error"]),
                    "fix": "fix the cause, then run `revetly sync`"})
    if not health["index"]["current"]:
        out.append({"code": "index-behind",
                    "detail": f"the keyword index is at revision {health['index']['revision']}, "
                              f"the store at {health['corpus_revision']}",
                    "fix": "run `revetly sync` (the index is rebuilt on the next pass)"})
    return out


def doctor(root: Path, config: Config) -> DoctorAnswer:
    """The whole report: sources, index, one connect line per proven client, and warnings."""
    from revetly_core import __version__
    from revetly_core.auth.origins import refused_origin_warning
    from revetly_core.ingest.readpass import connectors_for
    from revetly_core.instance.layout import InstancePaths
    from revetly_core.reads.health import context_health
    from revetly_core.refusal import Refusal
    from revetly_core.store.db import Store
    from revetly_core.store.keyword import KeywordIndex

    paths = InstancePaths(root)
    health: HealthAnswer | None = None
    held: dict[str, Held] = {}
    outside: dict[str, dict[str, int]] = {}
    warnings: list[DoctorWarning] = []
    store_refused = False
    if paths.db.exists():
        try:
            store = Store(paths.db, readonly=True)
        except Refusal as refusal:
            warnings.append({"code": refusal.code, "detail": refusal.detail, "fix": refusal.fix})
            store_refused = True
        else:
            try:
                health = context_health(config, store, KeywordIndex(paths.index,
                                                                    config.index.backend))
                held = held_by_source(store)
                outside = outside_by_source(store)
            finally:
                store.close()
    last_reads: dict[str, SourceHealth] = {s["source"]: s for s in (health["sources"] if health else [])}
    sources: list[DoctorSource] = []
    for connector in connectors_for(root, config):
        sid = connector.source_id
        probe = probe_source(connector)
        read: Mapping[str, Any] = last_reads.get(sid, {})
        entry: DoctorSource = {
            "source": sid, "project": connector.project, "reads": probe["reads"],
            "detail": probe["detail"],
            "holds": held.get(sid, {"artifacts": 0, "by_type": {}, "deleted": 0, "problems": 0}),
            "last_read_at": read.get("last_read_at"), "outcome": read.get("outcome"),
        }
        if read.get("floor"):
            entry["floor"] = read["floor"]
        if read.get("partial"):
            entry["partial"] = True
        if sid in outside:
            entry["untyped"], entry["unmapped"] = outside[sid]["untyped"], outside[sid]["unmapped"]
        sources.append(entry)
        if not probe["reads"]:
            warnings.append({"code": "source-unreadable", "detail": f"{sid}: {probe['detail']}",
                             "fix": f"fix the path or folder declared for {sid} in revetly.toml"})
        found = problems_warning(sid, entry["holds"].get("errors", 0))
        if found is not None:
            warnings.append(found)
    if not store_refused:
        warnings.extend(state_warnings(health))
    declared = declared_of(config, root)
    for found in (proxy_warning(declared), _endpoint_check(declared)):
        if found is not None:
            warnings.append(found)
    warnings.extend(label_warnings(config))
    served, unreadable = served_of(root, config)
    if unreadable is not None:
        warnings.append(unreadable)
    warnings.extend(refused_origin_warning(e) for e in served["origins_refused"] or [])
    index: DoctorIndex | None = None if health is None else {
        **health["index"], "store_revision": health["corpus_revision"]}
    return {
        "instance": config.instance.name, "root": str(root), "version": __version__,
        "sources": sources, "index": index,
        "freshness": None if health is None else health["freshness"],
        "connect": [connect_line(row, declared) for row in CLIENT_TABLE],
        "served": served,
        "warnings": warnings, "ok": not warnings,
    }


def _endpoint_check(declared: Declared) -> DoctorWarning | None:
    url = declared.bind_url or declared.public_url
    if url is None:
        return None
    return endpoint_warning(url, endpoint_answers(url))
