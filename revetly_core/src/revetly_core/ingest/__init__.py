"""The read pass: connectors in, a new corpus revision of CONTEXT out."""

from revetly_core.ingest.readpass import PassResult, run_pass

__all__ = ["PassResult", "run_pass"]
