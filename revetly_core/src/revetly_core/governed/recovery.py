"""FeedbackRecovery: the owner's exact-preview forgetting of one registered source in its scope.

``preview_forget`` lists, by typed links only, what ``forget`` would remove: the source's stored
passages (the sqlite-vault partitions of every revision), the RAG receipts whose retained source
is that source, and the outcomes whose ``receipts`` name one of those receipts. Ids quoted in
free text, tool arguments or results are never links. ``forget`` recomputes the preview and
acts only when its SHA-256 matches the confirmation, so nothing is removed that the owner did
not see. It withdraws the source's registration, erases those records (vault secure delete;
each erased id stays as a content-free anchor, so a same-key retry is refused rather than run
again) and retains a content-free ``forgotten:`` record naming the forgotten revisions, which
the same revision can then never be registered under again. Guarded executions, their holds,
grants and verifications are not source payloads and are kept. This is not semantic erasure of
every copy of the text: backups, client copies and provider originals are separate.

A rule or profile that stands (active, shadow, suspended, or qualified: see
``lifecycle.standing_policies``) and depends on the source by a typed link keeps the source in
place: preview and forget both answer ``dependent_policy_requires_revocation`` naming it, and
nothing is removed or turned off until the owner revokes it explicitly.
"""

from __future__ import annotations

from typing import Any

from revetly_core.governed.context_adapter import PROVIDER_ID as CONTEXT_PROVIDER
from revetly_core.governed.feedback import OUTCOMES
from revetly_core.governed.idempotency import request_digest
from revetly_core.governed.lifecycle import standing_policies
from revetly_core.governed.provider_sqlite import docs_partition_prefix
from revetly_core.governed.rag_service import RECEIPTS, RagService, forgotten_prefix
from revetly_core.governed.scope import Scope, check_name
from revetly_core.governed.vault import CONTROL
from revetly_core.refusal import Refusal


def receipt_cites(receipt: dict[str, Any], source_id: str) -> bool:
    """A receipt depends on a source when its retained source (a typed link) is that source."""
    return any(s.get("source_id") == source_id for s in receipt.get("sources", []))


def outcome_cites(outcome: dict[str, Any], receipt_ids: set[str]) -> bool:
    """An outcome depends on a receipt when its report's receipts list (a typed link) names it."""
    return any(r in receipt_ids for r in outcome.get("report", {}).get("receipts", []))


def policy_depends_on(policy_sources: list[dict[str, Any]], source: dict[str, Any],
                      served_documents: set[str]) -> bool:
    """A policy depends on a registered source by a typed link only: a ``rag`` link naming the
    source id, or a ``memory`` link to an artifact the source served as a document when the source
    is a CONTEXT source (whose document ids are artifact ids by that provider's contract)."""
    for link in policy_sources:
        if link.get("kind") == "rag" and link.get("source_id") == source["source_id"]:
            return True
        if (link.get("kind") == "memory" and source.get("provider_id") == CONTEXT_PROVIDER
                and link.get("artifact_id") in served_documents):
            return True
    return False


def require_no_dependent_policy(dependents: list[dict[str, Any]], source_id: str) -> None:
    """Forgetting waits until every standing rule or profile depending on the source is revoked."""
    if dependents:
        names = ", ".join(d["rule_id"] for d in dependents)
        raise Refusal("dependent_policy_requires_revocation",
                      f"{len(dependents)} standing rule(s) or profile(s) depend on source "
                      f"{source_id}: {names}",
                      "revoke each of them explicitly (`revetly rag owner revoke-rule`), then preview again",
                      {"source_id": source_id, "dependents": dependents})


