"""`revetly rag ...` as an operator and an application run it: owner set-up, then the read commands."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from revetly_cli.app import app
from typer.testing import CliRunner

DOCS = [
    {"document_id": "tax", "chunk_id": "1", "passage": "The filing deadline is the last day of April.",
     "citation": "Tax Act s.1", "jurisdiction": "XX", "effective_from": "2025-01-01"},
    {"document_id": "tax", "chunk_id": "2", "passage": "Late filing costs ten percent of the tax due.",
     "citation": "Tax Act s.2", "jurisdiction": "XX", "effective_from": "2025-01-01",
     "effective_to": "2026-01-01"},
    {"document_id": "parking", "chunk_id": "1", "passage": "Parking permits renew every March.",
     "citation": "Parking Rules 4"},
]


class Rag:
    """Runs `revetly rag --root ... --vault-id v1 --agent writer --workspace project` in-process."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.runner = CliRunner()

    def run(self, credential: str, *args: str, code: int = 0) -> dict[str, Any]:
        result = self.runner.invoke(app, [
            "rag", "--root", str(self.folder / "homes"), "--vault-id", "v1", "--agent", "writer",
            "--workspace", "project", "--credential-file", str(self.folder / credential), *args])
        assert result.exit_code == code, result.output
        payload: dict[str, Any] = json.loads(result.stdout)
        return payload


@pytest.fixture()
def rag(tmp_path: Path) -> Rag:
    """A home with an owner, a source 'law' of three passages, and app.token granted everything."""
    cli = Rag(tmp_path)
    cli.run("owner.token", "owner", "init")
    (tmp_path / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    cli.run("owner.token", "owner", "put-documents", "--source", "law", "--revision", "r1",
            "--file", str(tmp_path / "docs.jsonl"))
    cli.run("owner.token", "owner", "grant", "--app-credential-file", str(tmp_path / "app.token"),
            "--operations", "search,inspect,read,report", "--days", "30")
    return cli


def test_owner_init_writes_an_owner_private_credential(rag: Rag) -> None:
    for name in ("owner.token", "app.token"):
        assert stat.S_IMODE((rag.folder / name).stat().st_mode) == 0o600
    assert stat.S_IMODE((rag.folder / "homes" / "v1").stat().st_mode) == 0o700


def test_search_and_inspect_from_the_command_line(rag: Rag) -> None:
    receipt = rag.run("app.token", "search", "--source", "law", "--query", "filing deadline",
                      "--key", "request-1", "--jurisdiction", "XX", "--as-of", "2026-01-01")
    assert [(h["document_id"], h["chunk_id"]) for h in receipt["hits"]] == [("tax", "1")]
    shown = rag.run("app.token", "inspect", "--receipt", receipt["receipt_id"], "--document", "tax",
                    "--chunk", "1")
    assert shown["hit"]["passage"] == DOCS[0]["passage"]
    again = rag.run("app.token", "search", "--source", "law", "--query", "filing deadline",
                    "--key", "request-1", "--jurisdiction", "XX", "--as-of", "2026-01-01")
    assert again == receipt


def test_conflicting_key_reuse_is_refused_with_exit_2(rag: Rag) -> None:
    rag.run("app.token", "search", "--source", "law", "--query", "filing", "--key", "k")
    refused = rag.run("app.token", "search", "--source", "law", "--query", "parking", "--key", "k", code=2)
    assert refused["refusal"]["code"] == "idempotency_conflict"


def test_sources_and_capabilities(rag: Rag) -> None:
    assert [s["source_id"] for s in rag.run("app.token", "sources")["sources"]] == ["law"]
    assert rag.run("app.token", "capabilities")["operations"] == ["inspect", "read", "report", "search"]


def test_report_outcome_and_quality(rag: Rag) -> None:
    rag.run("owner.token", "owner", "freeze-schedule", "--schedule", "weekly", "--tasks", "t1,t2")
    (rag.folder / "outcome.json").write_text(json.dumps(
        {"run_id": "r1", "task_id": "t1", "status": "failed", "schedule_id": "weekly"}))
    record = rag.run("app.token", "report", "--file", str(rag.folder / "outcome.json"), "--key", "rep-1")
    assert rag.run("app.token", "outcome", "--id", record["outcome_id"]) == record
    quality = rag.run("app.token", "quality", "--schedule", "weekly")
    assert (quality["observed"], quality["failed"], quality["rates"]["success"]) == (1, 1, 0.0)


def test_a_credential_file_readable_by_others_is_refused(rag: Rag) -> None:
    os.chmod(rag.folder / "app.token", 0o644)
    refused = rag.run("app.token", "sources", code=2)
    assert refused["refusal"]["code"] == "not_owner_private"


def test_a_token_is_never_accepted_as_an_argument(rag: Rag) -> None:
    token = (rag.folder / "app.token").read_text().strip()
    result = CliRunner().invoke(app, ["rag", "--root", str(rag.folder / "homes"), "--vault-id", "v1",
                                      "--token", token, "sources"])
    assert result.exit_code != 0
    assert token not in result.stdout


def test_the_app_credential_cannot_run_owner_commands(rag: Rag) -> None:
    refused = rag.run("app.token", "owner", "freeze-schedule", "--schedule", "s", "--tasks", "t", code=2)
    assert refused["refusal"]["code"] == "not_owner"


def test_revoking_the_grant_refuses_the_next_call(rag: Rag) -> None:
    (grant,) = rag.run("owner.token", "owner", "grants")["grants"]
    rag.run("owner.token", "owner", "revoke", "--grant", grant["grant_id"])
    refused = rag.run("app.token", "sources", code=2)
    assert refused["refusal"]["code"] == "not_authorized"


def test_a_changed_passage_needs_a_new_revision(rag: Rag) -> None:
    changed = {**DOCS[0], "passage": "The deadline moved to May."}
    (rag.folder / "changed.jsonl").write_text(json.dumps(changed) + "\n")
    refused = rag.run("owner.token", "owner", "put-documents", "--source", "law", "--revision", "r1",
                      "--file", str(rag.folder / "changed.jsonl"), code=2)
    assert refused["refusal"]["code"] == "revision_required"
    rag.run("owner.token", "owner", "put-documents", "--source", "law", "--revision", "r2",
            "--file", str(rag.folder / "changed.jsonl"))
    receipt = rag.run("app.token", "search", "--source", "law", "--query", "deadline", "--key", "k2")
    assert receipt["sources"][0]["revision"] == "r2"


def test_a_bad_import_line_is_named(rag: Rag) -> None:
    (rag.folder / "bad.jsonl").write_text('{"document_id": "x"}\n')
    refused = rag.run("owner.token", "owner", "put-documents", "--source", "law", "--revision", "r1",
                      "--file", str(rag.folder / "bad.jsonl"), code=2)
    assert refused["refusal"]["code"] == "bad_import" and "bad.jsonl:1" in refused["refusal"]["detail"]


def test_serve_answers_initialize_over_stdio(rag: Rag) -> None:
    command = [sys.executable, "-m", "revetly_cli", "rag", "--root", str(rag.folder / "homes"),
               "--vault-id", "v1", "--agent", "writer", "--workspace", "project",
               "--credential-file", str(rag.folder / "app.token"), "serve"]
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    done = subprocess.run(command, input=(json.dumps(init) + "\n").encode(), capture_output=True,
                          timeout=120, check=True)
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["result"]["protocolVersion"] == "2025-11-25"
    assert answer["result"]["serverInfo"]["name"] == "revetly-governed"
