"""What a synthetic artifact says: its title, its acceptance criteria and its markdown body."""

from __future__ import annotations

import math
import random

from revetly_core.synthetic.items import KIND, Item
from revetly_core.synthetic.vocabulary import ROLES, Vocabulary

EPIC_ENDINGS = ("rollout", "groundwork", "initiative", "rework", "journey", "programme")
DOC_KINDS = ("playbook", "runbook", "api notes", "vendor sheet", "style guide", "survey results")
MEETINGS = ("Standup notes on", "Design review of", "Customer call about", "Planning chat on",
            "Support escalation about", "Retrospective on")
FREQUENCIES = ("every week", "every day", "once a month", "rarely", "at month end")


def capitalised(text: str) -> str:
    """The text with its first letter upper-cased."""
    return text[:1].upper() + text[1:]


def title_of(rnd: random.Random, vocab: Vocabulary, item: Item) -> str:
    """A title in the register of the item's type, built around its topics."""
    t = item.topics
    kind = item.kind
    if kind == "epic":
        words = [*t[:2], rnd.choice(EPIC_ENDINGS)]
    elif kind == "feature":
        words = ([*t[:2], rnd.choice(vocab.nouns)] if rnd.random() < 0.6
                 else [rnd.choice(vocab.nouns), "for", *t[:2]])
    elif kind == "story":
        words = [rnd.choice(vocab.verbs), *t[: rnd.randint(2, 3)]]
    elif kind == "task":
        words = [rnd.choice(vocab.verbs), "the", *t[:2]]
    elif kind == "bug":
        words = [*t[:2], rnd.choice(("is", "looks", "goes")), rnd.choice(vocab.adjectives),
                 rnd.choice(("after", "during", "on")), t[2]]
    elif kind == "decision":
        words = rnd.choice((
            ["choose", t[0], t[1], "for", t[2]], ["keep", t[0], "behind", t[1], t[2]],
            ["replace", t[0], "with", t[1], t[2]], ["standardise", "on", t[0], t[1]],
        ))
    elif kind == "constraint":
        words = (["never", rnd.choice(vocab.verbs), t[0], t[1], "without", t[2]]
                 if rnd.random() < 0.5 else
                 [t[0], t[1], "within", str(rnd.choice((2, 5, 10, 30, 60))), "seconds"])
    elif kind == "assumption":
        words = [rnd.choice(ROLES) + "s", rnd.choice(vocab.verbs), t[0], t[1],
                 rnd.choice(FREQUENCIES)]
    elif kind == "conversation":
        words = [rnd.choice(MEETINGS).lower(), *t[: rnd.randint(2, 3)]]
    else:  # reference
        words = [*t[:2], rnd.choice(DOC_KINDS)]
    return capitalised(" ".join(words))


def criterion(rnd: random.Random, vocab: Vocabulary, topics: list[str]) -> str:
    """One acceptance criterion: a Given/When/Then line or a plain requirement."""
    if rnd.random() < 0.35:
        given = vocab.prose(rnd, rnd.randint(2, 4))
        when = vocab.prose(rnd, rnd.randint(2, 3))
        then = [*vocab.prose(rnd, rnd.randint(1, 3)), rnd.choice(topics)]
        return f"Given {' '.join(given)}, when {' '.join(when)}, then {' '.join(then)}"
    words = vocab.prose(rnd, rnd.randint(5, 11))
    for _ in range(2):
        words[rnd.randrange(len(words))] = rnd.choice(topics)
    return capitalised(" ".join(words))


def criteria_of(rnd: random.Random, vocab: Vocabulary, topics: list[str]) -> list[str]:
    """Two to six criteria, no two with the same fingerprint."""
    from revetly_core.markdown import criteria_fingerprint

    want = rnd.choices((2, 3, 4, 5, 6), (15, 30, 28, 17, 10))[0]
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < want:
        text = criterion(rnd, vocab, topics)
        fp = criteria_fingerprint(text)
        if fp not in seen:
            seen.add(fp)
            out.append(text)
    return out


def body_length(rnd: random.Random, kind: str) -> int:
    """A log-normal word count around the type's median, within 30 .. 700."""
    median = KIND[kind].words
    return int(min(700, max(30, math.exp(rnd.gauss(math.log(median), 0.5)))))


