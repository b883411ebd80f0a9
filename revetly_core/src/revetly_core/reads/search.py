"""search_context: the keyword and feedback legs, fused, weighed, reordered, cut and fitted."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from revetly_core.ids import IdFinder, IdResolver
from revetly_core.inferred.instance import is_full
from revetly_core.model import WORK_ITEM_TYPES, Artifact
from revetly_core.reads import phrases, ranking, retrieval, semantic
from revetly_core.reads.budget import Cut, fit, read_budget
from revetly_core.reads.envelope import ProjectScope, check_deleted, envelope, resolve_project
from revetly_core.reads.inferred import check_inferred
from revetly_core.reads.marks import rows_marks
from revetly_core.reads.search_inferred import add_search_inferred, cut_search_inferred_first
from revetly_core.reads.search_recipe import (
    RECIPE_METHOD,
    RECIPE_PASSAGE_METHOD,
    add_recipe_leg,
    recipe_leg,
)
from revetly_core.reads.text import best_passage, query_words, query_words_in, summary
from revetly_core.refusal import Refusal
from revetly_core.store.stopwords import STOPWORDS

if TYPE_CHECKING:
    from revetly_core.answers.common import Absent, Marks
    from revetly_core.answers.search import Fact, LinkEntry, Passage, SearchAnswer, SearchArtifact
    from revetly_core.config import Config
    from revetly_core.store.keyword import Alternatives
    from revetly_core.store.protocols import KeywordIndex, KeywordSearcher, Store
    from revetly_core.store.queries_search import HitRow, NeighbourLink

MAX_QUERY_CHARS = 2_000
MAX_LIMIT = 50
DEFAULT_LIMIT = 10
POOL = MAX_LIMIT
"""Rows each leg gathers before the signals weigh them: fixed, so a search's top k is the
prefix of its top k + n whatever limit asks for."""
PHRASE_REACH = 2 * POOL
"""Rows of each population the words gather for the phrase part to rescore, before the pool is
cut to POOL: a row the words alone rank just under the cut can say the query in its order."""
AND_ENOUGH = DEFAULT_LIMIT
"""The commits' keyword query keeps its every-word answer when it finds at least this many
commits, else widens to any word (fixed, never read from limit)."""
FEEDBACK_ROWS = 3
"""How many of the first answer's best rows lend their distinctive words to the feedback leg."""
FEEDBACK_TERMS = 3
LINKS_LISTED = 3
FACTS_NEAR_TOP = 3
METHOD_KEYWORD = "keyword (english stemming)"
METHOD_FEEDBACK = "keyword (english stemming, feedback terms)"
METHOD_REVISES = "revises"
RECORDS_LEG, COMMITS_LEG, FEEDBACK_LEG, SEMANTIC_LEG, PULLED_LEG, RECIPE_LEG = 0, 1, 2, 3, 4, 5
"""The legs a row can stand on: the keyword leg over records, over commits (each population on
its own statistics), the feedback leg, the semantic leg ([embedding]), a PULL_REVISING pull, and
Graphiti's recipe (a full instance only)."""
LITE_ABSENT: Absent = {"absent": True, "reason": "lite"}
FACT_RELATIONS = {"parent": "hangs under", "delivers": "delivers", "supersedes": "supersedes",
                  "revises": "revises"}
"""Declared relations served as facts, with the verb a fact row reads them with."""
LINK_KEYS = {"cites": ("cites", "cited_by"), "references": ("references", "referenced_by"),
             "mentions": ("mentions", "mentioned_by")}


def validate_query(query: str) -> str:
    """The query stripped; empty, oversized or content-free queries are refused."""
    text = (query or "").strip()
    if not text:
        raise Refusal("invalid-argument", "the query is empty",
                      "pass a few words about what you are looking for, or get_artifact an id",
                      {"argument": "query"})
    if len(text) > MAX_QUERY_CHARS:
        raise Refusal("invalid-argument",
                      f"the query is {len(text)} characters; at most {MAX_QUERY_CHARS} are read",
                      "search with the few words that matter", {"argument": "query"})
    if not query_words(text):
        raise Refusal("empty-query",
                      "every word of the query is a stopword or shorter than two letters",
                      "name the thing you are looking for (a feature, a term, an id)",
                      {"argument": "query"})
    return text


