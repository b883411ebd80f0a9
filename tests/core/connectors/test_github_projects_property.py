"""Property: every issue on the board either reads its card's mapped status or is named by
check as unmapped; issues off the board read their own status; over any two passes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.core.connectors.github_instance import TOKEN_ENV, github_instance
from tests.support.fake_github import FakeGitHub, serving

OPTIONS = ("Todo", "Doing", "Done", "Icebox", "In review", "todo")
MAP = {"Todo": "ready", "Doing": "in-progress", "Done": "done", "Icebox": "parked"}
TOML = "\n[connectors.github.projects_v2]\nowner = \"acme\"\nnumber = 1\n\n" \
       "[connectors.github.projects_v2.statuses]\n" + \
       "".join(f'"{k}" = "{v}"\n' for k, v in MAP.items())
CARD = st.one_of(st.none(), st.sampled_from(OPTIONS))
"""An issue's Status card: off the board (None) or one option, mapped or not."""


def _expected(card: str | None) -> str | None:
    if card is None:
        return None
    return MAP.get(card) or {k.casefold(): v for k, v in MAP.items()}.get(card.casefold())


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=st.lists(CARD, min_size=1, max_size=6), second=st.lists(CARD, min_size=6,
                                                                      max_size=6))
def test_every_card_sets_its_mapped_status_or_is_named(
        first: list[str | None], second: list[str | None],
        tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    fake = FakeGitHub()
    with serving(fake):
        for n, card in enumerate(first, start=1):
            fake.add_issue(n, f"Issue {n}", labels=("story",))
            if card is not None:
                fake.add_project_item(n, {"Status": card})
        engine = github_instance(tmp_path_factory.mktemp("board"), fake.url, extra=TOML)
        for cards in (first, second[: len(first)]):
            for n, card in enumerate(cards, start=1):
                fake.remove_project_item(n)
                if card is not None:
                    fake.add_project_item(n, {"Status": card})
            engine.sync()
            named = {p["path"] for p in engine.check()["problems"]
                     if p["code"] == "project-status-unmapped"}
            for n, card in enumerate(cards, start=1):
                status = engine.get_artifact(f"GH-{n}")["status"]
                want = _expected(card)
                if want is not None:
                    assert status == want and f"issues/{n}" not in named
                else:
                    assert status == "ready"
                    assert (f"issues/{n}" in named) == (card is not None)
