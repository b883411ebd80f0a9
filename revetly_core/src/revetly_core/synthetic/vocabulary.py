"""The words a synthetic instance is written in: a ranked, Zipf-weighted vocabulary per seed.

Prose draws from the whole ranking (common glue words first, product words in the middle,
made-up words in a long tail, as real text has); titles, topics and benchmark queries draw
from the product and mid-rank words only, so a query finds the artifacts that carry it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


def _word_list(text: str) -> tuple[str, ...]:
    """The words of a text written as whitespace-separated lines."""
    return tuple(text.split())


GLUE = _word_list("""the a an of to in on for with by from at as and or but not no so if then than
that this these those it its is are was were be been being has have had do does did can
could will would should may might must shall we our us they their them you your he she
his her one two three all any each every some many more most less few other another such
only also just even still again once here there when where while before after during
until since about over under into onto out up down off through across between around
without within again very much well how what which who whom whose why because though
first last next new old same own both either neither per via ever never often always
today now soon later already yet""")
"""Function words: the top of the ranking, as in any English text."""

PRODUCT = """
tenant:n quota:n ledger:n invoice:n payout:n refund:n voucher:n wallet:n statement:n
receipt:n subscription:n renewal:n trial:n seat:n licence:n contract:n clause:n
signature:n approval:n workflow:n handover:n escalation:n ticket:n queue:n backlog:n
roster:n shift:n schedule:n booking:n slot:n calendar:n reminder:n digest:n newsletter:n
campaign:n audience:n segment:n cohort:n funnel:n conversion:n metric:n gauge:n
histogram:n dashboard:n widget:n panel:n sidebar:n toolbar:n banner:n tooltip:n
modal:n drawer:n wizard:n stepper:n checkbox:n dropdown:n datepicker:n spinner:n
avatar:n badge:n thumbnail:n gallery:n carousel:n upload:n attachment:n document:n
folder:n archive:n snapshot:n backup:n replica:n shard:n partition:n index:n cursor:n
pagination:n filter:n facet:n ranking:n synonym:n typo:n locale:n currency:n timezone:n
translation:n glossary:n keyboard:n shortcut:n gesture:n contrast:n font:n palette:n
theme:n layout:n breakpoint:n viewport:n session:n token:n credential:n passkey:n
password:n login:n consent:n cookie:n tracker:n audit:n retention:n purge:n export:n
import:n webhook:n callback:n endpoint:n payload:n header:n schema:n migration:n
column:n record:n field:n constraint:n trigger:n cache:n latency:n throughput:n
timeout:n retry:n backoff:n outage:n incident:n alert:n pager:n runbook:n deploy:n
rollback:n canary:n flag:n experiment:n variant:n release:n changelog:n sprint:n
milestone:n roadmap:n estimate:n priority:n stakeholder:n vendor:n supplier:n courier:n
parcel:n shipment:n warehouse:n pallet:n inventory:n catalogue:n product:n bundle:n
discount:n coupon:n basket:n checkout:n order:n customer:n member:n guest:n owner:n
reviewer:n operator:n dispatcher:n driver:n technician:n depot:n route:n map:n geofence:n
sensor:n device:n firmware:n battery:n signal:n reading:n threshold:n anomaly:n report:n
chart:n spreadsheet:n template:n signature:n comment:n mention:n thread:n channel:n
notification:n inbox:n outbox:n message:n attachment:n emoji:n reaction:n
reconcile:v settle:v invoice:v refund:v approve:v reject:v escalate:v assign:v
reassign:v schedule:v book:v cancel:v reschedule:v remind:v notify:v subscribe:v
unsubscribe:v renew:v upgrade:v downgrade:v migrate:v import:v export:v sync:v
backfill:v index:v rank:v filter:v sort:v paginate:v translate:v localise:v render:v
preview:v upload:v download:v archive:v restore:v purge:v redact:v encrypt:v rotate:v
revoke:v verify:v validate:v throttle:v retry:v queue:v batch:v stream:v cache:v
invalidate:v deploy:v release:v roll:v monitor:v alert:v page:v triage:v resolve:v
reopen:v merge:v split:v tag:v label:v group:v pin:v share:v invite:v onboard:v
offboard:v track:v trace:v measure:v forecast:v budget:v price:v discount:v ship:v
dispatch:v route:v scan:v weigh:v pack:v return:v replace:v repair:v calibrate:v
recurring:a overdue:a pending:a partial:a stale:a flaky:a offline:a mobile:a
shared:a private:a public:a bulk:a nightly:a weekly:a monthly:a regional:a legacy:a
multilingual:a accessible:a readonly:a draft:a signed:a unpaid:a expired:a duplicate:a
missing:a slow:a noisy:a empty:a oversized:a encrypted:a
"""
"""The product's own words as stem:kind (n noun, v verb, a adjective)."""

_ONSETS = _word_list("b d f g k l m n p r s t v z br dr gl kr pl sk sl sn sp st tr fl gr")
_NUCLEI = _word_list("a e i o u a e o ay ee oo ie")
_CODAS = ["", "", "", "n", "r", "s", "l", "m", "x", "nd", "rt", "sk"]
_TAILS = ["", "", "", "s", "ing", "ed", "er", "ment", "ity", "ous", "ise", "al", "ic"]

