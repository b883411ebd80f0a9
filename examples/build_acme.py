"""Build "acme", Revetly's example instance, as real git history.

    python examples/build_acme.py OUT_DIR [--force]

creates two git repositories:

* ``OUT_DIR/acme``: the instance of "Acme Billing", an invoicing SaaS: ``revetly.toml``,
  ``backlog/`` (epics, features, stories, tasks, bugs), ``notes/`` (decisions, constraints,
  assumptions, conversations, references) and ``records/`` (delivery records), committed one
  working day at a time from 2025-01-06 to 2025-06-30. Files appear on their ``created`` day,
  change status on later days, have criteria reworded, and two are removed with a commit.
* ``OUT_DIR/acme-app``: the product's code repository, whose commit messages name the
  stories they implement; the delivery records point at those commits.

The content lives in ``examples/acme_content/*.toml``; this script turns it into files and
commits. Every author, email and timestamp is fixed, so the same content gives the same commit
ids on every run and every machine. Only the standard library and pygit2 are used.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import itertools
import json
import re
import shutil
import sys
import textwrap
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

YEAR = 2025
FIRST_DAY = dt.date(2025, 1, 6)
LAST_DAY = dt.date(2025, 6, 30)
CONTENT = Path(__file__).resolve().parent / "acme_content"
INSTANCE_NAME = "acme"
CODE_REPO_NAME = "acme-app"

FAMILIES = ("EPIC", "FEAT", "STORY", "TASK", "BUG", "DEC", "CONV", "REF", "DEL")
WORK_ITEM_FAMILY_TYPE = {"EPIC": "epic", "FEAT": "feature", "STORY": "story", "TASK": "task", "BUG": "bug"}
STATEMENT_TYPES = ("decision", "constraint", "assumption")
NOTE_TYPES = (*STATEMENT_TYPES, "conversation", "reference")
PARENT_TYPES = {
    "feature": ("epic",),
    "story": ("feature", "epic"),
    "task": ("story", "feature"),
    "bug": ("story", "feature", "epic"),
}
STEP_STATUS = {
    "r": "ready", "s": "in-progress", "d": "done", "p": "parked", "x": "discarded",
    "a": "accepted", "j": "rejected",
}
LINK_FIELDS = ("cites", "references", "related_ids", "supersedes")

EU_SUMMER_TIME = dt.date(2025, 3, 30)
US_SUMMER_TIME = dt.date(2025, 3, 9)
ZONE_OFFSETS = {"eu": (60, 120), "lisbon": (0, 60), "us-east": (-300, -240), "utc": (0, 0)}
"""Zone -> (winter, summer) UTC offset in minutes."""

REVETLY_TOML = """\
[instance]
name = "acme"
default_project = "acme"

[projects.acme]
imports = []

[connectors.repository]
paths = ["backlog", "notes", "records"]

[[connectors.commits]]
name = "acme-app"
path = "../acme-app"

[extraction.aliases]
"single sign-on" = ["SSO"]
"""
MCP_JSON = {"mcpServers": {"revetly": {"command": "revetly", "args": ["serve", "--instance", "."]}}}

MINIMUMS = {"epic": 3, "feature": 8, "story": 40, "task": 1, "bug": 1, "DEC": 12, "conversation": 6,
            "reference": 2, "delivery": 10}

_FAMILY_ALT = "|".join(sorted(FAMILIES, key=lambda f: (-len(f), f)))
_ID_IN_PROSE = re.compile(
    rf"(?<![A-Za-z0-9])({_FAMILY_ALT})[-_ ]?(\d+)"
    rf"(?:\s*\.\.\s*(?:(?:{_FAMILY_ALT})[-_ ]?)?(\d+))?(?![A-Za-z0-9])",
    re.IGNORECASE,
)


class ContentError(Exception):
    """The content files describe something inconsistent; the message says what."""


# ----------------------------------------------------------------------------- helpers


def criteria_fp(text: str) -> str:
    """Revetly's criterion fingerprint: sha1 of the text, whitespace collapsed, case folded."""
    return hashlib.sha1(" ".join(text.split()).casefold().encode()).hexdigest()[:8]