class FeedbackRecovery:
    """Owner SDK: preview and forget the payloads that depend on one registered source."""

    def __init__(self, rag: RagService) -> None:
        self.rag = rag
        self.evidence = rag.evidence

    def preview_forget(self, owner_token: str, scope: Scope, source_id: str) -> dict[str, Any]:
        """Owner only: exactly what forget would remove and keep, with the digest to confirm."""
        self.evidence.principals.require_owner(owner_token)
        return self._preview(scope, check_name(source_id, "source_id"))

    def forget(self, owner_token: str, scope: Scope, source_id: str, *, confirm: str) -> dict[str, Any]:
        """Owner only: remove what the preview with this digest listed; any change since refuses."""
        self.evidence.principals.require_owner(owner_token)
        preview = self._preview(scope, check_name(source_id, "source_id"))
        if confirm != preview["preview_sha256"]:
            raise Refusal("preview_mismatch", "the confirmation is not the digest of the current preview",
                          "preview again, review it, and confirm with its preview_sha256")
        if self.rag.registration(source_id) is not None:
            self.rag.revoke_source(owner_token, source_id)
        passages = sum(self.evidence.erase_partition(entry["partition"])["erased_records"]
                       for entry in preview["documents"])
        if preview["receipts"]:
            self.evidence.erase(scope.partition(RECEIPTS), preview["receipts"])
        if preview["outcomes"]:
            self.evidence.erase(scope.partition(OUTCOMES), preview["outcomes"])
        seq = len(self.evidence.records(CONTROL, forgotten_prefix(source_id)))
        anchor = {"source_id": source_id, "scope": scope.to_dict(), "revisions": preview["revisions"],
                  "preview_sha256": preview["preview_sha256"],
                  "erased": {"document_records": passages,
                             "receipts": len(preview["receipts"]), "outcomes": len(preview["outcomes"])},
                  "at": self.evidence.clock().isoformat()}
        self.evidence.append(CONTROL, f"{forgotten_prefix(source_id)}{seq:08d}", anchor)
        remaining = self._preview(scope, source_id)
        complete = not (remaining["receipts"] or remaining["outcomes"]
                        or any(d["records"] for d in remaining["documents"]))
        return {**anchor, "deletion_complete": complete,
                "kept": preview["kept"],
                "note": "backups, client copies, recipient exports and provider originals are not erased"}

    def _preview(self, scope: Scope, source_id: str) -> dict[str, Any]:
        registrations = [r for _, r in self.evidence.records(CONTROL, f"source:{source_id}:")]
        if not registrations or registrations[-1]["source"]["scope"] != scope.to_dict():
            raise Refusal("unknown_source", f"no source {source_id} was registered in {scope.key}",
                          "preview a source registered in this scope")
        revisions = sorted({r["source"]["revision"] for r in registrations})
        receipt_records = [(rid, receipt) for rid, receipt in self.evidence.records(scope.partition(RECEIPTS))
                           if receipt_cites(receipt, source_id)]
        served = {h.get("document_id") for _, receipt in receipt_records for h in receipt.get("hits", [])
                  if h.get("source_id") == source_id}
        dependents = [{"rule_id": p["rule_id"], "proposal_kind": p["proposal_kind"], "state": p["state"]}
                      for p in standing_policies(self.evidence, scope)
                      if policy_depends_on(p["sources"], registrations[-1]["source"], served)]
        require_no_dependent_policy(dependents, source_id)
        documents = [{"partition": p, "records": self.evidence.usage(p)["records"]}
                     for p in self.evidence.partitions(docs_partition_prefix(scope, source_id))]
        receipts = [rid for rid, _ in receipt_records]
        linked = set(receipts)
        outcomes = [oid for oid, outcome in self.evidence.records(scope.partition(OUTCOMES))
                    if outcome_cites(outcome, linked)]
        body = {"scope": scope.to_dict(), "source_id": source_id, "revisions": revisions,
                "registered": self.rag.registration(source_id) is not None,
                "documents": documents, "receipts": receipts, "outcomes": outcomes,
                "kept": ["the erased record ids, as content-free idempotency anchors",
                         "the source's registration history (no passages) and a forgotten: record",
                         "guarded executions and their holds, grants, verifications"]}
        return {**body, "preview_sha256": request_digest(body)}
