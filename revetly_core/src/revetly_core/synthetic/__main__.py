"""`python -m revetly_core.synthetic`: write a synthetic instance, or print benchmark queries.

    python -m revetly_core.synthetic --n 10000 --out inst --git
    python -m revetly_core.synthetic --n 200 --out inst --git --code-repo code --commits 100 \\
        --manifest truth.json
    python -m revetly_core.synthetic --n 2000 --out inst --git --config   # ready to sync
    python -m revetly_core.synthetic --dump-queries 50 --seed 42

The last line printed is a JSON summary (counts by type, what was written, seconds).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from revetly_core.synthetic.fastimport import GitMissing
from revetly_core.synthetic.generate import generate
from revetly_core.synthetic.vocabulary import make_queries


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m revetly_core.synthetic",
                                 description="Write a seeded synthetic Revetly instance.")
    ap.add_argument("--n", type=int, help="live artifacts in the final tree")
    ap.add_argument("--out", type=Path, help="instance folder (absent or empty)")
    ap.add_argument("--seed", type=int, default=42, help="default 42")
    ap.add_argument("--git", action="store_true", help="write --out as a git repository with a "
                    "dated history (one commit per day with changes)")
    ap.add_argument("--code-repo", type=Path, metavar="DIR",
                    help="also write a code repository whose commits name the backlog's ids")
    ap.add_argument("--commits", type=int, default=300, metavar="M",
                    help="commits in the code repository (default 300)")
    ap.add_argument("--config", action="store_true",
                    help="also write the revetly.toml and .gitignore of `revetly init` (with --git "
                         "in one last commit), declaring --code-repo: a ready instance")
    ap.add_argument("--manifest", type=Path, metavar="FILE", help="write the ground truth as JSON")
    ap.add_argument("--dump-queries", type=int, default=0, metavar="K",
                    help="print K search queries from the seed's vocabulary and exit")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    if args.dump_queries:
        print("\n".join(make_queries(args.seed, args.dump_queries)))
        return 0
    if args.n is None or args.n < 1:
        ap.error("--n N (at least 1) is required")
    if args.out is None and args.code_repo is None:
        ap.error("--out DIR and/or --code-repo DIR is required")
    try:
        done = generate(args.n, args.seed, out=args.out, git=args.git, code_repo=args.code_repo,
                        commits=args.commits, manifest_file=args.manifest, config=args.config)
    except (ValueError, GitMissing) as exc:
        ap.error(str(exc))
    print(json.dumps(done.summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
