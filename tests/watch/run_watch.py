#!/usr/bin/env python3
"""`qdbuild build --watch` end to end (issue 8, docs/build.md "Watch mode") and libqdrt hot reload
(docs/runtime.md "Hot reload"). Starts the watcher with --json and reads one event per rebuild:
edit one loop body of a 5-loop kernel -> 1 task compiled, 4 reused; comment-only edit -> 0
compiled; a syntax error -> an error event, the previous entry still loadable; the fix -> rebuilt;
an editor-style save (temp file renamed over the source); a new file; deleting a file -> its
kernels leave the index; renaming a directory -> its kernels re-registered under the new module
ids; SIGTERM -> exit 0, no temp files. Hot reload: a Python app (qdrt.open(watch=True)) keeps
launching a kernel while the watcher rebuilds it; results switch from the old to the new code
with no failed launch. Also the inotify limit message (QDBUILD_WATCH_LIMIT pretends a limit).
Usage: run_watch.py [--qdbuild PATH] [--qdrt-lib PATH]      Exit: 0 pass; 1 failure.
"""
import argparse
import array
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
sys.path.insert(0, str(ROOT / "runtime" / "python"))
import qdtest  # noqa: E402

CHECKS = qdtest.Checks("watch", echo_passes=True)
check = CHECKS.named
ND = qdtest.NDARRAY_F32
ADD = f"""import quadrants as qd


@qd.kernel
def add(x: {ND}):
    for i in range(x.shape[0]):
        x[i] = x[i] + 1.0
"""


