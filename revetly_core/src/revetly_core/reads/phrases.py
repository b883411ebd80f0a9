"""The phrase part of the keyword leg: the query's adjacent words, each pair an exact phrase.

A row that holds the query's words side by side, as the query says them, is nearer to what was
asked than one that holds the same words apart. Each population's pool is rescored: a row's
BM25 over the words plus `[ranking] phrase` times its BM25 over the query's adjacent pairs
(a sequential-dependence model with ordered pairs only; decision 0011)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise


def query_pairs(terms: Sequence[str]) -> list[tuple[str, str]]:
    """The distinct pairs of adjacent analysed terms of a query, in the query's order."""
    return list(dict.fromkeys(pairwise(terms)))


def with_phrases(
    hits: Sequence[tuple[str, float]], phrase: Mapping[str, float], share: float,
) -> list[tuple[str, float]]:
    """A pool rescored: each row's words score plus `share` × its phrase score, best first,
    ties by id (a row no pair reaches keeps its words score)."""
    rescored = [(i, score + share * phrase.get(i, 0.0)) for i, score in hits]
    rescored.sort(key=lambda hit: (-hit[1], hit[0]))
    return rescored
