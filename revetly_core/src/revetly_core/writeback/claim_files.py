"""Claims kept by Revetly for a store that keeps none of its own: one JSON file per item in
the instance's records store (``records/claims/<id>.json``), committed with the write, so a
second claimant is still refused (``claim_kept`` in the answer says people reading the
store do not see who holds the item)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from revetly_core.fsread import ReadRefused, read_file
from revetly_core.writes.claims import Claim
from revetly_core.writes.journal import WriteBatch

CLAIMS_DIR = "claims"
MAX_CLAIM_FILE_BYTES = 100_000


def claim_file_rel(records_folder: str, artifact_id: str) -> str:
    """The claim file of an item: ``<records>/claims/<id>.json``."""
    return f"{records_folder.strip('/')}/{CLAIMS_DIR}/{artifact_id}.json"


def read_claim_file(root: Path, rel: str) -> Claim | None:
    """The claim a claim file holds, or None (no file, or one that holds no claim)."""
    try:
        data = json.loads(read_file(root, rel, MAX_CLAIM_FILE_BYTES))
    except (FileNotFoundError, ReadRefused, ValueError):
        return None
    return Claim.from_front(data.get("claim") if isinstance(data, dict) else None)


def claim_file_bytes(artifact_id: str, source: str, claim: Claim | None) -> bytes:
    """The file's bytes: the item, the store it lives in, and the claim (null once the item
    left in-progress: the file stays, so its history shows the claim ending)."""
    body: dict[str, Any] = {"artifact_id": artifact_id, "source": source,
                            "claim": claim.record() if claim is not None else None}
    return (json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def plan_claim_file(batch: WriteBatch, root: Path, rel: str, artifact_id: str, source: str,
                    claim: Claim | None) -> bool:
    """Plan the claim file's new state in the write (None clears the claim a file holds);
    False when there is nothing to change."""
    path = root / rel
    current = batch.read_bytes(path)
    if claim is None and current is None:
        return False
    data = claim_file_bytes(artifact_id, source, claim)
    if current == data:
        return False
    batch.write(path, data)
    return True
