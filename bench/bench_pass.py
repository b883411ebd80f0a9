#!/usr/bin/env python3
"""Benchmark of Revetly's read pass: full, incremental, one-file incremental, status, CLI imports.

    python bench/bench_pass.py                          # sizes 1000,10000
    python bench/bench_pass.py --sizes 100000
    python bench/bench_pass.py --sizes 10000 --profile  # plus cProfile of full and one-file passes

For each size it generates (or reuses from bench/.cache/) a synthetic instance with the
project's generator (`python -m revetly_core.synthetic`), then measures each pass in a fresh
Python process and writes bench/results/pass-<size>.json and bench/results/summary.md. See bench/README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve()
BENCH_DIR = SCRIPT.parent
REPO_ROOT = BENCH_DIR.parent
DEFAULT_GEN = "revetly_core.synthetic"
"""The instance generator, run as `python -m revetly_core.synthetic` unless --gen names a script."""
GEN_ENV = "REVETLY_GEN_INSTANCE"
SEED = 42
HEAVY_MODULES = ("whoosh", "networkx", "pygit2")
CLI_APP = "revetly_cli.app"
PROFILE_TOP = 15
FIXED_COMMIT_DATE = "2025-07-23T12:00:00+00:00"  # the revetly.toml commit: after the generated history
EDIT_PARAGRAPH = (
    "Benchmark note ({tag}): the export dialog keeps the chosen filter and sort order when the "
    "session is renewed, so a reviewer can pick up the report where they left it."
)

# Limits per size: seconds are process wall time, memory is MiB (see bench/README.md).
TARGETS: dict[int, dict[str, float]] = {
    10_000: {"full_s": 60.0, "incr_one_s": 2.0, "status_s": 0.6},
    100_000: {"full_ratio_wall": 3.0, "full_ratio_cpu": 3.0, "full_mem_mb": 500.0,
              "incr_one_pass_s": 1.0, "incr_none_pass_s": 0.5, "incr_one_mem_mb": 500.0},
}
TARGET_LABELS = {
    "full_s": "full pass wall s",
    "full_ratio_wall": "full pass wall / plain FTS5 build wall",
    "full_ratio_cpu": "full pass CPU / plain FTS5 build CPU",
    "full_mem_mb": "full pass peak memory MiB",
    "incr_one_s": "one-file incremental wall s",
    "incr_one_pass_s": "one-file incremental pass s (Engine.open + sync)",
    "incr_none_pass_s": "nothing-changed pass s (Engine.open + sync)",
    "incr_one_mem_mb": "one-file incremental peak memory MiB",
    "status_s": "status --json median wall s",
}
RAW_SCRIPT = BENCH_DIR / "raw_fts5.py"
"""The plain FTS5 build the full pass is measured against, side by side in the same run."""


# ------------------------------------------------------------------------------ helpers
def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run git in repo with a fixed identity; return its stdout."""
    cmd = ["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=b@b",
           "-c", "commit.gpgsign=false", *args]
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(cmd, check=True, capture_output=True, text=True, env=full_env).stdout.strip()


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def mib(kib: float | None) -> float | None:
    return None if kib is None else round(kib / 1024, 1)


@dataclass(frozen=True)
class Generator:
    """How to run the instance generator, and a digest of its code (what the caches key on)."""

    command: tuple[str, ...]
    digest: str
    label: str

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.command, *args], check=True, capture_output=True, text=True)


def package_digest(folder: Path) -> str:
    """sha256 over the names and contents of a package's .py files, in name order."""
    h = hashlib.sha256()
    for f in sorted(folder.rglob("*.py")):
        h.update(f.relative_to(folder).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def resolve_gen(given: str | None) -> Generator:
    """--gen PATH, then $REVETLY_GEN_INSTANCE, else the project's own revetly_core.synthetic."""
    raw = given or os.environ.get(GEN_ENV)
    if raw:
        path = Path(raw).expanduser().resolve()
        if not path.is_file():
            sys.exit(f"bench: instance generator not found at {path} (pass --gen PATH or set {GEN_ENV})")
        return Generator((sys.executable, str(path)), sha256_of(path), str(path))
    spec = importlib.util.find_spec(DEFAULT_GEN)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"bench: {DEFAULT_GEN} is not importable (pip install -e ./revetly_core)")
    folder = Path(next(iter(spec.submodule_search_locations)))
    return Generator((sys.executable, "-m", DEFAULT_GEN), package_digest(folder), DEFAULT_GEN)


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--sizes wants comma-separated integers, got {text!r}") from None
    if not sizes or any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError("--sizes wants positive integers")
    return sizes