def validate_limit(limit: int) -> int:
    """limit is a whole number from 1 to MAX_LIMIT."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise Refusal("invalid-argument", f"limit={limit!r} is not a whole number from 1 to {MAX_LIMIT}",
                      f"pass a limit between 1 and {MAX_LIMIT}", {"argument": "limit"})
    return limit


def validate_inferred(inferred: str | None) -> str | None:
    """inferred is absent or 'all'; anything else is refused by name."""
    check_inferred(inferred, "search")
    return inferred


def alias_units(query: str, aliases: dict[str, list[str]], searcher: KeywordSearcher) -> list[Alternatives]:
    """The query as units of stemmed terms; a declared alias spelling also answers to its term."""
    text = query
    units: list[Alternatives] = []
    for canonical, spellings in sorted(aliases.items()):
        for spelling in sorted(spellings, key=len, reverse=True):
            pattern = re.compile(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])", re.IGNORECASE)
            if pattern.search(text):
                text = pattern.sub(" ", text)
                units.append([searcher.analyze(spelling), searcher.analyze(canonical)])
    for term in searcher.analyze(text):
        units.append([[term]])
    return units


def records_pool(searcher: KeywordSearcher, units: list[Alternatives]) -> list[tuple[str, float]]:
    """The records' PHRASE_REACH best rows by BM25 over any of the query's words, from the start
    (a record that misses one word but fits the rest better outranks one that holds them all)."""
    return searcher.search(units, PHRASE_REACH, any_unit=True, population="records")


def commits_pool(searcher: KeywordSearcher, units: list[Alternatives]) -> list[tuple[str, float]]:
    """The commits' PHRASE_REACH best rows: every word first, any word when fewer than
    AND_ENOUGH commits hold them all (a one-line subject; the OR's scoring of every commit holding
    any word was measured to change nothing, decision 0011)."""
    return searcher.search(units, PHRASE_REACH, enough=AND_ENOUGH, population="commits")


def feedback_terms(bodies: list[str], own: set[str], searcher: KeywordSearcher) -> list[str]:
    """The most distinctive words of the best rows: frequent there, rare in the corpus."""
    counts: Counter[str] = Counter()
    for body in bodies:
        counts.update(searcher.analyze(body))
    scored = [
        (tf * searcher.idf(term), term) for term, tf in counts.items()
        if term not in own and term not in STOPWORDS and len(term) > 2 and not term.isdigit()
    ]
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [t for _, t in scored[:FEEDBACK_TERMS]]


def _feedback_leg(
    store: Store, searcher: KeywordSearcher, units: list[Alternatives],
    first: list[tuple[str, float]], share: float,
) -> list[tuple[str, float]]:
    """The query widened by the distinctive words of the keyword leg's best rows (any word)."""
    own_terms = {t for u in units for alt in u for t in alt}
    best = [a for a in (store.get(i) for i, _ in first[:FEEDBACK_ROWS]) if a is not None]
    extra = feedback_terms([a.title + "\n" + a.body for a in best], own_terms, searcher)
    if not extra:
        return []
    return searcher.search(units + [[[t]] for t in extra], POOL, any_unit=True,
                           population="records")


