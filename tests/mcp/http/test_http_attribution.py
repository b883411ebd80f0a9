"""Over HTTP the caller is who the token says on every call: the drafter, the approver on the
review_log, the author of a note, delivered_by on a delivery record; never the server's
environment. And one audit line per served call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.mcp.http.http_clients import http_client
from tests.mcp.http.served_handles import IssuerHandle, ServeFactory, auth_block

pytestmark = pytest.mark.anyio

DRAFT = {"title": "Schedule CSV exports", "description": "Finance wants a nightly CSV.",
         "acceptance_criteria": ["a CSV lands every night"]}


@pytest.fixture()
def audited(writable: Path, serve: ServeFactory, issuer: IssuerHandle, tmp_path: Path):  # type: ignore[no-untyped-def]
    audit = tmp_path / "audit" / "revetly.jsonl"
    served = serve(writable, auth_block(issuer, audit_log=json.dumps(str(audit))))
    return served, audit


async def test_the_approver_is_the_tokens_sub_not_the_servers_environment(
        writable: Path, audited, issuer: IssuerHandle) -> None:  # type: ignore[no-untyped-def]
    served, _ = audited
    ana = issuer.token("ana", served.url, email="ana@example.com", name="Ana")
    bo = issuer.token("bo", served.url, email="bo@example.com")
    async with http_client(served.url, ana) as client:
        parked = (await client.call_tool("submit_draft", DRAFT)).structured_content or {}
    review_id = parked["review_id"]
    async with http_client(served.url, ana) as client:
        own = (await client.call_tool("resolve_review", {"review_id": review_id,
                                                         "decision": "approve"})).structured_content
    assert own is not None and own["refusal"]["rule"] == "self-approval"
    async with http_client(served.url, bo) as client:
        done = (await client.call_tool("resolve_review", {"review_id": review_id,
                                                          "decision": "approve"})).structured_content
    assert done is not None and "refusal" not in done, done
    story = next(p for p in (writable / "backlog").rglob("*.md") if "Schedule CSV" in p.read_text())
    text = story.read_text()
    assert "by: bo" in text and "drafted_by: ana" in text
    assert "Dana Reyes" not in text


async def test_a_machine_token_never_approves(
        writable: Path, audited, issuer: IssuerHandle) -> None:  # type: ignore[no-untyped-def]
    served, _ = audited
    async with http_client(served.url, issuer.token("ana", served.url)) as client:
        review_id = ((await client.call_tool("submit_draft", DRAFT)).structured_content
                     or {})["review_id"]
    async with http_client(served.url, issuer.machine_token("ci-robot", served.url)) as client:
        refused = (await client.call_tool("resolve_review", {
            "review_id": review_id, "decision": "approve"})).structured_content
    assert refused is not None and refused["refusal"]["rule"] == "machine-actor"


async def test_a_note_and_a_delivery_name_the_caller(
        writable: Path, audited, issuer: IssuerHandle) -> None:  # type: ignore[no-untyped-def]
    served, _ = audited
    async with http_client(served.url, issuer.token("cy", served.url)) as client:
        await client.call_tool("record_conversation", {"title": "Export sync",
                                                       "body": "We agreed on nightly."})
        shipped = (await client.call_tool("set_status", {
            "artifact_id": "STORY-0001", "status": "done",
            "verdicts": [{"criterion": 1, "verdict": "met"}]})).structured_content
    assert shipped is not None and "refusal" not in shipped, shipped
    note = next(p for p in (writable / "notes").rglob("*.md") if "Export sync" in p.read_text())
    assert "cy" in note.read_text() and "Dana Reyes" not in note.read_text()
    record = next((writable / "records").rglob("*.md")).read_text()
    assert "delivered_by: cy" in record


async def test_every_served_call_leaves_one_audit_line(
        writable: Path, audited, issuer: IssuerHandle) -> None:  # type: ignore[no-untyped-def]
    served, audit = audited
    async with http_client(served.url, issuer.token("ana", served.url, email="ana@x.org")) as c:
        await c.call_tool("search_context", {"query": "invoices"})
        await c.call_tool("get_artifact", {"artifact_id": "NOPE-1"})
    lines = [json.loads(x) for x in audit.read_text().splitlines()]
    assert [(x["sub"], x["iss"], x["tool"]) for x in lines] == [
        ("ana", issuer.base, "search_context"), ("ana", issuer.base, "get_artifact")]
    assert lines[0]["outcome"] == "ok" and lines[0]["email"] == "ana@x.org"
    assert lines[1]["outcome"].startswith("refused:")
    assert all(x["project"] == "acme" for x in lines)