# ------------------------------------------------------------------------------ instances
def prepare_instance(size: int, gen: Generator, cache: Path, regen: bool) -> tuple[Path, dict[str, Any]]:
    """The cached instance of this size at its pristine commit (generated when absent or stale)."""
    inst = cache / f"inst-{size}"
    meta_path = cache / f"inst-{size}.json"
    gen_sha = gen.digest
    if not regen and meta_path.is_file() and (inst / ".git").is_dir():
        meta: dict[str, Any] = json.loads(meta_path.read_text())
        if meta.get("gen_sha256") == gen_sha and meta.get("seed") == SEED:
            git(inst, "reset", "-q", "--hard", meta["head"])
            git(inst, "clean", "-q", "-fd")  # .revetly/ is ignored, so it stays (each full pass removes it)
            refresh_git_index(inst)
            print(f"[{size}] reusing cached instance {inst} at {meta['head'][:12]}", flush=True)
            return inst, meta
    for stale in (inst, cache / f"inst-{size}.tmp"):
        if stale.exists():
            shutil.rmtree(stale)
    meta_path.unlink(missing_ok=True)
    tmp = cache / f"inst-{size}.tmp"
    cache.mkdir(parents=True, exist_ok=True)
    print(f"[{size}] generating instance with {gen.label} ...", flush=True)
    t0 = time.perf_counter()
    proc = gen.run("--n", str(size), "--out", str(tmp), "--git", "--seed", str(SEED))
    gen_seconds = time.perf_counter() - t0
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    from revetly_core.instance.scaffold import default_config_text

    (tmp / "revetly.toml").write_text(default_config_text(f"bench-{size}", []), encoding="utf-8")
    # as `revetly init` writes it: engine state stays out of git status
    (tmp / ".gitignore").write_text(".revetly/\n", encoding="utf-8")
    git(tmp, "add", "revetly.toml", ".gitignore")
    git(tmp, "commit", "-q", "-m", "Add revetly.toml",
        env={"GIT_AUTHOR_DATE": FIXED_COMMIT_DATE, "GIT_COMMITTER_DATE": FIXED_COMMIT_DATE})
    head = git(tmp, "rev-parse", "HEAD")
    tmp.rename(inst)
    refresh_git_index(inst)
    meta = {
        "size": size, "seed": SEED, "head": head, "gen": gen.label, "gen_sha256": gen_sha,
        "gen_seconds": round(gen_seconds, 2), "gen_summary": summary,
        "files": sum(1 for f in ("backlog", "notes", "records") for _ in (inst / f).glob("*.md")),
    }
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    print(f"[{size}] generated {meta['files']} files in {gen_seconds:.1f} s", flush=True)
    return inst, meta


def refresh_git_index(inst: Path) -> None:
    """Refresh the stat data git's index keeps of each file, as any git command a user runs
    does (`git status` included). libgit2, which the pass reads status with, never writes it
    back: after a checkout that left entries racily clean it re-hashes every one of them on
    every pass (1.2 s against 0.05 s at 10k), a cost of the checkout, not of the pass."""
    subprocess.run(["git", "-C", str(inst), "update-index", "-q", "--refresh"], check=False,
                   capture_output=True)


