"""A code repository beside the instance whose commit messages name the backlog's ids.

Most subjects name one story (in several house styles, sometimes lower-cased), some name it
in the body only, a range (`STORY-0010..0012`), two stories, or a task or bug; about one in
ten names nothing. A few commits are pure renames. Each delivered story gets one to three
commits before its delivery day, which the delivery record then lists under implemented_by.
"""

from __future__ import annotations

import bisect
import itertools
import random
from dataclasses import dataclass, field
from pathlib import Path

from revetly_core.synthetic.calendar import MAIN_DAYS, on_a_weekday, timestamp
from revetly_core.synthetic.fastimport import Change, HistoryWriter, git_environment, init_repository
from revetly_core.synthetic.items import Item
from revetly_core.synthetic.plan import Plan

MODULES = ("ledger", "dispatch", "billing", "accounts", "routing", "notifications", "reports",
           "search", "imports", "exports", "scheduling", "inventory", "auth", "webhooks",
           "audit", "sync", "pricing", "devices", "maps", "support")
FILE_TAILS = ("core", "service", "store", "views", "tasks", "models")
NAMING = ("one", "body", "range", "two")
CHORES = ("chore: bump pinned dependencies", "Tidy imports", "ci: cache the wheel downloads",
          "Fix flaky formatting", "Update the lock file", "docs: explain the {m} settings",
          "test({m}): cover the empty case", "refactor({m}): split long helpers")


@dataclass
class CodeHistory:
    """What the code repository holds, for delivery records and for the manifest."""

    commits: int = 0
    commit_ids: list[str] = field(default_factory=list)
    named: dict[str, list[str]] = field(default_factory=dict)
    """Commit id -> the artifact ids its message names, ranges expanded."""
    renames: list[dict[str, str]] = field(default_factory=list)
    implemented: dict[str, list[str]] = field(default_factory=dict)
    """Delivery record id -> the commits naming its story up to the delivery day."""


@dataclass
class _Slot:
    day: int
    seconds: int
    kind: str
    story: Item | None


