"""Reads: each returns a JSON-ready payload that both shells serve unchanged.

One module per read (search, artifact, backlog, health, check) and one per shared rule
(budget, ranking, retrieval, marks, text, envelope, cursor). Nothing is imported here, so a
command pays only for the read it runs.
"""