def edit_one_story(inst: Path, tag: str) -> str:
    """Append a paragraph to one story (the middle one by name) and commit it; return its path."""
    stories = sorted((inst / "backlog").glob("STORY-*.md"))
    if not stories:
        sys.exit(f"bench: no backlog/STORY-*.md in {inst}")
    target = stories[len(stories) // 2]
    text = target.read_text(encoding="utf-8")
    sep = "" if text.endswith("\n") else "\n"
    target.write_text(text + sep + "\n" + EDIT_PARAGRAPH.format(tag=tag) + "\n", encoding="utf-8")
    rel = target.relative_to(inst).as_posix()
    git(inst, "add", rel)
    git(inst, "commit", "-q", "-m", f"Bench: append a paragraph to {target.stem}")
    return rel


def remove_state(inst: Path) -> None:
    state = inst / ".revetly"
    if state.exists():
        shutil.rmtree(state)


# ------------------------------------------------------------------------------ memory
def _pss_or_rss_kib(pid: int) -> int | None:
    """Proportional set size of one process (shared pages split), else its RSS; KiB."""
    for name, key in (("smaps_rollup", "Pss:"), ("status", "VmRSS:")):
        try:
            with open(f"/proc/{pid}/{name}", encoding="ascii", errors="replace") as fh:
                for line in fh:
                    if line.startswith(key):
                        return int(line.split()[1])
        except (OSError, ValueError):
            continue
    return None


def _descendants(root: int) -> list[int]:
    parent_of: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
            parent_of[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    tree, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, ppid in parent_of.items() if ppid in frontier]
        tree.extend(frontier)
    return tree


class TreeSampler:
    """Samples the summed PSS of a process and all its descendants (Linux /proc only).

    Cheap on purpose: the process tree is rescanned once a second, sizes read every 0.25 s.
    """

    def __init__(self, pid: int, interval: float = 0.25, rescan_every: int = 4) -> None:
        self.pid = pid
        self.interval = interval
        self.rescan_every = rescan_every
        self.peak_kib: int | None = None
        self.max_procs = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.enabled = Path("/proc/self/stat").exists()

    def start(self) -> None:
        if self.enabled:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self.enabled:
            self._thread.join()

    def _run(self) -> None:
        pids = [self.pid]
        tick = 0
        while not self._stop.wait(self.interval):
            if tick % self.rescan_every == 0:
                pids = _descendants(self.pid)
            tick += 1
            sizes = [s for s in (_pss_or_rss_kib(p) for p in pids) if s is not None]
            if sizes:
                total = sum(sizes)
                self.peak_kib = total if self.peak_kib is None else max(self.peak_kib, total)
                self.max_procs = max(self.max_procs, len(sizes))


# ------------------------------------------------------------------------------ child runs
@dataclass
class PassRun:
    """One pass measured in a fresh interpreter."""

    mode: str
    wall_s: float
    cpu_s: float | None
    load_before: float | None
    in_process_s: float
    import_s: float
    peak_rss_mb: float | None
    tree_pss_peak_mb: float | None
    tree_max_procs: int
    artifacts_read: int
    artifacts_per_s: float | None
    changed: dict[str, int]
    outcome: str
    corpus_revision: int
    extra: dict[str, Any] = field(default_factory=dict)
    phases: list[tuple[str, float]] = field(default_factory=list)

    def peak_mem_mb(self) -> float | None:
        vals = [v for v in (self.peak_rss_mb, self.tree_pss_peak_mb) if v is not None]
        return max(vals) if vals else None


def run_pass_child(inst: Path, mode: str, profile_out: Path | None = None) -> PassRun:
    """Run one pass (mode full|incremental) in a fresh Python process and measure it."""
    with tempfile.TemporaryDirectory(prefix="revetly-bench-") as tmp:
        result_file = Path(tmp) / "result.json"
        load: float | None = None
        with contextlib.suppress(OSError, AttributeError):
            load = round(os.getloadavg()[0], 2)
        cmd = [sys.executable, str(SCRIPT), "--child", mode, "--instance", str(inst),
               "--child-out", str(result_file)]
        if profile_out is not None:
            cmd += ["--child-profile", str(profile_out)]
        with open(Path(tmp) / "stdout", "wb") as out, open(Path(tmp) / "stderr", "wb") as err:
            t0 = time.perf_counter()
            proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=child_env())
            sampler = TreeSampler(proc.pid)
            sampler.start()
            peak_kib: int | None
            cpu: float | None = None
            if hasattr(os, "wait4"):
                # per-child rusage: RUSAGE_CHILDREN would keep the high-water mark of every
                # earlier child, so a small pass after a big one would report the big one's peak
                _, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = os.waitstatus_to_exitcode(status)
                peak_kib = int(usage.ru_maxrss)
                cpu = usage.ru_utime + usage.ru_stime  # the child and its reaped workers
            else:  # pragma: no cover - non-POSIX
                proc.wait()
                peak_kib = None
            wall = time.perf_counter() - t0
            sampler.stop()
        if proc.returncode != 0:
            sys.stderr.write((Path(tmp) / "stderr").read_text(errors="replace"))
            sys.exit(f"bench: the {mode} pass on {inst} exited with {proc.returncode}")
        res: dict[str, Any] = json.loads(result_file.read_text())
    payload = res["payload"]
    read = sum(int(s.get("counts", {}).get("read", 0)) for s in payload.get("sources", []))
    return PassRun(
        mode=mode, wall_s=round(wall, 3), cpu_s=None if cpu is None else round(cpu, 3),
        load_before=load, in_process_s=round(res["pass_s"], 3),
        import_s=round(res["import_s"], 3), peak_rss_mb=mib(peak_kib),
        tree_pss_peak_mb=mib(sampler.peak_kib), tree_max_procs=sampler.max_procs,
        artifacts_read=read,
        artifacts_per_s=round(read / wall, 1) if wall > 0 and read else None,
        changed=payload.get("changed", {}), outcome=payload.get("outcome", "?"),
        corpus_revision=int(payload.get("corpus_revision", -1)),
        extra={"child_self_maxrss_mb": mib(res.get("self_maxrss_kib")),
               "revetly_core": res.get("revetly_core")},
        phases=[(str(name), float(sec)) for name, sec in res.get("phases", [])],
    )


def _profile_workers(profile: str) -> None:
    """Profile each multiprocessing worker too (the keyword index is built by two processes)."""
    import cProfile
    import multiprocessing.process

    original = multiprocessing.process.BaseProcess._bootstrap  # type: ignore[attr-defined]

    def bootstrap(self: Any, *args: Any, **kwargs: Any) -> Any:
        sys.setprofile(None)  # the parent's profiler came along with fork: its stats would be lost
        prof = cProfile.Profile()
        prof.enable()
        try:
            return original(self, *args, **kwargs)
        finally:
            prof.disable()
            prof.dump_stats(f"{profile}.worker-{os.getpid()}")

    multiprocessing.process.BaseProcess._bootstrap = bootstrap  # type: ignore[attr-defined]


