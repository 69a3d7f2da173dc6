#!/usr/bin/env python3
"""Mutation check: does the test suite notice a deliberate bug in a check that guards correctness?

Copies the repository (the files `git ls-files --cached --others --exclude-standard` lists: the
working tree as it is, untracked files that are not ignored included) to a scratch tree,
configures and builds it once (build/mutation_check/tree/build, reused by later runs: only
changed files are rewritten), runs every selection of tests once unmutated (it must pass:
otherwise a failure would prove nothing), then for each mutation below: applies it (the exact
original snippet must occur once in its file), rebuilds incrementally, runs only its ctest
labels under CI=true (so a skip cannot pass for a catch), and reverts it. Prints one line per
mutation: which tests failed (caught) or NOT CAUGHT. stdlib only.

Usage: scripts/mutation_check.py [--only SUBSTR]... [--list] [--jobs N] [--work DIR]
Exit: 0 every mutation caught; 1 a mutation not caught, its snippet not found or its build failed;
2 the unmutated tree does not build or its tests fail.
Takes ~10 minutes for the first scratch build on 2 cores, then ~1-3 minutes per mutation.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Each: name, file, the exact original snippet, its replacement, the ctest label regex (-L) that
# must catch it, and optionally a test-name regex to leave out (-E) to keep the run short.
MUTATIONS = [
    {"name": "build: reuse ignores a changed compiler",
     "file": "src/build/build_plan.cpp",
     "old": "} else if (logged->compiler != m_compiler) {",
     "new": "} else if (false) {",
     "labels": "^build$"},
    {"name": "build: index entry's module only has to exist",
     "file": "src/build/build_plan.cpp",
     "old": "bool same = e.record.module && e.record.module->hex() == logged->module_object &&",
     "new": "bool same = e.record.module.has_value() &&",
     "labels": "^build$"},
    {"name": "build: no-op ignores a changed store index",
     "file": "src/build/input_stamp.cpp",
     "old": "if (size != logged.index_size || mtime != logged.index_mtime_ns) {",
     "new": "if (false) {",
     "labels": "^build$"},
    {"name": "build: no-op ignores a changed config file",
     "file": "src/build/input_stamp.cpp",
     "old": "if (now.configs != logged.configs) {",
     "new": "if (false) {",
     "labels": "^build$"},
    {"name": "build: no-op ignores a same-mtime edit (racy hash)",
     "file": "src/build/input_stamp.cpp",
     "old": "if (!b.hash.empty() && content_hash(a.path) != b.hash) {",
     "new": "if (false) {",
     "labels": "^(build|unit)$", "exclude": "backend_unit"},
    {"name": "backend: task key without the toolchain id",
     "file": "src/backend/toolchain_id.cpp",
     "old": 'std::to_string(id.size()) + "\\n" + id + "\\n" +',
     "new": 'std::to_string(id.size()) + "\\n" + "\\n" +',
     "labels": "^build$"},
    {"name": "sema: purity exempts prefixes math / numpy",
     "file": "src/sema/purity.cpp",
     "old": 'if (path.starts_with("math.") || path.starts_with("numpy.")) {',
     "new": 'if (path.starts_with("math") || path.starts_with("numpy")) {',
     "labels": "^sema$"},
    {"name": "sema: kernel key without the constants read",
     "file": "src/sema/kernel_key.cpp",
     "old": 'h.add("constants", constants);',
     "new": 'h.add("constants", "");',
     "labels": "^sema$"},
    {"name": "sema: kernel key without the codegen config",
     "file": "src/sema/kernel_key.cpp",
     "old": 'h.add("config", in.config->codegen_text());',
     "new": 'h.add("config", "");',
     "labels": "^sema$"},
    {"name": "prelude: integer // truncates (C division)",
     "file": "src/codegen/prelude/qd_prelude.hpp",
     "old": "      q = static_cast<T>(q - 1);",
     "new": "      q = static_cast<T>(q);",
     "labels": "^diff$", "exclude": "diff_oracle|diff_compiled_capi|diff_reference"},
    {"name": "prelude: integer % takes the dividend's sign (C %)",
     "file": "src/codegen/prelude/qd_prelude.hpp",
     "old": "      r = static_cast<T>(r + b);",
     "new": "      r = static_cast<T>(r);",
     "labels": "^diff$", "exclude": "diff_oracle|diff_compiled_capi|diff_reference"},
    {"name": "prelude: float // does not floor",
     "file": "src/codegen/prelude/qd_prelude.hpp",
     "old": "inline f64 floordiv(f64 a, f64 b) { return __builtin_floor(a / b); }",
     "new": "inline f64 floordiv(f64 a, f64 b) { return __builtin_trunc(a / b); }",
     "labels": "^diff$", "exclude": "diff_oracle|diff_compiled_capi|diff_reference"},
    {"name": "store: object content checksum not verified on read",
     "file": "src/store/object_format.cpp",
     "old": "if (xxh3_128(raw) != info->content_xxh3_128) {",
     "new": "if (false) {",
     "labels": "^(store|unit)$", "exclude": "backend_unit"},
    {"name": "store: index checksum not verified on read",
     "file": "src/store/index_format.cpp",
     "old": "if (options.verify_checksum && xxh3_64(bytes.substr(QDRT_INDEX_CHECKSUM_START)) != h.checksum) {",
     "new": "if (false) {",
     "labels": "^(store|unit)$", "exclude": "backend_unit"},
    {"name": "runtime: object content checksum not verified",
     "file": "runtime/src/store_file.cpp",
     "old": "if (std::memcmp(want, h.content_xxh3_128, 16) != 0) {",
     "new": "if (false) {",
     "labels": "^runtime$"},
    {"name": "runtime: launch accepts an array of another dtype",
     "file": "runtime/src/launch.cpp",
     "old": "  if (v.dtype != a.dtype) {\n    return \"expected dtype \"",
     "new": "  if (false) {\n    return \"expected dtype \"",
     "labels": "^runtime$"},
    {"name": "runtime: launch accepts an array of another ndim",
     "file": "runtime/src/launch.cpp",
     "old": "  if (v.ndim != ndim) {",
     "new": "  if (false) {",
     "labels": "^runtime$"},
]


def log(msg):
    print(msg, flush=True)


def repo_files():
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                          "--exclude-standard"], check=True, capture_output=True).stdout
    return sorted({p for p in out.decode().split("\0") if p and (ROOT / p).is_file()})


def sync_tree(tree):
    """Makes `tree` hold exactly the repository's files (rewriting only those that differ, so
    that the scratch build stays incremental); returns how many were written."""
    files = repo_files()
    wanted = set(files)
    written = 0
    for rel in files:
        src, dst = ROOT / rel, tree / rel
        data = src.read_bytes()
        if not dst.is_file() or dst.read_bytes() != data:
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(data)
            written += 1
        mode = src.stat().st_mode & 0o777
        if dst.stat().st_mode & 0o777 != mode:
            os.chmod(dst, mode)
    for dirpath, dirnames, filenames in os.walk(tree):
        rel_dir = os.path.relpath(dirpath, tree)
        if rel_dir == "build" or rel_dir.startswith("build" + os.sep):
            dirnames[:] = []
            continue
        for f in filenames:
            rel = os.path.normpath(os.path.join(rel_dir, f))
            if rel not in wanted:
                os.remove(os.path.join(dirpath, f))
    return written


def run_logged(cmd, logfile, env=None, timeout=3600):
    with open(logfile, "w") as f:
        f.write("$ " + " ".join(map(str, cmd)) + "\n")
        f.flush()
        try:
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, timeout=timeout)
            return p.returncode
        except subprocess.TimeoutExpired:
            f.write(f"\n(timed out after {timeout} s)\n")
            return None


def build(tree, jobs, logfile):
    return run_logged(["cmake", "--build", str(tree / "build"), "-j", str(jobs)], logfile) == 0


def failed_tests(logfile):
    text = Path(logfile).read_text(errors="replace")
    names = re.findall(r"^\s*\d+ - (\S+) \(", text.split("The following tests FAILED:")[-1], re.M) \
        if "The following tests FAILED:" in text else []
    ran = re.search(r"(\d+)% tests passed, (\d+) tests failed out of (\d+)", text)
    return names, (int(ran.group(3)) if ran else 0), text


def run_tests(tree, m, logfile):
    """(failed test names, tests run, ctest exit status)."""
    cmd = ["ctest", "--test-dir", str(tree / "build"), "-L", m["labels"], "--output-on-failure"]
    if m.get("exclude"):
        cmd += ["-E", m["exclude"]]
    env = dict(os.environ, CI="true")
    rc = run_logged(cmd, logfile, env=env)
    names, total, _ = failed_tests(logfile)
    if rc is None:
        names = names or ["(ctest timed out)"]
    return names, total, rc


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", default=[], help="mutations whose name contains this")
    ap.add_argument("--list", action="store_true", help="print the mutations and exit")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("QD_JOBS", "2")))
    ap.add_argument("--work", default=str(ROOT / "build" / "mutation_check"))
    a = ap.parse_args()
    mutations = [m for m in MUTATIONS if not a.only or any(s in m["name"] for s in a.only)]
    if a.list or not mutations:
        for m in MUTATIONS:
            log(f"{m['name']:55} {m['file']:38} -L {m['labels']}")
        return 0 if a.list else 1

    work = Path(a.work).resolve()
    tree, logs = work / "tree", work / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    for f in logs.iterdir():
        f.unlink()
    t0 = time.monotonic()
    log(f"mutation_check: scratch tree {tree}: {sync_tree(tree)} files written")
    venv = ROOT / "build" / "venv"
    (tree / "build").mkdir(parents=True, exist_ok=True)
    if venv.is_dir() and not (tree / "build" / "venv").exists():
        os.symlink(venv, tree / "build" / "venv")  # the tests that use build/venv find it
    rc = run_logged(["cmake", "-S", str(tree), "-B", str(tree / "build"), "-G", "Ninja",
                     "-DCMAKE_CXX_COMPILER=clang++-19", "-DCMAKE_C_COMPILER=clang-19",
                     "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DQD_WERROR=ON"], logs / "configure.log")
    if rc != 0:
        log(f"mutation_check: configure failed; see {logs / 'configure.log'}")
        return 2
    log("mutation_check: building the scratch tree (first time: ~10 minutes) ...")
    if not build(tree, a.jobs, logs / "build-base.log"):
        log(f"mutation_check: the unmutated tree does not build; see {logs / 'build-base.log'}")
        return 2
    log(f"mutation_check: built in {time.monotonic() - t0:.0f} s")

    # Unmutated, every selection must pass (a catch must come from the mutation).
    baseline = {}
    for m in mutations:
        key = (m["labels"], m.get("exclude", ""))
        if key in baseline:
            continue
        lf = logs / f"baseline-{slug(key[0] + ' ' + key[1])}.log"
        names, total, rc = run_tests(tree, m, lf)
        baseline[key] = total
        if rc != 0 or total == 0:
            log(f"mutation_check: unmutated, -L {key[0]} fails ({', '.join(names) or f'exit {rc}'}"
                f"; {total} tests); see {lf}")
            return 2
        log(f"mutation_check: unmutated -L {key[0]}{' -E ' + key[1] if key[1] else ''}: "
            f"{total} tests pass")

    rows = []
    for m in mutations:
        path = tree / m["file"]
        original = path.read_bytes()
        text = original.decode()
        n = text.count(m["old"])
        if n != 1:
            rows.append((m, f"ERROR: snippet found {n} times in {m['file']}"))
            log(f"-- {m['name']}: {rows[-1][1]}")
            continue
        s = slug(m["name"])
        t1 = time.monotonic()
        try:
            path.write_text(text.replace(m["old"], m["new"]))
            if not build(tree, a.jobs, logs / f"build-{s}.log"):
                result = f"ERROR: the mutated tree does not build (logs/build-{s}.log)"
            else:
                names, total, rc = run_tests(tree, m, logs / f"test-{s}.log")
                if names:
                    result = "caught: " + ", ".join(names)
                elif rc != 0:
                    result = f"caught: ctest exit {rc} (logs/test-{s}.log)"
                else:
                    result = f"NOT CAUGHT ({total} tests passed)"
        finally:
            path.write_bytes(original)  # a new mtime: the next build recompiles it
        rows.append((m, result))
        log(f"-- {m['name']}: {result} ({time.monotonic() - t1:.0f} s)")
    log("mutation_check: rebuilding the reverted tree")
    reverted_ok = build(tree, a.jobs, logs / "build-reverted.log")

    width = max(len(m["name"]) for m, _ in rows)
    log("")
    log(f"{'mutation':{width}}  {'labels':16}  result")
    for m, result in rows:
        log(f"{m['name']:{width}}  {m['labels']:16}  {result}")
    bad = [r for _, r in rows if not r.startswith("caught")]
    log(f"\n{len(rows) - len(bad)}/{len(rows)} mutations caught in "
        f"{time.monotonic() - t0:.0f} s (logs: {logs})")
    if not reverted_ok:
        log("mutation_check: warning: the reverted scratch tree did not rebuild")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
