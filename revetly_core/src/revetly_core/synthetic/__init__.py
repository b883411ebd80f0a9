"""Synthetic instances: seeded, deterministic backlogs of any size for tests and benchmarks.

`generate(n, seed, out=..., git=True, code_repo=..., commits=...)` plans n live artifacts
(epics, features, stories, tasks, bugs, decisions, constraints, assumptions, conversations,
references and delivery records, in the frontmatter of docs/instance-format.md), writes them
as a dated git history, optionally beside a code repository whose commits name their ids,
and returns the ground truth a reader of them should find. The same arguments give the same
files and the same commit ids. `python -m revetly_core.synthetic --help` is the command line.
"""

from revetly_core.synthetic.generate import Generated, generate
from revetly_core.synthetic.plan import Plan, allocate, plan_instance
from revetly_core.synthetic.vocabulary import build_vocabulary, make_queries

__all__ = ["Generated", "Plan", "allocate", "build_vocabulary", "generate", "make_queries",
           "plan_instance"]
