"""`revetly rag ...`: the governed document layer from the command line (JSON out).

Every command names the home (--root, --vault-id) and a credential *file*; a token is never an
argument. Application commands also name the scope (--agent, --workspace); the identity is the
credential's. `revetly rag owner ...` holds the owner's set-up commands.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from revetly_cli import output
from revetly_cli.common import EXIT_REFUSED, app, run_core

if TYPE_CHECKING:
    from revetly_core.governed.local import LocalGoverned
    from revetly_core.governed.scope import Scope

rag = typer.Typer(name="rag", no_args_is_help=True, help=(
    "Governed document search over an encrypted evidence vault: sources, search receipts, "
    "outcome reports. Prints JSON."))
owner_app = typer.Typer(name="owner", no_args_is_help=True,
                        help="Owner set-up: create a home, grant and revoke, import passages, schedules.")
rag.add_typer(owner_app)
app.add_typer(rag)


@dataclass
class RagOptions:
    root: Path
    vault_id: str
    credential_file: Path
    agent: str | None
    workspace: str | None

    def scope(self) -> Scope:
        from revetly_core.governed.scope import Scope

        return Scope(agent=self.agent or "", workspace=self.workspace or "")


@rag.callback()
def rag_options(
    ctx: typer.Context,
    root: Annotated[Path, typer.Option("--root", help="Folder holding vault homes.")],
    vault_id: Annotated[str, typer.Option("--vault-id", help="The vault's id (its home's folder name).")],
    credential_file: Annotated[Path, typer.Option(
        "--credential-file", help="Owner-private (0600) file holding the credential: the application's "
        "for the commands below, the owner's for `owner ...`.")],
    agent: Annotated[str | None, typer.Option("--agent", help="Agent of the scope.")] = None,
    workspace: Annotated[str | None, typer.Option("--workspace", help="Workspace of the scope.")] = None,
) -> None:
    """Name the home, the credential file and the scope once, before the command."""
    ctx.obj = RagOptions(root, vault_id, credential_file, agent, workspace)


def _options(ctx: typer.Context) -> RagOptions:
    options = ctx.find_object(RagOptions)
    assert options is not None
    return options


def _print(call: Callable[[], dict[str, Any]]) -> None:
    output.print_json(run_core(call, True))


def _with_session(ctx: typer.Context, call: Callable[[LocalGoverned], dict[str, Any]]) -> None:
    from revetly_core.governed.local import open_local

    options = _options(ctx)

    def run() -> dict[str, Any]:
        local = open_local(options.root, options.vault_id, options.credential_file,
                           options.agent or "", options.workspace or "")
        try:
            return call(local)
        finally:
            local.close()

    _print(run)


@rag.command()
def serve(ctx: typer.Context,
          memory: Annotated[Path | None, typer.Option(
              "--memory", help="Bind proposals to this Revetly instance (canonical memory); "
              "without it the feedback_propose_* tools answer memory-not-bound.")] = None,
          memory_tenant: Annotated[str, typer.Option("--memory-tenant", help="Its tenant.")] = "local",
          egress_class: Annotated[str, typer.Option(
              "--egress-class", help="remote (sensitive sources withheld) or local.")] = "remote") -> None:
    """Serve the governed tools to one local MCP client over stdio."""
    try:
        from revetly_mcp.governed_server import GovernedMCPServer
    except ImportError:
        sys.stderr.write("revetly rag serve needs the revetly-mcp package: pip install revetly-mcp\n")
        raise typer.Exit(EXIT_REFUSED) from None
    from revetly_core.governed.local import open_local

    options = _options(ctx)
    local = run_core(lambda: {"local": open_local(options.root, options.vault_id, options.credential_file,
                                               options.agent or "", options.workspace or "")},
                 False)["local"]
    try:
        proposals = None
        if memory is not None:
            from revetly_core.governed.owner_proposals import MemoryOptions, bound_proposals

            binding = MemoryOptions(memory, memory_tenant, egress_class)
            proposals = run_core(lambda: {"p": bound_proposals(local.feedback, binding)}, False)["p"]
        GovernedMCPServer(local.feedback, local.rag, local.session, proposals=proposals).serve()
    finally:
        local.close()


@rag.command()
def sources(ctx: typer.Context) -> None:
    """The registered sources of this scope (rag_sources)."""
    _with_session(ctx, lambda g: g.rag.sources(g.session))


@rag.command()
def capabilities(ctx: typer.Context) -> None:
    """This scope and the operations granted in it (feedback_capabilities)."""
    _with_session(ctx, lambda g: g.feedback.capabilities(g.session))


@rag.command()
def search(
    ctx: typer.Context,
    source: Annotated[str, typer.Option("--source", help="A registered source id.")],
    query: Annotated[str, typer.Option("--query", help="What to look for.")],
    key: Annotated[str, typer.Option("--key", help="Idempotency key: same key, same request, same receipt.")],
    jurisdiction: Annotated[str | None, typer.Option(
        "--jurisdiction", help="Keep only this jurisdiction.")] = None,
    as_of: Annotated[str | None, typer.Option(
        "--as-of", help="Keep passages in force on YYYY-MM-DD.")] = None,
    limit: Annotated[int, typer.Option("--limit", help="Hits to keep (1-50).")] = 10,
) -> None:
    """Search one source; prints the retained receipt (rag_search)."""
    from revetly_core.governed.sources import RagQuery

    _with_session(ctx, lambda g: g.rag.search(
        g.session, RagQuery(source, query, jurisdiction, as_of, limit),  # type: ignore[arg-type]
        idempotency_key=key))


@rag.command()
def inspect(
    ctx: typer.Context,
    receipt: Annotated[str, typer.Option("--receipt", help="A receipt id from search.")],
    document: Annotated[str, typer.Option("--document", help="A document id in that receipt.")],
    chunk: Annotated[str, typer.Option("--chunk", help="A chunk id in that receipt.")],
) -> None:
    """The exact passage retained in a receipt (rag_inspect)."""
    _with_session(ctx, lambda g: g.rag.inspect(g.session, receipt, document, chunk))


@rag.command()
def outcome(ctx: typer.Context,
            outcome_id: Annotated[str, typer.Option("--id", help="An outcome id.")]) -> None:
    """One retained outcome observation (feedback_outcome)."""
    _with_session(ctx, lambda g: g.feedback.outcome(g.session, outcome_id))


@rag.command()
def quality(ctx: typer.Context,
            schedule: Annotated[str, typer.Option(
                "--schedule", help="An owner-frozen schedule id.")]) -> None:
    """Counts for a frozen schedule; undefined rates are null (feedback_quality). Never cut."""
    _with_session(ctx, lambda g: g.feedback.quality(g.session, schedule))


@rag.command()
def report(
    ctx: typer.Context,
    file: Annotated[Path, typer.Option("--file", help="JSON outcome: {run_id, task_id, status, ...}.")],
    key: Annotated[str, typer.Option("--key", help="Idempotency key of this report.")],
) -> None:
    """Append an unverified outcome observation (feedback_report_outcome)."""
    from revetly_core.governed.local import load_json_file

    _with_session(ctx, lambda g: g.feedback.report_outcome(
        g.session, load_json_file(file), key))  # type: ignore[arg-type]


@rag.command()
def tools(ctx: typer.Context) -> None:
    """The guarded proxy tools registered for this scope, with exact schemas (guarded_tools).

    The CLI attaches no handlers: execution runs in the application that registered them."""
    from revetly_core.governed.dispatcher import GuardedDispatcher

    def run(g: LocalGoverned) -> dict[str, Any]:
        dispatcher = GuardedDispatcher(g.feedback)
        try:
            return dispatcher.tools(g.session)
        finally:
            dispatcher.close()

    _with_session(ctx, run)


@rag.command()
def execution(ctx: typer.Context,
              execution_id: Annotated[str, typer.Option("--id", help="An execution id.")]) -> None:
    """One guarded execution's admission, outcome and hold (guarded_inspect; not verification)."""
    from revetly_core.governed.dispatcher import GuardedDispatcher

    def run(g: LocalGoverned) -> dict[str, Any]:
        dispatcher = GuardedDispatcher(g.feedback)
        try:
            return dispatcher.inspect(g.session, execution_id)
        finally:
            dispatcher.close()

    _with_session(ctx, run)


