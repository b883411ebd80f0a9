"""Grants: which projects a token's claims reach."""

from __future__ import annotations

import pytest
from revetly_core.auth import (
    check_grants,
    claim_values,
    grant_key,
    grant_project,
    granted_projects,
)
from revetly_core.config import GrantsSection, parse_config

from revetly_core import Refusal

DUO = {"instance": {"name": "duo", "default_project": "alpha"},
       "projects": {"alpha": {"imports": ["beta"]}, "beta": {}}}


def _config(values: dict[str, list[str]] | None):  # type: ignore[no-untyped-def]
    data = dict(DUO)
    if values is not None:
        data["auth"] = {"grants": {"claim": "groups", "values": values}}
    return parse_config(data)


def test_no_grants_narrow_nothing() -> None:
    assert granted_projects(_config(None), {"groups": ["x"]}, None) is None


def test_claim_values_reach_the_projects_they_name() -> None:
    config = _config({"team-a": ["alpha"], "leads": ["alpha", "beta"]})
    assert granted_projects(config, {"groups": ["team-a"]}, None) == ["alpha"]
    assert granted_projects(config, {"groups": "leads"}, None) == ["alpha", "beta"]
    assert granted_projects(config, {"groups": ["other"]}, None) == []


def test_a_grant_of_several_is_narrowed_to_the_bound_project() -> None:
    config = _config({"leads": ["alpha", "beta"], "team-a": ["alpha"]})
    assert granted_projects(config, {"groups": ["leads"]}, "beta") == ["beta"]
    assert granted_projects(config, {"groups": ["team-a"]}, "beta") == []


def test_a_call_names_a_granted_project_or_is_refused() -> None:
    assert grant_project(["alpha", "beta"], "beta", "alpha", "list_backlog") == "beta"
    assert grant_project(["beta"], None, "alpha", "list_backlog") == "beta"
    assert grant_project(["alpha", "beta"], None, "alpha", "list_backlog") == "alpha"
    with pytest.raises(Refusal) as refused:
        grant_project(["alpha"], "beta", "alpha", "list_backlog")
    assert refused.value.code == "outside-grant"


def test_the_grant_key_names_claim_and_values_and_no_project() -> None:
    config = _config({"team-a": ["alpha"]})
    key = grant_key(config, {"groups": ["nobody"]})
    assert key["claim"] == "groups" and key["values"] == ["nobody"]
    assert "no [auth.grants] entry" in key["why"]
    assert "alpha" not in str(key)


def test_claim_values_ignore_what_is_not_text() -> None:
    assert claim_values(GrantsSection(claim="g"), {"g": ["a", 1, None]}) == ["a"]
    assert claim_values(GrantsSection(claim="g"), {}) == []


def test_a_grant_naming_an_undeclared_project_refuses_naming_the_entry() -> None:
    with pytest.raises(Refusal) as refused:
        check_grants(_config({"team-a": ["gamma"]}))
    assert refused.value.extra["setting"] == "auth.grants.values.team-a"


def test_a_spanning_read_is_answered_when_the_grant_reaches_every_project_named() -> None:
    assert grant_project(["alpha", "beta"], "beta, alpha", "alpha", "search_context") == \
        "beta,alpha"


def test_a_spanning_read_naming_a_project_outside_the_grant_is_refused_naming_it() -> None:
    with pytest.raises(Refusal) as refused:
        grant_project(["alpha"], "alpha,beta", "alpha", "search_context")
    assert refused.value.code == "outside-grant"
    assert refused.value.extra["project"] == "beta" and "'beta'" in refused.value.detail
