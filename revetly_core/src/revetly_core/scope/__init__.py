"""Scope reads: what binds a scope, what shipped against what was asked, what changed, and the
bundle a new story is drafted from (get_scope and get_authoring_context)."""

from revetly_core.scope.authoring import get_authoring_context
from revetly_core.scope.read import get_scope

__all__ = ["get_authoring_context", "get_scope"]
