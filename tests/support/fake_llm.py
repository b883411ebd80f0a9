"""A local stand-in for an openai-compatible LLM endpoint: chat completions and embeddings.

It answers graphiti-core's structured-output requests (``response_format`` of type
``json_schema``, named for the pydantic model graphiti wants back) deterministically from the
episode text: the entities of a message are the artifact ids and capitalised phrases in it, a
fact joins the first entity to each of the others, and a summary is the first sentence naming
the entity. Any other schema gets the smallest value it accepts. Embeddings are the text's
words hashed into buckets (as tests/support/fake_embeddings.py does).

It counts chat calls and tokens (GET /count) and can be told to fail (POST /mode with
{"mode": "ok" | "5xx" | "garbage"}) so a test can break a pass in the middle.

    python tests/support/fake_llm.py --port PORT [--token TOKEN]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIMENSIONS = 64
TOKEN = "fake-llm-token"
"""The bearer the tests start it with."""

STATE: dict[str, Any] = {"mode": "ok", "chat_calls": 0, "embedding_calls": 0,
                         "prompt_tokens": 0, "completion_tokens": 0, "schemas": {}}
LOCK = threading.Lock()

_ID = re.compile(r"\b[A-Z][A-Z0-9]*-[0-9]+\b")
_PHRASE = re.compile(r"\b[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})*\b")
_COMMON = {"The", "This", "That", "These", "When", "Where", "What", "With", "From", "Document",
           "Acceptance", "Given", "Then", "And", "But", "For", "Our", "We", "It", "Its", "If",
           "Each", "Every", "Any", "All", "No", "Not", "An", "A", "In", "On", "At", "To", "Of"}


def vector(text: str) -> list[float]:
    """The text's words, hashed into buckets (a bag of words, not a model)."""
    out = [0.0] * DIMENSIONS
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        out[int(hashlib.sha1(word.encode()).hexdigest(), 16) % DIMENSIONS] += 1.0
    return out


def current_text(prompt: str) -> str:
    """The episode's own words inside graphiti's prompt (its CURRENT MESSAGE block)."""
    m = re.search(r"<(CURRENT[ _]MESSAGES?|MESSAGES|TEXT)>(.*?)</\1>", prompt, re.S)
    return m.group(2) if m else prompt


def block(tag: str, prompt: str) -> str:
    """The text of one of the prompt's tagged blocks ('' where it has none)."""
    m = re.search(rf"<{tag}>(.*?)</{tag}>", prompt, re.S)
    return m.group(1) if m else ""


def entities(text: str) -> list[str]:
    """The artifact ids, then the capitalised phrases, each once, in order of appearance."""
    seen: list[str] = []
    for name in _ID.findall(text) + _PHRASE.findall(text):
        if name not in _COMMON and name not in seen:
            seen.append(name)
    return seen[:8]


def declared_types(prompt: str) -> dict[str, int]:
    """The entity types graphiti offered (its ENTITY TYPES block, JSON or a Python repr):
    lowercased name -> id."""
    names = re.findall(r"""['"]entity_type_id['"]:\s*(\d+),\s*['"]entity_type_name['"]:"""
                       r"""\s*['"]([^'"]+)['"]""", prompt)
    return {n.lower(): int(i) for i, n in names}


def type_of(entity: str, text: str, kinds: dict[str, int]) -> int:
    """A declared type whose name's stem (its first four letters) is in the sentence naming the
    entity (``deci`` for Decision); else 0, the plain Entity."""
    sentence = first_sentence_naming(entity, text).lower()
    for kind, number in kinds.items():
        if kind != "entity" and kind[:4] in sentence:
            return number
    return 0


def first_sentence_naming(name: str, text: str) -> str:
    """The first sentence of the text that names the entity (the text's head otherwise)."""
    for sentence in re.split(r"(?<=[.!?])\s+", " ".join(text.split())):
        if name in sentence:
            return sentence[:200]
    return " ".join(text.split())[:200]