ROLES = ("operator", "dispatcher", "driver", "accountant", "admin", "customer", "reviewer",
         "technician", "manager", "guest")
"""Who a story is told for, who an assumption is about."""


def _forms(stem: str, kind: str) -> list[str]:
    """The stem and a few regular inflections, so stemming and ranking have variants to meet."""
    if kind == "a":
        return [stem]
    ends_hissing = stem.endswith(("s", "x", "ch", "sh", "z"))
    plural = stem[:-1] + "ies" if stem.endswith("y") and stem[-2] not in "aeiou" else (
        stem + ("es" if ends_hissing else "s"))
    if kind == "n":
        return [stem, plural]
    root = stem[:-1] if stem.endswith("e") else stem
    past = stem + "d" if stem.endswith("e") else root + "ed"
    return [stem, plural, past, root + "ing"]


def product_words() -> tuple[list[str], list[str], list[str]]:
    """The stems of PRODUCT split by kind: (nouns, verbs, adjectives), first occurrence kept."""
    nouns: list[str] = []
    verbs: list[str] = []
    adjectives: list[str] = []
    by_kind = {"n": nouns, "v": verbs, "a": adjectives}
    for entry in PRODUCT.split():
        stem, kind = entry.split(":")
        if stem not in by_kind[kind]:
            by_kind[kind].append(stem)
    return nouns, verbs, adjectives


def _made_up_word(rnd: random.Random) -> str:
    """A pronounceable word that no dictionary has: the long tail of a real vocabulary."""
    syllables = rnd.choice((1, 2, 2, 3, 3, 4))
    word = "".join(rnd.choice(_ONSETS) + rnd.choice(_NUCLEI) for _ in range(syllables))
    return word + rnd.choice(_CODAS) + rnd.choice(_TAILS)


def zipf_ranks(rnd: random.Random, size: int, exponent: float, count: int) -> list[int]:
    """count ranks in 0 .. size-1, rank r drawn about as often as 1/(r+1)**exponent.

    Inverse transform of the continuous power law on [1, size+1): constant time per draw,
    whatever the vocabulary size.
    """
    draw = rnd.random
    if abs(exponent - 1.0) < 1e-9:
        top = float(size + 1)
        return [int(top ** draw()) - 1 for _ in range(count)]  # below size: draw() < 1
    lift = 1.0 - exponent
    span = (size + 1.0) ** lift - 1.0
    inverse = 1.0 / lift
    return [min(size - 1, int((1.0 + draw() * span) ** inverse) - 1) for _ in range(count)]


@dataclass(frozen=True)
class Vocabulary:
    """Words in rank order: `ranked` for running text, `topical` for titles and queries."""

    ranked: tuple[str, ...]
    topical: tuple[str, ...]
    nouns: tuple[str, ...]
    verbs: tuple[str, ...]
    adjectives: tuple[str, ...]

    def prose(self, rnd: random.Random, count: int) -> list[str]:
        """count words drawn the way running text uses them (Zipf, exponent 1)."""
        words = self.ranked
        return [words[r] for r in zipf_ranks(rnd, len(words), PROSE_EXPONENT, count)]

    def topics(self, rnd: random.Random, count: int, head: int | None = None) -> list[str]:
        """count distinct topical words (what a title or a query is about)."""
        words = self.topical[:head] if head else self.topical
        out: list[str] = []
        while len(out) < count:
            for r in zipf_ranks(rnd, len(words), TOPIC_EXPONENT, count):
                if words[r] not in out and len(out) < count:
                    out.append(words[r])
        return out


PROSE_EXPONENT = 1.0
TOPIC_EXPONENT = 0.85


def build_vocabulary(seed: int, size: int = 40_000) -> Vocabulary:
    """The ranked vocabulary of a seed: glue words, then product and made-up words shuffled."""
    rnd = random.Random(f"synthetic-vocabulary-{seed}")
    nouns, verbs, adjectives = product_words()
    seen = set(GLUE)
    product: list[str] = []
    for entry in PRODUCT.split():
        stem, kind = entry.split(":")
        for form in _forms(stem, kind):
            if form not in seen:
                seen.add(form)
                product.append(form)
    made_up: list[str] = []
    while len(GLUE) + len(product) + len(made_up) < size:
        word = _made_up_word(rnd)
        if len(word) >= 4 and word not in seen:
            seen.add(word)
            made_up.append(word)
    middle = product + made_up[:200]
    rnd.shuffle(middle)
    ranked = (*GLUE, *middle, *made_up[200:])
    topical = tuple(middle + made_up[200:3_000])
    return Vocabulary(ranked=ranked, topical=topical, nouns=tuple(nouns), verbs=tuple(verbs),
                      adjectives=tuple(adjectives))


def make_queries(seed: int, count: int, vocabulary: Vocabulary | None = None) -> list[str]:
    """count search queries of 2 to 4 topical words, the same for the same seed."""
    vocab = vocabulary or build_vocabulary(seed)
    rnd = random.Random(f"synthetic-queries-{seed}")
    return [" ".join(vocab.topics(rnd, rnd.choice((2, 2, 3, 3, 4)), head=4_000))
            for _ in range(count)]