def phase_segments(marks: dict[str, list[float]], total: float) -> list[tuple[str, float]]:
    """Split the pass into the engine's progress phases and the gaps between them."""
    spans = sorted(((start, end, name) for name, (start, end) in marks.items()), key=lambda x: x[0])
    out: list[tuple[str, float]] = []
    at, before = 0.0, "start"
    for start, end, name in spans:
        if start - at > 0.0005:
            out.append((f"{before} -> {name}", round(start - at, 3)))
        out.append((name, round(end - start, 3)))
        at, before = max(at, end), name
    if total - at > 0.0005:
        out.append((f"{before} -> end", round(total - at, 3)))
    return out


def raw_child_main(instance: str, out: str) -> int:
    """Inside the fresh process: the plain FTS5 build of the instance's markdown files, into a
    database file beside the instance (removed after), written as a pass's result JSON."""
    t0 = time.perf_counter()
    sys.path.insert(0, str(RAW_SCRIPT.parent))
    import raw_fts5 as raw
    t1 = time.perf_counter()
    inst = Path(instance)
    db = inst.parent / f"{inst.name}.raw-fts5.sqlite"
    db.unlink(missing_ok=True)
    try:
        conn, stats = raw.build_index(inst, db)
        conn.close()
    finally:
        db.unlink(missing_ok=True)
    Path(out).write_text(json.dumps({
        "import_s": t1 - t0, "pass_s": stats.wall_s, "phases": [],
        "payload": {"outcome": "raw", "corpus_revision": 0, "changed": {},
                    "sources": [{"counts": {"read": stats.files}}]},
    }))
    return 0


def child_main(instance: str, mode: str, out: str, profile: str | None) -> int:
    """Inside the fresh process: open the instance and run one pass; write timings as JSON."""
    if mode == "raw":
        return raw_child_main(instance, out)
    t0 = time.perf_counter()
    from revetly_core import Engine

    t1 = time.perf_counter()
    marks: dict[str, list[float]] = {}

    def progress(phase: str, done: int, total: int) -> None:
        now = time.perf_counter() - t1
        marks.setdefault(phase, [now, now])[1] = now

    profiler: Any = None
    if profile:
        import cProfile

        _profile_workers(profile)
        profiler = cProfile.Profile()
        profiler.enable()
    engine = Engine.open(instance)
    payload = engine.sync(full=mode == "full", progress=progress)
    t2 = time.perf_counter()
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    self_kib: int | None = None
    with contextlib.suppress(ImportError):
        import resource

        self_kib = int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    import revetly_core

    Path(out).write_text(json.dumps({
        "revetly_core": str(Path(revetly_core.__file__).parent),
        "import_s": t1 - t0, "pass_s": t2 - t1, "payload": payload, "self_maxrss_kib": self_kib,
        "phases": phase_segments(marks, t2 - t1),
    }))
    return 0


# ------------------------------------------------------------------------------ status, imports
def status_command(inst: Path) -> tuple[list[str], str]:
    """The status command to time, and a label saying which one it is."""
    has_cli = False
    with contextlib.suppress(ImportError, ValueError):
        has_cli = importlib.util.find_spec("revetly_cli.__main__") is not None
    if has_cli:
        return ([sys.executable, "-m", "revetly_cli", "status", "--json", "--instance", str(inst)],
                "revetly status --json (python -m revetly_cli)")
    code = ("from revetly_core import Engine; import json, sys; "
            "print(json.dumps(Engine.open(sys.argv[1]).context_health()))")
    return [sys.executable, "-c", code, str(inst)], "python -c Engine.open(...).context_health() (no CLI)"


def measure_status(inst: Path, runs: int) -> dict[str, Any]:
    cmd, label = status_command(inst)
    times: list[float] = []
    last: dict[str, Any] = {}
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=child_env())
        times.append(round(time.perf_counter() - t0, 4))
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr)
            sys.exit(f"bench: {label} exited with {proc.returncode}")
        last = json.loads(proc.stdout)
    return {
        "measured": label, "command": cmd, "runs_s": times, "median_s": round(statistics.median(times), 4),
        "corpus_revision": last.get("corpus_revision"), "counts": last.get("counts"),
        "index_current": (last.get("index") or {}).get("current"),
    }


def measure_cli_imports() -> dict[str, Any]:
    present = False
    with contextlib.suppress(ImportError, ValueError):
        present = importlib.util.find_spec(CLI_APP) is not None
    if not present:
        return {"module": CLI_APP, "present": False, "heavy": None, "pulls_heavy": None}
    code = (
        "import json, sys, time\n"
        "t = time.perf_counter()\n"
        f"import {CLI_APP}\n"
        "t = time.perf_counter() - t\n"
        f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {set(HEAVY_MODULES)!r})\n"
        "print(json.dumps({'heavy': heavy, 'import_s': round(t, 4)}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env())
    if proc.returncode != 0:
        return {"module": CLI_APP, "present": True, "error": proc.stderr.strip().splitlines()[-1:],
                "heavy": None, "pulls_heavy": None}
    got = json.loads(proc.stdout)
    tops = sorted({m.split(".")[0] for m in got["heavy"]})
    return {"module": CLI_APP, "present": True, "heavy": got["heavy"], "heavy_packages": tops,
            "pulls_heavy": bool(got["heavy"]), "import_s": got["import_s"]}


