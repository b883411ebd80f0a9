"""A hypothesis state machine over receipts and idempotency keys, against a plain-dict model."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from revetly_core.governed.rag_service import RECEIPTS

from revetly_core import RagQuery, Refusal
from tests.core.governed.governed_world import make_world

KEYS = st.sampled_from(["a", "b", "c", "d"])
QUERIES = st.sampled_from(["filing", "filing deadline", "parking", "holidays", "penalty"])


class ReceiptMachine(RuleBasedStateMachine):
    """Model: key -> (query, receipt). A retry returns the same receipt; a changed query is refused."""

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp())
        self.world = make_world(self.tmp / "h")
        self.model: dict[str, tuple[str, dict[str, Any]]] = {}

    @rule(key=KEYS, text=QUERIES)
    def search(self, key: str, text: str) -> None:
        expected = self.model.get(key)
        try:
            receipt = self.world.rag.search(self.world.session, RagQuery("law", text), idempotency_key=key)
        except Refusal as refused:
            assert expected is not None and expected[0] != text
            assert refused.code == "idempotency_conflict"
            return
        if expected is None:
            self.model[key] = (text, receipt)
        else:
            assert expected == (text, receipt)

    @rule(key=KEYS)
    def inspect_first_hit(self, key: str) -> None:
        if key not in self.model or not self.model[key][1]["hits"]:
            return
        receipt = self.model[key][1]
        hit = receipt["hits"][0]
        shown = self.world.rag.inspect(self.world.session, receipt["receipt_id"], hit["document_id"],
                                       hit["chunk_id"])
        assert shown["hit"] == hit

    @rule(minutes=st.integers(min_value=0, max_value=30))
    def time_passes(self, minutes: int) -> None:
        self.world.clock.advance(minutes=minutes)

    @invariant()
    def one_receipt_per_key(self) -> None:
        usage = self.world.evidence.usage(self.world.scope.partition(RECEIPTS))
        assert usage["records"] == len(self.model)

    def teardown(self) -> None:
        self.world.rag.close()
        self.world.evidence.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


ReceiptMachine.TestCase.settings = settings(max_examples=15, stateful_step_count=12, deadline=None)
TestReceipts = ReceiptMachine.TestCase
