"""The operator's commands: doctor, watch, backfill, migrate, audit-links and the manual.

Each module is one command: a core call returning a JSON-ready payload that the CLI renders.
"""
