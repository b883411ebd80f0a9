"""The public API of revetly_core, pinned: a change here is a change for every caller."""

from __future__ import annotations

import inspect

import revetly_core

PUBLIC = [
    "Artifact",
    "Config",
    "DashboardIdentity",
    "DiagnosticQualifier",
    "Engine",
    "EvidenceService",
    "ExampleExportService",
    "ExecutionContext",
    "FeedbackDashboard",
    "FeedbackRecovery",
    "FeedbackService",
    "GuardedDispatcher",
    "GuardedTool",
    "HistoryEntry",
    "Link",
    "OutcomeReport",
    "ProposalService",
    "RagAdapter",
    "RagHit",
    "RagQuery",
    "RagService",
    "RagSource",
    "Refusal",
    "RefusalCode",
    "RevetlyContextAdapter",
    "RuleLifecycle",
    "SQLiteRagProvider",
    "Scope",
    "Session",
    "UsageLedger",
    "VerificationService",
    "__version__",
    "canonical_code",
    "load_config",
    "parse_config",
]


def test_all_is_exactly_the_pinned_list_sorted() -> None:
    assert revetly_core.__all__ == PUBLIC
    assert sorted(revetly_core.__all__) == revetly_core.__all__


def test_every_public_name_resolves() -> None:
    for name in PUBLIC:
        assert getattr(revetly_core, name) is not None


def test_star_import_exports_exactly_the_public_names() -> None:
    namespace: dict[str, object] = {}
    exec("from revetly_core import *", namespace)
    assert sorted(k for k in namespace if k != "__builtins__") == PUBLIC


def test_version_matches_the_distribution() -> None:
    from importlib.metadata import version

    assert revetly_core.__version__ == version("revetly-core")


def test_engine_facade_methods() -> None:
    engine = revetly_core.Engine
    assert isinstance(inspect.getattr_static(engine, "open"), classmethod)
    assert isinstance(inspect.getattr_static(engine, "init"), staticmethod)
    assert list(inspect.signature(engine.init).parameters) == [
        "path", "commits", "source", "write_hosts", "auth_issuer"]
    assert list(inspect.signature(engine.open).parameters) == ["instance"]
    sync = inspect.signature(engine.sync).parameters
    assert sync["full"].kind is inspect.Parameter.KEYWORD_ONLY
    assert sync["full"].default is False
    for name in ("context_health", "check", "graph", "doctor", "watch", "backfill", "migrate",
                 "audit_links", "manual", "repository_path"):
        assert callable(getattr(engine, name))


def test_governed_layer_loads_on_first_use() -> None:
    import subprocess
    import sys

    probe = ("import sys, revetly_core; assert 'revetly_core.governed' not in sys.modules; "
             "revetly_core.RagService; assert 'revetly_core.governed' in sys.modules")
    subprocess.run([sys.executable, "-c", probe], check=True)
    from revetly_core.governed import RagService

    assert revetly_core.RagService is RagService


def test_refusal_is_an_exception_with_a_payload() -> None:
    r = revetly_core.Refusal("busy", "a pass is running", "wait", {"setting": "x"})
    assert isinstance(r, Exception)
    assert r.payload() == {"refusal": {"code": "busy", "detail": "a pass is running",
                                       "fix": "wait", "setting": "x"}}
    assert str(r) == "a pass is running — wait"
    assert r.args == ("busy: a pass is running",)
    assert revetly_core.Refusal("busy", "d", "f").extra == {}


def test_public_dataclasses() -> None:
    link = revetly_core.Link("A-1", "B-1", "references", "explicit-ref", (("in", "body"),))
    assert link.detail_dict() == {"in": "body"}
    assert hash(link) == hash(revetly_core.Link("A-1", "B-1", "references", "explicit-ref",
                                                (("in", "body"),)))
    art = revetly_core.Artifact("STORY-1", "story", "T", "repository", "acme")
    assert art.kind == "work-item"
    assert revetly_core.Artifact("c", "commit", "T", "commits/x", "acme").kind == "commit"
    entry = revetly_core.HistoryEntry("p", "2024-01-01", "added", "r")
    assert entry.author is None and entry.summary is None