def minimal(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """The smallest value the JSON schema accepts (empty lists, empty strings, zero)."""
    if "$ref" in schema:
        return minimal(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        return None if {"type": "null"} in schema["anyOf"] else minimal(schema["anyOf"][0], defs)
    kind = schema.get("type")
    if kind == "object":
        required = schema.get("required", [])
        return {k: minimal(v, defs) for k, v in schema.get("properties", {}).items()
                if k in required}
    return {"array": [], "string": "", "integer": 0, "number": 0, "boolean": False}.get(str(kind))


def answer(name: str, schema: dict[str, Any], prompt: str) -> Any:
    """graphiti's answer for one structured-output request, from the episode text."""
    text = current_text(prompt)
    found = entities(text)
    if name in ("ExtractedEntities", "CombinedExtraction"):
        kinds = declared_types(prompt)
        listed = [{"name": e, "entity_type_id": type_of(e, text, kinds), "episode_indices": [0]}
                  for e in found]
        if name == "ExtractedEntities":
            return {"extracted_entities": listed}
        return {"extracted_entities": listed, "edges": edges(found, text)}
    if name == "ExtractedEdges":
        return {"edges": edges(found, text)}
    if name == "SummarizedEntities":
        names = re.findall(r'"name":\s*"([^"]+)"', block("ENTITIES", prompt))
        return {"summaries": [{"name": n, "summary": first_sentence_naming(n, text)}
                              for n in dict.fromkeys(names)]}
    if name == "NodeResolutions":
        listed_block = block("ENTITIES", prompt)
        ids = [int(i) for i in re.findall(r'"id":\s*(\d+)', listed_block)]
        names = re.findall(r'"name":\s*"([^"]+)"', listed_block)
        return {"entity_resolutions": [{"id": i, "name": n, "duplicate_candidate_id": -1}
                                       for i, n in zip(ids, names, strict=False)]}
    return minimal(schema, schema.get("$defs", {}))


def edges(found: list[str], text: str) -> list[dict[str, Any]]:
    """A fact from the first entity to each other one, worded from the sentence naming it."""
    if len(found) < 2:
        return []
    head = found[0]
    return [{"source_entity_name": head, "target_entity_name": other,
             "relation_type": "MENTIONS",
             "fact": f"{head} mentions {other}: {first_sentence_naming(other, text)}",
             "episode_indices": [0]} for other in found[1:]]


def words(text: str) -> int:
    """The fake's token count: whitespace-separated words."""
    return len(text.split())


def handler(token: str | None) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _answer(self, status: int, body: object, raw: bytes | None = None) -> None:
            data = raw if raw is not None else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/health":
                self._answer(200, {"ok": True})
            elif self.path == "/count":
                with LOCK:
                    self._answer(200, STATE)
            else:
                self._answer(404, {"error": "not found"})

        def _request(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length", "0"))
            return dict(json.loads(self.rfile.read(length) or b"{}"))

        def do_POST(self) -> None:
            if self.path == "/mode":
                with LOCK:
                    STATE["mode"] = self._request()["mode"]
                self._answer(200, {"mode": STATE["mode"]})
                return
            if token is not None and self.headers.get("Authorization") != f"Bearer {token}":
                self._answer(401, {"error": "bad token"})
                return
            if self.path == "/v1/embeddings":
                self._embeddings(self._request())
            elif self.path == "/v1/chat/completions":
                self._chat(self._request())
            else:
                self._answer(404, {"error": "not found"})

        def _embeddings(self, request: dict[str, Any]) -> None:
            texts = request["input"] if isinstance(request["input"], list) else [request["input"]]
            with LOCK:
                STATE["embedding_calls"] += 1
            self._answer(200, {"object": "list", "model": request.get("model"), "data": [
                {"object": "embedding", "index": i, "embedding": vector(str(t))}
                for i, t in enumerate(texts)], "usage": {"prompt_tokens": 0, "total_tokens": 0}})

        def _chat(self, request: dict[str, Any]) -> None:
            with LOCK:
                mode = STATE["mode"]
                STATE["chat_calls"] += 1
            if mode == "5xx":
                self._answer(503, {"error": {"message": "fake outage"}})
                return
            prompt = "\n".join(str(m.get("content", "")) for m in request.get("messages", []))
            fmt = request.get("response_format") or {}
            spec = fmt.get("json_schema") or {}
            name = str(spec.get("name", ""))
            content = ("this is not json" if mode == "garbage"
                       else json.dumps(answer(name, spec.get("schema", {}), prompt)))
            usage = {"prompt_tokens": words(prompt), "completion_tokens": words(content)}
            with LOCK:
                STATE["prompt_tokens"] += usage["prompt_tokens"]
                STATE["completion_tokens"] += usage["completion_tokens"]
                STATE["schemas"][name] = STATE["schemas"].get(name, 0) + 1
            self._answer(200, {
                "id": "fake", "object": "chat.completion", "created": 0,
                "model": request.get("model"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {**usage, "total_tokens": sum(usage.values())}})
    return Handler


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--token")
    args = ap.parse_args()
    ThreadingHTTPServer(("127.0.0.1", args.port), handler(args.token)).serve_forever()


if __name__ == "__main__":
    main()
