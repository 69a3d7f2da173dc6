#!/usr/bin/env python3
"""Remote execution end to end (docs/remote-exec.md "Tests"): BuildGrid 0.9.1 on its own
PostgreSQL 15 (tests/lib/buildgrid_stack.py), over TLS (a self-signed certificate the clients
are given as their root), with JWT authentication and an ACL that tells workers from clients,
and real `qdbuild worker`s as its bots, all on 127.0.0.1.

  1. a corpus (>= 30 tasks for cpu and for cuda:sm_90) built remotely by three workers: every
     task executed remotely, by at least two distinct workers, objects byte-identical to a local
     build, the cpu module runs (qdrt);
  2. the same build into a fresh store: served by the server's action cache, no job handed out;
     --audit recompiles a sample here and finds the same bytes;
  3. a worker SIGKILLed while it compiles: the build still succeeds, the object is the local one;
  4. actions the worker must refuse (a foreign command, another prelude): refused, nothing run;
  5. a worker whose CUDA toolchain differs: it takes cpu actions, never cuda ones; the cuda build
     falls back to local after the queue timeout;
  6. a bad token: the build compiles locally (with a warning); a worker with a bad token or a
     client's token is refused and exits 1; a build that does not trust the server's
     certificate compiles locally (with a warning);
  7. a worker that lies (tests/remote_exec/lying_bot.py: other bytes under their own digest):
     --audit recompiles its results, the build fails (exit 3) naming it, the objects are local;
  8. the server SIGKILLed in the middle of a build: the build finishes locally, same objects.

Usage: test_remote_exec.py --qdbuild build/bin/qdbuild [--venv build/buildgrid-venv]
Exit: 0 all passed; 1 a failure; 125 (skip) without BuildGrid or PostgreSQL.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
import buildgrid_stack  # noqa: E402
import local_servers  # noqa: E402
import qdtest  # noqa: E402

CHECKS = qdtest.Checks("remote_exec", echo_passes=True)
check = CHECKS.check
TARGETS = ["cpu", "cuda:sm_90"]
CASES = ROOT / "tests" / "diff" / "cases"


def heavy_kernel(n):
    """A kernel whose one task takes seconds to compile (n statements in one loop body)."""
    lines = ["import quadrants as qd", "", "", "@qd.kernel",
             "def heavy(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):",
             "    for i in range(x.shape[0]):", "        a = x[i]"]
    lines += [f"        a = qd.sin(a * {1.0 + k * 1e-4:.6f}) + qd.cos(a + {k * 1e-3:.6f})"
              for k in range(n)]
    lines.append("        x[i] = a")
    return "\n".join(lines) + "\n"


def task_objects(store):
    """task key -> object address, from the store's task cache."""
    out = {}
    for sub in (Path(store) / "tasks").iterdir():
        for f in sub.iterdir():
            out[f.name] = f.read_text().split()[3]
    return out


class Worker:
    def __init__(self, qdbuild, url, name, workdir, token, ca, capacity=2, env=None):
        self.name = name
        self.log_path = workdir / f"worker-{name}.log"
        self.log = open(self.log_path, "w")
        e = {k: v for k, v in os.environ.items() if not k.startswith("QDBUILD_")}
        if token is not None:
            e["QDBUILD_REMOTE_EXECUTION_TOKEN"] = token
        e["QDBUILD_REMOTE_EXECUTION_CA"] = ca
        e.update(env or {})
        self.proc = subprocess.Popen([qdbuild, "worker", "--server", url, "--capacity",
                                      str(capacity), "--name", name],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=e)

    def text(self):
        return self.log_path.read_text()

    def count(self, word):
        return sum(1 for line in self.text().splitlines() if word in line)

    def wait_for(self, word, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            if word in self.text():
                return True
            if self.proc.poll() is not None:
                return word in self.text()
            time.sleep(0.02)
        return False

    def stop(self):
        local_servers.stop_child(self.proc, timeout=30)
        self.log.close()
        return self.proc.returncode


class Suite:
    def __init__(self, opts, tmp, stack):
        self.q = opts.qdbuild
        self.tmp = tmp
        self.stack = stack
        self.url = stack.url
        self.client = stack.token("qdbuild-client")
        self.worker_token = stack.token("qdbuild-worker")
        self.workers = []
        self.n = 0

    def worker(self, name, token="worker", **kw):
        w = Worker(self.q, self.url, name, self.tmp,
                   self.worker_token if token == "worker" else token, self.stack.ca, **kw)
        self.workers.append(w)
        return w

    def build(self, src, remote=True, token=None, args=(), targets=TARGETS, background=False,
              ca=True):
        self.n += 1
        store = self.tmp / f"store{self.n}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("QDBUILD_")}
        if remote:
            env["QDBUILD_REMOTE_EXECUTION"] = self.url
            env["QDBUILD_REMOTE_EXECUTION_TOKEN"] = token or self.client
            if ca:
                env["QDBUILD_REMOTE_EXECUTION_CA"] = self.stack.ca
        cmd = [self.q, "build", str(src), "--store", str(store), "--json", "-j", "1", *args]
        for t in targets:
            cmd += ["--target", t]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env, cwd=self.tmp)
        if background:
            return p, store
        return self.finish(p, store)

    @staticmethod
    def finish(p, store):
        out, err = p.communicate(timeout=600)
        try:
            doc = json.loads(out)
        except ValueError:
            doc = None
        per = {}
        if doc is not None:
            for t in doc.get("targets", [doc]):
                per[t.get("target", "cpu")] = t
        return {"rc": p.returncode, "doc": per, "err": err, "store": store}


