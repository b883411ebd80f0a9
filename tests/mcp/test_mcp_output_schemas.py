"""Every tool's structuredContent validates against the outputSchema it is listed with, and each
read's CLI `--json` twin prints a payload that validates against the same schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client
from revetly_mcp.server import build_server

from revetly_core import Engine
from tests.mcp.test_mcp_cli_parity import CASES

pytestmark = pytest.mark.anyio

READS: list[tuple[str, dict[str, Any], list[str]]] = [
    *CASES,  # the parity cases (their payloads compared there), and three more shapes here
    ("get_artifact", {"artifact_id": "EPIC-001", "depth": 3, "deleted": "include"},
     ["branch", "EPIC-001", "--depth", "3", "--deleted", "include"]),
    ("list_backlog", {"limit": 1}, ["backlog", "--limit", "1"]),
    ("get_scope", {"question": "binding", "path": "src/invoices/pdf.py"},
     ["binding", "--path", "src/invoices/pdf.py"]),
]


async def _schemas(client: Client) -> dict[str, dict[str, Any]]:
    return {t.name: t.output_schema or {} for t in (await client.list_tools()).tools}


def _valid(schema: dict[str, Any], payload: Any, what: str) -> None:
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(payload))
    assert not errors, f"{what}: {errors[0].message}"


def _closed(schema: Any) -> Any:
    """The schema with every object that lists its properties closed to any other key, so a
    payload key its answer type does not declare fails validation."""
    if isinstance(schema, list):
        return [_closed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _closed(v) for k, v in schema.items()}
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def _cli(root: Path, argv: list[str]) -> Any:
    done = subprocess.run([sys.executable, "-m", "revetly_cli", *argv, "--instance", str(root),
                           "--json"], capture_output=True, text=True, check=False)
    assert done.returncode in (0, 2), done.stderr
    return json.loads(done.stdout)


async def test_every_read_answers_within_its_served_schema(acme: Path) -> None:
    async with Client(build_server(Engine.open(acme)), mode="legacy") as client:
        schemas = await _schemas(client)
        for tool, arguments, _argv in READS:
            result = await client.call_tool(tool, arguments)
            _valid(schemas[tool], result.structured_content, f"{tool} {arguments}")


async def test_every_read_serves_only_keys_its_answer_type_declares(acme: Path) -> None:
    async with Client(build_server(Engine.open(acme)), mode="legacy") as client:
        schemas = await _schemas(client)
        for tool, arguments, _argv in READS:
            result = await client.call_tool(tool, arguments)
            _valid(_closed(schemas[tool]), result.structured_content, f"{tool} {arguments}")


async def test_every_read_cli_twin_prints_within_the_same_schema(acme: Path) -> None:
    async with Client(build_server(Engine.open(acme)), mode="legacy") as client:
        schemas = await _schemas(client)
    for tool, _arguments, argv in READS:
        _valid(schemas[tool], _cli(acme, argv), " ".join(argv))


async def test_every_write_answers_within_its_served_schema(writable: Path) -> None:
    engine = Engine.open(writable)
    engine.capture_mode = "none"
    draft = {"title": "Export credit notes", "description": "Credit notes follow invoices.",
             "acceptance_criteria": ["A CSV holds one row per credit note"]}
    async with Client(build_server(engine), mode="legacy") as client:
        schemas = await _schemas(client)

        async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            payload = (await client.call_tool(tool, arguments)).structured_content or {}
            _valid(schemas[tool], payload, f"{tool} {arguments}")
            return payload

        first = await call("submit_draft", draft)
        second = await call("submit_draft", {**draft, "title": "Export debit notes"})
        await call("submit_revision", {"artifact_id": "STORY-0001", "description": "Every invoice.",
                                       "acceptance_criteria": ["A CSV holds every invoice"]})
        await call("review_state", {"review_id": first["review_id"]})
        await call("raise_review", {"review_id": first["review_id"]})
        await call("list_reviews", {"status": "all"})
        await call("resolve_review", {"review_id": first["review_id"], "decision": "approve",
                                      "reason": "reads well"})
        await call("resolve_review", {"review_id": first["review_id"], "decision": "approve"})
        await call("withdraw_review", {"review_id": second["review_id"], "reason": "dropped"})
        await call("set_status", {"artifact_id": "STORY-0001", "status": "in-progress",
                                  "claimed_by": "Dana Reyes"})
        await call("set_status", {"artifact_id": "STORY-0001", "status": "nonsense"})
        await call("record_conversation", {
            "title": "Credit notes", "body": "We talked it through.",
            "decisions": [{"title": "Credit notes are CSV", "text": "They ship as CSV."}]})
        await call("review_state", {"review_id": "REV-404"})
    for tool in ("submit_draft", "set_status", "record_conversation", "resolve_review"):
        assert schemas[tool].get("anyOf"), tool


async def test_a_closed_schema_refuses_a_key_the_answer_type_does_not_declare(acme: Path) -> None:
    async with Client(build_server(Engine.open(acme)), mode="legacy") as client:
        schemas = await _schemas(client)
        result = await client.call_tool("search_context", {"query": "invoice"})
    payload = dict(result.structured_content or {})
    payload["undeclared"] = 1
    errors = list(jsonschema.Draft202012Validator(_closed(schemas["search_context"]))
                  .iter_errors(payload))
    assert errors