# ------------------------------------------------------------------------------ profiles
def write_profile_text(prof: Path, top: int = PROFILE_TOP) -> Path:
    """Top functions by cumulative and own time, of the pass and (merged) of its workers."""
    import io
    import pstats

    buf = io.StringIO()
    workers = sorted(prof.parent.glob(prof.name + ".worker-*"))
    groups = [("main process", [prof])] + ([(f"{len(workers)} worker processes", workers)] if workers else [])
    for label, files in groups:
        for key in ("cumulative", "tottime"):
            buf.write(f"===== {prof.name}, {label}: top {top} by {key} =====\n")
            stats = pstats.Stats(*(str(f) for f in files), stream=buf)
            stats.strip_dirs().sort_stats(key).print_stats(top)
    txt = prof.with_suffix(".txt")
    txt.write_text(buf.getvalue())
    return txt


def profile_size(inst: Path, size: int, results: Path) -> list[Path]:
    """cProfile the full pass and a one-file incremental pass (separate runs from the timed ones)."""
    remove_state(inst)
    for stale in results.glob(f"profile-{size}-*.prof*"):
        stale.unlink()
    full_prof = results / f"profile-{size}-full.prof"
    run = run_pass_child(inst, "full", full_prof)
    print(f"[{size}] profiled full pass: {run.wall_s:.2f} s wall under cProfile", flush=True)
    edit_one_story(inst, "profile")
    incr_prof = results / f"profile-{size}-incr-one.prof"
    run = run_pass_child(inst, "incremental", incr_prof)
    print(f"[{size}] profiled one-file incremental: {run.wall_s:.2f} s wall under cProfile", flush=True)
    return [write_profile_text(full_prof), write_profile_text(incr_prof)]


# ------------------------------------------------------------------------------ reporting
def ratio(ours: float | None, base: float | None) -> float | None:
    """ours / base, rounded; None when either is missing or the base is zero."""
    if ours is None or not base:
        return None
    return round(ours / base, 2)


def raw_side_by_side(runs: list[PassRun], full: PassRun) -> dict[str, Any]:
    """The plain FTS5 builds (one before, one after the full pass): their mean wall and CPU, and
    the full pass's ratios to them."""
    walls = [r.wall_s for r in runs]
    cpus = [r.cpu_s for r in runs if r.cpu_s is not None]
    wall = round(statistics.mean(walls), 3)
    cpu = round(statistics.mean(cpus), 3) if len(cpus) == len(runs) else None
    return {
        "runs": [asdict(r) for r in runs], "wall_s": wall, "cpu_s": cpu,
        "in_process_s": round(statistics.mean(r.in_process_s for r in runs), 3),
        "peak_mem_mb": max((r.peak_mem_mb() or 0.0) for r in runs),
        "files": runs[0].artifacts_read,
        "ratio_wall": ratio(full.wall_s, wall), "ratio_cpu": ratio(full.cpu_s, cpu),
        "ratio_in_process": ratio(full.in_process_s,
                                  statistics.mean(r.in_process_s for r in runs)),
    }


def check_targets(size: int, result: dict[str, Any]) -> list[dict[str, Any]]:
    raw = result.get("raw_fts5") or {}
    values = {
        "full_s": result["full"]["wall_s"],
        "full_ratio_wall": raw.get("ratio_wall"),
        "full_ratio_cpu": raw.get("ratio_cpu"),
        "full_mem_mb": result["full"]["peak_mem_mb"],
        "incr_one_s": result["incr_one"]["wall_s"],
        "incr_one_pass_s": result["incr_one"]["in_process_s"],
        "incr_none_pass_s": result["incr_none"]["in_process_s"],
        "incr_one_mem_mb": result["incr_one"]["peak_mem_mb"],
        "status_s": result["status"]["median_s"],
    }
    out: list[dict[str, Any]] = []
    for key, limit in TARGETS.get(size, {}).items():
        value = values[key]
        out.append({"target": key, "label": TARGET_LABELS[key], "limit": limit, "value": value,
                    "ok": value is not None and value <= limit})
    return out


CODE_DIRS = ("revetly_core/src", "revetly_cli/src")
CHILD_ENV: dict[str, str] | None = None
"""The environment of every measured process: PYTHONPATH leads to the code snapshot."""