def tasks(r, target):
    return r["doc"].get(target, {}).get("tasks", {})


def test_corpus(s, corpus):
    local = s.build(corpus, remote=False)
    check(local["rc"] == 0, f"local build of the corpus: exit {local['rc']}\n{local['err'][-2000:]}")
    for t in TARGETS:
        check(tasks(local, t).get("compiled", 0) >= 30,
              f"the corpus has >= 30 tasks for {t} ({tasks(local, t)})")
    ws = [s.worker(f"w{i}") for i in (1, 2, 3)]
    for w in ws:
        check(w.wait_for("bot session"), f"worker {w.name} holds a bot session:\n{w.text()}")
    r = s.build(corpus)
    check(r["rc"] == 0, f"remote build: exit {r['rc']}\n{r['err'][-3000:]}")
    for t in TARGETS:
        tk = tasks(r, t)
        check(tk.get("compiled", 0) == tasks(local, t).get("compiled", -1),
              f"{t}: the remote build compiled what the local one did ({tk})")
        check(tk.get("remote_executed") == tk.get("compiled"),
              f"{t}: every compiled task executed remotely ({tk})")
    ran = {w.name: w.count("exit 0") for w in ws}
    check(sum(1 for n in ran.values() if n > 0) >= 2, f"at least two workers compiled: {ran}")
    check(task_objects(r["store"]) == task_objects(local["store"]),
          "remote objects are byte-identical to local ones (every task key, same address)")
    run = subprocess.run(
        [sys.executable, "-c",
         "import array, sys, qdrt; k = qdrt.open(sys.argv[1]).kernel('reduce:sum_f32');"
         "print(k(array.array('f', [1.5, 2.0, 3.25])))", str(r["store"])],
        capture_output=True, text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT / "runtime" / "python"),
                 QDRT_LIBRARY=str(ROOT / "build" / "lib" / "libqdrt.so")))
    check(run.returncode == 0 and run.stdout.strip() == "6.75",
          f"the remotely compiled cpu module runs: {run.stdout!r} {run.stderr[-1000:]}")
    return local, ws


def test_action_cache(s, corpus, local, ws):
    before = sum(w.count("started") for w in ws)
    r = s.build(corpus, args=("--audit", "5"))
    check(r["rc"] == 0, f"rebuild into a fresh store: exit {r['rc']}\n{r['err'][-2000:]}")
    for t in TARGETS:
        tk = tasks(r, t)
        check(tk.get("remote_cached") == tk.get("compiled") and tk.get("remote_executed") == 0,
              f"{t}: every task served by the action cache ({tk})")
        check(tk.get("audited") == 5, f"{t}: --audit 5 recompiled 5 results here ({tk})")
    check(sum(w.count("started") for w in ws) == before,
          "no job was handed to a worker for the rebuild")
    check(task_objects(r["store"]) == task_objects(local["store"]),
          "action-cache objects are byte-identical to local ones")


def test_worker_killed(s, ws):
    src = s.tmp / "heavy"
    src.mkdir()
    (src / "heavy.py").write_text(heavy_kernel(3000))
    local = s.build(src, remote=False, targets=["cpu"])
    for w in ws:
        check(w.stop() == 0, f"worker {w.name} stops gracefully on SIGTERM (exit 0)")
    victim = s.worker("victim", capacity=1)
    check(victim.wait_for("bot session"), "the victim worker holds a session")
    p, store = s.build(src, targets=["cpu"], background=True)
    took = victim.wait_for("started", timeout=60)
    check(took, f"the victim took the heavy task:\n{victim.text()}")
    victim.proc.kill()
    victim.proc.wait()
    check("exit 0" not in victim.text(), "the victim was killed before it finished")
    rescuer = s.worker("rescuer")
    r = s.finish(p, store)
    check(r["rc"] == 0, f"build with a worker killed mid-job: exit {r['rc']}\n{r['err'][-2000:]}")
    check(task_objects(r["store"]) == task_objects(local["store"]),
          "the object is the one a local build makes")
    # Whoever finished it: the rescuer (the server requeues the job when the dead worker's
    # session expires) or, first, a straggler compile here, which cancels the job on the server.
    return rescuer