@rag.command()
def usage(ctx: typer.Context,
          run_id: Annotated[str | None, typer.Option("--run", help="Only this run.")] = None) -> None:
    """Totals of the owner-recorded usage of this scope (partial host reports, not billing)."""
    from revetly_core.governed.usage import UsageLedger

    _with_session(ctx, lambda g: UsageLedger(g.feedback).usage(g.session, run_id))


@rag.command()
def metrics(ctx: typer.Context) -> None:
    """This process's operational counters for the scope (mostly useful from the Python API)."""
    _with_session(ctx, lambda g: g.feedback.operational_metrics(g.session))


# ---- owner set-up ----


@owner_app.command("init")
def owner_init(ctx: typer.Context) -> None:
    """Create the home (0700) and write the owner credential to --credential-file (0600, new file)."""
    from revetly_core.governed.owner import init_home

    o = _options(ctx)
    _print(lambda: init_home(o.root, o.vault_id, o.credential_file))


@owner_app.command("grant")
def owner_grant(
    ctx: typer.Context,
    app_credential_file: Annotated[Path, typer.Option(
        "--app-credential-file", help="The application's credential file; created (0600) if missing.")],
    operations: Annotated[str, typer.Option(
        "--operations", help="Comma list of search,inspect,read,report,execute,verify,propose.")],
    expires: Annotated[str | None, typer.Option("--expires", help="ISO instant with zone.")] = None,
    days: Annotated[float | None, typer.Option("--days", help="Or: expire this many days from now.")] = None,
) -> None:
    """Grant operations in --agent/--workspace to an application, until an expiry."""
    from revetly_core.governed.owner import grant_from_files

    o = _options(ctx)
    _print(lambda: grant_from_files(o.root, o.vault_id, o.credential_file, app_credential_file, o.scope(),
                                    [p.strip() for p in operations.split(",") if p.strip()], expires, days))


