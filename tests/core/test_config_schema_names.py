"""The one rule every declared source's name follows (config_schema.source_name)."""

from __future__ import annotations

import pytest
from revetly_core.config_schema import source_name


def test_a_source_name_of_letters_digits_dot_underscore_dash_is_kept() -> None:
    assert source_name("app-2_x.y") == "app-2_x.y"


@pytest.mark.parametrize("bad", ["", "-app", "a b", "a/b", "é"])
def test_any_other_source_name_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="use letters, digits"):
        source_name(bad)
