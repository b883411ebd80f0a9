"""What the local tracker stand-ins (GitHub, Azure DevOps, Todoist) share: faults injected per
path and method, a connection cut mid-answer, and serving on 127.0.0.1 for a block."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Generic, Protocol, TypeVar


@dataclass
class TrackerFault:
    """What a fake answers instead, for requests whose path ends with ``path``."""

    path: str
    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    disconnect: bool = False
    after: int = 0
    """Matching requests answered normally before this fault applies."""
    times: int = 1
    method: str | None = None
    """Only requests of this method (None: any)."""
    apply_first: bool = False
    """Carry the write out, then fault (a lost answer to a write that landed)."""


F = TypeVar("F", bound=TrackerFault)


class Faults(Generic[F]):
    """A fake's injected faults, each answering its matching requests after ``after`` of
    them, ``times`` times."""

    def __init__(self) -> None:
        self.faults: list[F] = []
        self._lock = threading.Lock()
        self._seen: dict[int, int] = {}

    def fault_for(self, path: str, method: str = "GET") -> F | None:
        """The fault that answers this request instead, if one is due (and count it)."""
        with self._lock:
            for fault in self.faults:
                if fault.method is not None and fault.method != method:
                    continue
                if path.endswith(fault.path) and fault.times > 0:
                    seen = self._seen.get(id(fault), 0)
                    self._seen[id(fault)] = seen + 1
                    if seen >= fault.after:
                        fault.times -= 1
                        return fault
        return None


def cut_short(handler: BaseHTTPRequestHandler, fragment: bytes) -> None:
    """Promise a long JSON body, send ``fragment`` of it and drop the connection."""
    handler.close_connection = True
    try:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", "100000")
        handler.end_headers()
        handler.wfile.write(fragment)
        handler.wfile.flush()
    except ConnectionError:  # the client hung up first: the cut is made either way
        pass


class Served(Protocol):
    url: str


S = TypeVar("S", bound=Served)


@contextmanager
def serving_on_localhost(fake: S, handler: type[BaseHTTPRequestHandler], *,
                         on_url: Callable[[S], None] | None = None) -> Iterator[S]:
    """Serve ``handler`` on 127.0.0.1 (a free port) in a thread for the block, the fake's
    ``url`` set to it (``on_url`` then fixes what was built before the port was known)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    if on_url is not None:
        on_url(fake)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