@owner_app.command("revoke")
def owner_revoke(
    ctx: typer.Context,
    grant: Annotated[str | None, typer.Option("--grant", help="A grant id to revoke.")] = None,
    app_credential_file: Annotated[Path | None, typer.Option(
        "--app-credential-file", help="Or: revoke this application credential entirely.")] = None,
) -> None:
    """Revoke a grant, or an application credential; effective at the next check."""
    from revetly_core.governed.owner import revoke_from_files

    o = _options(ctx)
    _print(lambda: revoke_from_files(o.root, o.vault_id, o.credential_file, grant, app_credential_file))


@owner_app.command("grants")
def owner_grants(ctx: typer.Context) -> None:
    """Every grant with its state now."""
    from revetly_core.governed.owner import list_grants

    o = _options(ctx)
    _print(lambda: list_grants(o.root, o.vault_id, o.credential_file))


@owner_app.command("put-documents")
def owner_put_documents(
    ctx: typer.Context,
    source: Annotated[str, typer.Option("--source", help="Source id.")],
    revision: Annotated[str, typer.Option(
        "--revision", help="Source revision; changed text needs a new one.")],
    file: Annotated[Path, typer.Option("--file", help="JSON lines: document_id, chunk_id, passage, ...")],
    collection: Annotated[str, typer.Option("--collection", help="Collection name.")] = "documents",
) -> None:
    """Register a sqlite-vault source in --agent/--workspace and import passages, encrypted."""
    from revetly_core.governed.owner import put_documents_file

    o = _options(ctx)
    _print(lambda: put_documents_file(o.root, o.vault_id, o.credential_file, o.scope(), source, collection,
                                      revision, file))


@owner_app.command("revoke-source")
def owner_revoke_source(ctx: typer.Context,
                        source: Annotated[str, typer.Option("--source", help="Source id.")]) -> None:
    """Withdraw a registered source; its receipts can no longer be inspected."""
    from revetly_core.governed.owner import revoke_source_file

    o = _options(ctx)
    _print(lambda: revoke_source_file(o.root, o.vault_id, o.credential_file, source))


