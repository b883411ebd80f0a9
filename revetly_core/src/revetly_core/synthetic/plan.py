"""Planning a synthetic instance: every artifact, its dates, links, text and later changes.

Each phase draws from its own random stream named after the seed, so adding a rule to one
phase leaves the others' choices as they were. Nothing here touches the disk.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from revetly_core.ingest.linker import MIN_TITLE_CHARS, MIN_TITLE_TOKENS, tokens
from revetly_core.markdown import criteria_fingerprint
from revetly_core.synthetic import prose
from revetly_core.synthetic.calendar import LATE_DAYS, MAIN_DAYS, iso_day, on_a_weekday
from revetly_core.synthetic.items import FAMILIES, KINDS, WORK_ITEMS, Edit, Item, Revision
from revetly_core.synthetic.vocabulary import Vocabulary, build_vocabulary

HANDLES = ("ada", "bram", "chidi", "dora", "emil", "fatou", "gus", "hana", "ivo", "jun",
           "kaia", "luis", "maren", "nils", "oona", "pavel")
FAMILY_NAMES = ("Achterberg", "Bianchi", "Castellanos", "Dlamini", "Eriksen", "Fujita",
                "Grünewald", "Hoang", "Ilves", "Jovanović", "Kariuki", "Larsen", "Mbeki",
                "Nowak", "Ortega", "Petrov")
DOOMED_KINDS = {"story": 50, "task": 15, "bug": 15, "conversation": 10, "reference": 10}
FINAL_STATUS = {
    "epic": (("draft", 10), ("ready", 10), ("in-progress", 50), ("done", 20), ("parked", 10)),
    "feature": (("draft", 15), ("ready", 15), ("in-progress", 30), ("done", 28), ("parked", 6),
                ("discarded", 6)),
    "story": (("draft", 30), ("ready", 25), ("in-progress", 25), ("parked", 12),
              ("discarded", 8)),
    "task": (("draft", 10), ("ready", 15), ("in-progress", 15), ("done", 45), ("parked", 5),
             ("discarded", 10)),
    "bug": (("draft", 15), ("ready", 15), ("in-progress", 20), ("done", 38), ("parked", 4),
            ("discarded", 8)),
    "decision": (("proposed", 15), ("accepted", 73), ("rejected", 12)),
    "constraint": (("proposed", 12), ("accepted", 88)),
    "assumption": (("proposed", 30), ("accepted", 58), ("rejected", 12)),
}
"""Final statuses by type; stories reach `done` only by being picked as delivered work."""
NEXT_STATUS = {"draft": "ready", "ready": "in-progress", "in-progress": "done",
               "proposed": "accepted"}


@dataclass
class Person:
    handle: str
    name: str
    email: str


@dataclass
class Plan:
    """A whole synthetic instance in memory: items in creation order, people, ground truth."""

    n: int
    seed: int
    vocab: Vocabulary
    people: list[Person]
    items: list[Item]
    criterion_changed: list[tuple[str, str, int]] = field(default_factory=list)
    """(revising note, revised item, position) whose fingerprinted criterion was reworded later."""

    def live(self, kind: str | None = None) -> list[Item]:
        return [i for i in self.items if not i.doomed and (kind is None or i.kind == kind)]

    def of_kind(self, kind: str) -> list[Item]:
        return [i for i in self.items if i.kind == kind]

    def person(self, handle: str) -> Person:
        return next(p for p in self.people if p.handle == handle)

    def live_counts(self) -> dict[str, int]:
        """Live artifacts by type, every type named (zero when absent)."""
        return {k.name: sum(1 for i in self.items if i.kind == k.name and not i.doomed)
                for k in KINDS}


def allocate(n: int) -> dict[str, int]:
    """How many live artifacts of each type an instance of n holds (they sum to n)."""
    counts = {k.name: 0 for k in KINDS}
    if n < 3:
        counts["story"] = n
        return counts
    for k in KINDS[:-1]:
        counts[k.name] = round(n * k.share)
    for name in ("epic", "feature", "story"):
        counts[name] = max(1, counts[name])
    while sum(counts.values()) > n:
        biggest = max(counts, key=lambda name: counts[name])
        counts[biggest] -= 1
    counts["delivery"] = n - sum(counts.values())
    excess = max(0, counts["delivery"] - counts["story"] // 2)
    counts["delivery"] -= excess
    counts["story"] += excess
    return counts


def doomed_count(n: int) -> int:
    """Artifacts created and later deleted: about 0.2% of n, between 3 and 200 (none below 10)."""
    return 0 if n < 10 else max(3, min(200, round(n * 0.002)))


def later_update(rnd: random.Random, created: int) -> int:
    """The day a file last changes in the main history: often later, sometimes the same day."""
    if rnd.random() < 0.25 or created >= MAIN_DAYS - 1:
        return created
    offset = 1 + int(math.exp(rnd.gauss(2.6, 1.1)))
    if created + offset > MAIN_DAYS - 1:
        offset = rnd.randint(1, MAIN_DAYS - 1 - created)
    return created + offset


def mentionable(title: str) -> bool:
    """Whether the linker counts this title when another body repeats it (words and length)."""
    words = tokens(title)
    return len(words) >= MIN_TITLE_TOKENS and len(" ".join(words)) >= MIN_TITLE_CHARS


def _pick_before(rnd: random.Random, pool: Sequence[Item], days: Sequence[int], day: int,
                 recent: int = 0) -> Item | None:
    """An item of pool (sorted by created) created on or before day, often a recent one."""
    hi = bisect.bisect_right(days, day)
    if hi == 0:
        return None
    lo = max(0, hi - recent) if recent and rnd.random() < 0.6 else 0
    return pool[rnd.randrange(lo, hi)]


def _by_created(items: list[Item]) -> tuple[list[Item], list[int]]:
    ordered = sorted(items, key=lambda i: (i.created, i.order))
    return ordered, [i.created for i in ordered]


class Planner:
    """Builds a Plan for (n, seed) in fixed phases."""

    def __init__(self, n: int, seed: int) -> None:
        self.n, self.seed = n, seed
        self.counts = allocate(n)
        self.vocab = build_vocabulary(seed)
        prnd = random.Random(f"{seed}:people")
        handles = prnd.sample(HANDLES, 8)
        surnames = prnd.sample(FAMILY_NAMES, 8)
        self.people = [Person(h, f"{h.capitalize()} {s}", f"{h}@{s.lower()}.example.net")
                       for h, s in zip(handles, surnames, strict=True)]
        self.handles = [p.handle for p in self.people]
        self.items: list[Item] = []
        self.parent_of: dict[int, Item] = {}
        self.done_stories: list[Item] = []
        self.criterion_changed: list[tuple[str, str, int]] = []

    def plan(self) -> Plan:
        self._dates()
        self._words()
        self._statuses()
        self._links()
        self._deliveries()
        self._bodies()
        self._later()
        return Plan(self.n, self.seed, self.vocab, self.people, self.items,
                    self.criterion_changed)

    def _new(self, kind: str, created: int, doomed: bool = False,
             parent: Item | None = None) -> Item:
        item = Item(kind=kind, created=created, order=len(self.items), doomed=doomed)
        self.items.append(item)
        if parent is not None:
            self.parent_of[item.order] = parent
        return item

    # -- dates, hierarchy, ids ---------------------------------------------------------------
    def _dates(self) -> None:
        rnd = random.Random(f"{self.seed}:dates")
        c = self.counts
        doomed = dict.fromkeys(DOOMED_KINDS, 0)
        kinds = [k for k in DOOMED_KINDS if c[k] > 0] or ["story"]
        for _ in range(doomed_count(self.n)):
            doomed[rnd.choices(kinds, [DOOMED_KINDS[k] for k in kinds])[0]] += 1
        last = MAIN_DAYS - 1

        def after(base: int, skew: float) -> int:
            return on_a_weekday(rnd, base + int((last - base) * rnd.random() ** skew))

        epics = [self._new("epic", on_a_weekday(rnd, rnd.randint(0, 4) if i == 0 else
                                                int(MAIN_DAYS * 0.75 * rnd.random() ** 1.2)))
                 for i in range(c["epic"])]
        features = []
        for i in range(c["feature"]):
            epic = epics[0] if i == 0 else rnd.choice(epics)
            day = on_a_weekday(rnd, epic.created + rnd.randint(0, 5)) if i == 0 else after(
                epic.created, 1.4)
            features.append(self._new("feature", day, parent=epic))
        stories = []
        for k in range(c["story"] + doomed["story"]):
            homes = features if features and (rnd.random() < 0.85 or not epics) else epics
            parent = rnd.choice(homes) if homes else None
            story = self._new("story", after(parent.created if parent else 0, 1.3),
                              k >= c["story"], parent)
            if not story.doomed:
                stories.append(story)
        for kind, where in (("task", ((stories, 60), (features, 40))),
                            ("bug", ((stories, 50), (features, 30), (epics, 20)))):
            pools = [pool for pool, _w in where if pool]
            weights = [w for pool, w in where if pool]
            for k in range(c[kind] + doomed.get(kind, 0)):
                home = rnd.choice(rnd.choices(pools, weights)[0]) if pools else None
                self._new(kind, after(home.created if home else 0, 1.2), k >= c[kind], home)
        for kind in ("decision", "constraint", "assumption", "conversation", "reference"):
            skew = 1.5 if kind in ("constraint", "assumption") else 1.0
            for k in range(c[kind] + doomed.get(kind, 0)):
                if kind == "conversation" and stories:  # talk follows the work
                    day = min(last, rnd.choice(stories).created + rnd.randint(0, 14))
                else:
                    day = int(MAIN_DAYS * rnd.random() ** skew)
                self._new(kind, on_a_weekday(rnd, day), k >= c[kind])
        for item in self.items:
            item.updated = later_update(rnd, item.created)
        for family in FAMILIES[:-1]:
            self._number(family)
        for order, parent in self.parent_of.items():
            self.items[order].parent = parent.id

    def _number(self, family: str) -> None:
        """Ids of a family in creation order, zero-padded to four digits or more."""
        members = sorted((i for i in self.items if i.family == family),
                         key=lambda i: (i.created, i.order))
        width = max(4, len(str(len(members))))
        for number, item in enumerate(members, 1):
            item.id = f"{family}-{number:0{width}d}"

    def _in_id_order(self) -> list[Item]:
        return sorted(self.items, key=lambda i: (FAMILIES.index(i.family), i.id))

    # -- titles, topics, criteria, owners ------------------------------------------------------
    def _words(self) -> None:
        rnd = random.Random(f"{self.seed}:words")
        for item in self._in_id_order():
            own = self.vocab.topics(rnd, 4)
            parent = self.parent_of.get(item.order)
            topics = own[:1] + (parent.topics[:2] if parent else []) + own[1:]
            item.topics = list(dict.fromkeys(topics))
            item.title = prose.title_of(rnd, self.vocab, item)
            if item.kind in WORK_ITEMS:
                item.criteria = prose.criteria_of(rnd, self.vocab, item.topics)
            item.owner = None if item.kind in WORK_ITEMS and rnd.random() < 0.07 else rnd.choice(
                self.handles)
            item.dated = rnd.random() >= 0.15

    # -- statuses --------------------------------------------------------------------------------
    def _statuses(self) -> None:
        rnd = random.Random(f"{self.seed}:statuses")
        stories = [s for s in self.items if s.kind == "story" and not s.doomed]
        want = min(len(stories), max(self.counts["delivery"], round(0.3 * len(stories))))
        older_first = [float(MAIN_DAYS - s.created + 20) for s in stories]
        keyed = sorted(((rnd.random() ** (1.0 / w), i) for i, w in enumerate(older_first)),
                       reverse=True)
        done = {stories[i].order for _key, i in keyed[:want]}
        for item in self.items:
            spread = FINAL_STATUS.get(item.kind)
            if spread is None:
                continue
            if item.kind == "story" and item.order in done:
                item.status = "done"
            else:
                item.status = rnd.choices([s for s, _w in spread], [w for _s, w in spread])[0]
            item.first_status = "draft" if item.kind in WORK_ITEMS else "proposed"
            if item.status == "done" and item.updated - item.created < 2:
                item.updated = min(MAIN_DAYS - 1, item.created + 2 + int(rnd.expovariate(1 / 15)))
        for item in self.items:
            if not item.dated and item.updated > item.created and item.status == item.first_status:
                item.dated = True  # git alone could not tell the update apart
        self.done_stories = sorted((s for s in stories if s.order in done), key=lambda s: s.id)

    # -- declared links ----------------------------------------------------------------------
    def _links(self) -> None:
        rnd = random.Random(f"{self.seed}:links")
        citeable, cite_days = _by_created(
            [i for i in self.items if i.kind in ("decision", "constraint", "reference")
             and not i.doomed])
        stories, story_days = _by_created([i for i in self.items if i.kind == "story"
                                           and not i.doomed])
        refs, ref_days = _by_created([i for i in self.items if i.kind == "reference"
                                      and not i.doomed])
        by_feature: dict[str | None, list[Item]] = {}
        for story in (i for i in self.items if i.kind == "story"):
            want = rnd.choices((0, 1, 2, 3), (40, 30, 20, 10))[0]
            siblings = by_feature.setdefault(story.parent, [])
            got: list[Item] = []
            for _ in range(2 * want):
                if len(got) >= want:
                    break
                pick = (rnd.choice(siblings) if siblings and rnd.random() < 0.5 else
                        _pick_before(rnd, citeable, cite_days, story.created, recent=150))
                if pick is not None and pick.created <= story.created and pick not in got:
                    got.append(pick)
            siblings.extend(g for g in got if g not in siblings)
            story.cites = sorted(g.id for g in got)
        for feature in (i for i in self.items if i.kind == "feature"):
            if rnd.random() < 0.2:
                picks = {_pick_before(rnd, refs, ref_days, feature.created)
                         for _ in range(rnd.randint(1, 2))}
                feature.references = sorted(p.id for p in picks if p is not None)
        for talk in (i for i in self.items if i.kind == "conversation"):
            if rnd.random() < 0.85:
                picks = {_pick_before(rnd, stories, story_days, talk.created, recent=100)
                         for _ in range(rnd.randint(1, 3))}
                talk.cites = sorted(p.id for p in picks if p is not None)
        self._supersessions(rnd)
        self._revisions(rnd, stories, story_days)
        self._related(rnd, stories)

    def _supersessions(self, rnd: random.Random) -> None:
        """About 15% of decisions replace one (sometimes two) older standing decisions whole."""
        decisions = sorted((i for i in self.items if i.kind == "decision"), key=lambda i: i.id)
        if len(decisions) < 3:
            return
        replacing = {d.order for d in rnd.sample(decisions[1:], round(0.15 * len(decisions)))}
        standing: list[Item] = []
        for d in decisions:
            if d.order in replacing and standing:
                window = standing[-25:]
                olds = rnd.sample(window, 2 if len(window) >= 2 and rnd.random() < 0.1 else 1)
                for old in olds:
                    standing.remove(old)
                    old.status = "superseded"
                    old.updated = max(old.updated, d.created)
                d.supersedes = sorted(o.id for o in olds)
                d.status = "accepted"
            if d.status != "rejected":
                standing.append(d)

    def _revisions(self, rnd: random.Random, stories: list[Item], story_days: list[int]) -> None:
        """About 10% of decisions change part of an earlier story or feature (`revises`)."""
        decisions = sorted((i for i in self.items if i.kind == "decision"), key=lambda i: i.id)
        features, feature_days = _by_created([i for i in self.items if i.kind == "feature"])
        floor = min(15, len(stories))
        eligible = [d for d in decisions
                    if stories and bisect.bisect_right(story_days, d.created) >= max(1, floor)]
        want = max(1, round(0.10 * len(decisions))) if len(decisions) >= 5 else 0
        chosen = {d.order for d in rnd.sample(eligible, min(want, len(eligible)))}
        made = 0
        for d in decisions:
            if d.order not in chosen:
                continue
            entries: list[Revision] = []
            targets = 2 if rnd.random() < 0.2 else 1
            for _attempt in range(6):
                if len(entries) >= targets:
                    break
                form = rnd.choices(("fingerprinted", "positions", "whole"), (60, 15, 25))[0]
                if not entries and made < 2:  # small instances still get both main forms
                    form = ("fingerprinted", "whole")[made]
                pool, days = ((features, feature_days) if form == "whole" and rnd.random() < 0.3
                              else (stories, story_days))
                target = _pick_before(rnd, pool, days, d.created, recent=250)
                if target is None or any(e.target == target.id for e in entries):
                    continue
                if form == "whole":
                    entries.append(Revision(target.id))
                    continue
                crit = target.criteria or []
                positions = sorted(rnd.sample(range(1, len(crit) + 1),
                                              min(len(crit), rnd.choice((1, 1, 2)))))
                fps = ([criteria_fingerprint(crit[p - 1]) for p in positions]
                       if form == "fingerprinted" else None)
                entries.append(Revision(target.id, positions, fps))
            if entries:
                d.revises = entries
                made += 1

    def _related(self, rnd: random.Random, stories: list[Item]) -> None:
        """A fifth of decisions bear on a nearby story, feature or decision (`related_ids`)."""
        pool, days = _by_created(
            stories + [i for i in self.items if i.kind in ("feature", "decision")])
        for d in (i for i in self.items if i.kind == "decision"):
            if rnd.random() >= 0.2:
                continue
            taken = {d.id, *d.supersedes, *(e.target for e in d.revises)}
            got: set[str] = set()
            for _ in range(rnd.randint(1, 2)):
                pick = _pick_before(rnd, pool, days, d.created, recent=250)
                if pick is not None and pick.id not in taken:
                    got.add(pick.id)
            d.related = sorted(got, key=lambda i: (FAMILIES.index(i.split("-")[0]), i))

    # -- delivery records --------------------------------------------------------------------
    def _deliveries(self) -> None:
        rnd = random.Random(f"{self.seed}:deliveries")
        delivered = sorted(rnd.sample(self.done_stories,
                                      min(self.counts["delivery"], len(self.done_stories))),
                           key=lambda s: s.id)
        for story in delivered:
            record = self._new("delivery", story.updated)
            record.updated = story.updated
            record.delivers = story.id
            record.delivered_by = (story.owner if story.owner and rnd.random() < 0.8
                                   else rnd.choice(self.handles))
            record.owner = None
            record.topics = story.topics
            record.title = f"Delivered: {story.title}"
            for _ in story.criteria or []:
                verdict = rnd.choices(("met", "partial", "not-met"), (82, 12, 6))[0]
                note = None
                if verdict != "met" and rnd.random() < 0.6:
                    note = prose.capitalised(" ".join(self.vocab.prose(rnd, rnd.randint(4, 9))))
                record.verdicts.append((verdict, note))
            record.dated = rnd.random() >= 0.15
        self._number("DEL")

    # -- bodies and the mentions planted in them -----------------------------------------------
    def _bodies(self) -> None:
        rnd = random.Random(f"{self.seed}:bodies")
        targets, days = _by_created([i for i in self.items if not i.doomed
                                     and i.kind != "delivery"])
        by_id = {i.id: i for i in self.items}
        for item in self._in_id_order():
            words = prose.body_length(rnd, item.kind)
            if item.kind == "delivery":
                item.body = self._delivery_body(rnd, item, by_id[str(item.delivers)])
                continue
            sections = prose.sections_of(rnd, self.vocab, item, self.handles, words)
            slots = [(s, p) for s, (_h, paras, open_) in enumerate(sections) if open_
                     for p in range(len(paras))]
            if not item.doomed and slots:
                declared = {item.parent, *item.cites, *item.references, *item.related,
                            *item.supersedes, *(e.target for e in item.revises)}
                if rnd.random() < 0.10:
                    target = self._target(rnd, item, targets, days)
                    if target is not None:
                        s, p = rnd.choice(slots)
                        sections[s][1][p] += " " + rnd.choice(prose.ID_SENTENCES).format(target.id)
                        item.names_id = target.id
                if rnd.random() < 0.05:
                    target = self._target(rnd, item, targets, days)
                    if (target is not None and target.id != item.names_id
                            and target.id not in declared and mentionable(target.title)):
                        s, p = rnd.choice(slots)
                        sections[s][1][p] += " " + rnd.choice(prose.TITLE_SENTENCES).format(
                            target.title)
                        item.names_title = target.id
            item.body = prose.render_sections(item.title, sections)

    def _target(self, rnd: random.Random, item: Item, targets: list[Item],
                days: list[int]) -> Item | None:
        for _ in range(4):
            pick = _pick_before(rnd, targets, days, item.created) if rnd.random() < 0.85 else (
                rnd.choice(targets))
            if pick is not None and pick is not item:
                return pick
        return None

    def _delivery_body(self, rnd: random.Random, record: Item, story: Item) -> str:
        lead = (f"Shipped {story.id} ({story.title}) on {iso_day(record.created)}. "
                + " ".join(prose.paragraphs(rnd, self.vocab, prose.body_length(rnd, "delivery"),
                                            story.topics)))
        lines = [f"{n}. {text}: {verdict}{'; ' + note if note else ''}"
                 for n, (text, (verdict, note)) in enumerate(
                     zip(story.criteria or [], record.verdicts, strict=True), 1)]
        return prose.render_sections(record.title, [(None, [lead], False),
                                                     ("Verdicts", ["\n".join(lines)], False)])

    # -- later edits and deletions -----------------------------------------------------------
    def _later(self) -> None:
        rnd = random.Random(f"{self.seed}:later")
        doomed = sorted((i for i in self.items if i.doomed), key=lambda i: i.id)
        live = [i for i in self.items if not i.doomed and i.kind != "delivery"]
        n_edit = min(len(live), max(4, min(1000, round(self.n * 0.01)))) if self.n >= 10 else 0
        n_del_days = min(2, len(doomed))
        days = sorted(rnd.sample(range(MAIN_DAYS + 1, MAIN_DAYS + LATE_DAYS + 1),
                                 min(5, n_edit) + n_del_days))
        delete_days = sorted(rnd.sample(days, n_del_days))
        edit_days = [d for d in days if d not in delete_days]
        for k, item in enumerate(doomed):
            item.deleted = delete_days[k % n_del_days]
        by_id = {i.id: i for i in self.items}
        fingerprinted: dict[str, int] = {}
        for d in self.items:
            for e in d.revises:
                if e.fingerprints and e.positions:
                    fingerprinted.setdefault(e.target, rnd.choice(e.positions))
        picked = rnd.sample(live, n_edit) if n_edit else []
        chosen = {i.id for i in picked}
        for target_id in list(fingerprinted)[: max(1, n_edit // 8)] if n_edit else []:
            if target_id not in chosen:
                picked.append(by_id[target_id])
                chosen.add(target_id)
        for k, item in enumerate(picked):
            self._edit(rnd, item, edit_days[k % len(edit_days)], fingerprinted.get(item.id))
        for d in sorted(self.items, key=lambda i: i.id):
            for e in d.revises:
                target = by_id[e.target]
                if not e.fingerprints or target.edit is None or target.edit.criteria is None:
                    continue
                for position, fp in zip(e.positions or [], e.fingerprints, strict=True):
                    if criteria_fingerprint(target.edit.criteria[position - 1]) != fp:
                        self.criterion_changed.append((d.id, target.id, position))

    def _edit(self, rnd: random.Random, item: Item, day: int, forced: int | None) -> None:
        """One later change: reword a criterion, append a paragraph, or step the status."""
        what = "reword" if forced else rnd.choices(("reword", "append", "status"), (40, 35, 25))[0]
        if what == "reword" and item.criteria:
            position = forced or rnd.randint(1, len(item.criteria))
            old = criteria_fingerprint(item.criteria[position - 1])
            while True:
                text = prose.criterion(rnd, self.vocab, item.topics)
                if criteria_fingerprint(text) != old:
                    break
            criteria = list(item.criteria)
            criteria[position - 1] = text
            item.edit = Edit(day, f"reword criterion {position}", criteria=criteria)
            return
        if what == "status" and item.status in NEXT_STATUS and item.kind != "story":
            item.edit = Edit(day, f"status {item.status} -> {NEXT_STATUS[item.status]}",
                             status=NEXT_STATUS[item.status])
            return
        para = prose.paragraphs(rnd, self.vocab, rnd.randint(25, 60), item.topics)[0]
        if item.kind == "conversation":
            para = f"**{rnd.choice(self.handles)}**: {para}"
        item.edit = Edit(day, "append paragraph", body=item.body + "\n\n" + para)


def plan_instance(n: int, seed: int = 42) -> Plan:
    """The plan of a synthetic instance of n live artifacts (plus a few later deleted)."""
    return Planner(n, seed).plan()