def toolchains(worker):
    for line in worker.text().splitlines():
        if "toolchains " in line:
            return line.split("toolchains ", 1)[1].split()
    return []


def test_refusals(s, venv, worker):
    tc = toolchains(worker)
    check(len(tc) == 2 and tc[0].startswith("cpu-") and tc[1].startswith("cuda-"),
          f"the worker names its toolchains: {tc}")
    py = os.path.join(venv, "bin", "python")
    for mode, code in (("foreign", 3), ("prelude", 9)):
        before = worker.count("exit ")
        p = subprocess.run([py, str(Path(__file__).parent / "foreign_action.py"), s.url, s.client,
                            tc[0] if tc else "", mode, s.stack.ca], capture_output=True, text=True,
                           timeout=120)
        try:
            out = json.loads(p.stdout)
        except ValueError:
            out = {}
        check(out.get("code") == code and "refused" in out.get("message", ""),
              f"{mode} action refused with status {code}: {out} {p.stderr[-1500:]}")
        check(worker.count("exit ") == before, f"{mode} action: nothing ran")


def test_toolchain_mismatch(s, worker_ok):
    check(worker_ok.stop() == 0, "the rescuer stops gracefully")
    odd = s.worker("odd-cuda", env={"QDBUILD_CUDA_PATH": str(s.tmp / "no-cuda-here")})
    check(odd.wait_for("bot session"), "the worker with another CUDA toolchain holds a session")
    proj = s.tmp / "mismatch"
    proj.mkdir()
    shutil.copy(ROOT / "examples" / "heat.py", proj)
    (proj / "pyproject.toml").write_text(
        "[tool.qdbuild]\n\n[tool.qdbuild.remote-execution]\nqueue-timeout = 3000\n")
    r = s.build(proj, targets=["cuda:sm_90"])
    tk = tasks(r, "cuda:sm_90")
    check(r["rc"] == 0 and tk.get("compiled", 0) > 0 and tk.get("remote_executed") == 0,
          f"cuda build with no matching worker: compiled locally ({tk}) exit {r['rc']}\n"
          f"{r['err'][-2000:]}")
    check("no worker of" in r["err"] and "cuda" in r["err"],
          f"the build says no worker took its cuda actions: {r['err'][-1000:]}")
    check(odd.count("started") == 0, "the odd worker never took a cuda action")
    r = s.build(proj, targets=["cpu"])
    tk = tasks(r, "cpu")
    check(r["rc"] == 0 and tk.get("remote_executed") == tk.get("compiled") > 0,
          f"the same worker takes the cpu actions ({tk})")
    return odd


def test_untrusted_certificate(s, corpus_small):
    r = s.build(corpus_small, targets=["cpu"], ca=False)
    tk = tasks(r, "cpu")
    check(r["rc"] == 0 and tk.get("remote_executed") == 0 and tk.get("compiled", 0) > 0,
          f"a server certificate the build does not trust: compiled locally ({tk}) exit {r['rc']}")
    check("cannot be reached" in r["err"],
          f"a server certificate the build does not trust: a warning: {r['err'][-800:]}")


def test_tokens(s, corpus_small):
    r = s.build(corpus_small, token="not-a-token", targets=["cpu"])
    tk = tasks(r, "cpu")
    check(r["rc"] == 0 and tk.get("remote_executed") == 0 and tk.get("compiled", 0) > 0,
          f"a bad token: the build compiles locally ({tk}) exit {r['rc']}")
    check("refused" in r["err"] and "not-a-token" not in r["err"],
          f"a bad token: a warning without the token: {r['err'][-800:]}")
    for label, token in (("a bad token", "not-a-token"), ("a client's token", s.client)):
        w = s.worker(f"bad-{len(s.workers)}", token=token)
        try:
            rc = w.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            rc = None
        check(rc == 1 and "refuses this worker" in w.text(),
              f"a worker with {label} is refused and exits 1 (exit {rc}): {w.text()[-500:]}")
        w.stop()