@owner_app.command("freeze-schedule")
def owner_freeze_schedule(
    ctx: typer.Context,
    schedule: Annotated[str, typer.Option("--schedule", help="Schedule id.")],
    tasks: Annotated[str, typer.Option("--tasks", help="Comma list of task ids.")],
    task_class: Annotated[str | None, typer.Option("--task-class", help="The schedule's task class.")] = None,
    version: Annotated[list[str] | None, typer.Option(
        "--version", help="NAME=ID of a version the schedule runs (repeat for several).")] = None,
) -> None:
    """Freeze a schedule's tasks for --agent/--workspace; quality counts only these."""
    from revetly_core.governed.owner import freeze_schedule_file

    o = _options(ctx)
    _print(lambda: freeze_schedule_file(o.root, o.vault_id, o.credential_file, o.scope(), schedule,
                                        [t.strip() for t in tasks.split(",") if t.strip()],
                                        task_class=task_class, versions=version or []))


@owner_app.command("reconcile")
def owner_reconcile(
    ctx: typer.Context,
    execution: Annotated[str, typer.Option("--execution", help="The uncertain execution's id.")],
    verification: Annotated[str, typer.Option(
        "--verification", help="A retained effect_receipt verification of it.")],
    journal_file: Annotated[Path, typer.Option(
        "--journal-file", help="JSON: the backend's terminal journal receipt for the invocation.")],
) -> None:
    """Clear an uncertain execution's hold in --agent/--workspace from independent evidence."""
    from revetly_core.governed.owner_guarded import reconcile_file

    o = _options(ctx)
    _print(lambda: reconcile_file(o.root, o.vault_id, o.credential_file, o.scope(), execution,
                                  verification, journal_file))


@owner_app.command("reconcile-restore")
def owner_reconcile_restore(
    ctx: typer.Context,
    restore_id: Annotated[str, typer.Option("--restore-id", help="The restore event's id.")],
    confirm: Annotated[str, typer.Option("--confirm", help="The same restore event id, repeated.")],
) -> None:
    """After a restore, disable --agent/--workspace's live grants, sources and export consents."""
    from revetly_core.governed.owner_guarded import reconcile_restore_file

    o = _options(ctx)
    _print(lambda: reconcile_restore_file(o.root, o.vault_id, o.credential_file, o.scope(), restore_id,
                                          confirm))


@owner_app.command("adopt-preflight")
def owner_adopt_preflight(ctx: typer.Context) -> None:
    """Read-only: is the home bound to this machine, and which scopes must still reconcile."""
    from revetly_core.governed.owner import adopt_preflight_file

    o = _options(ctx)
    _print(lambda: adopt_preflight_file(o.root, o.vault_id, o.credential_file))


@owner_app.command("adopt")
def owner_adopt(
    ctx: typer.Context,
    adoption_id: Annotated[str, typer.Option("--adoption-id", help="A new adoption event id.")],
    confirm: Annotated[str, typer.Option("--confirm", help="The same adoption event id, repeated.")],
) -> None:
    """Bind a moved or restored home to this machine; feedback waits for reconcile-restore."""
    from revetly_core.governed.owner import adopt_file

    o = _options(ctx)
    _print(lambda: adopt_file(o.root, o.vault_id, o.credential_file, adoption_id, confirm))


@owner_app.command("rotate-master-key")
def owner_rotate_master_key(
    ctx: typer.Context,
    rotation_id: Annotated[str, typer.Option(
        "--rotation-id", help="This rotation's id (a retry repeats it).")],
) -> None:
    """Re-wrap every data key under a new master key, all or nothing; run it with the vault closed
    elsewhere."""
    from revetly_core.governed.owner import rotate_master_key_file

    o = _options(ctx)
    _print(lambda: rotate_master_key_file(o.root, o.vault_id, o.credential_file, rotation_id))


