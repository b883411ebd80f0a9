"""`revetly manual [show TOPIC]`: the operator manual (the project's docs/), read offline.

The docs ship inside revetly_core as package data (``revetly_core/manual_docs``), so the manual
reads the same from a wheel as from a checkout.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

from revetly_core.answers.operate import ManualPage, ManualTopic, ManualTopics
from revetly_core.refusal import Refusal

MANUAL_PACKAGE = "revetly_core"
MANUAL_FOLDER = "manual_docs"


def _root() -> Traversable:
    return files(MANUAL_PACKAGE).joinpath(MANUAL_FOLDER)


def _pages() -> dict[str, Traversable]:
    """topic -> page: each top-level .md of the manual, and each decision as decisions/NAME."""
    root = _root()
    pages: dict[str, Traversable] = {}
    if not root.is_dir():
        return pages
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_file() and entry.name.endswith(".md"):
            pages[entry.name[:-3]] = entry
        elif entry.is_dir() and entry.name == "decisions":
            for sub in sorted(entry.iterdir(), key=lambda e: e.name):
                if sub.is_file() and sub.name.endswith(".md"):
                    pages[f"decisions/{sub.name[:-3]}"] = sub
    return pages


def page_title(text: str) -> str:
    """A page's title: its first '# ' heading, else its first non-empty line."""
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def manual_topics() -> ManualTopics:
    """Every topic of the manual with its title, the operator pages before the decisions."""
    pages = _pages()
    if not pages:
        raise Refusal("manual-missing", "this installation carries no manual pages",
                      "reinstall revetly-core; the manual ships as its package data")
    rows: list[ManualTopic] = [{"topic": t, "title": page_title(p.read_text(encoding="utf-8"))}
            for t, p in pages.items()]
    rows.sort(key=lambda r: (r["topic"].startswith("decisions/"), r["topic"]))
    return {"topics": rows, "show": "revetly manual show TOPIC"}


def manual_page(topic: str) -> ManualPage:
    """One page of the manual whole; an unknown topic is refused naming the topics there are."""
    pages = _pages()
    key = topic.strip().removesuffix(".md")
    page = pages.get(key)
    if page is None:
        near = [t for t in pages if key and key.casefold() in t.casefold()]
        if len(near) == 1:
            page, key = pages[near[0]], near[0]
        else:
            listed = near or [t for t in pages if not t.startswith("decisions/")]
            raise Refusal("unknown-topic", f"the manual has no topic {topic!r}",
                          f"name one of: {', '.join(listed)}", {"argument": "topic"})
    text = page.read_text(encoding="utf-8")
    return {"topic": key, "title": page_title(text), "text": text}
