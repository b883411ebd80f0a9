"""Reading a tracker object's text fields."""

from __future__ import annotations

import pytest
from revetly_core.connectors import azure_devops, github, todoist
from revetly_core.connectors.tracker_fields import BadItem, field_text


def test_field_text_is_empty_for_an_absent_optional_field() -> None:
    assert field_text({}, "body") == ""
    assert field_text({"body": None}, "body") == ""


def test_field_text_names_a_field_that_is_not_text() -> None:
    with pytest.raises(BadItem, match="'title' is int, not text"):
        field_text({"title": 3}, "title")
    with pytest.raises(BadItem, match="'title' is NoneType, not text"):
        field_text({}, "title", required=True)


def test_every_tracker_connector_raises_the_one_bad_item() -> None:
    assert azure_devops.BadItem is github.BadItem is todoist.BadItem is BadItem