def named_ids(text: str) -> list[str]:
    """Ids named in prose the way Revetly reads them (ranges and case variants included)."""
    out: dict[str, None] = {}
    for m in _ID_IN_PROSE.finditer(text):
        family, first = m.group(1).upper(), int(m.group(2))
        last = int(m.group(3)) if m.group(3) else first
        numbers = range(first, last + 1) if 0 <= last - first <= 50 else (first, last)
        for n in numbers:
            out.setdefault(f"{family}-{n:03d}", None)
    return list(out)


def family_of(artifact_id: str) -> str:
    return artifact_id.split("-", 1)[0]


def number_of(artifact_id: str) -> int:
    return int(artifact_id.split("-", 1)[1])


def day_of(text: str) -> dt.date:
    """A content date, MM-DD in 2025, which must be a working day inside the history."""
    try:
        day = dt.date(YEAR, int(text[:2]), int(text[3:5]))
    except (ValueError, IndexError):
        raise ContentError(f"{text!r} is not a MM-DD date") from None
    if len(text) != 5 or text[2] != "-":
        raise ContentError(f"{text!r} is not a MM-DD date")
    if day.weekday() >= 5:
        raise ContentError(f"{day} is a {day:%A}, not a working day")
    if not FIRST_DAY <= day <= LAST_DAY:
        raise ContentError(f"{day} is outside {FIRST_DAY} .. {LAST_DAY}")
    return day


def next_working_day(day: dt.date) -> dt.date:
    day += dt.timedelta(days=1)
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return day


def stable_int(*parts: str) -> int:
    """A number derived from text only, for reproducible variation (minutes, order)."""
    return int(hashlib.sha256("\0".join(parts).encode()).hexdigest()[:8], 16)