def paragraphs(rnd: random.Random, vocab: Vocabulary, count: int, topics: list[str]) -> list[str]:
    """count words of running text as paragraphs of sentences, topics sprinkled through."""
    words = vocab.prose(rnd, count)
    for _ in range(max(1, count // 20)):
        words[rnd.randrange(count)] = rnd.choice(topics)
    out: list[str] = []
    sentences: list[str] = []
    i = 0
    while i < count:
        j = min(count, i + rnd.randint(7, 17))
        sentence = " ".join(words[i:j])
        sentences.append(capitalised(sentence) + ".")
        i = j
        if len(sentences) >= rnd.randint(2, 5) or i >= count:
            out.append(" ".join(sentences))
            sentences = []
    return out


Section = tuple[str | None, list[str], bool]
"""(heading or None, paragraphs, whether a mention may be planted in it)."""


def _halves(paras: list[str], share: float) -> tuple[list[str], list[str]]:
    cut = max(1, round(len(paras) * share))
    return paras[:cut], paras[cut:]


def sections_of(rnd: random.Random, vocab: Vocabulary, item: Item, people: list[str],
                words: int) -> list[Section]:
    """The body of a non-delivery item as markdown sections, by its type."""
    t = item.topics
    paras = paragraphs(rnd, vocab, words, t)
    kind = item.kind
    if kind == "epic":
        intro, rest = _halves(paras, 0.4)
        out: list[Section] = [(None, intro, True),
                              ("Outcome", rest or paragraphs(rnd, vocab, 25, t), True)]
        if rnd.random() < 0.5:
            out.append(("Out of scope", paragraphs(rnd, vocab, 20, t), True))
        return out
    if kind == "feature":
        intro, rest = _halves(paras, 0.3)
        return [(None, intro, True), ("Details", rest, True)] if rest else [(None, intro, True)]
    if kind == "story":
        role = rnd.choice(ROLES)
        article = "an" if role[0] in "aeiou" else "a"
        lead = (f"As {article} {role}, I need {t[0]} {t[1]} so that I can "
                f"{rnd.choice(vocab.verbs)} {t[-1]}.")
        return [(None, [lead, *paras], True)]
    if kind == "task":
        return [(None, paras, True)]
    if kind == "bug":
        steps = "\n".join(f"{n}. {capitalised(' '.join(vocab.prose(rnd, rnd.randint(3, 8))))}"
                          for n in range(1, rnd.randint(2, 4) + 1))
        return [(None, paras, True), ("Reproduce", [steps], False),
                ("Expected behaviour", paragraphs(rnd, vocab, rnd.randint(12, 30), t), True)]
    if kind == "decision":
        context, rest = _halves(paras, 0.4)
        decided, later = _halves(rest, 0.5) if len(rest) > 1 else (
            rest or paragraphs(rnd, vocab, 20, t), paragraphs(rnd, vocab, 25, t))
        return [("Context", context, True), ("Decision", decided, True),
                ("Consequences", later or paragraphs(rnd, vocab, 25, t), True)]
    if kind == "constraint":
        head, rest = _halves(paras, 0.6)
        return [(None, head, True), ("Why", rest or paragraphs(rnd, vocab, 20, t), True)]
    if kind == "assumption":
        head, rest = _halves(paras, 0.6)
        return [(None, head, True),
                ("Signals to watch", rest or paragraphs(rnd, vocab, 20, t), True)]
    if kind == "conversation":
        who = sorted(rnd.sample(people, rnd.randint(2, min(4, len(people)))))
        lines = [f"**{rnd.choice(who)}**: {p}" for p in paras]
        return [("Attendees", [", ".join(who)], False), ("Discussion", lines, True)]
    link = "https://docs.example.org/" + "-".join(t[:3])
    return [(None, [f"Link: {link}"], False), ("Highlights", paras, True)]


def render_sections(title: str, sections: list[Section]) -> str:
    """The body text: the title as a heading, then each section."""
    parts = [f"# {title}"]
    for heading, paras, _open in sections:
        if heading:
            parts.append(f"## {heading}")
        parts.extend(paras)
    return "\n\n".join(parts)


ID_SENTENCES = ("Background is in {}.", "This waits on {}.", "See {} for the earlier take.",
                "It continues the work of {}.", "Check {} before touching this.")
TITLE_SENTENCES = ("It builds on {}.", "Keep this in line with {}.",
                   "The same point was raised in {}.", "None of this changes {}.")
