"""A local stand-in for an openai-compatible embeddings endpoint (POST /v1/embeddings).

Each text's vector is its words hashed into DIMENSIONS buckets, so texts sharing words are near.
It counts the texts it embedded (GET /count) so a test can see what a pass re-embedded.

    python tests/support/fake_embeddings.py --port PORT [--token TOKEN]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIMENSIONS = 64
TOKEN = "fake-embeddings-token"
"""The bearer the tests start it with."""
EMBEDDED = {"texts": 0}


def vector(text: str) -> list[float]:
    """The text's words, hashed into buckets (a bag of words, not a model)."""
    out = [0.0] * DIMENSIONS
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        out[int(hashlib.sha1(word.encode()).hexdigest(), 16) % DIMENSIONS] += 1.0
    return out


def handler(token: str | None) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _answer(self, status: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/health":
                self._answer(200, {"ok": True})
            elif self.path == "/count":
                self._answer(200, EMBEDDED)
            else:
                self._answer(404, {"error": "not found"})

        def do_POST(self) -> None:
            if self.path != "/v1/embeddings":
                self._answer(404, {"error": "not found"})
                return
            if token is not None and self.headers.get("Authorization") != f"Bearer {token}":
                self._answer(401, {"error": "bad token"})
                return
            length = int(self.headers.get("Content-Length", "0"))
            request = json.loads(self.rfile.read(length))
            texts = request["input"] if isinstance(request["input"], list) else [request["input"]]
            EMBEDDED["texts"] += len(texts)
            self._answer(200, {"object": "list", "model": request.get("model"), "data": [
                {"object": "embedding", "index": i, "embedding": vector(t)}
                for i, t in enumerate(texts)]})
    return Handler


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--token")
    args = ap.parse_args()
    ThreadingHTTPServer(("127.0.0.1", args.port), handler(args.token)).serve_forever()


if __name__ == "__main__":
    main()
