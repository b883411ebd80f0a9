"""The scope tests share one hand-made corpus (read-only: every test only reads it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.core.scope.corpus import Corpus, build


@pytest.fixture(scope="package")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    yield build(tmp_path_factory.mktemp("scope"))
