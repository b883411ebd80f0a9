"""The hardened stdio transport: frames, ids and malformed lines, down to the bytes."""

from __future__ import annotations

import io
import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from revetly_mcp.transport import (
    END,
    OVERSIZE,
    lenient_id,
    read_frame,
    screen_frame,
    strict_id,
)

from tests.mcp.rawstdio import INIT, RawServer


def test_read_frame_returns_a_line_without_its_newline() -> None:
    stream = io.BytesIO(b'{"a":1}\r\n{"b":2}\n')
    assert read_frame(stream, 100) == b'{"a":1}'
    assert read_frame(stream, 100) == b'{"b":2}'
    assert read_frame(stream, 100) == END


def test_read_frame_drains_an_oversize_line_and_reads_the_next() -> None:
    stream = io.BytesIO(b"x" * 1000 + b"\n" + b"ok\n")
    assert read_frame(stream, 10) == OVERSIZE
    assert read_frame(stream, 10) == b"ok"


def test_read_frame_accepts_a_line_of_exactly_the_cap() -> None:
    stream = io.BytesIO(b"y" * 10 + b"\n")
    assert read_frame(stream, 10) == b"y" * 10


def test_read_frame_reads_a_last_line_without_newline() -> None:
    assert read_frame(io.BytesIO(b"tail"), 10) == b"tail"


def test_screen_frame_answers_bad_json_with_parse_error() -> None:
    message, error = screen_frame(b"{not json", lenient_id)
    assert message is None and error is not None
    assert error["error"]["code"] == -32700 and error["id"] is None


def test_screen_frame_answers_a_non_object_with_invalid_request() -> None:
    _, error = screen_frame(b"[1, 2]", lenient_id)
    assert error is not None and error["error"]["code"] == -32600


def test_screen_frame_answers_an_invalid_id_with_invalid_request() -> None:
    for bad in ("null", "1.5", "true", '{"a":1}'):
        _, error = screen_frame(
            b'{"jsonrpc":"2.0","method":"ping","id":' + bad.encode() + b"}", lenient_id
        )
        assert error is not None and error["error"]["code"] == -32600 and error["id"] is None


def test_screen_frame_requires_jsonrpc_2() -> None:
    _, error = screen_frame(b'{"id":3,"method":"ping"}', lenient_id)
    assert error is not None and error["error"]["code"] == -32600 and error["id"] == 3


def test_lenient_id_takes_strings_and_integers_only() -> None:
    assert lenient_id("a") and lenient_id(2**70)
    assert not lenient_id(True) and not lenient_id(None) and not lenient_id(1.0)


def test_the_guarded_transport_applies_the_strict_id_rule_by_default() -> None:
    import inspect

    from revetly_mcp.transport import serve_stdio_guarded

    assert inspect.signature(serve_stdio_guarded).parameters["id_rule"].default is strict_id


def test_strict_id_bounds_length_and_magnitude() -> None:
    assert strict_id("é" * 128) and not strict_id("é" * 129)
    assert strict_id(2**53 - 1) and strict_id(-(2**53 - 1))
    assert not strict_id(2**53) and not strict_id(False)


@given(st.binary(max_size=200))
def test_screen_frame_never_raises(frame: bytes) -> None:
    message, error = screen_frame(frame, strict_id)
    assert (message is None) != (error is None)


@given(st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=8))
def test_read_frame_yields_each_line_in_order(lines: list[bytes]) -> None:
    stream = io.BytesIO(b"".join(line + b"\n" for line in lines))
    got = []
    while (frame := read_frame(stream, 1000)) != END:
        assert isinstance(frame, bytes)
        got.append(frame.rstrip(b"\r"))
    assert got == [line.rstrip(b"\r") for line in lines]


def _call(request_id: int, name: str, arguments: object) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}}).encode() + b"\n"


def test_bad_lines_are_answered_and_the_server_keeps_serving(synced_instance: Path) -> None:
    server = RawServer(synced_instance)
    try:
        assert server.ask(b"{not json\n")["error"]["code"] == -32700
        assert server.initialize()["result"]["serverInfo"]["name"] == "revetly"
        assert server.ask(b"[1,2,3]\n")["error"]["code"] == -32600
        bad_id = server.ask(b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}\n')
        assert bad_id["error"]["code"] == -32600 and bad_id["id"] is None
        assert server.ask(b'{"jsonrpc":"2.0","id":true,"method":"ping"}\n')["error"]["code"] == -32600
        assert server.ask(b"\xff\xfe garbage\n")["error"]["code"] == -32700
        unknown = server.ask(_call(7, "no_such_tool", {}))
        assert unknown["id"] == 7 and unknown["error"]["code"] == -32602
        wrong_types = server.ask(_call(8, "search_context", {"query": 5, "limit": "many"}))
        assert wrong_types["id"] == 8
        assert wrong_types["result"]["structuredContent"]["refusal"]["code"] == "invalid-argument"
        not_a_name = server.ask(b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":5}}\n')
        assert not_a_name["id"] == 9 and not_a_name["error"]["code"] == -32602
        health = server.ask(_call(10, "context_health", {}))
        assert health["id"] == 10 and "corpus_revision" in health["result"]["structuredContent"]
        assert [n["method"] for n in server.notifications] == ["notifications/tools/list_changed"]
    finally:
        assert server.close() == 0


def test_an_oversize_line_is_refused_and_the_next_is_served(synced_instance: Path) -> None:
    server = RawServer(synced_instance)
    try:
        server.initialize()
        pad = b"x" * (2 * 1024 * 1024)
        huge = b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"' + pad + b'"}}\n'
        answer = server.ask(huge)
        assert answer["id"] is None and answer["error"]["code"] == -32600
        assert server.ask(b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n') == {
            "jsonrpc": "2.0", "id": 3, "result": {}}
    finally:
        assert server.close() == 0


def test_the_frame_cap_is_configurable(synced_instance: Path) -> None:
    server = RawServer(synced_instance, "--max-frame", "200")
    try:
        server.initialize()
        padded = b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"' + b"x" * 300 + b'"}}\n'
        assert server.ask(padded)["error"]["code"] == -32600
        assert server.ask(b'{"jsonrpc":"2.0","id":3,"method":"ping"}\n')["id"] == 3
    finally:
        assert server.close() == 0


def test_a_2025_06_18_host_is_answered_in_its_own_version(synced_instance: Path) -> None:
    server = RawServer(synced_instance)
    try:
        init = dict(INIT, params={**INIT["params"], "protocolVersion": "2025-06-18"})
        server.send_json(init)
        answer = server.receive()
        assert answer["result"]["protocolVersion"] == "2025-06-18"
        assert answer["result"]["capabilities"]["tools"]["listChanged"] is True
        server.send_json({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = server.ask(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n')["result"]["tools"]
        assert all(t["outputSchema"]["type"] == "object" for t in tools)
    finally:
        assert server.close() == 0