class CodeRepoWriter:
    """Plans then writes `commits` commits on branch main of a new repository."""

    def __init__(self, plan: Plan, commits: int) -> None:
        self.plan, self.total = plan, max(1, commits)
        self.rnd = random.Random(f"{plan.seed}:code")
        self.vocab = plan.vocab
        self.files: dict[str, list[str]] = {}
        self.stories = sorted(plan.live("story"), key=lambda s: (s.created, s.order))
        self.story_days = [s.created for s in self.stories]
        self.by_number = {s.number: s for s in self.stories}
        self.work = sorted((i for i in plan.live() if i.kind in ("task", "bug")), key=lambda i: i.id)
        count = min(len(MODULES), max(3, 2 + self.total // 80))
        self.modules = self.rnd.sample(MODULES, count)
        features = sorted(i.id for i in plan.items if i.kind == "feature")
        self.home = {f: self.modules[k % count] for k, f in enumerate(features)}
        self.started: list[str] = []

    # -- file contents -----------------------------------------------------------------------
    def _block(self) -> str:
        r, v = self.rnd, self.vocab
        verb, noun = r.choice(v.verbs), r.choice(v.nouns)
        other = r.choice([n for n in v.nouns[:50] if n != noun])
        limit = r.choice((5, 10, 25, 100, 500))
        form = r.randrange(3)
        if form == 0:
            return (f"def {verb}_{noun}({noun}: dict, {other}: str | None = None) -> dict:\n"
                    f'    """{verb.capitalize()} one {noun}, noting its {other}."""\n'
                    f"    out = dict({noun})\n"
                    f'    out["{other}"] = {other}\n'
                    f"    return out")
        if form == 1:
            return (f"class {noun.capitalize()}{other.capitalize()}:\n"
                    f'    """The {noun} state of one {other}."""\n\n'
                    f"    def __init__(self) -> None:\n"
                    f"        self.items: list[str] = []\n\n"
                    f"    def {verb}(self, item: str) -> bool:\n"
                    f"        self.items.append(item)\n"
                    f"        return len(self.items) <= {limit}")
        return f"{noun.upper()}_{other.upper()}_LIMIT = {limit}"

    def _start_module(self, module: str) -> list[str]:
        self.started.append(module)
        init = f"src/{module}/__init__.py"
        self.files[init] = [f'"""The {module} package."""\n']
        made = self._new_file(module)
        return [init] + ([made] if made else [])

    def _new_file(self, module: str) -> str | None:
        for _ in range(12):
            stem = self.rnd.choice(self.vocab.nouns)
            path = f"src/{module}/{stem}.py"
            if path not in self.files:
                self.files[path] = [f'"""{stem.capitalize()} rules of {module}."""', self._block()]
                return path
        return None

    def _content(self, path: str) -> bytes:
        blocks = self.files[path]
        if len(blocks) == 1:
            return blocks[0].encode()
        return ("\n\n\n".join(blocks) + "\n").encode()

    def _sources(self, module: str | None = None) -> list[str]:
        prefix = f"src/{module}/" if module else "src/"
        return sorted(p for p in self.files if p.startswith(prefix) and not p.endswith("__init__.py"))

    def _rename(self) -> tuple[str, str] | None:
        """Move one source file (same content) within its module or to another."""
        sources = self._sources()
        if not sources:
            return None
        old = self.rnd.choice(sources)
        _src, module, name = old.split("/")
        stem = name[:-3].split("_")[0]
        if self.rnd.random() < 0.3 and len(self.started) > 1:
            new = f"src/{self.rnd.choice([m for m in self.started if m != module])}/{stem}.py"
        else:
            new = f"src/{module}/{stem}_{self.rnd.choice(FILE_TAILS)}.py"
        if new in self.files:
            return None
        self.files[new] = self.files.pop(old)
        return old, new

    def _touch(self, module: str, rename: bool) -> tuple[list[Change], tuple[str, str] | None]:
        """One commit's changes: a rename or edits to one to three files (new files now and then)."""
        r = self.rnd
        touched: dict[str, bool] = {}  # path -> still exists
        moved = self._rename() if rename else None
        if moved:
            touched[moved[0]], touched[moved[1]] = False, True
        else:
            if module not in self.started:
                for p in self._start_module(module):
                    touched[p] = True
            for _ in range(r.choices((1, 2, 3), (50, 35, 15))[0]):
                target = module if r.random() < 0.8 else r.choice(self.started)
                files = self._sources(target)
                if not files or (len(files) < 7 and r.random() < 0.12):
                    made = self._new_file(target)
                    if made:
                        touched[made] = True
                    continue
                path = r.choice(files)
                blocks = self.files[path]
                if len(blocks) < 20 and (len(blocks) < 3 or r.random() < 0.6):
                    blocks.append(self._block())
                else:
                    blocks[r.randrange(1, len(blocks))] = self._block()
                touched[path] = True
            if not touched:
                path = r.choice(self._sources() or sorted(self.files))
                self.files[path].append(self._block())
                touched[path] = True
        return [(p, self._content(p) if alive else None) for p, alive in sorted(touched.items())], moved

    # -- commit plan ---------------------------------------------------------------------------
    def _active(self, day: int) -> Item | None:
        """A story plausibly in the works on that day, or None."""
        hi = bisect.bisect_right(self.story_days, day)
        for _ in range(8 if hi else 0):
            lo = max(0, hi - 300) if self.rnd.random() < 0.7 else 0
            story = self.stories[self.rnd.randrange(lo, hi)]
            if story.status == "in-progress" or (story.status in ("done", "parked", "ready")
                                                 and day <= story.updated):
                return story
        return None

    def _slots(self) -> list[_Slot]:
        r, total = self.rnd, self.total
        slots = [_Slot(0, 9 * 3600, "init", None)]
        budget, used = int(0.55 * (total - 1)), 0
        records = sorted(self.plan.of_kind("delivery"), key=lambda d: d.id)
        r.shuffle(records)
        by_id = {s.id: s for s in self.stories}
        for record in records:
            shipped = by_id[str(record.delivers)]
            k = r.choices((1, 2, 3), (60, 25, 15))[0]
            if used + k <= budget:
                slots += [_Slot(r.randint(shipped.created, record.created), 0, "one", shipped)
                          for _ in range(k)]
                used += k
        rest = total - len(slots)
        quotas = (("one", round(0.68 * total) - used), ("none", round(0.10 * total) - 1),
                  ("body", round(0.08 * total)), ("range", round(0.05 * total)),
                  ("two", round(0.04 * total)))
        kinds = [k for k, q in quotas for _ in range(max(0, q))][:rest]
        kinds += ["work"] * (rest - len(kinds))
        r.shuffle(kinds)
        weight = {"done": 3.0, "in-progress": 3.0, "parked": 1.0, "ready": 0.5, "discarded": 0.2}
        pool = [s for s in self.stories if s.status in weight]
        cum = list(itertools.accumulate(weight[str(s.status)] for s in pool))
        picks = iter(r.choices(pool, cum_weights=cum, k=len(kinds)) if pool else [])
        for kind in kinds:
            story = next(picks, None) if kind in NAMING else None
            if story is None:
                slots.append(_Slot(on_a_weekday(r, r.randint(1, MAIN_DAYS - 1)), 0, kind, None))
            else:
                last = story.updated if story.status != "in-progress" else min(
                    MAIN_DAYS - 1, story.updated + 45)
                slots.append(_Slot(on_a_weekday(r, r.randint(story.created, last), last), 0, kind,
                                   story))
        for slot in slots[1:]:
            slot.seconds = r.randint(8 * 3600, 19 * 3600)
        slots.sort(key=lambda s: (s.day, s.seconds))
        return slots

    def _spell(self, story: Item) -> str:
        return story.id.lower() if self.rnd.random() < 0.1 else story.id

    def _message(self, slot: _Slot, module: str,
                 moved: tuple[str, str] | None) -> tuple[str, list[str]]:
        """(commit message, the ids it names) in one of the house styles."""
        r, story, kind = self.rnd, slot.story, slot.kind
        words = ([w.lower() for w in story.title.split()[1:4]] if story
                 else [r.choice(self.vocab.nouns)])
        phrase = f"{r.choice(self.vocab.verbs)} {' '.join(words)}"
        if moved and r.random() < 0.5:
            phrase = f"move {moved[0][4:]} to {moved[1][4:]}"
        cap = phrase[:1].upper() + phrase[1:]
        subject, body, named = "", "", []
        if kind == "range" and story is not None:
            numbers = list(range(story.number, story.number + r.randint(2, 4)))
            if all(n in self.by_number for n in numbers):
                digits = len(story.id.split("-")[1])
                span = f"{story.id}..{numbers[-1]:0{digits}d}"
                subject = r.choice((f"{span}: {phrase}", f"{cap} ({span})"))
                named = [self.by_number[n].id for n in numbers]
            else:
                kind = "one"
        if kind == "two" and story is not None:
            other = self._active(slot.day)
            if other is None or other is story:
                kind = "one"
            else:
                a, b = sorted((story, other), key=lambda s: s.id)
                subject = r.choice((f"{a.id}, {b.id}: {phrase}", f"{cap} ({a.id} and {b.id})"))
                named = [a.id, b.id]
        if kind == "one" and story is not None:
            sid = self._spell(story)
            style = r.choice(("feat", "fix", "refactor", "perf", "test"))
            subject = r.choices((f"{sid}: {phrase}", f"{style}({module}): {phrase} ({sid})",
                                 f"[{sid}] {cap}", f"{cap} for {sid}", f"{cap} ({sid})"),
                                (35, 25, 15, 12, 13))[0]
            named = [story.id]
            if r.random() < 0.15:
                second = self._active(slot.day)
                if second is not None and second is not story:
                    body = r.choice(("Also touches {}.", "See also {}.", "Follow-up in {}."
                                     )).format(self._spell(second))
                    named.append(second.id)
        elif kind == "body" and story is not None:
            subject = cap
            body = r.choice(("Refs {}.", "Part of {}.", "Towards {}.")).format(self._spell(story))
            named = [story.id]
        elif kind == "work" and self.work:
            item = r.choice(self.work)
            subject = r.choice((f"{item.id}: {phrase}", f"fix({module}): {phrase} ({item.id})"))
            named = [item.id]
        if not subject:
            subject = (f"refactor: move {moved[0][4:]} to {moved[1][4:]}" if moved
                       else r.choice(CHORES).format(m=module))
        prose = " ".join(self.vocab.prose(r, r.randint(8, 28))).capitalize() + "."
        if not body and r.random() < 0.35:
            body = prose
        elif body and r.random() < 0.4:
            body = prose + "\n\n" + body
        return subject + "\n" + (f"\n{body}\n" if body else ""), sorted(set(named))

    # -- writing -----------------------------------------------------------------------------------
    def write(self, repo: Path) -> CodeHistory:
        """Write the repository; returns what its commits name."""
        r, plan = self.rnd, self.plan
        slots = self._slots()
        first_free = max(1, self.total // 10)
        renames = set(r.sample(range(first_free, self.total),
                               min(max(3, self.total // 50), self.total - first_free))
                      ) if self.total >= 20 else set()
        founder = plan.people[0]
        env = git_environment(founder.name, founder.email)
        init_repository(repo, env)
        history = CodeHistory()
        stamps: list[tuple[int, int]] = []  # (mark, unix time)
        named_by_mark: dict[int, list[str]] = {}
        moves: list[tuple[int, str, str]] = []
        last = 0
        with HistoryWriter(repo, env) as writer:
            for index, slot in enumerate(slots):
                when = last = max(timestamp(slot.day, slot.seconds), last + 1)
                if slot.kind == "init":
                    product = self.vocab.topical[0].capitalize()
                    self.files["README.md"] = [f"# {product}\n\nThe {product} service. Code lives "
                                               "under src/.\n"]
                    paths = ["README.md", *self._start_module(self.modules[0])]
                    mark = writer.commit((founder.name, founder.email), when, "Initial commit\n",
                                         [(p, self._content(p)) for p in paths])
                    stamps.append((mark, when))
                    continue
                if slot.kind in NAMING and slot.story is None:
                    slot.story = self._active(slot.day)
                    if slot.story is None:
                        slot.kind = "none"
                story = slot.story
                module = (self.home.get(story.parent, self.modules[0])
                          if story is not None and story.parent in self.home
                          else r.choice(self.started))
                changes, moved = self._touch(module, index in renames)
                message, named = self._message(slot, module, moved)
                owner = story.owner if story is not None and story.owner and r.random() < 0.7 else (
                    r.choice(plan.people).handle)
                person = plan.person(owner)
                mark = writer.commit((person.name, person.email), when, message, changes)
                stamps.append((mark, when))
                if named:
                    named_by_mark[mark] = named
                if moved:
                    moves.append((mark, *moved))
            history.commits = writer.count
            marks = writer.close()
        history.commit_ids = [marks[m] for m, _t in stamps]
        history.named = {marks[m]: ids for m, ids in named_by_mark.items()}
        history.renames = [{"commit": marks[m], "from": a, "to": b} for m, a, b in moves]
        when_of = dict(stamps)
        naming: dict[str, list[int]] = {}
        for m, ids in named_by_mark.items():
            for i in ids:
                naming.setdefault(i, []).append(m)
        for record in plan.of_kind("delivery"):
            end = timestamp(record.created + 1, 0)
            shas = [marks[m] for m in sorted(naming.get(str(record.delivers), []))
                    if when_of[m] < end]
            if shas:
                history.implemented[record.id] = shas
        return history
