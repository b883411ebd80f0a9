"""The initialize answered before the SDK has loaded is the SDK's own answer, byte for byte, and
only frames the SDK itself accepts are answered early (revetly_mcp.handshake, decisions/0038)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.types import JSONRPCResponse, jsonrpc_message_adapter
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from mcp_types import InitializeRequestParams
from mcp_types import methods as sdk_methods
from revetly_core.surface import Surface
from revetly_mcp.frames import strict_id
from revetly_mcp.handshake import (
    BOOL,
    CAPABILITIES_SHAPE,
    HANDSHAKE_VERSIONS,
    OBJECT_MAP,
    early_answer,
    fits_shape,
    initialize_result,
    plain_text,
    response_line,
    vouched_version,
)
from revetly_mcp.sdk_seam import lowlevel_server
from revetly_mcp.server import build_server
from revetly_mcp.transport import screen_frame, serve_stdio_guarded
from revetly_mcp.wire_line import message_line

from revetly_core import Engine, __version__

pytestmark = pytest.mark.anyio

UI = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
DECLARATIONS: dict[str, dict[str, Any]] = {
    "nothing": {},
    "roots": {"roots": {"listChanged": True}},
    "form elicitation": {"elicitation": {}},
    "form and url elicitation": {"elicitation": {"form": {}, "url": {}}},
    "sampling": {"sampling": {"context": {}, "tools": {}}},
    "the apps extension (review gate)": {"extensions": UI},
    "experimental": {"experimental": {"x-feature": {"on": True}}},
    "tasks": {"tasks": {"list": {}, "cancel": {}, "requests": {"sampling": {"createMessage": {}},
                                                              "elicitation": {"create": {}}}}},
    "an inspector's": {"roots": {"listChanged": True}, "extensions": UI, "elicitation": {"form": {}}},
}


def initialize(version: str, capabilities: dict[str, Any], request_id: int | str = 1,
               client: dict[str, Any] | None = None) -> dict[str, Any]:
    """An initialize request as a host sends it."""
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": capabilities,
                       "clientInfo": client or {"name": "host", "version": "1.0"}}}


@pytest.fixture(scope="module")
def low(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The engine server's low-level SDK server over a fresh synced instance, built once."""
    root = tmp_path_factory.mktemp("handshake") / "inst"
    Engine.init(root)
    Engine.open(root).sync()
    yield lowlevel_server(build_server(Surface.open(root)))


