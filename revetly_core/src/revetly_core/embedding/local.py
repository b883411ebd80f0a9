"""The local provider: WordLlama's 256-dimension model, read from the files its wheel ships.

Nothing is downloaded: the weights and the tokenizer are package data of `wordllama`, opened
here by path (the package's own loader looks for the tokenizer where the wheel does not put it
and would then try the network).
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import Any

from revetly_core.embedding.provider import Vectors, unit_rows
from revetly_core.refusal import Refusal

PACKAGE = "wordllama"
MODEL = "l2_supercat"
DIMENSIONS = 256
WEIGHTS = f"weights/{MODEL}_{DIMENSIONS}.safetensors"
TOKENIZER = f"tokenizers/{MODEL}_tokenizer_config.json"
MODEL_ID = f"wordllama-{MODEL}-{DIMENSIONS}"
METHOD = "semantic (local embeddings)"
BATCH = 256
INSTALL_FIX = "pip install 'revetly-core[semantic]' (it ships the model), or remove [embedding]"


def package_folder() -> Path | None:
    """Where the installed wordllama package is, or None when it is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def missing_files(folder: Path) -> list[str]:
    """The shipped files the model needs that are not in the installed package."""
    return [name for name in (WEIGHTS, TOKENIZER) if not (folder / name).is_file()]


def local_refusal() -> Refusal | None:
    """Why the local provider cannot be opened here (package or its files missing), or None."""
    folder = package_folder()
    if folder is None:
        return Refusal("refused", "[embedding] provider = \"local\" needs the wordllama package, "
                       "which is not installed", INSTALL_FIX, {"setting": "embedding.provider"})
    missing = missing_files(folder)
    if missing:
        return Refusal("refused", f"the installed wordllama package lacks {', '.join(missing)}",
                       INSTALL_FIX, {"setting": "embedding.provider"})
    return None


@functools.lru_cache(maxsize=1)
def _model(folder: str) -> Any:
    """The loaded model, once per process (half a second, 16 MB of weights)."""
    from safetensors import safe_open
    from tokenizers import Tokenizer
    from wordllama.inference import WordLlamaInference  # type: ignore[import-untyped]

    root = Path(folder)
    tokenizer = Tokenizer.from_file(str(root / TOKENIZER))
    with safe_open(str(root / WEIGHTS), framework="np", device="cpu") as weights:
        table = weights.get_tensor("embedding.weight")
    return WordLlamaInference(table, tokenizer, binary=False)


class LocalProvider:
    """WordLlama l2_supercat at 256 dimensions, on this machine."""

    model_id = MODEL_ID
    method = METHOD

    def __init__(self, folder: Path) -> None:
        self._folder = folder

    def embed(self, texts: list[str]) -> Vectors:
        """Unit vectors for the texts (an empty list gives an empty matrix)."""
        if not texts:
            return unit_rows(_empty())
        raw = _model(str(self._folder)).embed(texts, norm=False, batch_size=BATCH)
        return unit_rows(raw)


def _empty() -> Any:
    import numpy as np

    return np.zeros((0, DIMENSIONS), dtype=np.float32)


def open_local() -> LocalProvider:
    """The local provider, or the refusal naming embedding.provider."""
    refusal = local_refusal()
    if refusal is not None:
        raise refusal
    folder = package_folder()
    assert folder is not None  # local_refusal checked it
    return LocalProvider(folder)