@owner_app.command("record-usage")
def owner_record_usage(
    ctx: typer.Context,
    file: Annotated[Path, typer.Option("--file", help="JSON: provider_receipt, run_id, usd_micros, "
                                       "input_tokens, output_tokens, model_calls (null: unknown).")],
) -> None:
    """Record one observed provider receipt's usage in --agent/--workspace; a receipt counts once."""
    from revetly_core.governed.owner_guarded import record_usage_file

    o = _options(ctx)
    _print(lambda: record_usage_file(o.root, o.vault_id, o.credential_file, o.scope(), file))


# ---- proposals and the rule lifecycle (canonical memory named explicitly) ----

MemoryOption = Annotated[Path | None, typer.Option(
    "--memory", help="The Revetly instance that is the canonical memory (required: never a default).")]
TenantOption = Annotated[str, typer.Option("--memory-tenant", help="The tenant that memory is bound to.")]
EgressOption = Annotated[str, typer.Option("--egress-class", help="remote (default) or local.")]


def _propose(ctx: typer.Context, kind: str, file: Path, key: str, memory: Path | None, tenant: str,
             egress: str) -> None:
    from revetly_core.governed.owner_proposals import MemoryOptions, propose_file

    o = _options(ctx)
    _print(lambda: propose_file(o.root, o.vault_id, o.credential_file, o.scope(),
                                MemoryOptions(memory, tenant, egress), kind, file, key))  # type: ignore[arg-type]


@rag.command("propose-rule")
def propose_rule(
    ctx: typer.Context,
    file: Annotated[Path, typer.Option("--file", help="JSON rule candidate.")],
    key: Annotated[str, typer.Option("--key", help="Idempotency key of this proposal.")],
    memory: MemoryOption = None, memory_tenant: TenantOption = "local", egress_class: EgressOption = "remote",
) -> None:
    """Propose a source-grounded rule (feedback_propose_rule); needs the propose grant."""
    _propose(ctx, "rule", file, key, memory, memory_tenant, egress_class)


@rag.command("propose-profile")
def propose_profile(
    ctx: typer.Context,
    file: Annotated[Path, typer.Option("--file", help="JSON profile candidate.")],
    key: Annotated[str, typer.Option("--key", help="Idempotency key of this proposal.")],
    memory: MemoryOption = None, memory_tenant: TenantOption = "local", egress_class: EgressOption = "remote",
) -> None:
    """Propose a bounded, source-grounded profile (feedback_propose_profile); needs the propose grant."""
    _propose(ctx, "profile", file, key, memory, memory_tenant, egress_class)


def _owner(ctx: typer.Context, memory: Path | None, tenant: str, egress: str,
           make: Callable[[Scope], Any]) -> None:
    from revetly_core.governed.owner_proposals import MemoryOptions, run_owner

    o = _options(ctx)
    _print(lambda: run_owner(o.root, o.vault_id, o.credential_file, MemoryOptions(memory, tenant, egress),
                             make(o.scope())))


@owner_app.command("proposals")
def owner_proposals(ctx: typer.Context, memory: MemoryOption = None, memory_tenant: TenantOption = "local",
                    egress_class: EgressOption = "remote") -> None:
    """Every proposal of --agent/--workspace with its status."""
    _owner(ctx, memory, memory_tenant, egress_class,
           lambda scope: lambda owner, lc: lc.proposals.proposals(owner, scope))


@owner_app.command("proposal")
def owner_proposal(ctx: typer.Context, proposal: Annotated[str, typer.Option("--id", help="A proposal id.")],
                   memory: MemoryOption = None, memory_tenant: TenantOption = "local",
                   egress_class: EgressOption = "remote") -> None:
    """One proposal in full: candidate, compiled rule, source snapshots, decision."""
    _owner(ctx, memory, memory_tenant, egress_class,
           lambda scope: lambda owner, lc: lc.proposals.proposal(owner, scope, proposal))


