"""The stdio server's start: initialize answered while the SDK loads (decisions/0038).

The instance is opened first, as before, so no instance or an undeclared project still stops
the server before it answers anything. Then the SDK's import and the server's build start in a
thread, and the main thread reads the first frame with the stdlib: a vouched-for initialize
(``revetly_mcp.handshake``) is answered at once. When the server is built, the transport
serves everything read so far, that initialize first, and goes on reading; the SDK's own
answer to the initialize is dropped. On any stream that is not a pipe nothing is read early.
This module imports no ``mcp``: the thread does.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any

from revetly_mcp.frames import DEFAULT_MAX_FRAME, claimed_stdio, is_pipe
from revetly_mcp.opening import Opening, open_connection

if TYPE_CHECKING:
    from revetly_core.surface import Surface


class ServerBuild:
    """The engine server's low-level SDK server, imported and built in a thread of its own."""

    def __init__(self, surface: Surface) -> None:
        self._surface = surface
        self._built: list[Any] = []
        self._failed: list[BaseException] = []
        self._thread = threading.Thread(target=self._build, name="revetly-mcp-build", daemon=True)
        self._thread.start()

    def _build(self) -> None:
        try:
            from revetly_mcp.sdk_seam import lowlevel_server
            from revetly_mcp.server import build_server

            self._built.append(lowlevel_server(build_server(self._surface)))
        except BaseException as exc:  # handed to the main thread, which raises it
            self._failed.append(exc)

    def result(self) -> Any:
        """The low-level server once built; the build's exception, raised here, if it failed."""
        self._thread.join()
        if self._failed:
            raise self._failed[0]
        return self._built[0]


def serve_opened(surface: Surface, max_frame: int, server_version: str) -> None:
    """Serve an opened surface over the process's stdio until the host closes the pipe."""
    with claimed_stdio() as (wire_in, wire_out):
        build = ServerBuild(surface)
        opening: Opening | None = None
        if is_pipe(wire_in) and is_pipe(wire_out):
            opening = open_connection(wire_in.fileno(), wire_out.fileno(), max_frame,
                                      server_version)
        low = build.result()

        import anyio

        from revetly_mcp.transport import serve_stdio_guarded, strict_id

        anyio.run(lambda: serve_stdio_guarded(
            low, low.create_initialization_options(), max_frame=max_frame, id_rule=strict_id,
            stdin=wire_in, stdout=wire_out, opening=opening))


def run(instance: str | None, project: str | None, max_frame: int = DEFAULT_MAX_FRAME) -> int:
    """Open the instance, bind the project and serve. No instance, or an undeclared project,
    stops it before it answers anything (one line on stderr, exit status 2); a revetly.toml that
    does not add up is served as every tool's refusal (one line on stderr, then serving).
    Shared by `revetly-mcp` and `revetly serve`."""
    from revetly_core.surface import Surface

    from revetly_core import Refusal, __version__

    try:
        surface = Surface.open(instance, project)
    except Refusal as refusal:
        sys.stderr.write(f"revetly-mcp: refused ({refusal.code}): {refusal}\n")
        return 2
    declaration = surface.declaration_refusal()
    if declaration is not None:
        sys.stderr.write(f"revetly-mcp: serving refusals until revetly.toml is fixed: {declaration}\n")
    try:
        serve_opened(surface, max_frame, __version__)
    except Refusal as refusal:  # the build (or anything after) refused: said, not a traceback
        sys.stderr.write(f"revetly-mcp: refused ({refusal.code}): {refusal}\n")
        return 2
    return 0
