"""Every refusal code the engine and the governed layer answer with, declared once.

A code is declared by its canonical name (kebab-case: the one dialect) with its meaning and
the usual fix. Spellings served before the registry existed (snake_case in the governed layer,
``invalid-*`` beside ``bad-*``) stay served where they always were — clients branch on them —
and are recorded here as aliases of their canonical name. ADR 0021 gives the rule; the table
of docs/refusals.md is this one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

STRICT_ENV = "REVETLY_STRICT_REFUSAL_CODES"


@dataclass(frozen=True)
class RefusalCode:
    """One refusal code: its canonical name, what it means, what to do, its older spellings."""

    name: str
    meaning: str
    fix: str
    aliases: tuple[str, ...] = ()

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every spelling a payload may carry for this code, canonical first."""
        return (self.name, *self.aliases)


def _code(name: str, meaning: str, fix: str, *aliases: str) -> RefusalCode:
    return RefusalCode(name, meaning, fix, aliases)


REFUSAL_CODES: tuple[RefusalCode, ...] = (
    # Arguments of a tool, a command or an API call.
    _code("bad-argument", "an argument has the wrong type or a value the call cannot take",
          "pass the argument as the tool's input schema or the command's help describes it",
          "invalid-argument", "bad_argument"),
    _code("unknown-argument", "the call names an argument the tool does not take",
          "call the tool with the arguments the refusal lists as accepted"),
    _code("missing-argument", "a required argument was not given",
          "pass the argument the refusal names"),
    _code("retired-argument", "the argument was retired; another call answers its question",
          "make the call the refusal names"),
    _code("retired-tool", "the tool was retired; another call answers its question",
          "make the call the refusal names"),
    _code("unknown-prompt", "no prompt has that name", "use one of the prompts the refusal lists"),
    _code("bad-id", "a value is not an artifact id such as STORY-0001",
          "pass the id as FAMILY-NUMBER"),
    _code("too-large", "a value or a file is over its size bound",
          "shorten it to the bound the refusal names", "message_too_large"),
    _code("bad-clock", "the clock of a scope read is neither source nor ingest",
          "pass clock as source or ingest", "invalid-clock"),
    _code("bad-window", "the time window of a scope read is not a valid window",
          "pass since/until as ISO dates, since before until", "invalid-window"),
    _code("bad-cursor", "the cursor is not one this read served",
          "pass next_cursor exactly as served, or call again without cursor", "invalid-cursor"),
    _code("stale-cursor", "the cursor was made for other filters than this call names",
          "call the read again without cursor"),
    _code("unknown-question", "get_scope was asked a question it does not answer",
          "pass question as binding, drift or deltas"),
    _code("no-scope", "a scope read was called without an artifact, topic or path",
          "name the scope by one of artifact_id, topic or path"),
    _code("path-outside-repositories", "the path lies in no repository the instance reads",
          "pass a path inside one of the instance's repositories"),
    _code("empty-query", "every word of the query is a stopword or too short",
          "name the thing you are looking for (a feature, a term, an id)"),
    # The instance, its configuration and its store.
    _code("refused", "the request or the configuration is refused as stated in its detail",
          "do what the refusal's fix says (a configuration refusal names its setting)"),
    _code("no-instance", "no instance folder (revetly.toml) was found",
          "pass --instance PATH, set REVETLY_INSTANCE, or create one with `revetly init PATH`"),
    _code("not-synced", "the instance has not been read yet: there is no CONTEXT store",
          "run `revetly sync`"),
    _code("pass-failed", "the read pass failed; CONTEXT still serves its previous revision",
          "fix the cause the detail names, then run `revetly sync` again"),
    _code("busy", "another process holds the lock this call needs",
          "wait for it to finish, then try again"),
    _code("manual-missing", "the installation carries no manual pages", "reinstall revetly-core"),
    _code("unknown-topic", "the manual has no such topic", "name one of the topics listed"),
    _code("unknown-project", "the project is not declared in this instance",
          "name one of the declared projects"),
    _code("unknown-source", "no source of that name is declared or registered",
          "name one of the sources listed (or registered in this scope)", "unknown_source"),
    _code("unknown-repository", "the repository is not one this store files stories in",
          "leave repository out, or name the instance repository"),
    # Reads.
    _code("not-found", "the artifact is not held by the project asked, nor by one it imports",
          "pass the project the refusal names, or check the id with search"),
    _code("ambiguous", "a short commit id is the start of several commits",
          "pass more hex digits of the commit id"),
    _code("bound-to-another-project", "the connection is bound to another project than the call names",
          "call without project, or connect a server started for that project"),
    # Serving and its grants.
    _code("outside-grant", "the token's grant reaches no project this call needs",
          "ask the operator for a grant; `revetly doctor --token` shows what a token is granted"),
    _code("read-only", "the tool writes, and this endpoint serves reads only",
          "call it over stdio or on an endpoint that is not read-only"),
    # Writes.
    _code("outside-instance", "a write would land outside the instance (through a link)",
          "replace the link with a real folder or file inside the instance"),
    _code("unreadable-file", "an instance file the write must read cannot be read",
          "fix the file (see `revetly check`), then write again"),
    _code("corrupt-record", "a review is on record but its file is unreadable",
          "run `revetly check`; restore the file from a backup or remove it"),
    _code("not-on-record", "no review of that id is on record",
          "call list_reviews for the reviews on record"),
    _code("story-changed", "the story changed after the revision was drafted",
          "submit the revision again against the story as it is now"),
    _code("approver-floor", "the approver may not approve this review (machine, service, self)",
          "have a person other than the drafter approve it"),
    _code("not-a-live-work-item", "the id names no live work item", "name a live work item"),
    _code("not-in-this-store", "the item is held by a source this instance does not write to",
          "set its status where it is held"),
    _code("reason-required", "discarding an item needs a reason", "pass reason"),
    _code("verdicts-required", "a criterion of the item has no verdict",
          "give a verdict (met, partial or not-met) for every criterion"),
    _code("verdicts-without-criteria", "verdicts were given for an item without criteria",
          "set done without verdicts"),
    _code("bad-verdict", "a verdict names a criterion the item does not have",
          "give each verdict a criterion position from 1"),
    _code("bad-revises", "revises names criteria that are not positions of the item",
          "pass criteria as positions from 1, or revise the whole item by its bare id"),
    _code("bad-supersedes", "supersedes names something that is not a note",
          "name it in related_ids or revises instead"),
    _code("criteria-not-last", "the description holds an acceptance-criteria section that is not last",
          "pass the criteria in acceptance_criteria instead"),
    _code("criteria-differ", "the description's own criteria section differs from acceptance_criteria",
          "drop the section from description, or make the two say the same"),
    _code("bad-handle", "the capture handle is not one a write returned",
          "pass the capture value a write answered with"),
    _code("nothing-to-commit", "a commit was asked for with no file", "name the files"),
    _code("git-locked", "a git lock file is present: a git command is running or was killed",
          "wait for it; if none is running, delete the lock file named"),
    _code("internal", "the engine broke one of its own invariants", "report this"),
    # The governed layer: owners, principals, grants and credentials.
    _code("bad-name", "a scope name or id is not 1-64 characters from A-Z a-z 0-9 . _ -",
          "use 1-64 such characters starting with a letter or digit",
          "bad_agent", "bad_workspace", "bad_source_id", "bad_collection", "bad_revision",
          "bad_provider_id", "bad_outcome_id", "bad_schedule_id", "bad_vault_id"),
    _code("bad-expiry", "an expiry is missing, doubled, malformed or not in the future",
          "give exactly one of an expiry instant or a number of days", "bad_expiry"),
    _code("bad-revoke", "a revocation names not exactly one grant or credential",
          "name exactly one of --grant or --app-credential-file", "bad_revoke"),
    _code("bad-operations", "a grant names unknown operations or none",
          "grant one or more of the operations listed", "bad_operations"),
    _code("bad-credential", "a credential is not a fresh application token",
          "let issue_credential make it", "bad_credential"),
    _code("bad-credential-file", "the file does not hold a Revetly credential",
          "point at the file written by `revetly rag owner init` or `owner grant`",
          "bad_credential_file"),
    _code("credential-invalid", "the credential is not an application credential of this vault",
          "check the credential file and the vault id", "credential_invalid"),
    _code("credential-revoked", "the application credential was revoked",
          "ask the owner for a new credential and grant", "credential_revoked"),
    _code("not-authorized", "no live grant allows this operation for the principal in this scope",
          "ask the owner for a grant", "not_authorized"),
    _code("not-owner", "the operation needs the vault owner's credential",
          "run it with the owner credential file", "not_owner"),
    _code("owner-exists", "the vault already has an owner credential",
          "use the owner credential file written at set-up", "owner_exists"),
    _code("no-grant", "no grant of that id", "list grants with `owner grants`", "no_grant"),
    _code("no-principal", "no application principal of that id", "issue a credential first",
          "no_principal"),
    # The governed layer: the vault home and its files.
    _code("no-home", "no vault home at the path", "create one with `revetly rag owner init`",
          "no_home"),
    _code("home-exists", "a vault home already exists at the path",
          "open it instead, or choose another vault id", "home_exists"),
    _code("file-exists", "a credential or key file already exists; they are never overwritten",
          "choose a new file", "file_exists"),
    _code("no-file", "the folder a file is to be written in does not exist",
          "create the folder first, or choose another path", "no_file"),
    _code("missing-private-file", "a key or credential file of the home does not exist",
          "check the path", "missing_private_file"),
    _code("not-owner-private", "a private file or folder is readable by the group or others",
          "restrict it to its owner (chmod 600 / 700)", "not_owner_private"),
    _code("bad-master-key", "the home's master key is not a 32-byte key",
          "restore the master key from its backup", "bad_master_key"),
    _code("bad-json", "a JSON message or file does not parse", "fix the file", "bad_json"),
    _code("bad-import", "an import file has a malformed or over-long line",
          "fix or split the passage the refusal names", "bad_import"),
    _code("vault-format", "the vault was written in a format this release does not read",
          "use the release that wrote it", "vault_format"),
    # The governed layer: evidence, records and quotas.
    _code("evidence-tampered", "stored evidence failed authentication: it was changed or moved",
          "restore the complete home from a backup", "evidence_tampered"),
    _code("evidence-integrity", "the evidence database fails its integrity checks",
          "restore the complete home from a backup", "evidence_integrity"),
    _code("evidence-busy", "the evidence database is locked by another process",
          "retry", "evidence_busy"),
    _code("record-exists", "a record of that id already exists; records are append-only",
          "use a new id", "record_exists"),
    # ---- governed export, recovery and vault format (ADR 0035) ----
    _code("no-partition", "no vault partition of that name",
          "rotate partitions the vault holds (omit the list for all)", "no_partition"),
    _code("bad-batch", "a batched append is empty or repeats a record id",
          "append each record id once", "bad_batch"),
    _code("record-forgotten", "the owner erased that record; only its content-free id is kept",
          "use a new idempotency key or id; erased evidence is never brought back", "record_forgotten"),
    _code("preview-mismatch", "the confirmation is not the digest of the current exact preview",
          "preview again, review it, and confirm with its preview_sha256", "preview_mismatch"),
    _code("bad-export", "an export request's purpose, ids or expiry is malformed or out of bounds",
          "give a purpose, 1-100 outcome ids and an expiry within seven days", "bad_export"),
    _code("bad-recipient-key", "the recipient public key is not a raw or PEM X25519 public key",
          "ask the recipient for their X25519 public key", "bad_recipient_key"),
    _code("export-expired", "the export's consent expired before it was confirmed",
          "preview again with a new expiry", "export_expired"),
    _code("export-unreadable", "the export bundle does not open with this private key or was changed",
          "open it with the recipient's own private key and the bundle as delivered", "export_unreadable"),
    _code("export-withdrawn", "the owner withdrew the export consent",
          "record a new consent for a new export", "export_withdrawn"),
    _code("no-export-consent", "no export consent of that id in this scope",
          "record a consent first and use its consent_id", "no_export_consent"),
    _code("bad-restore-id", "a restore event id is malformed",
          "use 1-64 characters from A-Z a-z 0-9 . _ - starting with a letter or digit", "bad_restore_id"),
    _code("scope-record-quota-exhausted", "the scope holds the most records it may retain",
          "the owner retains or compacts; nothing was discarded", "scope_record_quota_exhausted"),
    _code("scope-storage-quota-exhausted", "the scope's ciphertext would exceed its bound",
          "the owner retains or compacts; nothing was discarded",
          "scope_storage_quota_exhausted"),
    _code("bad-idempotency-key", "an idempotency key is not 1-128 printable ASCII characters",
          "use a request id such as request-1", "bad_idempotency_key"),
    _code("idempotency-conflict", "the idempotency key was used for a different request",
          "use a new key for a deliberate new request", "idempotency_conflict"),
    _code("result-budget-exhausted", "the complete result is over the response budget",
          "inspect individual results, or use the authenticated CLI/API",
          "result_budget_exhausted"),
    # The governed layer: sources, providers and retrieval.
    _code("bad-adapter", "the adapter does not implement the RagAdapter protocol",
          "implement search(...) and inspect(...)", "bad_adapter"),
    _code("bad-source", "the source does not fit the provider it is registered with",
          "build the source with the provider's own constructor", "bad_source"),
    _code("bad-egress", "a source's egress is neither 'none' nor 'remote'",
          "declare egress='none' for local adapters, 'remote' for any network call", "bad_egress"),
    _code("bad-date", "a value is not a YYYY-MM-DD date", "use YYYY-MM-DD", "bad_date"),
    _code("bad-query", "a query is empty or over its length bound", "ask in a few words",
          "bad_query"),
    _code("bad-limit", "a hit limit is outside its bounds", "ask for fewer hits", "bad_limit"),
    _code("batch-too-large", "more passages in one batch than the bound", "split the import",
          "batch_too_large"),
    _code("revision-required", "a passage changed text under the same revision",
          "put changed passages under a new revision", "revision_required"),
    _code("source-conflict", "the source id is registered to another scope or provider",
          "register it under a new source id", "source_conflict"),
    _code("source-revoked", "the source was withdrawn", "the owner registers it again",
          "source_revoked"),
    _code("source-changed", "the CONTEXT moved past the revision the source was registered at",
          "the owner registers the source again at the current revision", "source_changed"),
    _code("provider-unavailable", "no adapter is attached for the source in this process",
          "register the adapter in this process", "provider_unavailable"),
    _code("provider-busy", "every provider worker is busy with earlier calls",
          "retry later with the same key", "provider_busy"),
    _code("provider-timeout", "the provider did not answer within its time bound",
          "retry with the same key; nothing was retained", "provider_timeout"),
    _code("provider-malformed-result", "the provider answered hits that break the contract",
          "fix the adapter: hits carry the source's identity, revision, scope and digest",
          "provider_malformed_result"),
    _code("bad-receipt-id", "the value is not a receipt id",
          "use the receipt_id a rag_search returned", "bad_receipt_id"),
    _code("no-receipt", "no receipt of that id in this scope",
          "use a receipt_id returned by rag_search in this scope", "no_receipt"),
    _code("not-in-receipt", "the document and chunk are not among the receipt's hits",
          "inspect a document and chunk the receipt lists", "not_in_receipt"),
    _code("no-passage", "no passage of that document and chunk in the source",
          "use ids from a search hit", "no_passage"),
    # The governed layer: feedback.
    _code("bad-outcome", "an outcome report does not have the documented shape",
          "send run_id, task_id and status (succeeded, failed or unknown)", "bad_outcome"),
    _code("no-outcome", "no outcome of that id in this scope",
          "use the outcome_id feedback_report_outcome returned", "no_outcome"),
    _code("bad-schedule", "a schedule lists no tasks or too many", "list the tasks",
          "bad_schedule"),
    _code("schedule-frozen", "the schedule is already frozen; a frozen schedule never changes",
          "freeze a new schedule id", "schedule_frozen"),
    _code("no-schedule", "no frozen schedule of that id in this scope",
          "the owner freezes schedules before observations are counted", "no_schedule"),
    # The governed layer: guarded execution, verification and usage.
    _code("bad-tool-name", "a guarded tool name is not 1-64 characters of a-z 0-9 _",
          "use a name such as send_invoice", "bad_tool_name"),
    _code("bad-tool-version", "a guarded tool version is not 1-64 characters of A-Z a-z 0-9 . _ + -",
          "give the tool a version such as 1.2.0", "bad_tool_version"),
    _code("bad-tool-schema", "a guarded tool's input schema is not a valid JSON Schema of an object",
          "declare a JSON Schema of type object", "bad_tool_schema"),
    _code("bad-tool-arguments", "arguments do not satisfy the guarded tool's exact input schema",
          "call guarded_tools for the schema; nothing was admitted", "bad_tool_arguments"),
    _code("bad-handler", "a guarded handler has no invoke method",
          "implement invoke(arguments) or invoke(arguments, context=...)", "bad_handler"),
    _code("unknown-guarded-tool", "no guarded tool of that name is registered in this scope",
          "list tools with guarded_tools", "unknown_guarded_tool"),
    _code("guarded-tool-unavailable", "the guarded tool has no handler attached in this process",
          "the application registers its handler in this process", "guarded_tool_unavailable"),
    _code("dispatcher-not-configured",
          "this server has no application dispatcher: guarded tools are unavailable",
          "the application constructs GuardedDispatcher and passes it to the server",
          "dispatcher_not_configured"),
    _code("dispatcher-busy", "every guarded worker is busy; nothing was admitted",
          "retry later with the same key", "dispatcher_busy"),
    _code("execution-held",
          "the scope/tool is held by an execution whose effect is in flight or uncertain",
          "inspect it; only the owner's reconcile, from independent verification, clears the hold",
          "execution_held"),
    _code("effect-uncertain",
          "the handler timed out, raised or lost its acknowledgement: the effect may have happened",
          "never retry blindly; the hold stands until the owner reconciles",
          "effect_uncertain"),
    _code("bad-execution-id", "the value is not an execution id",
          "use the execution_id guarded_execute returned", "bad_execution_id"),
    _code("no-execution", "no execution of that id in this scope",
          "use an execution_id guarded_execute returned in this scope", "no_execution"),
    _code("bad-verifier", "a verifier id or callback is malformed",
          "use 1-64 characters from A-Z a-z 0-9 . _ - and a callable", "bad_verifier"),
    _code("bad-binding", "a verification binding is neither state_only nor effect_receipt",
          "use binding='state_only' or binding='effect_receipt'", "bad_binding"),
    _code("unknown-verifier", "no verifier of that id is registered in this scope",
          "the owner registers verifiers", "unknown_verifier"),
    _code("verifier-identity-mismatch", "the session is not the identity the verifier is registered to",
          "authenticate with the verifier's own credential", "verifier_identity_mismatch"),
    _code("verifier-not-independent", "the principal that executed an action tried to verify it",
          "verify with the separate verifier identity", "verifier_not_independent"),
    _code("verifier-wrong-tool", "the verifier is registered for another tool",
          "use the verifier registered for this tool", "verifier_wrong_tool"),
    _code("verifier-unavailable", "the verifier has no callback attached in this process",
          "the owner registers the callback in this process", "verifier_unavailable"),
    _code("verifier-failed", "the verification callback raised; nothing was retained",
          "fix the verification callback, then verify again", "verifier_failed"),
    _code("verifier-changed", "the verifier was re-registered since it verified",
          "verify again with the current verifier", "verifier_changed"),
    _code("bad-readback", "a verification callback returned a readback of the wrong shape",
          "return checks with name, method, observed and expected, and the journal entry", "bad_readback"),
    _code("journal-required", "an effect_receipt verifier returned no operation-journal entry",
          "read the journal entry of this invocation", "journal_required"),
    _code("journal-unbound", "the journal entry names another invocation or other arguments",
          "read the journal entry of exactly this invocation", "journal_unbound"),
    _code("effect-reference-reused", "the backend effect reference already proves another invocation",
          "a journal entry binds exactly one invocation", "effect_reference_reused"),
    _code("no-verification", "no retained verification of that id for the execution",
          "a verifier runs verify first", "no_verification"),
    _code("verification-not-effect-bound",
          "a state-only verification cannot clear a hold",
          "register an effect_receipt verifier that reads the operation journal",
          "verification_not_effect_bound"),
    _code("verification-disputed", "the execution's effect-bound verifications disagree",
          "resolve the backend journal first; conflicts stay disputed", "verification_disputed"),
    _code("nothing-to-reconcile", "the execution holds nothing",
          "only an execution whose hold stands is reconciled", "nothing_to_reconcile"),
    _code("handler-still-running", "the execution's handler is still running in this process",
          "wait for it to finish, then reconcile", "handler_still_running"),
    _code("bad-journal-receipt",
          "a backend journal receipt has the wrong shape",
          "send run_id, turn_id, invocation_id, arguments_sha256, effect_ref and status",
          "bad_journal_receipt"),
    _code("journal-not-terminal", "the backend journal does not report a terminal operation status",
          "reconcile once the operation succeeded, failed or was not dispatched", "journal_not_terminal"),
    _code("journal-mismatch", "the journal receipt differs from the entry the verifier read",
          "verify again against the backend's current journal", "journal_mismatch"),
    _code("bad-usage", "a usage report has the wrong shape",
          "send provider_receipt, run_id and integer or null figures", "bad_usage"),
    _code("usage-receipt-reused",
          "the provider receipt was already recorded with other figures or another run",
          "a receipt counts once, for one run",
          "usage_receipt_reused"),
)

_BY_SPELLING: dict[str, RefusalCode] = {
    spelling: code for code in REFUSAL_CODES for spelling in code.spellings
}


def refusal_code(spelling: str) -> RefusalCode | None:
    """The registered code a payload's spelling (canonical or alias) stands for, or None."""
    return _BY_SPELLING.get(spelling)


def canonical_code(spelling: str) -> str:
    """The canonical name of a served spelling; an unregistered spelling is returned as given."""
    code = _BY_SPELLING.get(spelling)
    return code.name if code is not None else spelling


def is_registered(spelling: str) -> bool:
    """True when the spelling is a registered code's canonical name or one of its aliases."""
    return spelling in _BY_SPELLING


def strict_codes() -> bool:
    """Unregistered codes are rejected unless REVETLY_STRICT_REFUSAL_CODES=0 (docs/refusals.md
    says when an operator may turn the check off)."""
    return os.environ.get(STRICT_ENV, "") != "0"


def check_registered(spelling: str) -> None:
    """Raise ValueError for an unregistered code (the default); served as given when the check
    is turned off."""
    if strict_codes() and not is_registered(spelling):
        raise ValueError(f"refusal code {spelling!r} is not declared in revetly_core.refusal_codes")