def yaml_str(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def yaml_flow(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


def paragraph(text: str) -> str:
    return text.strip("\n").rstrip()


# ----------------------------------------------------------------------------- people and time


@dataclass(frozen=True)
class Person:
    handle: str
    name: str
    email: str
    zone: str

    def offset(self, day: dt.date) -> int:
        winter, summer = ZONE_OFFSETS[self.zone]
        switch = US_SUMMER_TIME if self.zone == "us-east" else EU_SUMMER_TIME
        return summer if day >= switch else winter

    def signature(self, pygit2: Any, day: dt.date, minute_of_day: int) -> Any:
        """A signature at local time `minute_of_day` on `day`, in this person's zone."""
        offset = self.offset(day)
        local = dt.datetime.combine(day, dt.time()) + dt.timedelta(minutes=minute_of_day)
        utc = (local - dt.timedelta(minutes=offset)).replace(tzinfo=dt.UTC)
        if utc.date() != day:
            raise ContentError(f"{self.handle}'s commit at {local} falls on another UTC day")
        return pygit2.Signature(self.name, self.email, int(utc.timestamp()), offset)


def load_team() -> dict[str, Person]:
    data = tomllib.loads((CONTENT / "team.toml").read_text(encoding="utf-8"))
    team = {}
    for handle, p in data["person"].items():
        if p["zone"] not in ZONE_OFFSETS:
            raise ContentError(f"team.toml: {handle} has unknown zone {p['zone']!r}")
        team[handle] = Person(handle, p["name"], p["email"], p["zone"])
    return team


# ----------------------------------------------------------------------------- artifacts


@dataclass
class Step:
    """One change to an artifact's file on one day."""

    day: dt.date
    status: str | None = None
    reword: tuple[int, str] | None = None
    add_criterion: str | None = None
    append: str | None = None
    delete: bool = False


@dataclass
class State:
    status: str | None
    criteria: list[str]
    appended: list[str]
    updated: dt.date


@dataclass
class Doc:
    """One instance file and every version it goes through."""

    id: str
    type: str
    title: str
    folder: str
    owner: str | None
    body: str
    created: dt.date
    initial_status: str | None
    criteria: list[str] | None = None
    parent: str | None = None
    links: dict[str, list[str]] = field(default_factory=dict)
    revises: list[Any] = field(default_factory=list)
    participants: list[str] = field(default_factory=list)
    removed_note: str = ""
    steps: list[Step] = field(default_factory=list)
    delivers: str | None = None
    implemented_by: list[str] = field(default_factory=list)
    delivered_by: str | None = None
    verdicts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"{self.folder}/{self.id}.md"

    @property
    def deleted_on(self) -> dt.date | None:
        return next((s.day for s in self.steps if s.delete), None)

    def change_days(self) -> list[dt.date]:
        return sorted({self.created, *(s.day for s in self.steps)})

    def first_day_with(self, status: str) -> dt.date | None:
        if self.initial_status == status:
            return self.created
        return next((s.day for s in self.steps if s.status == status), None)

    def state_at(self, day: dt.date) -> State | None:
        """The file as it reads at the end of `day`, or None if it does not exist then."""
        if day < self.created or (self.deleted_on is not None and day >= self.deleted_on):
            return None
        state = State(self.initial_status, list(self.criteria or []), [], self.created)
        for step in self.steps:
            if step.day > day:
                break
            state.updated = step.day
            if step.status is not None:
                state.status = step.status
            if step.reword is not None:
                position, text = step.reword
                if not 1 <= position <= len(state.criteria):
                    raise ContentError(f"{self.id}: no criterion {position} to reword on {step.day}")
                state.criteria[position - 1] = text
            if step.add_criterion is not None:
                state.criteria.append(step.add_criterion)
            if step.append is not None:
                state.appended.append(step.append)
        return state


def parse_plan(doc_id: str, plan: str, initial: str | None) -> tuple[dt.date, str | None, list[Step]]:
    """`MM-DD r01-08 s01-13 ...`: the created day, the status on that day, later steps."""
    tokens = plan.split()
    if not tokens:
        raise ContentError(f"{doc_id}: empty plan")
    created = day_of(tokens[0])
    status = initial
    steps: list[Step] = []
    previous = created
    for token in tokens[1:]:
        letter, day = token[0], day_of(token[1:])
        if day < previous:
            raise ContentError(f"{doc_id}: plan step {token} goes back in time")
        previous = day
        if letter == "D":
            steps.append(Step(day, delete=True))
        elif letter in STEP_STATUS:
            if day == created:
                status = STEP_STATUS[letter]
            else:
                steps.append(Step(day, status=STEP_STATUS[letter]))
        else:
            raise ContentError(f"{doc_id}: unknown plan step {token!r}")
    return created, status, steps


def parse_edits(doc_id: str, edits: list[dict[str, Any]]) -> list[Step]:
    steps = []
    for e in edits:
        step = Step(day_of(e["on"]))
        if "criterion" in e:
            step.reword = (int(e["criterion"]), e["text"])
        if "add_criterion" in e:
            step.add_criterion = e["add_criterion"]
        if "append" in e:
            step.append = paragraph(e["append"])
        if step.reword is None and step.add_criterion is None and step.append is None:
            raise ContentError(f"{doc_id}: an edit on {e['on']} changes nothing")
        steps.append(step)
    return steps


def load_docs() -> dict[str, Doc]:
    """Every work item and note of the content files, with their steps in day order."""
    docs: dict[str, Doc] = {}
    backlog = tomllib.loads((CONTENT / "backlog.toml").read_text(encoding="utf-8"))
    notes = tomllib.loads((CONTENT / "notes.toml").read_text(encoding="utf-8"))
    for raw, folder in [*((r, "backlog") for r in backlog["item"]), *((r, "notes") for r in notes["note"])]:
        doc_id = raw["id"]
        if doc_id in docs:
            raise ContentError(f"{doc_id} is declared twice")
        family = family_of(doc_id)
        if folder == "backlog":
            typ = WORK_ITEM_FAMILY_TYPE[family]
            initial: str | None = "draft"
        else:
            typ = raw["type"]
            if typ not in NOTE_TYPES:
                raise ContentError(f"{doc_id}: unknown note type {typ!r}")
            initial = "proposed" if typ in STATEMENT_TYPES else None
        created, status, steps = parse_plan(doc_id, raw["plan"], initial)
        steps += parse_edits(doc_id, raw.get("edit", []))
        steps.sort(key=lambda s: s.day)
        docs[doc_id] = Doc(
            id=doc_id, type=typ, title=raw["title"], folder=folder, owner=raw.get("owner"),
            body=paragraph(raw["body"]), created=created, initial_status=status,
            criteria=list(raw["criteria"]) if folder == "backlog" else None,
            parent=raw.get("parent"),
            links={f: list(raw.get(f, [])) for f in LINK_FIELDS if raw.get(f)},
            revises=list(raw.get("revises", [])), participants=list(raw.get("participants", [])),
            removed_note=paragraph(raw.get("removed_note", "")), steps=steps,
        )
    # A note that supersedes another marks it superseded on the day it is written.
    for doc in list(docs.values()):
        for old in doc.links.get("supersedes", []):
            target = docs.get(old)
            if target is None:
                raise ContentError(f"{doc.id} supersedes unknown {old}")
            target.steps.append(Step(doc.created, status="superseded"))
            target.steps.sort(key=lambda s: s.day)
    # Fingerprint revised criteria as they read on the day the revising note is written.
    for doc in docs.values():
        resolved: list[Any] = []
        for entry in doc.revises:
            if isinstance(entry, str):
                resolved.append(entry)
                continue
            target = docs.get(entry["id"])
            state = target.state_at(doc.created) if target else None
            if state is None:
                raise ContentError(f"{doc.id} revises {entry['id']}, which does not exist on {doc.created}")
            positions = [int(p) for p in entry["criteria"]]
            for p in positions:
                if not 1 <= p <= len(state.criteria):
                    raise ContentError(f"{doc.id} revises {entry['id']} criterion {p}: it has "
                                       f"{len(state.criteria)}")
            fps = [criteria_fp(state.criteria[p - 1]) for p in positions]
            resolved.append({"id": entry["id"], "criteria": positions, "criteria_fp": fps})
        doc.revises = resolved
    return docs


# ----------------------------------------------------------------------------- rendering


def render(doc: Doc, day: dt.date, team: dict[str, Person]) -> str:
    """The file's text at the end of `day`."""
    state = doc.state_at(day)
    if state is None:
        raise ContentError(f"{doc.id} does not exist on {day}")
    fm = [f"id: {doc.id}", f"title: {yaml_str(doc.title)}", f"type: {doc.type}"]
    if state.status is not None:
        fm.append(f"status: {state.status}")
    if doc.parent:
        fm.append(f"parent: {doc.parent}")
    if doc.owner:
        fm.append(f"owner: {doc.owner}")
    fm += [f"created: {doc.created.isoformat()}", f"updated: {state.updated.isoformat()}"]
    if doc.participants:
        fm.append(f"participants: {yaml_flow(doc.participants)}")
    for name in LINK_FIELDS:
        if doc.links.get(name):
            fm.append(f"{name}: {yaml_flow(doc.links[name])}")
    if doc.revises:
        fm.append("revises:")
        for entry in doc.revises:
            if isinstance(entry, str):
                fm.append(f"  - {entry}")
            else:
                positions = yaml_flow([str(p) for p in entry["criteria"]])
                fps = yaml_flow([yaml_str(f) for f in entry["criteria_fp"]])
                fm.append(f"  - {{id: {entry['id']}, criteria: {positions}, criteria_fp: {fps}}}")
    if doc.delivers:
        fm.append(f"delivers: {doc.delivers}")
        fm.append("implemented_by:")
        fm += [f"  - {yaml_str(sha)}" for sha in doc.implemented_by]
        fm.append(f"delivered_by: {doc.delivered_by}")
        fm.append("verdicts:")
        for v in doc.verdicts:
            note = f", note: {yaml_str(v['note'])}" if v.get("note") else ""
            fm.append(f"  - {{criterion: {v['criterion']}, verdict: {v['verdict']}{note}}}")
    parts = [f"# {doc.title}", doc.body, *state.appended]
    if doc.criteria is not None:
        parts.append("## Acceptance criteria\n\n" + "\n".join(f"- {c}" for c in state.criteria))
    return "---\n" + "\n".join(fm) + "\n---\n\n" + "\n\n".join(parts) + "\n"


# ----------------------------------------------------------------------------- the code repository


@dataclass
class CodeCommit:
    day: dt.date
    author: str
    message: str
    raw: dict[str, Any]
    names: list[str]
    sha: str = ""

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0]


def load_code() -> tuple[dict[str, str], list[CodeCommit]]:
    data = tomllib.loads((CONTENT / "code.toml").read_text(encoding="utf-8"))
    commits = []
    for raw in data["commit"]:
        message = raw["message"].strip("\n") + "\n"
        commits.append(CodeCommit(day_of(raw["on"]), raw["author"], message, raw, named_ids(message)))
    for a, b in itertools.pairwise(commits):
        if b.day < a.day:
            raise ContentError(f"code.toml: commit {b.subject!r} is older than the one before it")
    return dict(data["headers"]), commits


def apply_code_commit(files: dict[str, str], headers: dict[str, str], c: CodeCommit) -> None:
    """Change the file map as the commit does: moves, whole files, replacements, appends."""
    for old, new in c.raw.get("move", {}).items():
        if old not in files or new in files:
            raise ContentError(f"{c.subject!r}: cannot move {old} to {new}")
        files[new] = files.pop(old)
    for path, text in c.raw.get("set", {}).items():
        files[path] = text
    for r in c.raw.get("replace", []):
        text = files.get(r["path"], "")
        if text.count(r["old"]) != 1:
            raise ContentError(f"{c.subject!r}: {r['path']} holds {text.count(r['old'])} copies of "
                               f"{r['old']!r}, not one")
        files[r["path"]] = text.replace(r["old"], r["new"])
    for path, block in c.raw.get("add", {}).items():
        if path not in files:
            if path.endswith(".py") and path not in headers:
                raise ContentError(f"{c.subject!r}: new file {path} has no entry in [headers]")
            files[path] = headers.get(path, "")
        files[path] = files[path].rstrip("\n") + ("\n\n\n" if files[path].strip() else "") + block
    for path in sorted(files):
        if path.endswith(".py") and path.startswith(("src/acme/", "tests/")):
            parts = path.split("/")
            first = 2 if parts[0] == "src" else 1
            for i in range(first, len(parts) - 1):
                files.setdefault("/".join([*parts[: i + 1], "__init__.py"]), "")


def write_tree(repo: Any, files: dict[str, bytes]) -> Any:
    """The tree object of a whole file map (paths with '/'), built bottom-up."""
    root: dict[str, Any] = {}
    for path, data in files.items():
        node = root
        *dirs, name = path.split("/")
        for d in dirs:
            node = node.setdefault(d, {})
        node[name] = data

    def build(node: dict[str, Any]) -> Any:
        tb = repo.TreeBuilder()
        for name in sorted(node):
            value = node[name]
            if isinstance(value, dict):
                tb.insert(name, build(value), 0o040000)
            else:
                tb.insert(name, repo.create_blob(value), 0o100644)
        return tb.write()

    return build(root)


def build_code_repo(pygit2: Any, path: Path, team: dict[str, Person], headers: dict[str, str],
                    commits: list[CodeCommit]) -> None:
    repo = pygit2.init_repository(str(path), initial_head="main")
    files: dict[str, str] = {}
    parent: list[Any] = []
    per_day: Counter[dt.date] = Counter()
    for c in commits:
        apply_code_commit(files, headers, c)
        k = per_day[c.day]
        per_day[c.day] += 1
        minute = 9 * 60 + 20 + 110 * k + stable_int(c.message) % 20
        sig = team[c.author].signature(pygit2, c.day, minute)
        tree = write_tree(repo, {p: t.encode() for p, t in files.items()})
        oid = repo.create_commit("refs/heads/main", sig, sig, c.message, tree, parent)
        c.sha = str(oid)
        parent = [oid]
    repo.checkout_head(strategy=pygit2.enums.CheckoutStrategy.FORCE)


# ----------------------------------------------------------------------------- delivery records


def make_records(docs: dict[str, Doc], commits: list[CodeCommit], team: dict[str, Person]) -> list[Doc]:
    data = tomllib.loads((CONTENT / "deliveries.toml").read_text(encoding="utf-8"))
    planned = []
    for raw in data["delivery"]:
        story = docs.get(raw["story"])
        done = story.first_day_with("done") if story else None
        if story is None or done is None:
            raise ContentError(f"deliveries.toml: {raw['story']} is not a story that gets done")
        day = day_of(raw["on"]) if "on" in raw else next_working_day(done)
        if day < done or day > LAST_DAY:
            raise ContentError(f"deliveries.toml: the record of {story.id} is dated {day}")
        planned.append((day, story.id, raw))
    planned.sort(key=lambda t: (t[0], t[1]))
    records = []
    for n, (day, story_id, raw) in enumerate(planned, start=1):
        story = docs[story_id]
        state = story.state_at(day)
        assert state is not None
        shas = [c for c in commits if story_id in c.names and c.day <= day]
        if not shas:
            raise ContentError(f"no acme-app commit names {story_id} by {day}")
        overrides = {int(v["criterion"]): v for v in raw.get("verdicts", [])}
        verdicts = []
        for i in range(1, len(state.criteria) + 1):
            v = overrides.pop(i, {"verdict": "met"})
            verdicts.append({"criterion": i, "verdict": v["verdict"], "note": v.get("note")})
        if overrides:
            raise ContentError(f"deliveries.toml: {story_id} has no criterion {sorted(overrides)}")
        by = raw["by"]
        intro = (f"Delivers {story_id}, delivered by {team[by].name} on {day.isoformat()}. "
                 + " ".join(raw["summary"].split()))
        body = "\n\n".join([
            textwrap.fill(intro, width=86, break_on_hyphens=False, break_long_words=False),
            "## Criteria at delivery\n\n"
            + "\n".join(f"{i}. {c}" for i, c in enumerate(state.criteria, start=1)),
            "## Commits\n\n" + "\n".join(f"- {c.sha[:12]} {c.subject}" for c in shas),
        ])
        records.append(Doc(
            id=f"DEL-{n:03d}", type="delivery", title=f"Delivery: {story.title}", folder="records",
            owner=None, body=body, created=day, initial_status=None, delivers=story_id,
            implemented_by=[c.sha for c in shas], delivered_by=by, verdicts=verdicts,
        ))
    return records


# ----------------------------------------------------------------------------- checks


def check_content(docs: dict[str, Doc], commits: list[CodeCommit], team: dict[str, Person]) -> None:
    """Refuse content a real team could not have produced: dangling ids, impossible dates."""
    by_family: dict[str, list[Doc]] = {}
    for doc in docs.values():
        by_family.setdefault(family_of(doc.id), []).append(doc)
        if doc.owner and doc.owner not in team:
            raise ContentError(f"{doc.id}: unknown owner {doc.owner}")
        for p in doc.participants:
            if p not in team:
                raise ContentError(f"{doc.id}: unknown participant {p}")
    for members in by_family.values():
        members.sort(key=lambda d: number_of(d.id))
        for a, b in itertools.pairwise(members):
            if b.created < a.created:
                raise ContentError(f"{b.id} is created before {a.id}: ids follow creation order")

    def exists(target: str, day: dt.date, *, allow_deleted: bool) -> bool:
        t = docs.get(target)
        if t is None or t.created > day:
            return False
        return allow_deleted or t.deleted_on is None

    for doc in docs.values():
        declared = [*(doc.links.get(f, []) for f in LINK_FIELDS)]
        targets = [t for group in declared for t in group]
        targets += [e if isinstance(e, str) else e["id"] for e in doc.revises]
        if doc.parent:
            targets.append(doc.parent)
        if doc.delivers:
            targets.append(doc.delivers)
        for t in targets:
            if not exists(t, doc.created, allow_deleted=False):
                raise ContentError(f"{doc.id} names {t} in its frontmatter, which it cannot on {doc.created}")
        if doc.parent:
            allowed = PARENT_TYPES.get(doc.type, ())
            if docs[doc.parent].type not in allowed:
                raise ContentError(f"{doc.id}: a {doc.type} cannot hang under {doc.parent}")
        for day in doc.change_days():
            state = doc.state_at(day)
            if state is None:
                continue
            prose = "\n".join([doc.body, *state.appended, *state.criteria])
            for t in named_ids(prose):
                if t != doc.id and not exists(t, day, allow_deleted=True):
                    raise ContentError(f"{doc.id} mentions {t} on {day}, before it exists")
    for c in commits:
        if c.author not in team:
            raise ContentError(f"code commit {c.subject!r}: unknown author {c.author}")
        for t in c.names:
            if not exists(t, c.day, allow_deleted=False):
                raise ContentError(f"code commit {c.subject!r} names {t}, which does not exist on {c.day}")
            item = docs[t]
            if item.folder != "backlog":
                continue
            started, done = item.first_day_with("in-progress"), item.first_day_with("done")
            if started is None or c.day < started or (done is not None and c.day > done):
                raise ContentError(f"code commit {c.subject!r} on {c.day} names {t}, which is not in "
                                   f"progress then (started {started}, done {done})")


def check_records(docs: dict[str, Doc], records: list[Doc]) -> None:
    for r in records:
        assert r.delivers is not None
        story = docs[r.delivers]
        final = story.state_at(LAST_DAY)
        if final is None or final.status != "done":
            raise ContentError(f"{r.id} delivers {story.id}, which does not end done")


def counts_of(docs: list[Doc]) -> dict[str, int]:
    counts: Counter[str] = Counter(d.type for d in docs)
    counts["DEC"] = sum(1 for d in docs if family_of(d.id) == "DEC")
    return dict(counts)


def check_minimums(docs: list[Doc], commits: list[CodeCommit]) -> None:
    counts = counts_of(docs)
    for what, least in MINIMUMS.items():
        if counts.get(what, 0) < least:
            raise ContentError(f"only {counts.get(what, 0)} {what} artifacts; at least {least} are needed")
    if not any(d.links.get("supersedes") for d in docs):
        raise ContentError("no note supersedes another")
    if sum(1 for d in docs if any(isinstance(e, dict) for e in d.revises)) < 2:
        raise ContentError("fewer than two notes revise story criteria with fingerprints")
    if not any(d.deleted_on for d in docs if d.type == "story") or not any(
        d.deleted_on for d in docs if d.folder == "notes"
    ):
        raise ContentError("the history must delete at least one story and one note")
    if not any(c.raw.get("move") for c in commits):
        raise ContentError("acme-app needs at least one rename")


# ----------------------------------------------------------------------------- the instance repository


def describe_day(changes: list[tuple[Doc, Step | None]], first: bool) -> str:
    """The commit message of one day's changes to the instance."""
    added = [d.id for d, s in changes if s is None]
    removed = [d for d, s in changes if s is not None and s.delete]
    by_status: dict[str, list[str]] = {}
    edited: list[str] = []
    lines: list[str] = []
    for d, s in changes:
        if s is None:
            what = f"delivery record of {d.delivers}" if d.delivers else d.title
            lines.append(f"- add {d.id}: {what}")
            continue
        if s.delete:
            reason = " ".join(d.removed_note.split())
            lines.append(f"- remove {d.id} ({d.title})" + (f". {reason}" if reason else ""))
            continue
        if s.status is not None:
            by_status.setdefault(s.status, []).append(d.id)
            lines.append(f"- {d.id}: {s.status}")
        if s.reword is not None:
            edited.append(d.id)
            lines.append(f"- {d.id}: reword criterion {s.reword[0]}")
        if s.add_criterion is not None:
            edited.append(d.id)
            lines.append(f"- {d.id}: add a criterion")
        if s.append is not None:
            edited.append(d.id)
            lines.append(f"- {d.id}: add a note to the description")
    parts = []
    if added:
        parts.append("Add " + ", ".join(added))
    for status, ids in by_status.items():
        parts.append(f"{', '.join(ids)} {status}")
    if edited:
        parts.append("edit " + ", ".join(dict.fromkeys(edited)))
    if removed:
        parts.append("remove " + ", ".join(d.id for d in removed))
    subject = "; ".join(parts)
    if first:
        subject = "Start the Acme Billing instance"
    elif len(subject) > 72:
        n = len({d.id for d, _ in changes})
        subject = f"Backlog and notes: {n} artifacts changed"
    subject = subject[0].upper() + subject[1:]
    return subject + "\n\n" + "\n".join(lines) + "\n"


def commit_author(changes: list[tuple[Doc, Step | None]]) -> str:
    """Who commits a day's changes: whoever removed a file, else wrote a new one, else changed one."""
    removed = [d for d, s in changes if s is not None and s.delete]
    added = [d for d, s in changes if s is None]
    d = (removed or added or [changes[0][0]])[0]
    return d.delivered_by or d.owner or "dana"


def build_instance_repo(pygit2: Any, path: Path, team: dict[str, Person], docs: list[Doc]) -> int:
    repo = pygit2.init_repository(str(path), initial_head="main")
    files: dict[str, bytes] = {
        "revetly.toml": REVETLY_TOML.encode(),
        ".gitignore": b".revetly/\n",
        ".mcp.json": (json.dumps(MCP_JSON, indent=2) + "\n").encode(),
    }
    family_rank = {f: i for i, f in enumerate(FAMILIES)}
    ordered = sorted(docs, key=lambda d: (family_rank[family_of(d.id)], number_of(d.id)))
    days = sorted({day for d in docs for day in d.change_days()})
    parent: list[Any] = []
    for i, day in enumerate(days):
        changes: list[tuple[Doc, Step | None]] = []
        for d in ordered:
            if d.created == day:
                changes.append((d, None))
                files[d.path] = render(d, day, team).encode()
                continue
            todays = [s for s in d.steps if s.day == day]
            if not todays:
                continue
            merged = Step(day, delete=any(s.delete for s in todays))
            for s in todays:
                merged.status = s.status or merged.status
                merged.reword = s.reword or merged.reword
                merged.add_criterion = s.add_criterion or merged.add_criterion
                merged.append = s.append or merged.append
            changes.append((d, merged))
            if merged.delete:
                del files[d.path]
            else:
                files[d.path] = render(d, day, team).encode()
        author = team[commit_author(changes)]
        sig = author.signature(pygit2, day, 17 * 60 + 5 + stable_int("instance", day.isoformat()) % 40)
        tree = write_tree(repo, files)
        oid = repo.create_commit("refs/heads/main", sig, sig, describe_day(changes, i == 0), tree, parent)
        parent = [oid]
    repo.checkout_head(strategy=pygit2.enums.CheckoutStrategy.FORCE)
    return len(days)


# ----------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Build the example Revetly instance 'acme' (OUT_DIR/acme) and its code "
                    "repository (OUT_DIR/acme-app) as real git history.",
    )
    parser.add_argument("out_dir", metavar="OUT_DIR", type=Path,
                        help="folder to create both repositories in")
    parser.add_argument("--force", action="store_true",
                        help="delete an existing OUT_DIR/acme and OUT_DIR/acme-app first")
    args = parser.parse_args(argv)

    import pygit2

    out: Path = args.out_dir
    instance_dir, code_dir = out / INSTANCE_NAME, out / CODE_REPO_NAME
    existing = [p for p in (instance_dir, code_dir) if p.exists()]
    if existing and not args.force:
        names = " and ".join(str(p) for p in existing)
        print(f"build_acme: {names} already exist{'s' if len(existing) == 1 else ''}; "
              "pass --force to delete and rebuild", file=sys.stderr)
        return 2
    try:
        team = load_team()
        docs = load_docs()
        headers, commits = load_code()
        check_content(docs, commits, team)
        for p in existing:
            shutil.rmtree(p)
        out.mkdir(parents=True, exist_ok=True)
        build_code_repo(pygit2, code_dir, team, headers, commits)
        records = make_records(docs, commits, team)
        check_records(docs, records)
        everything = [*docs.values(), *records]
        check_minimums(everything, commits)
        instance_commits = build_instance_repo(pygit2, instance_dir, team, everything)
    except ContentError as exc:
        print(f"build_acme: the content is inconsistent: {exc}", file=sys.stderr)
        return 1
    counts = counts_of(everything)
    deleted = sum(1 for d in everything if d.deleted_on)
    print(
        f"acme: {counts['epic']} epics, {counts['feature']} features, {counts['story']} stories, "
        f"{counts['task']} tasks, {counts['bug']} bugs, {counts['DEC']} decision notes "
        f"({counts.get('constraint', 0)} constraints, {counts.get('assumption', 0)} assumptions), "
        f"{counts['conversation']} conversations, {counts['reference']} references, "
        f"{counts['delivery']} delivery records ({deleted} files deleted); "
        f"{instance_commits} instance commits; {CODE_REPO_NAME}: {len(commits)} commits"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