def test_liar(s, venv, toolchain_cpu):
    """A worker that returns other bytes (under their own digest): --audit catches it, the build
    fails naming the worker, and the audited objects are the local ones."""
    src = s.tmp / "liar"
    src.mkdir()
    shutil.copy(ROOT / "examples" / "particles.py", src)
    local = s.build(src, remote=False, targets=["cpu"])
    log_path = s.tmp / "worker-liar.log"
    with open(log_path, "w") as log:
        liar = subprocess.Popen([os.path.join(venv, "bin", "python"),
                                 str(Path(__file__).parent / "lying_bot.py"), s.url,
                                 s.worker_token, s.stack.ca, toolchain_cpu, "liar"],
                                stdout=log, stderr=subprocess.STDOUT)
    try:
        end = time.time() + 30
        while "session" not in log_path.read_text() and time.time() < end and liar.poll() is None:
            time.sleep(0.05)
        check("session" in log_path.read_text(), f"the liar holds a session: {log_path.read_text()}")
        r = s.build(src, targets=["cpu"], args=("--audit", "1000"))
        tk = tasks(r, "cpu")
        check(tk.get("remote_executed", 0) > 0 and
              tk.get("audited") == tk.get("remote_executed") + tk.get("remote_cached"),
              f"the liar's results were all audited ({tk})")
        check(r["rc"] == 3 and "audit: the object of" in r["err"] and "'liar'" in r["err"],
              f"--audit: the lie fails the build (exit 3) naming the worker: exit {r['rc']} "
              f"{r['err'][-1500:]}")
        check(task_objects(r["store"]) == task_objects(local["store"]),
              "--audit: the audited objects are the local compile's")
    finally:
        local_servers.stop_child(liar, timeout=20)


def test_server_killed(s, corpus2, worker):
    local = s.build(corpus2, remote=False, targets=["cpu"])
    done_before = worker.count("exit 0")
    p, store = s.build(corpus2, targets=["cpu"], background=True)
    end = time.time() + 60
    while worker.count("exit 0") < done_before + 3 and time.time() < end and p.poll() is None:
        time.sleep(0.01)
    s.stack.kill_server()
    r = s.finish(p, store)
    check(r["rc"] == 0, f"build with the server killed mid-build: exit {r['rc']}\n{r['err'][-2000:]}")
    check(task_objects(r["store"]) == task_objects(local["store"]),
          "with the server killed: objects byte-identical to a local build")
    tk = tasks(r, "cpu")
    check(0 < tk.get("remote_executed", 0) < tk.get("compiled", 0),
          f"the server was killed after some actions and before the last ({tk})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qdbuild", default=str(qdtest.DEFAULT_QDBUILD))
    ap.add_argument("--venv", default=str(ROOT / "build" / "buildgrid-venv"))
    opts = ap.parse_args()
    buildgrid_stack.require(opts.venv)
    help_text = subprocess.run([opts.qdbuild, "worker", "--server", "bogus"],
                               capture_output=True, text=True).stderr
    if "without remote execution" in help_text:
        check(False, "this qdbuild was built without gRPC (scripts/setup.sh installs it)")
        return CHECKS.finish()
    with CHECKS.workdir("qd-remote-exec-") as tmp:
        cases = sorted(p for p in CASES.iterdir() if p.suffix == ".py")
        corpus = tmp / "corpus"
        corpus.mkdir()
        for p in cases[:6]:
            shutil.copy(p, corpus)
        shutil.copy(CASES / "pyproject.toml", corpus)
        shutil.copy(ROOT / "examples" / "reduce.py", corpus)
        corpus2 = tmp / "corpus2"
        corpus2.mkdir()
        for p in cases[6:16]:
            shutil.copy(p, corpus2)
        shutil.copy(CASES / "pyproject.toml", corpus2)
        with buildgrid_stack.BuildGridStack(opts.venv, auth=True, tls=True) as stack:
            s = Suite(opts, tmp, stack)
            try:
                local, ws = test_corpus(s, corpus)
                test_action_cache(s, corpus, local, ws)
                rescuer = test_worker_killed(s, ws)
                test_refusals(s, opts.venv, rescuer)
                odd = test_toolchain_mismatch(s, rescuer)
                test_tokens(s, corpus)
                test_untrusted_certificate(s, corpus)
                cpu_toolchain = toolchains(odd)[0]
                check(odd.stop() == 0, "the odd worker stops gracefully")
                test_liar(s, opts.venv, cpu_toolchain)
                honest = s.worker("honest")
                check(honest.wait_for("bot session"), "a new worker holds a session")
                # The cuda actions the mismatch build gave up on were cancelled on the server
                # (CancelOperation): a worker that could run them now gets none.
                time.sleep(3)
                check(honest.count("started") == 0,
                      f"abandoned actions were cancelled on the server:\n{honest.text()}")
                test_server_killed(s, corpus2, honest)
            finally:
                for w in s.workers:
                    w.stop()
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