class Watcher:
    def __init__(self, qd, cwd, *args, env=None, command=("build", "--watch")):
        self.p = subprocess.Popen([str(qd), *command, *args, "--json"], cwd=cwd,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.events = queue.Queue()
        self.err = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.err.extend(self.p.stderr), daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            try:
                self.events.put(json.loads(line))
            except ValueError:
                self.events.put({"bad": line.decode("utf-8", "replace")})

    def next(self, timeout=60):
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            return self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return None


def index_ids(qd, cwd, store):
    p = subprocess.run([str(qd), "store", "ls", "--store", store, "--json"], cwd=cwd,
                       capture_output=True, text=True)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        return None
    entries = doc if isinstance(doc, list) else doc.get("entries", [])
    return sorted({e.get("kernel") or e.get("kernel_id") for e in entries})


def save(path, text):
    path.write_text(text)


def editor_save(path, text):
    tmp = path.with_name("." + path.name + ".swp~")
    tmp.write_text(text)
    os.replace(tmp, path)


def watch_suite(qd, tmp):
    w = tmp / "w"
    src = w / "src"
    (src / "pkg").mkdir(parents=True)
    save(src / "five.py", qdtest.FIVE_LOOPS)
    save(src / "pkg" / "adder.py", ADD)
    wt = Watcher(qd, w, "src", "--store", "st")
    try:
        ev = wt.next()
        if not check("initial build event", ev and ev.get("event") == "build" and ev["ok"] and
                     ev["tasks"]["compiled"] == 6, ev):
            return
        save(src / "five.py", qdtest.FIVE_LOOPS.replace("y[i] * 2.0", "y[i] * 4.0"))
        ev = wt.next()
        check("edit one loop -> 1 compiled, 4 reused",
              ev and ev["tasks"]["compiled"] == 1 and ev["tasks"]["reused"] == 5 and
              ev["lowered"] == ["five:five"] and ev["changed"] == ["src/five.py"], ev)
        save(src / "five.py", qdtest.FIVE_LOOPS.replace("y[i] * 2.0", "y[i] * 4.0") + "# a comment\n")
        ev = wt.next()
        check("comment-only edit -> 0 compiled", ev and ev["tasks"]["compiled"] == 0 and
              ev["modules_linked"] == 0 and ev["ok"], ev)
        save(src / "five.py", qdtest.FIVE_LOOPS + "def (\n")
        ev = wt.next()
        check("syntax error -> error event", ev and not ev["ok"] and ev["errors"] >= 1 and
              "five:five" in ev["failed"] and
              any(d["severity"] == "error" for d in ev["diagnostics"]), ev)
        ids = index_ids(qd, w, "st")
        check("syntax error: previous entry still in the index", ids and "five:five" in ids, ids)
        editor_save(src / "five.py", qdtest.FIVE_LOOPS.replace("x[i] * 0.5", "x[i] * 0.25"))
        ev = wt.next()
        check("fix (editor temp+rename save) -> rebuilt", ev and ev["ok"] and
              ev["tasks"]["compiled"] == 1 and ev["changed"] == ["src/five.py"], ev)
        save(src / "pkg" / "more.py", ADD.replace("def add", "def more").replace("1.0", "7.0"))
        ev = wt.next()
        check("new file -> its kernel built", ev and ev["ok"] and "pkg.more:more" in ev["lowered"],
              ev)
        os.remove(src / "pkg" / "more.py")
        ev = wt.next()
        check("delete a file -> its kernels leave the index",
              ev and ev["removed"] == ["pkg.more:more"] and ev["deleted"] == ["src/pkg/more.py"],
              ev)
        ids = index_ids(qd, w, "st")
        check("deleted kernel gone from `store ls`", ids is not None and "pkg.more:more" not in ids,
              ids)
        os.rename(src / "pkg", src / "pkg2")
        ev = wt.next()
        check("rename a directory -> re-registered under the new module id",
              ev and ev["ok"] and ev["removed"] == ["pkg.adder:add"] and
              "pkg2.adder:add" in ev["lowered"] and ev["tasks"]["compiled"] == 0, ev)
        ids = index_ids(qd, w, "st")
        check("renamed: index ids", ids == ["five:five", "pkg2.adder:add"], ids)
        # a burst of saves to several files is one batch
        for i in range(5):
            save(src / f"b{i}.py", ADD.replace("def add", f"def b{i}"))
        ev = wt.next()
        extra = wt.next(timeout=1)
        check("burst of 5 new files -> one rebuild", ev and len(ev["lowered"]) == 5 and
              extra is None, (ev, extra))
    finally:
        rc = wt.stop()
    check("SIGTERM -> exit 0", rc == 0, f"exit {rc} {b''.join(wt.err)[-500:]}")
    temps = [str(p) for p in (w / "st").rglob("*.tmp")]
    check("no temp files left in the store", not temps, temps)
    rc, out = subprocess.run([str(qd), "store", "verify", "--store", "st"], cwd=w,
                             capture_output=True, text=True).returncode, ""
    check("store verify clean after watching", rc == 0, rc)


def limit_suite(qd, tmp):
    w = tmp / "lim"
    (w / "src" / "a" / "b").mkdir(parents=True)
    save(w / "src" / "a" / "k.py", ADD)
    env = dict(os.environ, QDBUILD_WATCH_LIMIT="2")
    p = subprocess.run([str(qd), "build", "src", "--store", "st", "--watch"], cwd=w,
                       capture_output=True, text=True, env=env, timeout=60)
    check("inotify limit: exit 3 with fs.inotify.max_user_watches named",
          p.returncode == 3 and "fs.inotify.max_user_watches" in p.stderr and
          "sysctl" in p.stderr, (p.returncode, p.stderr))


def hot_reload_suite(qd, tmp):
    import qdrt
    w = tmp / "hot"
    (w / "src").mkdir(parents=True)
    save(w / "src" / "hot.py", ADD + "\n\n" + ADD.split("\n\n\n", 1)[1]
         .replace("def add", "def other").replace("1.0", "5.0"))
    wt = Watcher(qd, w, "src", "--store", "st")
    stop = threading.Event()
    results, errors = [], []
    try:
        ev = wt.next()
        if not check("hot reload: initial build", ev and ev["ok"], ev):
            return
        store = qdrt.open(str(w / "st"), watch=True)
        k = store.kernel("hot:add")
        other = store.kernel("hot:other")
        x = array.array("f", [0.0] * 64)
        other(x)
        other_obj = other.observations["object"]

        def app():
            while not stop.is_set():
                buf = array.array("f", [0.0] * 64)
                try:
                    k(buf)
                    results.append(buf[0])
                except Exception as e:  # noqa: BLE001
                    errors.append(repr(e))
        prep_buf = array.array("f", [0.0] * 64)
        prepared = k.prepare(prep_buf)
        deltas = []

        def prepared_app():
            # One prepared launch (qdrt_prepare), relaunched across the rebuild: it binds its
            # saved arguments to the new build on the first launch after the switch.
            while not stop.is_set():
                before = prep_buf[0]
                try:
                    prepared()
                    deltas.append(prep_buf[0] - before)
                except Exception as e:  # noqa: BLE001
                    errors.append("prepared: " + repr(e))
        threads = [threading.Thread(target=app) for _ in range(2)]
        threads.append(threading.Thread(target=prepared_app))
        for t in threads:
            t.start()
        time.sleep(0.3)
        save(w / "src" / "hot.py", (w / "src" / "hot.py").read_text()
             .replace("x[i] + 1.0", "x[i] + 2.0", 1))
        ev = wt.next()
        check("hot reload: rebuild event", ev and ev["ok"] and ev["lowered"] == ["hot:add"], ev)
        deadline = time.time() + 10
        while time.time() < deadline and (not results or results[-1] != 2.0 or
                                          not deltas or deltas[-1] != 2.0):
            time.sleep(0.01)
        time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join()
        first_new = results.index(2.0) if 2.0 in results else None
        check("hot reload: results switch from old (1.0) to new (2.0)",
              first_new is not None and results[0] == 1.0 and
              set(results[:first_new]) == {1.0} and results[-1] == 2.0, results[-5:])
        first_delta = deltas.index(2.0) if 2.0 in deltas else None
        check("hot reload: a prepared launch switches from old to new too",
              first_delta is not None and deltas[0] == 1.0 and
              set(deltas[:first_delta]) == {1.0} and set(deltas[first_delta:]) == {2.0},
              deltas[-5:])
        check("hot reload: no failed launch", not errors, errors[:3])
        x = array.array("f", [0.0] * 64)
        other(x)
        check("hot reload: the unchanged kernel keeps its loaded module",
              x[0] == 5.0 and other.observations["object"] == other_obj,
              (x[0], other.observations, other_obj))
        store.close()
    finally:
        stop.set()
        wt.stop()


SCALE = """import quadrants as qd


@qd.kernel
def scale(x: qd.types.ndarray(), k: qd.template()):
    for i in range(x.shape[0]):
        x[i] = x[i] * k
"""


def record_doc(ks):
    return json.dumps({"format": "qdrt-record 1", "kernels": {"tmpl:scale": [
        {"params": {"x": "ndarray(f32, 1)", "k": {"template": k}}} for k in ks]}})


def record_suite(qd, tmp):
    """A recorded run given with --instances is an input: saving a new record rebuilds, and
    the new instance is compiled (the template kernel has no instance without it)."""
    w = tmp / "rec"
    (w / "src").mkdir(parents=True)
    save(w / "src" / "tmpl.py", SCALE)
    save(w / "run.json", record_doc([2]))
    wt = Watcher(qd, w, "src", "--root", "src", "--store", "st", "--instances", "run.json")
    try:
        ev = wt.next()
        if not check("record: initial build compiles the recorded instance",
                     ev and ev["ok"] and ev["lowered"] == ["tmpl:scale"], ev):
            return
        editor_save(w / "run.json", record_doc([2, 3]))
        ev = wt.next()
        check("record: a new record rebuilds the kernel",
              ev and ev["ok"] and ev["lowered"] == ["tmpl:scale"] and
              ev["tasks"]["compiled"] == 1, ev)
        save(w / "run.json", "{\"format\": ")
        ev = wt.next()
        check("record: a broken record is an error event", ev and not ev["ok"], ev)
    finally:
        rc = wt.stop()
    check("record: exit 0 on SIGTERM", rc == 0, rc)


def two_watchers_suite(qd, tmp):
    """Two watchers on one tree and one store: both rebuild each edit; the index stays
    consistent (store verify clean) and holds the newest code."""
    w = tmp / "two"
    src = w / "src"
    src.mkdir(parents=True)
    save(src / "adder.py", ADD)
    a = Watcher(qd, w, "src", "--store", "st")
    b = Watcher(qd, w, "src", "--store", "st")
    try:
        ea, eb = a.next(), b.next()
        if not check("two watchers: both initial builds", ea and ea["ok"] and eb and eb["ok"],
                     (ea, eb)):
            return
        for n, factor in enumerate(("2.0", "3.0")):
            editor_save(src / "adder.py", ADD.replace("1.0", factor))
            ea, eb = a.next(), b.next()
            check(f"two watchers: edit {n + 1} rebuilt by both",
                  ea and ea["ok"] and eb and eb["ok"], (ea, eb))
    finally:
        ra, rb = a.stop(), b.stop()
    check("two watchers: both exit 0 on SIGTERM", ra == 0 and rb == 0, (ra, rb))
    rc = subprocess.run([str(qd), "store", "verify", "--store", "st"], cwd=w,
                        capture_output=True).returncode
    check("two watchers: store verify clean", rc == 0, rc)
    sys.path.insert(0, str(ROOT / "runtime" / "python"))
    import qdrt  # noqa: E402
    import array  # noqa: E402
    store = qdrt.open(str(w / "st"))
    x = array.array("f", [0.0, 0.0])
    store.kernel("adder:add")(x)
    check("two watchers: the index holds the last edit", list(x) == [3.0, 3.0], list(x))
    store.close()


def project_suite(qd, tmp):
    """`qdbuild --watch` in a project directory, no arguments (docs/build.md "Project
    configuration"): the store build/qdstore inside the watched tree is not watched (the count
    is the project directory and the directories above it, for the config), nor is the build
    directory or a .gitignore'd one, and a save is exactly one rebuild (the store's own writes
    used to make a second, empty one)."""
    w = tmp / "proj"
    (w / "pkg").mkdir(parents=True)
    save(w / "pyproject.toml", "[tool.qdbuild]\n")
    save(w / "pkg" / "adder.py", ADD)
    save(w / ".gitignore", "/scratch/\n")
    (w / "scratch").mkdir()
    subprocess.run(["git", "init", "-q", str(w)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "QDBUILD_STORE"}
    wt = Watcher(qd, w, command=("--watch",), env=env)
    try:
        ev = wt.next()
        if not check("project: `qdbuild --watch` builds the project",
                     ev and ev.get("event") == "build" and ev["ok"] and
                     ev["lowered"] == ["pkg.adder:add"] and
                     (w / "build" / "qdstore" / "index.qdi").exists(), ev):
            return
        extra = wt.next(timeout=1.5)
        check("project: no rebuild after the first build", extra is None, extra)
        deadline = time.time() + 10
        line = ""
        while time.time() < deadline and "watching" not in line:
            line = b"".join(wt.err).decode()
            time.sleep(0.05)
        # pkg/ and the project directory (also a config directory), and every directory above
        # it for the configs; not build/, build/qdstore/..., .git/ or scratch/.
        expected = 2 + len(w.resolve().parents)
        check("project: watches neither the store nor build/ nor .gitignore'd directories",
              f"qdbuild: watching {expected} directories for changes" in line, line)
        save(w / "pkg" / "adder.py", ADD.replace("1.0", "2.0"))
        ev = wt.next()
        check("project: a save is one rebuild", ev and ev["ok"] and ev["event"] == "rebuild" and
              ev["lowered"] == ["pkg.adder:add"] and ev["changed"] == ["pkg/adder.py"], ev)
        extra = wt.next(timeout=1.5)
        check("project: ... and only one (the store's writes are not changes)", extra is None,
              extra)
        save(w / "build" / "gen.py", ADD)
        save(w / "scratch" / "s.py", ADD)
        extra = wt.next(timeout=1.5)
        check("project: files in build/ and .gitignore'd directories are not changes",
              extra is None, extra)
    finally:
        rc = wt.stop()
    check("project: exit 0 on SIGTERM", rc == 0, rc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qdbuild", default=str(qdtest.DEFAULT_QDBUILD))
    ap.add_argument("--qdrt-lib", default=str(ROOT / "build" / "lib" / "libqdrt.so"))
    a = ap.parse_args()
    qd = qdtest.require_qdbuild(Path(a.qdbuild).resolve())
    os.environ["QDRT_LIBRARY"] = a.qdrt_lib
    with CHECKS.workdir("qd-watch-") as tmp:
        watch_suite(qd, tmp)
        limit_suite(qd, tmp)
        hot_reload_suite(qd, tmp)
        record_suite(qd, tmp)
        two_watchers_suite(qd, tmp)
        project_suite(qd, tmp)
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