def tree_digest(bases: list[Path]) -> str:
    """sha256 (16 hex digits) of the .py files under these folders, by relative path."""
    digest = hashlib.sha256()
    for base in bases:
        for path in sorted(base.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            digest.update(f"{base.name}/{path.relative_to(base).as_posix()}".encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _packages() -> list[Path]:
    return sorted(pkg for folder in CODE_DIRS for pkg in (REPO_ROOT / folder).iterdir()
                  if (pkg / "__init__.py").is_file())


def code_state() -> dict[str, Any]:
    """The engine code in the work tree: git HEAD, uncommitted changes, digest of its sources."""
    state: dict[str, Any] = {"code_sha256": tree_digest(_packages())}
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        state["repo_head"] = git(REPO_ROOT, "rev-parse", "HEAD")
        state["repo_dirty"] = bool(git(REPO_ROOT, "status", "--porcelain", "--untracked-files=all",
                                       "--", *CODE_DIRS))
    return state


def snapshot_code(cache: Path) -> dict[str, Any]:
    """Copy revetly_core and revetly_cli to cache/code-<digest>/ and measure that copy.

    Others may commit while a long run goes on; every measured process of the run then still
    imports the same code (PYTHONPATH comes before the editable install's path entries).
    """
    import compileall

    global CHILD_ENV
    state = code_state()
    tmp = cache / "code-snapshot.tmp"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    for pkg in _packages():
        shutil.copytree(pkg, tmp / pkg.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    digest = tree_digest(sorted(tmp.iterdir()))
    dest = cache / f"code-{digest}"
    if dest.exists():
        shutil.rmtree(tmp)
    else:
        compileall.compile_dir(str(tmp), quiet=1)  # no child pays for compiling the snapshot
        tmp.rename(dest)
    old = sorted((p for p in cache.glob("code-*") if p.is_dir() and p != dest),
                 key=lambda p: p.stat().st_mtime)
    for stale in old[:-2]:  # keep a few: another run may still be using one
        shutil.rmtree(stale, ignore_errors=True)
    dest.touch()
    state.update(code_sha256=digest, snapshot=str(dest),
                 work_tree_matched=state["code_sha256"] == digest)
    pythonpath = os.environ.get("PYTHONPATH")
    CHILD_ENV = {**os.environ, "PYTHONPATH": str(dest) + (os.pathsep + pythonpath if pythonpath else "")}
    return state


def child_env() -> dict[str, str] | None:
    return CHILD_ENV


def compile_packages() -> int:
    """Write the bytecode of the three packages' modules, as an install does: an editable
    checkout run with PYTHONDONTWRITEBYTECODE set would otherwise compile every module from
    source on every start, which no installed user pays. Returns how many modules were seen."""
    import compileall
    import importlib.util

    seen = 0
    for package in ("revetly_core", "revetly_cli", "revetly_mcp"):
        spec = importlib.util.find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            compileall.compile_dir(folder, quiet=1)
            seen += sum(1 for _ in Path(folder).rglob("*.py"))
    return seen


def env_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "python": sys.version.split()[0], "executable": sys.executable,
        "platform": platform.platform(), "cpus": os.cpu_count(),
    }
    return info


def fmt(value: float | None, spec: str = ".2f") -> str:
    return "n/a" if value is None else format(value, spec)


def summary_line(r: dict[str, Any]) -> str:
    """One markdown table row for one size."""
    f, n, o, s = r["full"], r["incr_none"], r["incr_one"], r["status"]
    imp = r["cli_imports"]
    heavy = ("absent" if not imp["present"] else "error" if imp["pulls_heavy"] is None
             else ", ".join(imp["heavy_packages"]) or "none")
    verdicts = r["targets"]
    verdict = ("no targets" if not verdicts else
               "; ".join(f"{t['target']} {'PASS' if t['ok'] else 'FAIL'} ({fmt(t['value'])} ≤ {t['limit']:g})"
                         for t in verdicts))
    raw = r.get("raw_fts5") or {}
    return (f"| {r['size']} | {f['wall_s']:.2f} s, {fmt(f['artifacts_per_s'], '.0f')} art/s, "
            f"{fmt(f['peak_mem_mb'], '.0f')} MiB | {fmt(raw.get('ratio_wall'))}x wall, "
            f"{fmt(raw.get('ratio_cpu'))}x CPU | {n['wall_s']:.2f} s ({n['in_process_s']:.2f} in-process), "
            f"{fmt(n['peak_mem_mb'], '.0f')} MiB | "
            f"{o['wall_s']:.2f} s ({o['in_process_s']:.2f} in-process), {fmt(o['peak_mem_mb'], '.0f')} MiB | "
            f"{s['median_s']:.3f} s "
            f"({'CLI' if 'revetly_cli' in s['measured'] else 'core API'}) | {heavy} | {verdict} |")


SUMMARY_HEADER = (
    "| size | full pass (wall, artifacts/s, peak mem) | full pass / plain FTS5 build | "
    "incremental, nothing changed | incremental, one file | status --json median | "
    "heavy imports of revetly_cli.app | targets |\n"
    "|---|---|---|---|---|---|---|---|"
)


def write_summary(results: Path) -> Path:
    """bench/results/summary.md from every pass-<size>.json present."""
    rows: list[tuple[int, str, str]] = []
    for path in results.glob("pass-*.json"):
        with contextlib.suppress(ValueError, KeyError, TypeError):
            r = json.loads(path.read_text())
            code = r.get("code", {})
            stamp = (f"{r.get('measured_at', '?')}, engine {str(code.get('repo_head', '?'))[:12]}"
                     f"{'+dirty' if code.get('repo_dirty') else ''}"
                     f", code digest {code.get('code_sha256', '?')}"
                     f"{', CODE CHANGED DURING THE RUN' if r.get('code_changed_during_run') else ''}")
            rows.append((int(r["size"]), summary_line(r), stamp))
    lines = ["# Read-pass benchmark", "", SUMMARY_HEADER]
    lines += [line for _, line, _ in sorted(rows)]
    lines += ["", "Measured:", *(f"- {size}: {at}" for size, _, at in sorted(rows)), ""]
    out = results / "summary.md"
    out.write_text("\n".join(lines))
    return out


def print_table(rows: list[dict[str, Any]]) -> None:
    head = ["size", "measure", "wall s", "in-proc s", "cpu s", "load", "art/s", "peak RSS MiB",
            "tree PSS MiB", "changed"]
    table: list[list[str]] = []
    for r in rows:
        for key, label in (("full", "full pass"), ("incr_none", "incr, no change"),
                           ("incr_one", "incr, one file")):
            p = r[key]
            changed = ",".join(f"{k}={v}" for k, v in sorted(p["changed"].items()) if v)
            table.append([str(r["size"]), label, f"{p['wall_s']:.2f}", f"{p['in_process_s']:.2f}",
                          fmt(p.get("cpu_s")), fmt(p.get("load_before")), fmt(p["artifacts_per_s"], ".0f"),
                          fmt(p["peak_rss_mb"], ".0f"), fmt(p["tree_pss_peak_mb"], ".0f"), changed or "-"])
        raw = r.get("raw_fts5")
        for i, p in enumerate(raw["runs"] if raw else []):
            table.append([str(r["size"]), f"plain FTS5 #{i + 1}", f"{p['wall_s']:.2f}",
                          f"{p['in_process_s']:.2f}", fmt(p.get("cpu_s")), fmt(p.get("load_before")),
                          fmt(p["artifacts_per_s"], ".0f"), fmt(p["peak_rss_mb"], ".0f"),
                          fmt(p["tree_pss_peak_mb"], ".0f"), f"{p['artifacts_read']} files"])
        s = r["status"]
        table.append([str(r["size"]), "status --json", f"{s['median_s']:.3f}", "-", "-", "-", "-", "-", "-",
                      "median of " + ", ".join(f"{t:.3f}" for t in s["runs_s"])])
    widths = [max(len(row[i]) for row in [head, *table]) for i in range(len(head))]
    print()
    print("  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    for r in rows:
        code = r["code"]
        print(f"\n[{r['size']}] engine code: HEAD {str(code.get('repo_head', '?'))[:12]}"
              f"{' + uncommitted changes' if code.get('repo_dirty') else ''}, digest {code['code_sha256']}"
              + (" (snapshot)" if code.get("snapshot") else " (live work tree)")
              + ("  (CHANGED DURING THE RUN)" if r.get("code_changed_during_run") else ""))
        print(f"[{r['size']}] status measured: {r['status']['measured']}")
        imp = r["cli_imports"]
        print(f"[{r['size']}] import {imp['module']}: "
              + ("not present" if not imp["present"] else f"heavy modules {imp['heavy_packages']}"
                 f" ({len(imp['heavy'] or [])} modules), import {imp.get('import_s')} s"))
        raw = r.get("raw_fts5")
        if raw:
            print(f"[{r['size']}] full pass vs plain FTS5 build (mean of {len(raw['runs'])}): wall "
                  f"{r['full']['wall_s']:.2f} / {raw['wall_s']:.2f} s = {fmt(raw['ratio_wall'])}x, CPU "
                  f"{fmt(r['full']['cpu_s'])} / {fmt(raw['cpu_s'])} s = {fmt(raw['ratio_cpu'])}x, "
                  f"in-process {fmt(raw['ratio_in_process'])}x")
        for key in ("full", "incr_one"):
            phases = r[key].get("phases") or []
            if phases:
                print(f"[{r['size']}] {key} phases (s, in-process): "
                      + ", ".join(f"{name} {sec:.2f}" for name, sec in phases))
        for t in r["targets"]:
            print(f"[{r['size']}] target {t['label']}: {fmt(t['value'])} ≤ {t['limit']:g} -> "
                  f"{'PASS' if t['ok'] else 'FAIL'}")


# ------------------------------------------------------------------------------ main
def bench_size(size: int, args: argparse.Namespace, gen: Generator) -> dict[str, Any]:
    inst, meta = prepare_instance(size, gen, args.cache_dir, args.regen)
    code_before = args.code if args.code is not None else code_state()
    remove_state(inst)
    print(f"[{size}] (a0) plain FTS5 build of the same files ...", flush=True)
    raw_runs = [run_pass_child(inst, "raw")]
    print(f"[{size}]     {raw_runs[0].wall_s:.2f} s", flush=True)
    print(f"[{size}] (a) full pass from scratch ...", flush=True)
    full = run_pass_child(inst, "full")
    print(f"[{size}]     {full.wall_s:.2f} s", flush=True)
    print(f"[{size}] (a1) plain FTS5 build again ...", flush=True)
    raw_runs.append(run_pass_child(inst, "raw"))
    print(f"[{size}]     {raw_runs[1].wall_s:.2f} s", flush=True)
    print(f"[{size}] (b) incremental pass, nothing changed ...", flush=True)
    none = run_pass_child(inst, "incremental")
    print(f"[{size}]     {none.wall_s:.2f} s", flush=True)
    edited = edit_one_story(inst, "timed")
    print(f"[{size}] (c) incremental pass after editing {edited} ...", flush=True)
    one = run_pass_child(inst, "incremental")
    one.extra["edited"] = edited
    print(f"[{size}]     {one.wall_s:.2f} s", flush=True)
    if one.changed.get("updated") != 1:
        print(f"[{size}] WARNING: the one-file pass reported changed={one.changed}", flush=True)
    print(f"[{size}] (d) status --json x{args.status_runs} ...", flush=True)
    status = measure_status(inst, args.status_runs)
    print(f"[{size}] (e) imports of {CLI_APP} ...", flush=True)
    imports = measure_cli_imports()
    result: dict[str, Any] = {
        "size": size,
        "measured_at": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        "env": env_info(),
        "code": code_before,
        "instance": {"path": str(inst), **{k: meta[k] for k in ("head", "gen", "gen_seconds", "files")},
                     "gen_counts": meta.get("gen_summary", {}).get("counts")},
    }
    for key, run in (("full", full), ("incr_none", none), ("incr_one", one)):
        result[key] = {**asdict(run), "peak_mem_mb": run.peak_mem_mb()}
    result["raw_fts5"] = raw_side_by_side(raw_runs, full)
    result["status"] = status
    result["cli_imports"] = imports
    result["targets"] = check_targets(size, result)
    if args.code is None:  # --live-code: the work tree itself was measured
        code_after = code_state()
        result["code_changed_during_run"] = code_after != code_before
        if result["code_changed_during_run"]:
            result["code_after"] = code_after
            print(f"[{size}] WARNING: the engine code changed while it was measured "
                  f"({code_before} -> {code_after}); these numbers mix two versions", flush=True)
    if args.profile:
        result["profiles"] = [str(p) for p in profile_size(inst, size, args.results_dir)]
    out = args.results_dir / f"pass-{size}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"[{size}] wrote {out}", flush=True)
    return result


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description="Benchmark Revetly's read pass (see bench/README.md).")
    ap.add_argument("--sizes", type=parse_sizes, default=parse_sizes("1000,10000"),
                    help="comma-separated instance sizes (default 1000,10000; 100000 works too)")
    ap.add_argument("--gen", help=f"an instance generator script to use instead (else ${GEN_ENV}, "
                                  f"else python -m {DEFAULT_GEN})")
    ap.add_argument("--cache-dir", type=Path, default=BENCH_DIR / ".cache",
                    help="where generated instances are kept (default bench/.cache)")
    ap.add_argument("--results-dir", type=Path, default=BENCH_DIR / "results",
                    help="where pass-<size>.json and summary.md go (default bench/results)")
    ap.add_argument("--regen", action="store_true", help="regenerate instances even when cached")
    ap.add_argument("--status-runs", type=int, default=5, help="status --json runs (median; default 5)")
    ap.add_argument("--profile", action="store_true",
                    help="also cProfile a full and a one-file incremental pass (extra runs) and "
                         "write profile-<size>-*.prof/.txt")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--live-code", action="store_true",
                    help="measure the work tree's code as it is at each moment instead of a snapshot "
                         "taken at the start (bench/.cache/code-<digest>/)")
    # internal: one measured pass inside a fresh interpreter
    ap.add_argument("--child", choices=("full", "incremental", "raw"), help=argparse.SUPPRESS)
    ap.add_argument("--instance", help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    ap.add_argument("--child-profile", help=argparse.SUPPRESS)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.child:
        return child_main(args.instance, args.child, args.child_out, args.child_profile)
    gen = resolve_gen(args.gen)
    args.cache_dir = args.cache_dir.resolve()
    args.results_dir = args.results_dir.resolve()
    args.results_dir.mkdir(parents=True, exist_ok=True)
    args.code = None
    if not args.live_code:
        args.code = snapshot_code(args.cache_dir)
        print(f"measuring a snapshot of the engine code: {args.code['snapshot']} "
              f"(HEAD {str(args.code.get('repo_head', '?'))[:12]}"
              f"{' + uncommitted changes' if args.code.get('repo_dirty') else ''})", flush=True)
    rows = [bench_size(size, args, gen) for size in args.sizes]
    print_table(rows)
    summary = write_summary(args.results_dir)
    print(f"\n{SUMMARY_HEADER}")
    for r in rows:
        print(summary_line(r))
    print(f"\nwrote {summary}")
    missed = [t for r in rows for t in r["targets"] if not t["ok"]]
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
