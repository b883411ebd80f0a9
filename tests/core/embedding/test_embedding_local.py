"""The local provider: the model the wordllama wheel ships, opened with no network."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from revetly_core.embedding import local
from revetly_core.refusal import Refusal


def test_the_installed_package_ships_the_model_files() -> None:
    folder = local.package_folder()
    assert folder is not None and local.missing_files(folder) == []
    assert local.local_refusal() is None


def test_embeddings_are_unit_vectors_that_place_related_wording_near() -> None:
    provider = local.open_local()
    rows = provider.embed(["kanban lanes flicker on drag", "board columns jitter while dragging",
                           "invoice totals keep two decimals"])
    assert rows.shape == (3, local.DIMENSIONS) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert rows[0] @ rows[1] > rows[0] @ rows[2]
    assert provider.embed([]).shape == (0, local.DIMENSIONS)


def test_a_missing_package_is_refused_naming_the_provider_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(local, "package_folder", lambda: None)
    refusal = local.local_refusal()
    assert refusal is not None and refusal.code == "refused"
    assert refusal.extra["setting"] == "embedding.provider" and "semantic" in refusal.fix
    with pytest.raises(Refusal):
        local.open_local()


def test_a_package_without_its_weights_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.setattr(local, "package_folder", lambda: tmp_path)
    refusal = local.local_refusal()
    assert refusal is not None and local.WEIGHTS in refusal.detail


def test_mean_pool_is_each_texts_mean_row_and_zero_for_no_tokens() -> None:
    import numpy as np
    from revetly_core.embedding.local import mean_pool

    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    pooled = mean_pool(table, [[0, 2], [], [3], [9]])
    assert pooled.tolist() == [[3.0, 4.0, 5.0], [0.0, 0.0, 0.0], [9.0, 10.0, 11.0],
                               [9.0, 10.0, 11.0]]  # an id past the table reads its last row