def read_line(fd: int) -> bytes:
    """One line off a blocking pipe, newline included."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 65536)
        assert chunk, "the server closed its stdout"
        data += chunk
    return data


async def sdk_line(low: Any, frame: bytes) -> bytes:
    """The line the SDK's server writes for one frame, served by our transport over real pipes
    with no opening (so nothing is answered early)."""
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    with os.fdopen(in_r, "rb", buffering=0) as stdin, os.fdopen(out_w, "wb", buffering=0) as stdout:
        async with anyio.create_task_group() as group:
            group.start_soon(partial(serve_stdio_guarded, low, low.create_initialization_options(),
                                     stdin=stdin, stdout=stdout))
            os.write(in_w, frame + b"\n")
            line = await anyio.to_thread.run_sync(read_line, out_r)
            os.close(in_w)
    os.close(out_r)
    return line


def test_the_handshake_versions_are_the_sdks() -> None:
    assert tuple(HANDSHAKE_PROTOCOL_VERSIONS) == HANDSHAKE_VERSIONS


@pytest.mark.parametrize("declared", list(DECLARATIONS))
@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
async def test_the_early_answer_is_the_sdks_line(low: Any, version: str, declared: str) -> None:
    frame = json.dumps(initialize(version, DECLARATIONS[declared])).encode()
    answer = early_answer(frame, __version__)
    assert answer is not None
    sdk = await sdk_line(low, frame)
    assert json.loads(answer.line) == json.loads(sdk)  # field for field
    assert answer.line == sdk  # and byte for byte
    assert answer.request_id == 1


async def test_a_string_id_and_a_titled_client_get_the_sdks_line(low: Any) -> None:
    frame = json.dumps(initialize("2025-06-18", {}, request_id="init-é 1",
                                  client={"name": "h", "version": "2", "title": "Host",
                                          "description": "d", "websiteUrl": "https://h.example"}),
                       ensure_ascii=False).encode()
    answer = early_answer(frame, __version__)
    assert answer is not None and answer.request_id == "init-é 1"
    assert answer.line == await sdk_line(low, frame)


@pytest.mark.parametrize("version", ["1999-01-01", "2026-07-28", ""])
def test_a_version_the_handshake_does_not_echo_is_left_to_the_sdk(version: str) -> None:
    assert vouched_version(initialize(version, {})) is None


def test_the_initialize_result_keeps_the_sdks_key_order() -> None:
    result = initialize_result("2025-11-25", "9.9")
    assert list(result) == ["capabilities", "instructions", "protocolVersion", "serverInfo"]
    assert result["serverInfo"] == {"name": "revetly", "version": "9.9"}


@pytest.mark.parametrize("message", [
    [initialize("2025-11-25", {})],  # a batch
    {k: v for k, v in initialize("2025-11-25", {}).items() if k != "id"},  # a notification
    {**initialize("2025-11-25", {}), "extra": 1},
    {**initialize("2025-11-25", {}), "jsonrpc": "1.0"},
    {**initialize("2025-11-25", {}), "method": "ping"},
    {**initialize("2025-11-25", {}), "id": True},
    {**initialize("2025-11-25", {}), "id": 2**53},
    {**initialize("2025-11-25", {}), "id": None},
    initialize("2025-11-25", {}, client={"name": "h"}),
    initialize("2025-11-25", {}, client={"name": "h", "version": 1}),
    initialize("2025-11-25", {}, client={"name": "h", "version": "1", "icons": []}),
    {**initialize("2025-11-25", {}), "params": {"protocolVersion": "2025-11-25",
                                                 "capabilities": {}}},
    {**initialize("2025-11-25", {}), "params": {**initialize("2025-11-25", {})["params"],
                                                 "_meta": {"progressToken": 1}}},
], ids=["batch", "notification", "envelope key", "jsonrpc 1.0", "not initialize", "bool id",
        "unsafe id", "null id", "no client version", "number version", "icons", "no clientInfo",
        "_meta"])
def test_a_frame_outside_the_vouched_shapes_is_left_to_the_sdk(message: object) -> None:
    assert vouched_version(message) is None


@pytest.mark.parametrize("capabilities", [
    {"roots": None}, {"roots": {"listChanged": 1}}, {"roots": {"list_changed": True}},
    {"sampling": {"context": None}}, {"elicitation": []}, {"experimental": {"x": 1}},
    {"extensions": {"x": []}}, {"somethingNew": {}}, {"tasks": {"requests": {"other": {}}}},
], ids=str)
def test_a_capability_outside_its_known_shape_is_left_to_the_sdk(
        capabilities: dict[str, Any]) -> None:
    assert not fits_shape(capabilities, CAPABILITIES_SHAPE)
    assert vouched_version(initialize("2025-11-25", capabilities)) is None


def test_fits_shape_takes_no_coercion() -> None:
    assert fits_shape(True, BOOL) and not fits_shape(1, BOOL) and not fits_shape("true", BOOL)
    assert fits_shape({"a": {}}, OBJECT_MAP) and not fits_shape({"a": None}, OBJECT_MAP)


def test_plain_text_refuses_a_lone_surrogate_in_a_key_or_a_value() -> None:
    assert plain_text({"a": ["é", {"b": "c"}]})
    assert not plain_text({"a": ["\ud800"]})
    assert not plain_text({"\udfff": 1})


def test_a_frame_that_is_not_json_gets_no_early_answer() -> None:
    assert early_answer(b"{not json", __version__) is None
    assert early_answer(b"\xff\xfe", __version__) is None


JSON_LEAF = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
JSON_VALUE = st.recursive(JSON_LEAF, lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
SOME_OBJECT = st.dictionaries(st.text(max_size=6), JSON_VALUE, max_size=3)


def valid(shape: object) -> st.SearchStrategy[Any]:
    """Values of a shape exactly."""
    if shape == BOOL:
        return st.booleans()
    if shape == "text":
        return st.text(max_size=8)
    if shape == "object":
        return SOME_OBJECT
    if shape == OBJECT_MAP:
        return st.dictionaries(st.text(max_size=6), SOME_OBJECT, max_size=3)
    assert isinstance(shape, Mapping)
    return st.fixed_dictionaries({}, optional={k: valid(v) for k, v in shape.items()})


VALID_MESSAGES = st.fixed_dictionaries({
    "jsonrpc": st.just("2.0"), "method": st.just("initialize"),
    "id": st.integers() | st.text(max_size=8),
    "params": st.fixed_dictionaries({
        "protocolVersion": st.sampled_from([*HANDSHAKE_VERSIONS, "2026-07-28", "x"]),
        "capabilities": valid(CAPABILITIES_SHAPE),
        "clientInfo": st.fixed_dictionaries(
            {"name": st.text(max_size=8), "version": st.text(max_size=8)},
            optional={k: st.text(max_size=8) for k in ("title", "description", "websiteUrl")}),
    }),
})


@st.composite
def perturbed(draw: st.DrawFn) -> dict[str, Any]:
    """A valid initialize with one object in it changed: a key set to any JSON value (an
    unknown key, a snake_case twin, a null, a number where an object goes) or dropped."""
    message: dict[str, Any] = draw(VALID_MESSAGES)
    objects: list[dict[str, Any]] = []
    stack: list[Any] = [message]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            objects.append(item)
            stack.extend(item.values())
    target = draw(st.sampled_from(objects))
    key = draw(st.sampled_from([*target, "other", "list_changed", "client_info", "_meta"]))
    if draw(st.booleans()) and key in target:
        del target[key]
    else:
        target[key] = draw(JSON_VALUE)
    return message


MESSAGES = VALID_MESSAGES | perturbed()


@settings(max_examples=400, deadline=None)
@given(MESSAGES)
def test_every_frame_vouched_for_is_one_the_sdk_accepts(message: dict[str, Any]) -> None:
    version = vouched_version(message)
    if version is None:
        return
    frame = json.dumps(message, ensure_ascii=False).encode()
    raw, error = screen_frame(frame, strict_id)
    assert error is None and raw is not None
    jsonrpc_message_adapter.validate_python(raw, by_name=False)  # the transport's own check
    params = raw["params"]
    # the SDK validates initialize at the connection's version before the handshake
    sdk_methods.validate_client_request("initialize", LATEST_HANDSHAKE_VERSION, params)
    init = InitializeRequestParams.model_validate(params, by_name=False)
    negotiated = (init.protocol_version if init.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
                  else LATEST_HANDSHAKE_VERSION)
    assert negotiated == version
    answer = early_answer(frame, __version__)
    assert answer is not None and json.loads(answer.line)["result"]["protocolVersion"] == version


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=-(2**53 - 1), max_value=2**53 - 1) | st.text(max_size=40))
def test_the_early_line_is_the_transports_line_for_any_id(request_id: int | str) -> None:
    if not strict_id(request_id) or not plain_text(request_id):
        return
    result = initialize_result("2025-11-25", __version__)
    sdk = message_line(JSONRPCResponse(jsonrpc="2.0", id=request_id, result=result))
    assert response_line(request_id, result) == sdk


def test_the_handshake_module_loads_no_sdk() -> None:
    import subprocess
    import sys

    code = ("import sys, revetly_mcp.launch, revetly_mcp.handshake, revetly_mcp.opening; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('mcp', 'mcp_types', 'pydantic', 'anyio')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).parent)
    assert done.stdout.strip() == "[]"
