"""The governed server's rules in-process: the version/initialize screen and tool results."""

from __future__ import annotations

from revetly_mcp.governed_server import SUPPORTED_VERSIONS, tool_result, version_screen
from revetly_mcp.protocol import INITIALIZE_FIRST

from revetly_core import Refusal


def _init(version: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": version}}


def test_only_the_two_supported_versions_pass_initialize() -> None:
    assert SUPPORTED_VERSIONS == ("2025-06-18", "2025-11-25")
    for version in ("2024-11-05", "2025-03-26", "2026-07-28", None, 20250618):
        answer = version_screen()(_init(version))
        assert answer is not None and answer["error"]["code"] == -32602
    for version in SUPPORTED_VERSIONS:
        assert version_screen()(_init(version)) is None


def test_requests_before_initialize_are_refused_except_ping() -> None:
    screen = version_screen()
    answer = screen({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {}})
    assert answer == {"jsonrpc": "2.0", "id": 7,
                      "error": {"code": -32600, "message": INITIALIZE_FIRST,
                                "data": {"method": "tools/call"}}}
    assert screen({"jsonrpc": "2.0", "id": 8, "method": "ping"}) is None
    assert screen({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert screen(_init("2025-11-25")) is None
    assert screen({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}) is None


def test_a_refused_initialize_does_not_open_the_session() -> None:
    screen = version_screen()
    screen(_init("1999-01-01"))
    answer = screen({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert answer is not None and answer["error"]["code"] == -32600


def test_a_refusal_is_a_tool_error_with_structured_content() -> None:
    def refuse() -> dict[str, object]:
        raise Refusal("not_authorized", "no", "ask")

    result = tool_result(refuse, 10_000)
    assert result.is_error is True
    assert result.structured_content == {"refusal": {"code": "not_authorized", "detail": "no", "fix": "ask"}}


def test_an_answer_over_budget_is_result_budget_exhausted() -> None:
    result = tool_result(lambda: {"rows": ["x" * 1000] * 10}, 5_000)
    assert result.is_error is True
    assert result.structured_content is not None
    assert result.structured_content["refusal"]["code"] == "result_budget_exhausted"
    fits = tool_result(lambda: {"rows": ["x"]}, 5_000)
    assert fits.is_error is not True and fits.structured_content == {"rows": ["x"]}
