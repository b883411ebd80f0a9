"""Every refusal a write gives says it wrote nothing."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from revetly_core.refusal import Refusal

P = ParamSpec("P")
R = TypeVar("R")


def wrote_nothing(fn: Callable[P, R]) -> Callable[P, R]:
    """A refused write carries ``wrote: false`` beside its code, detail and fix."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except Refusal as exc:
            exc.extra.setdefault("wrote", False)
            raise

    return wrapper
