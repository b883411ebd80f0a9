"""The price of an inferred backfill: episodes to extract, and the model calls and tokens they
will cost at the rate this instance's own passes have measured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from revetly_core.inferred.sync import SPENT_KEYS
from revetly_core.store.inferred import InferredStore


def per_episode(meta: dict[str, str]) -> dict[str, float] | None:
    """Calls and tokens per extracted episode so far (None before any episode was extracted)."""
    episodes, calls, prompt, completion = (int(meta.get(k, "0")) for k in SPENT_KEYS)
    if episodes == 0:
        return None
    return {"model_calls": calls / episodes, "prompt_tokens": prompt / episodes,
            "completion_tokens": completion / episodes}


def price_inferred(index_folder: Path, new_artifacts: int) -> dict[str, Any]:
    """What extracting `new_artifacts` more episodes (plus the ones pending now) would cost."""
    meta = InferredStore(index_folder).meta()
    episodes = new_artifacts + int(meta.get("pending", "0"))
    rate = per_episode(meta)
    out: dict[str, Any] = {"episodes": episodes}
    if rate is None:
        out["estimate"] = None
        out["note"] = "no episode extracted yet: run `revetly sync` once to measure the rate"
        return out
    out["estimate"] = {k: round(v * episodes) for k, v in rate.items()}
    out["estimate_from"] = f"{meta.get('spent_episodes')} episodes this instance extracted"
    return out