@owner_app.command("review")
def owner_review(
    ctx: typer.Context,
    proposal: Annotated[str, typer.Option("--proposal", help="The proposal id.")],
    decision: Annotated[str, typer.Option("--decision", help="approve or reject.")],
    reviewer: Annotated[str, typer.Option("--reviewer", help="Who decides (kept on the REV- record).")],
    reason: Annotated[str | None, typer.Option(
        "--reason", help="Kept for the owner, never shown to a model.")] = None,
    memory: MemoryOption = None, memory_tenant: TenantOption = "local", egress_class: EgressOption = "remote",
) -> None:
    """Approve or reject a proposal; an approval rechecks every source and is refused if one changed."""
    from revetly_core.governed.owner_proposals import review_call

    _owner(ctx, memory, memory_tenant, egress_class,
           lambda scope: review_call(scope, proposal, decision, reviewer, reason))


@owner_app.command("qualify")
def owner_qualify(
    ctx: typer.Context,
    proposal: Annotated[str, typer.Option("--proposal", help="An approved proposal id.")],
    key: Annotated[str, typer.Option("--key", help="Idempotency key of this attempt.")],
    days: Annotated[float, typer.Option("--days", help="The qualification's lifetime in days.")] = 7.0,
    memory: MemoryOption = None, memory_tenant: TenantOption = "local", egress_class: EgressOption = "remote",
) -> None:
    """A diagnostic qualification attempt, charged before it runs; always inconclusive."""
    from revetly_core.governed.owner_proposals import qualify_call

    _owner(ctx, memory, memory_tenant, egress_class, lambda scope: qualify_call(scope, proposal, key, days))


@owner_app.command("activate")
def owner_activate(
    ctx: typer.Context,
    rule: Annotated[str, typer.Option("--rule", help="The approved proposal's id.")],
    qualification: Annotated[str, typer.Option("--qualification", help="An accepted qualification id.")],
    shadow: Annotated[bool, typer.Option("--shadow", help="Evaluate without enforcing.")] = False,
    memory: MemoryOption = None, memory_tenant: TenantOption = "local", egress_class: EgressOption = "remote",
) -> None:
    """Put a reviewed, qualified rule or profile into use as a new generation (all checks first)."""
    mode = "shadow" if shadow else "active"
    _owner(ctx, memory, memory_tenant, egress_class,
           lambda scope: lambda owner, lc: lc.activate(owner, scope, rule, qualification, mode=mode))


def _state_command(name: str, help_text: str) -> None:
    """`owner NAME-rule`: one lifecycle move (`owner revoke` itself revokes grants)."""
    def command(ctx: typer.Context, rule: Annotated[str, typer.Option("--rule", help="The rule's id.")],
                reason: Annotated[str, typer.Option("--reason", help="Why.")] = "",
                memory: MemoryOption = None, memory_tenant: TenantOption = "local",
                egress_class: EgressOption = "remote") -> None:
        _owner(ctx, memory, memory_tenant, egress_class,
               lambda scope: lambda owner, lc: getattr(lc, name)(owner, scope, rule, reason=reason))

    command.__doc__ = help_text
    owner_app.command(f"{name}-rule")(command)


_state_command("shadow", "Keep evaluating an active rule without enforcing it.")
_state_command("suspend", "Stop using a rule (activation or rollback brings it back, with the checks).")
_state_command("revoke", "End a rule for good: no activation or rollback revives it.")


@owner_app.command("rollback")
def owner_rollback(
    ctx: typer.Context,
    rule: Annotated[str, typer.Option("--rule", help="The rule's id.")],
    generation: Annotated[int, typer.Option("--generation", help="An earlier active generation.")],
    memory: MemoryOption = None, memory_tenant: TenantOption = "local", egress_class: EgressOption = "remote",
) -> None:
    """A new generation copying an earlier active one, only when its checks still hold."""
    _owner(ctx, memory, memory_tenant, egress_class,
           lambda scope: lambda owner, lc: lc.rollback(owner, scope, rule, generation))


@owner_app.command("rule-history")
def owner_rule_history(
    ctx: typer.Context,
    rule: Annotated[str, typer.Option("--rule", help="The rule's id.")],
    memory: MemoryOption = None, memory_tenant: TenantOption = "local", egress_class: EgressOption = "remote",
) -> None:
    """Every activation receipt (generation) of a rule or profile."""
    from revetly_core.governed.owner_proposals import history_call

    _owner(ctx, memory, memory_tenant, egress_class, lambda scope: history_call(scope, rule))