def _phrase_part(
    searcher: KeywordSearcher, text: str, first: list[tuple[str, float]],
    commits: list[tuple[str, float]], share: float,
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """Each population's pool rescored by the query's adjacent pairs (`phrases.with_phrases`)."""
    pairs = phrases.query_pairs(searcher.analyze(text))
    if not pairs:
        return first, commits
    records = searcher.phrase_scores(pairs, [i for i, _ in first], "records")
    commit_phrases = searcher.phrase_scores(pairs, [i for i, _ in commits], "commits")
    return (phrases.with_phrases(first, records, share),
            phrases.with_phrases(commits, commit_phrases, share))


@dataclass
class Gathered:
    """A fused hit the project reaches: what ranks it (the whole artifact is read only if served)."""

    hit: HitRow
    fused: float
    legs: frozenset[int]
    score: float = 0.0


def _links_map(
    links: list[NeighbourLink], artifact_id: str, served: set[str], deleted: str | None
) -> dict[str, LinkEntry]:
    """cites / cited_by / references / referenced_by / mentions / mentioned_by, ≤ 3 ids each."""
    far: dict[str, set[str]] = {}
    gone: set[str] = set()
    for src, dst, relation, far_deleted in links:
        if far_deleted and deleted != "include":
            continue
        out_key, in_key = LINK_KEYS[relation]
        if far_deleted:
            gone.add(dst if src == artifact_id else src)
        if src == artifact_id:
            far.setdefault(out_key, set()).add(dst)
        else:
            far.setdefault(in_key, set()).add(src)
    result: dict[str, LinkEntry] = {}
    for key in ("cites", "cited_by", "references", "referenced_by", "mentions", "mentioned_by"):
        ids = sorted(far.get(key, set()), key=lambda i: (i not in served, i))
        if ids:
            entry: LinkEntry = {"ids": ids[:LINKS_LISTED]}
            if len(ids) > LINKS_LISTED:
                entry["more"] = len(ids) - LINKS_LISTED
            listed_gone = [i for i in entry["ids"] if i in gone]
            if listed_gone:  # a far end the source withdrew: never to be read as live
                entry["other_deleted"] = listed_gone
            result[key] = entry
    return result


def _declared_link_counts(store: Store, ids: list[str]) -> dict[str, int]:
    """id -> the live declared links that count for it (`ranking.counts_toward`)."""
    counts: dict[str, int] = dict.fromkeys(ids, 0)
    for dst, relation, count in store.declared_link_tally(ids, ranking.RANK_LINK_METHODS):
        if ranking.counts_toward(relation):
            counts[dst] += count
    return counts


def _stated_names(store: Store, ids: list[str]) -> dict[str, set[str]]:
    """src -> ids it names by a stated explicit-ref or supersedes edge, within ids."""
    names: dict[str, set[str]] = {}
    wanted = set(ids)
    for src, dst in store.stated_names_from(ids):
        if dst in wanted:
            names.setdefault(src, set()).add(dst)
    return names


def _invalidated(
    store: Store, order: list[str], deleted: str | None
) -> tuple[int, list[tuple[str, str, str, str]]]:
    """Declared relations touching the rows that a later pass retired: counted, or served."""
    if not order:
        return 0, []
    retired = [(r.src, r.dst, r.relation, r.invalid_at) for r in store.retired_declared_links(order)]
    return (0, retired) if deleted == "include" else (len(retired), [])


def _facts(
    store: Store, order: list[str], titles: dict[str, str], words: list[str], limit: int
) -> tuple[list[Fact], int, int]:
    """Declared relations, then statements; matched rows anywhere, unmatched only near the top."""
    if not order:
        return [], 0, 0
    near_top = set(order[:FACTS_NEAR_TOP])
    rel_order = list(FACT_RELATIONS)
    candidates: list[tuple[int, int, int, str, Fact]] = []
    wanted = set(words)
    for src, dst, relation, stitle, dtitle in store.declared_facts(order):
        text = f"{src} ({stitle or titles.get(src, '?')}) {FACT_RELATIONS[relation]} {dst} ({dtitle or '?'})"
        hits = query_words_in(text, wanted)
        touches_top = src in near_top or dst in near_top
        if hits == 0 and not touches_top:
            continue
        row: Fact = {"fact": text, "relation": relation, "endpoints": [src, dst], "band": "declared",
                     "matched": False}
        candidates.append((0, -hits, rel_order.index(relation), text, row))
    for _sid, aid, text, stated_at in store.statements_of(order):
        fact = f"{aid} states: {text}"
        hits = query_words_in(fact, wanted)
        if hits == 0 and aid not in near_top:
            continue
        row = {"fact": fact, "relation": "states", "endpoints": [aid], "band": "statement",
               "stated_at": stated_at, "matched": False}
        candidates.append((1, -hits, 0, fact, row))
    matched = sorted((c for c in candidates if c[1] < 0), key=lambda c: c[:4])
    unmatched = sorted((c for c in candidates if c[1] == 0), key=lambda c: c[:4])
    chosen = matched[:limit]
    room = limit - len(chosen)
    chosen += unmatched[:room]
    not_near = len(unmatched) - min(len(unmatched), max(room, 0))
    chosen.sort(key=lambda c: c[:4])
    facts = []
    for _band, neg_hits, _r, _t, row in chosen:
        row["matched"] = neg_hits < 0
        facts.append(row)
    declared = sum(1 for f in facts if f["band"] == "declared")
    return facts, declared, not_near


def search_context(
    config: Config,
    store: Store,
    index: KeywordIndex,
    query: str,
    *,
    limit: int = DEFAULT_LIMIT,
    project: str | None = None,
    deleted: str | None = None,
    inferred: str | None = None,
) -> SearchAnswer:
    """Hybrid keyword search over every artifact, answered as the read surface defines it."""
    text = validate_query(query)
    limit = validate_limit(limit)
    deleted = check_deleted(deleted)
    validate_inferred(inferred)
    scope = resolve_project(config, project, with_imports=True)
    budget = read_budget(config.read.budget)
    if index.revision() is None:
        raise Refusal("not-synced", "the keyword index is missing or torn",
                      "run `revetly sync` (it rebuilds the index)")
    words = query_words(text)
    searcher = index.shared_searcher()
    units = alias_units(text, config.extraction.aliases, searcher)
    first = records_pool(searcher, units)
    commits = commits_pool(searcher, units)
    adjacency = ranking.leg_share(config.ranking, "phrase")
    if adjacency > 0:
        first, commits = _phrase_part(searcher, text, first, commits, adjacency)
    first, commits = first[:POOL], commits[:POOL]
    share = ranking.leg_share(config.ranking, "feedback")
    second = _feedback_leg(store, searcher, units, first, share) if share > 0 else []
    near = ranking.leg_share(config.ranking, "semantic")
    full = is_full(config)
    if full:  # the inferred store is read on a full instance only; a lite read never loads it
        from revetly_core.store.inferred import InferredStore
    recipe = ranking.leg_share(config.ranking, "recipe") if full else 0.0
    vector = semantic.query_vector(config, text) if full and (near > 0 or recipe > 0) else None
    meaning = semantic.semantic_leg(config, index.directory, text, POOL, vector) if near > 0 else []
    fused = retrieval.fuse_scores([(first, 1.0), (commits, 1.0), (second, share)])
    if recipe > 0:  # a full instance: Graphiti's recipe at its share, the better leg standing
        add_recipe_leg(fused, recipe_leg(InferredStore(index.directory), index.directory, text,
                                         vector, POOL), recipe, RECIPE_LEG)
    semantic.add_leg(fused, retrieval.relative_scores(meaning, near), SEMANTIC_LEG)
    label = semantic.semantic_method(config) if meaning else ""
    gathered, withheld = _gather(store, fused, scope, deleted)
    order = _rank(config, store, gathered, text)
    rows = {g.hit.id: g for g in gathered}
    if retrieval.PULL_REVISING:
        for note, _item in retrieval.pull_revising(
            order, _newest_revisers(store, order[: retrieval.PULL_REVISING_TOP])
        ):
            pulled = store.hit_rows([note]).get(note)
            if pulled is None or pulled.project not in scope.reach:
                order.remove(note)
                continue
            rows[note] = Gathered(pulled, 0.0, frozenset({PULLED_LEG}))
    whole = store.held_artifacts(order[:limit])
    served = [i for i in order[:limit] if i in whole]  # (a row a concurrent pass removed: gone)
    served_set = set(served)
    links = store.neighbour_links_of(served)
    marks = rows_marks(store, [whole[i] for i in served])
    artifacts = [_artifact_row(whole[i], rows[i], links[i], marks[i], served_set, deleted, scope,
                               label) for i in served]
    passages: list[Passage] = []
    for i in served:
        found = best_passage(whole[i].body, words)
        if found is not None:
            passages.append({"artifact_id": i, "text": found[0], "words": found[1],
                             "method": _method(rows[i], label, passage=True)})
    titles = {i: whole[i].title for i in served}
    facts, declared_count, not_near = _facts(store, served, titles, words, limit)
    payload: SearchAnswer = {
        "query": text,
        "artifacts": artifacts,
        "passages": passages,
        "facts": facts,
        "deterministic_facts": declared_count,
        "inferred_facts": LITE_ABSENT.copy(),
        "concepts": LITE_ABSENT.copy(),
    }
    if not_near:
        payload["facts_truncated"] = {"reason": "not-near-top", "count": not_near}
    invalidated, retired = _invalidated(store, served, deleted)
    if invalidated:
        payload["invalidated"] = {"count": invalidated}
    for src, dst, relation, invalid_at in retired[: max(0, limit - len(facts))]:
        payload["facts"].append({
            "fact": f"{src} {FACT_RELATIONS[relation]} {dst}", "relation": relation,
            "endpoints": [src, dst], "band": "declared", "matched": False,
            "invalidated": True, "invalid_at": invalid_at,
        })
    if withheld:
        payload["withheld"] = {"count": len(withheld), "ids": withheld[:10]}
    if deleted:
        payload["deleted"] = deleted
    if full:  # the inferred half: concepts and the third band, under the cap
        add_search_inferred(payload, InferredStore(index.directory), words, served, limit,
                            inferred == "all", store)
    payload = {**payload, **envelope(config, store, scope)}
    if full:
        cut_search_inferred_first(payload, budget)
    fit(payload, [Cut(("passages",), "truncated_passages"), Cut(("facts",), "truncated_facts"),
                  Cut(("artifacts",), "truncated_artifacts")], budget)
    payload["deterministic_facts"] = sum(1 for f in payload["facts"] if f["band"] == "declared")
    return payload


def _gather(
    store: Store, fused: dict[str, tuple[float, frozenset[int]]], scope: ProjectScope,
    deleted: str | None,
) -> tuple[list[Gathered], list[str]]:
    """Load the fused rows the project reaches, applying the deleted argument; withheld apart."""
    out: list[Gathered] = []
    withheld: list[str] = []
    reach = set(scope.reach)
    held = store.hit_rows(list(fused))
    for artifact_id in sorted(fused):
        a = held.get(artifact_id)
        if a is None or a.project not in reach:
            continue
        if a.withheld:
            withheld.append(a.id)
            continue
        if deleted is None and a.deleted:
            continue
        if deleted == "only" and not a.deleted:
            continue
        score, legs = fused[artifact_id]
        out.append(Gathered(a, score, legs))
    return out, withheld


def _rank(config: Config, store: Store, gathered: list[Gathered], query: str) -> list[str]:
    """Order gathered rows: fused score × signals, ties by id, then the reorder rules.

    Nothing here reads the served limit: the order is the same whatever limit cuts it."""
    if not gathered:
        return []
    weights = ranking.weights(config.ranking)
    backlog_families = {f for f, t in config.ids.families.items() if t in WORK_ITEM_TYPES}
    finder = _id_finder(tuple(config.ids.families), tuple(config.id_aliases.items()),
                        tuple(config.dotted_families))
    named = finder.keys(query)
    resolver = IdResolver(g.hit.id for g in gathered) if named else None
    query_ids = {
        held for held in (resolver.resolve(k) for k in named) if held is not None
    } if resolver is not None else set()
    ids = [g.hit.id for g in gathered]
    link_counts = _declared_link_counts(store, ids) if ranking.reads_links(weights) else {}
    superseded = store.superseded_among(ids)
    candidates = {
        g.hit.id: ranking.Candidate(
            g.hit.id, g.hit.type, g.hit.family,
            g.hit.source_updated_at or g.hit.created_at, g.hit.provenance,
            link_counts.get(g.hit.id, 0), g.hit.id in superseded)
        for g in gathered
    }
    freshest = ranking.freshest_date(list(candidates.values()))
    for g in gathered:
        g.score = ranking.weigh(candidates[g.hit.id], g.fused, w=weights, query_ids=query_ids,
                                backlog_families=backlog_families, freshest=freshest)
    order = [g.hit.id for g in sorted(gathered, key=lambda g: (-g.score, g.hit.id))]
    names = _stated_names(store, order)
    bodies = store.bodies_of(sorted(names))  # the reorder rules read the body of a naming row only
    rows = {
        g.hit.id: retrieval.Row(g.hit.id, g.hit.type, g.hit.created_at or "",
                                bodies.get(g.hit.id, ""))
        for g in gathered
    }
    retrieval.newer_decision_first(order, rows, names)
    retrieval.criteria_note_first(order, rows, names, retrieval.REORDER_REACH)
    retrieval.revising_note_first(order, rows, _revising(store, order), retrieval.REORDER_REACH)
    return order


@lru_cache(maxsize=16)
def _id_finder(
    families: tuple[str, ...], aliases: tuple[tuple[str, str], ...], dotted: tuple[str, ...]
) -> IdFinder:
    """The id finder of one configuration's families, made once (its pattern is compiled once)."""
    return IdFinder(families, aliases=dict(aliases), dotted=dotted)


def _revising(store: Store, ids: list[str]) -> dict[str, set[str]]:
    """note -> the gathered items it declares it revises (live declarations only)."""
    if not retrieval.REVISES_ORDER or not ids:
        return {}
    out: dict[str, set[str]] = {}
    for src, dst in store.revises_within(ids):
        out.setdefault(src, set()).add(dst)
    return out


def _newest_revisers(store: Store, ids: list[str]) -> dict[str, str]:
    """item -> its newest live revising note, for the items among ids that have one."""
    if not ids:
        return {}
    best: dict[str, tuple[str, str]] = {}
    for src, dst, created in store.live_revisers(ids):
        if dst not in best or (created, src) > best[dst]:
            best[dst] = (created, src)
    return {item: note for item, (_, note) in best.items()}


def _method(g: Gathered, semantic_label: str = "", *, passage: bool = False) -> str:
    """Which leg reached the row: the keyword leg, the feedback leg, the semantic leg alone
    (named by its provider, with or without the recipe), Graphiti's recipe alone, or a revises
    pull."""
    if g.legs & {RECORDS_LEG, COMMITS_LEG}:
        return METHOD_KEYWORD
    if g.legs in ({SEMANTIC_LEG}, {SEMANTIC_LEG, RECIPE_LEG}):
        return semantic_label
    if g.legs == {RECIPE_LEG}:
        return RECIPE_PASSAGE_METHOD if passage else RECIPE_METHOD
    return METHOD_REVISES if PULLED_LEG in g.legs else METHOD_FEEDBACK


def _artifact_row(
    a: Artifact, g: Gathered, links: list[NeighbourLink], marks: Marks, served: set[str],
    deleted: str | None, scope: ProjectScope, semantic_label: str = "",
) -> SearchArtifact:
    row: SearchArtifact = {
        "artifact_id": a.id,
        "title": a.title,
        "artifact_type": a.type,
        "kind": a.kind,
        "status": a.status,
        "summary": summary(a.title, a.body),
        "source_updated_at": a.source_updated_at,
        "method": _method(g, semantic_label),
        "links": _links_map(links, a.id, served, deleted),
    }
    if scope.multi:
        row["project"] = a.project
    return {**row, **marks}

